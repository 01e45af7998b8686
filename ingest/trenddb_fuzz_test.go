package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzTrendDB overwrites bytes of small valid databases (Gen B and Gen A)
// at a fuzzed position, or truncates them, and loads the result: the
// reader must return data or an *InputError, never panic or hang.
func FuzzTrendDB(f *testing.F) {
	var dbs [][]byte
	for _, name := range []string{"formats21.trend.db", "gen_a_monitor_metrics.db", "norm_only.trend.db"} {
		b, err := os.ReadFile(filepath.Join(monitorTestdata, name))
		if err != nil {
			f.Fatal(err)
		}
		dbs = append(dbs, b)
	}
	f.Add(uint8(0), uint32(0), []byte{}, uint32(0))
	f.Add(uint8(0), uint32(100), []byte{0xff, 0xff}, uint32(0))
	f.Add(uint8(1), uint32(4096+8), []byte{0x0d, 0, 0, 0}, uint32(0))
	f.Add(uint8(2), uint32(16), []byte{0, 1}, uint32(0)) // page size field
	f.Add(uint8(0), uint32(0), []byte{}, uint32(20000))  // truncated
	f.Add(uint8(0), uint32(8192+3), []byte("abc"), uint32(0))
	f.Fuzz(func(t *testing.T, which uint8, pos uint32, patch []byte, cut uint32) {
		src := dbs[int(which)%len(dbs)]
		b := append([]byte(nil), src...)
		if len(b) > 0 {
			p := int(pos % uint32(len(b)))
			copy(b[p:], patch)
		}
		if cut > 0 {
			b = b[:int(cut%uint32(len(b)))+1]
		}
		path := filepath.Join(t.TempDir(), "f.trend.db")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := LoadTrendDB(context.Background(), path, nil)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %v (%T) is not an InputError", err, err)
			}
			return
		}
		n := d.Rows.Len()
		for i := 0; i < n; i++ {
			if int(d.Rows.TargetOf(i)) >= len(d.Targets) || int(d.Rows.MetricOf(i)) >= len(d.Metrics) {
				t.Fatalf("row %d: target %d/%d metric %d/%d", i, d.Rows.TargetOf(i), len(d.Targets), d.Rows.MetricOf(i), len(d.Metrics))
			}
		}
	})
}
