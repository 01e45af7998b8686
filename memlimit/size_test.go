package memlimit

import "testing"

func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"0":           0,
		"1048576":     1 << 20,
		"512M":        512 << 20,
		"512m":        512 << 20,
		"512MB":       512 << 20,
		"512MiB":      512 << 20,
		"8G":          8 << 30,
		" 8G ":        8 << 30,
		"1.5G":        3 << 29,
		"64K":         64 << 10,
		"2T":          2 << 40,
		"100B":        100,
		"0G":          0,
		"8 G":         8 << 30,
		"7340032000":  7340032000,
		"0.5GiB":      1 << 29,
		"8388607T":    8388607 << 40,
		"00000000512": 512,
	}
	for in, want := range good {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "M", "-1", "-512M", "+5G", "12X", "1e3", "1,5G", "NaNG", "InfG", "8388608T", "99999999999999999999", "1.5", "G8", "1_000"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

func TestText(t *testing.T) {
	for n, want := range map[int64]string{
		512 << 20: "512 MiB", 3 << 29: "1.5 GiB", 100: "100 bytes", 64 << 10: "64 KiB", 2 << 40: "2.0 TiB",
	} {
		if got := Text(n); got != want {
			t.Errorf("Text(%d) = %q, want %q", n, got, want)
		}
	}
}
