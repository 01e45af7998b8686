package ingest

import (
	"context"
	"testing"

	"spikescope/model"
)

// BenchmarkLoadOutOfCore loads a 2M-row trend.db in memory, out of core
// (a 24 MiB bucket heap: 4 buckets) and, in the same run on the same file,
// the sqlite3 aggregate floor. Every out-of-core load keeps its spill files
// until the process exits (mappings live that long): run it with a small
// -benchtime (e.g. 3x).
func BenchmarkLoadOutOfCore(b *testing.B) {
	const rows = 2_000_000
	load := func(b *testing.B, ooc *OutOfCore) {
		path := scaleTrendDB(b, rows)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			d, err := loadMonitorWith(context.Background(), path, model.FormatTrendDB, nil, ooc)
			if err != nil {
				b.Fatal(err)
			}
			if d.Rows.Len() != rows || d.Rows.Mapped != (ooc != nil) {
				b.Fatalf("rows %d, mapped %v", d.Rows.Len(), d.Rows.Mapped)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	}
	b.Run("in-memory", func(b *testing.B) { load(b, nil) })
	b.Run("out-of-core", func(b *testing.B) { load(b, &OutOfCore{Dir: b.TempDir(), HeapBytes: 24 << 20}) })
	b.Run("sqlite3-floor", func(b *testing.B) { benchSQLiteFloor(b, rows) })
}
