package ingest

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"spikescope/testdata/synth"
)

// floorQuery is the sqlite3 aggregate read floor: every column of every
// row read, nothing printed (the CLI's printing scan spends most of its
// time formatting text).
const floorQuery = "SELECT count(*), sum(rank), sum(step), sum(target_id), sum(metric_id), sum(norm), sum(min), sum(max), sum(mean) FROM trend_data"

// scaleTrendDB returns a cached trend.db of rows rows (synth.WriteLargeTrendDB,
// window 8) under $TMPDIR/spikescope-bench/, or the file of
// $SPIKESCOPE_TRENDDB_<rows> when set (e.g. one written by
// `go run ./testdata/gen -large-trenddb`).
func scaleTrendDB(b *testing.B, rows int) string {
	if p := os.Getenv("SPIKESCOPE_TRENDDB_" + strconv.Itoa(rows)); p != "" {
		return p
	}
	dir := filepath.Join(os.TempDir(), "spikescope-bench")
	path := filepath.Join(dir, "scale-"+strconv.Itoa(rows)+".trend.db")
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	tmp := path + ".tmp"
	os.Remove(tmp)
	if err := synth.WriteLargeTrendDB(tmp, rows, 8); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkTrendDBScale reads 2M-, 4M- and 16M-row trend.db files and, in the
// same run on the same file, the sqlite3 aggregate floor (skipped without
// the sqlite3 CLI). The target: reader ≤ 1.5× floor.
func BenchmarkTrendDBScale(b *testing.B) {
	for _, rows := range []int{2_000_000, 4_000_000, 16_000_000} {
		name := strconv.Itoa(rows/1_000_000) + "M"
		b.Run(name+"/reader", func(b *testing.B) {
			path := scaleTrendDB(b, rows)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				d, err := LoadTrendDB(context.Background(), path, nil)
				if err != nil {
					b.Fatal(err)
				}
				if d.Rows.Len() != rows {
					b.Fatalf("rows %d", d.Rows.Len())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
		b.Run(name+"/sqlite3-floor", func(b *testing.B) { benchSQLiteFloor(b, rows) })
	}
}

// benchSQLiteFloor times the sqlite3 CLI's aggregate over every column of
// the generated rows-row trend.db: the read floor beside a reader.
func benchSQLiteFloor(b *testing.B, rows int) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("sqlite3 not installed")
	}
	path := scaleTrendDB(b, rows)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, path, floorQuery)
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
}
