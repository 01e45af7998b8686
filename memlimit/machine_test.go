package memlimit

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// A /proc/meminfo of a 24 GB machine (the kernel's layout).
const meminfoFixture = `MemTotal:       24608100 kB
MemFree:        15810332 kB
MemAvailable:   23625792 kB
Buffers:          233484 kB
Cached:          7271548 kB
`

func TestParseMemAvailable(t *testing.T) {
	if n, ok := ParseMemAvailable([]byte(meminfoFixture)); !ok || n != 23625792*1024 {
		t.Errorf("MemAvailable = %d, %v", n, ok)
	}
	for _, bad := range []string{
		"MemTotal: 100 kB\nMemFree: 50 kB\n", // a kernel before 3.14: no MemAvailable
		"MemAvailable: lots kB\n",
		"MemAvailable:\n",
		"MemAvailable: 100 MB\n",
		"",
	} {
		if n, ok := ParseMemAvailable([]byte(bad)); ok {
			t.Errorf("ParseMemAvailable(%q) = %d, want not found", bad, n)
		}
	}
}

func TestParseProcCgroup(t *testing.T) {
	for _, c := range []struct{ text, v2, v1 string }{
		{"0::/user.slice/user-1000.slice/session-3.scope\n", "/user.slice/user-1000.slice/session-3.scope", ""},
		{"9:name=systemd:/\n4:memory:/process_api/d07110\n3:cpuset:/\n0::/\n", "/", "/process_api/d07110"},
		{"5:cpu,memory:/docker/abc\n", "", "/docker/abc"},
		{"3:cpuset:/\n", "", ""},
		{"", "", ""},
	} {
		v2, v1 := ParseProcCgroup([]byte(c.text))
		if v2 != c.v2 || v1 != c.v1 {
			t.Errorf("ParseProcCgroup(%q) = %q, %q; want %q, %q", c.text, v2, v1, c.v2, c.v1)
		}
	}
}

func TestParseCgroupLimits(t *testing.T) {
	if n, ok := ParseCgroupV2Max([]byte("8589934592\n")); !ok || n != 8<<30 {
		t.Errorf("v2 8 GiB = %d, %v", n, ok)
	}
	for _, none := range []string{"max\n", "", "0\n", "lots\n"} {
		if n, ok := ParseCgroupV2Max([]byte(none)); ok {
			t.Errorf("v2 %q = %d, want no limit", none, n)
		}
	}
	if n, ok := ParseCgroupV1Limit([]byte("4294967296\n")); !ok || n != 4<<30 {
		t.Errorf("v1 4 GiB = %d, %v", n, ok)
	}
	for _, none := range []string{"9223372036854771712\n", "9223372036854775807", "-1\n", ""} {
		if n, ok := ParseCgroupV1Limit([]byte(none)); ok {
			t.Errorf("v1 %q = %d, want no limit", none, n)
		}
	}
}

func TestCgroupDirs(t *testing.T) {
	got := cgroupDirs("/sys/fs/cgroup", "/a/b")
	want := []string{"/sys/fs/cgroup/a/b", "/sys/fs/cgroup/a", "/sys/fs/cgroup"}
	if !slices.Equal(got, want) {
		t.Errorf("cgroupDirs = %v, want %v", got, want)
	}
	if got := cgroupDirs("/r", ""); !slices.Equal(got, []string{"/r"}) {
		t.Errorf("cgroupDirs of no path = %v", got)
	}
	if got := cgroupDirs("/r", "/../../etc"); !slices.Equal(got, []string{"/r/etc", "/r"}) {
		t.Errorf("cgroupDirs stays under the root: %v", got)
	}
}

// readSmall refuses what is not a small regular file: a FIFO (opening it
// must not block), a folder, a file over the bound.
func TestReadSmallChecks(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFO:", err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("x", maxSystemFileBytes+1)), 0o600)
	for _, p := range []string{fifo, dir, big, filepath.Join(dir, "missing")} {
		if _, err := readSmall(p); err == nil {
			t.Errorf("readSmall(%s) read it", p)
		}
	}
	ok := filepath.Join(dir, "meminfo")
	os.WriteFile(ok, []byte(meminfoFixture), 0o600)
	if b, err := readSmall(ok); err != nil || string(b) != meminfoFixture {
		t.Errorf("readSmall of a small file: %q, %v", b, err)
	}
}

// A budget restores the runtime limit it replaced; no limit changes nothing.
func TestApplyRestores(t *testing.T) {
	before := debugLimit()
	restore := Apply(Budget{Bytes: 3 << 30})
	if os.Getenv("GOMEMLIMIT") == "" && debugLimit() != 3<<30 {
		t.Errorf("limit during = %d", debugLimit())
	}
	restore()
	Apply(Budget{})()
	if debugLimit() != before {
		t.Errorf("limit after = %d, want %d", debugLimit(), before)
	}
}

func debugLimit() int64 { return debug.SetMemoryLimit(-1) }

// Available takes the smallest of MemAvailable and every cgroup limit on
// the process's path up to the mount (v2 and v1), and ignores "max" and
// v1's unlimited value; nothing readable is 0 (no default limit).
func TestAvailableFromFixtureTree(t *testing.T) {
	write := func(p, s string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	const gib = int64(1) << 30
	for _, c := range []struct {
		name  string
		files map[string]string
		want  int64
	}{
		{"meminfo only", map[string]string{"proc/meminfo": "MemAvailable: 8388608 kB\n"}, 8 * gib},
		{"v2 parent limit below MemAvailable", map[string]string{
			"proc/meminfo":                 "MemAvailable: 8388608 kB\n",
			"proc/self/cgroup":             "0::/job/step\n",
			"cg/job/step/memory.max":       "max\n",
			"cg/job/memory.max":            "4294967296\n",
			"cg/memory.max":                "max\n",
			"cg/job/step/memory.unrelated": "1\n",
		}, 4 * gib},
		{"v1 own path absent, mount root limited", map[string]string{
			"proc/meminfo":                    "MemAvailable: 8388608 kB\n",
			"proc/self/cgroup":                "4:memory:/process_api/abc\n0::/\n",
			"cg/memory/memory.limit_in_bytes": "2147483648\n",
		}, 2 * gib},
		{"v1 unlimited", map[string]string{
			"proc/meminfo":                    "MemAvailable: 8388608 kB\n",
			"proc/self/cgroup":                "4:memory:/\n",
			"cg/memory/memory.limit_in_bytes": "9223372036854771712\n",
		}, 8 * gib},
		{"limit above MemAvailable", map[string]string{
			"proc/meminfo":     "MemAvailable: 1048576 kB\n",
			"proc/self/cgroup": "0::/\n",
			"cg/memory.max":    "4294967296\n",
		}, gib},
		{"nothing readable", map[string]string{}, 0},
	} {
		dir := t.TempDir()
		for p, s := range c.files {
			write(filepath.Join(dir, p), s)
		}
		if got := availableFrom(filepath.Join(dir, "proc"), filepath.Join(dir, "cg")); got != c.want {
			t.Errorf("%s: %d, want %d", c.name, got, c.want)
		}
	}
}
