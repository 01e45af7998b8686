package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// BenchShape is the realistic run shape of the reader benchmarks:
// 8 ranks × 500 targets × 2 metrics × 125 steps = 1M rows.
type BenchShape struct{ Ranks, Targets, Metrics, Steps int }

// Bench1M is the 1M-row shape.
var Bench1M = BenchShape{Ranks: 8, Targets: 500, Metrics: 2, Steps: 125}

// Rows is the row count of the shape.
func (s BenchShape) Rows() int { return s.Ranks * s.Targets * s.Metrics * s.Steps }

// benchValue is the deterministic norm of one row: a noisy positive value,
// with a NULL (NaN) every 9973 rows so that the NULL path is exercised.
func benchValue(rng *rand.Rand, i int) any {
	if i%9973 == 0 {
		return nil
	}
	return 0.01 + rng.Float64()
}

// WriteTrendDB writes a Gen B trend.db of the given shape to path quickly
// (one transaction, multi-row INSERTs in key order). Tests and benchmarks
// only: production code never writes databases.
func WriteTrendDB(tb testing.TB, path string, s BenchShape) {
	tb.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		if _, err := db.Exec(q, args...); err != nil {
			tb.Fatalf("%s: %v", q[:min(len(q), 60)], err)
		}
	}
	exec(`PRAGMA journal_mode=OFF`)
	exec(`PRAGMA synchronous=OFF`)
	exec(ddlTargets)
	exec(ddlMetrics)
	exec(ddlTrend)
	metricNames := []string{"grad_unreduced", "grad_reduced", "actv", "exp_avg"}
	for m := 0; m < s.Metrics; m++ {
		exec(`INSERT INTO monitoring_metrics VALUES(?, ?)`, m+1, metricNames[m%len(metricNames)]+strings.Repeat("_", m/len(metricNames)))
	}
	exec(`BEGIN`)
	for t := 0; t < s.Targets; t++ {
		exec(`INSERT INTO monitoring_targets VALUES(?, ?, 0, 0)`, t+1, fmt.Sprintf("layers.%d.mlp.linear_fc%d.weight", t/4, t%4))
	}
	const perStmt = 500
	stmt, err := db.Prepare(`INSERT INTO trend_data VALUES ` + strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?),", perStmt), ","))
	if err != nil {
		tb.Fatal(err)
	}
	defer stmt.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	args := make([]any, 0, perStmt*8)
	i := 0
	flush := func(final bool) {
		if len(args) == 0 {
			return
		}
		if len(args) == perStmt*8 {
			if _, err := stmt.Exec(args...); err != nil {
				tb.Fatal(err)
			}
		} else if final {
			n := len(args) / 8
			q := `INSERT INTO trend_data VALUES ` + strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?),", n), ",")
			exec(q, args...)
		}
		args = args[:0]
	}
	for r := 0; r < s.Ranks; r++ {
		for st := 0; st < s.Steps; st++ {
			for t := 0; t < s.Targets; t++ {
				for m := 0; m < s.Metrics; m++ {
					n := benchValue(rng, i)
					args = append(args, r, st, t+1, m+1, n, -rng.Float64()*1e-3, rng.Float64()*1e-3, (rng.Float64()-0.5)*1e-6)
					i++
					if len(args) == perStmt*8 {
						flush(false)
					}
				}
			}
		}
	}
	flush(true)
	exec(`COMMIT`)
}

var (
	benchDBOnce sync.Once
	benchDBPath string
)

// benchTrendDB returns the path of a 1M-row trend.db, written once per
// process under the system temp dir (kept between runs for the sqlite3
// comparison in docs/benchmarks.md).
func benchTrendDB(b *testing.B) string {
	benchDBOnce.Do(func() {
		p := filepath.Join(os.TempDir(), "spikescope-bench", "bench1m.trend.db")
		if st, err := os.Stat(p); err == nil && st.Size() > 0 {
			benchDBPath = p
			return
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		tmp := p + ".tmp"
		os.Remove(tmp)
		WriteTrendDB(b, tmp, Bench1M)
		if err := os.Rename(tmp, p); err != nil {
			b.Fatal(err)
		}
		benchDBPath = p
	})
	if benchDBPath == "" {
		b.Fatal("bench db not written")
	}
	return benchDBPath
}

func BenchmarkTrendDB1M(b *testing.B) {
	path := benchTrendDB(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d, err := LoadTrendDB(context.Background(), path, nil)
		if err != nil {
			b.Fatal(err)
		}
		if d.Rows.Len() != Bench1M.Rows() {
			b.Fatalf("rows %d", d.Rows.Len())
		}
	}
	b.ReportMetric(float64(Bench1M.Rows()), "rows/op")
}

// BenchmarkSQLite3CLI1M is the yardstick of BenchmarkTrendDB1M: the sqlite3
// command-line tool reading the same file's key columns and norm (the target
// is ≤ 1.25× its time). Skipped when sqlite3 is not installed.
func BenchmarkSQLite3CLI1M(b *testing.B) {
	bin, err := exec.LookPath("sqlite3")
	if err != nil {
		b.Skip("sqlite3 not installed")
	}
	path := benchTrendDB(b)
	b.ResetTimer()
	for b.Loop() {
		cmd := exec.Command(bin, path, "SELECT rank,step,target_id,metric_id,norm FROM trend_data")
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestWriteTrendDBShape checks the writer and the reader on a small shape.
func TestWriteTrendDBShape(t *testing.T) {
	s := BenchShape{Ranks: 3, Targets: 7, Metrics: 2, Steps: 5}
	path := filepath.Join(t.TempDir(), "w.trend.db")
	WriteTrendDB(t, path, s)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != s.Rows() || len(d.Targets) != 7 || len(d.Metrics) != 2 {
		t.Fatalf("rows %d targets %d metrics %d", d.Rows.Len(), len(d.Targets), len(d.Metrics))
	}
	// row 0 is NULL by construction; every other row is a finite norm ≥ 0.01
	if !math.IsNaN(d.Rows.Value(0, 0)) {
		t.Errorf("row 0 norm %v, want NaN", d.Rows.Value(0, 0))
	}
	for i := 1; i < d.Rows.Len(); i++ {
		if v := d.Rows.Value(0, i); !(v >= 0.01) {
			t.Fatalf("row %d norm %v", i, v)
		}
		if d.Rows.RankOf(i) < d.Rows.RankOf(i-1) {
			t.Fatalf("row %d out of order", i)
		}
	}
	// last row: rank 2, step 4, last target, metric 1 (grad_reduced)
	last := d.Rows.Len() - 1
	if d.Rows.RankOf(last) != 2 || d.Rows.Step[last] != 4 || d.Rows.TargetOf(last) != 6 || d.Metrics[d.Rows.MetricOf(last)] != "grad_reduced" {
		t.Errorf("last row rank %d step %d target %d metric %d", d.Rows.RankOf(last), d.Rows.Step[last], d.Rows.TargetOf(last), d.Rows.MetricOf(last))
	}
}
