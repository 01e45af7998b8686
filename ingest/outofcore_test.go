package ingest

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/words"
)

// rowsDump is every row in row order with its series, values bitwise:
// what two loads must agree on.
func rowsDump(r *model.Rows) []string {
	var out []string
	for run := range r.Runs() {
		for i := run.Lo; i < run.Hi; i++ {
			s := fmt.Sprintf("m%d t%d r%d s%d u%d n%x", run.Metric, run.Target, run.Rank, r.Step[i], r.MicroOf(i), math.Float64bits(r.Norm[i]))
			for st := model.StatMin; st < model.NumStats; st++ {
				v := r.Value(st, i)
				if math.IsNaN(v) {
					s += " NaN" // NaN payloads differ between float32 and float64 NaN
				} else {
					s += fmt.Sprintf(" %x", math.Float64bits(v))
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// sameRows fails t where b's rows differ from a's.
func sameRows(t *testing.T, what string, a, b *model.Rows) {
	t.Helper()
	da, db := rowsDump(a), rowsDump(b)
	if len(da) != len(db) {
		t.Fatalf("%s: %d rows, want %d", what, len(db), len(da))
	}
	for i := range da {
		if da[i] != db[i] {
			t.Fatalf("%s: row %d is %q, want %q", what, i, db[i], da[i])
		}
	}
	if a.Lacks != b.Lacks {
		t.Errorf("%s: lacks %v, want %v", what, b.Lacks, a.Lacks)
	}
}

// randomRows are rows of several metrics, targets and ranks in random
// order, with NaN and ±Inf values, a statistic lacking and repeated keys.
func randomRows(rng *rand.Rand, n int) model.Rows {
	var r model.Rows
	r.Lack(model.StatMax)
	specials := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1)}
	val := func() float64 {
		if rng.IntN(8) == 0 {
			return specials[rng.IntN(len(specials))]
		}
		return rng.NormFloat64() * 1e3
	}
	for range n {
		micro := model.NoMicro
		if rng.IntN(2) == 0 {
			micro = int32(rng.IntN(3))
		}
		r.Append(int32(rng.IntN(5)*3), int32(rng.IntN(6)), micro, int32(rng.IntN(4)), uint8(rng.IntN(3)),
			[model.NumStats]float64{val(), val(), math.NaN(), val()})
	}
	return r
}

// sinkSorted spills r in random pieces (as readers do, several goroutines'
// blocks arriving out of order) and sorts it out of core.
func sinkSorted(t *testing.T, rng *rand.Rand, r *model.Rows, d *model.MonitorData, o OutOfCore, dedup bool) sinkBuilt {
	t.Helper()
	s := newRowSink("test", o, nil)
	s.dedup = dedup
	type piece struct{ lo, hi int }
	var ps []piece
	for lo := 0; lo < r.Len(); {
		hi := min(r.Len(), lo+1+rng.IntN(9))
		ps = append(ps, piece{lo, hi})
		lo = hi
	}
	rng.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	for _, p := range ps {
		var b model.Rows
		b.Lacks = r.Lacks
		for i := p.lo; i < p.hi; i++ {
			var v [model.NumStats]float64
			for st := range v {
				v[st] = r.Value(model.Stat(st), i)
			}
			b.Append(r.Rank[i], r.Step[i], r.MicroOf(i), r.Target[i], r.Metric[i], v)
		}
		if err := s.add(int64(p.lo), &b, nil, nil, -1); err != nil {
			t.Fatal(err)
		}
	}
	built, err := s.build(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	return built
}

// The out-of-core sort gives what SortSeries gives (and, with the
// duplicate rule, what dropDuplicateRows then SortSeries give), for
// buckets of one row to all rows and chunks of one row up.
func TestOutOfCoreSortMatchesSortSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for trial := range 40 {
		n := 1 + rng.IntN(400)
		src := randomRows(rng, n)
		hasStat := [model.NumStats]bool{true, true, false, true}
		for _, dedup := range []bool{false, true} {
			want := &model.MonitorData{Rows: src, HasStat: hasStat, Targets: make([]model.Target, 4), Metrics: []string{"a", "b", "c"}}
			for i := range want.Targets {
				want.Targets[i].Name = fmt.Sprint("w", i)
			}
			want.Rows.Rank = append([]int32(nil), src.Rank...) // dropDuplicateRows writes the target column
			want.Rows.Step = append([]int32(nil), src.Step...)
			want.Rows.SetMicroColumn(append([]int32(nil), src.MicroColumn()...))
			want.Rows.Target, want.Rows.Metric = append([]int32(nil), src.Target...), append([]uint8(nil), src.Metric...)
			want.Rows.Norm = append([]float64(nil), src.Norm...)
			for st := range src.Stats {
				want.Rows.Stats[st] = append([]float32(nil), src.Stats[st]...)
			}
			if dedup {
				dropDuplicateRows(want)
			}
			want.Rows.SortSeries()

			o := OutOfCore{Dir: dir, ChunkRows: 1 + rng.IntN(5), BucketRows: []int{1, 2, 7, 50, n}[trial%5]}
			got := &model.MonitorData{HasStat: hasStat, Targets: want.Targets, Metrics: want.Metrics}
			got.Rows.Lacks = src.Lacks
			built := sinkSorted(t, rng, &src, got, o, dedup)
			what := fmt.Sprintf("trial %d (%d rows, %+v, dedup %v)", trial, n, o, dedup)
			sameRows(t, what, &want.Rows, &got.Rows)
			if !got.Rows.Mapped || got.Rows.Table == nil {
				t.Errorf("%s: not mapped in series order", what)
			}
			if dedup {
				var w string
				if built.dups > 0 {
					w = words.Say(duplicateRowsWarning(built.dups, built.firstDup), words.English)
				}
				if len(said(want.WarningsReasons)) != min(built.dups, 1) || (built.dups > 0 && said(want.WarningsReasons)[0] != w) {
					t.Errorf("%s: warning %q, want %q", what, w, said(want.WarningsReasons))
				}
			}
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", dir, ents)
	}
}

// outOfCoreInputs are inputs that take every path of the readers: the
// fixtures (Gen A, norm only, CSV v1 and v2, counted trend.db reads) and
// made databases — micro steps in the targets, repeated keys on the
// claimed and the counted read, broken keys and cells, NaN and ±Inf.
func outOfCoreInputs(t *testing.T) []string {
	dir := t.TempDir()
	micro := filepath.Join(dir, "micro.trend.db")
	execSQL(t, micro, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced'),(2,'grad_reduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'w',0,0),(2,'w',0,1),(3,'v',0,0),(4,'v',0,1)`,
		`INSERT INTO trend_data VALUES(0,5,1,1,1.0,0,0,0),(0,5,2,1,2.0,0,0,0),(0,5,1,2,3.0,0,0,0),(0,5,4,1,4.0,0,0,0),(1,5,3,1,5.0,1e10,-1e10,NULL)`)
	var vals []string
	rng := rand.New(rand.NewPCG(3, 4))
	for rank := range 12 {
		for step := range 6 {
			for tid := 1; tid <= 3; tid++ {
				for mid := 1; mid <= 2; mid++ {
					norm := fmt.Sprint(rng.Float64() * 10)
					switch rng.IntN(15) {
					case 0:
						norm = "NULL"
					case 1:
						norm = "1e9+2"
					}
					vals = append(vals, fmt.Sprintf("(%d,%d,%d,%d,%s,%v,NULL,%v)", rank, step, tid, mid, norm, rng.NormFloat64(), rng.NormFloat64()))
					if rng.IntN(10) == 0 { // a repeated key
						vals = append(vals, fmt.Sprintf("(%d,%d,%d,%d,%v,0,0,0)", rank, step, tid, mid, rng.Float64()))
					}
				}
			}
		}
	}
	ins := `INSERT INTO trend_data VALUES` + strings.Join(vals, ",")
	noKey := `CREATE TABLE trend_data (rank, step, target_id, metric_id, norm REAL, min REAL, max REAL, mean REAL)`
	dups := filepath.Join(dir, "dups.trend.db") // 12 ranks: the claimed read
	execSQL(t, dups, ddlTargets, ddlMetrics, noKey,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced'),(2,'grad_reduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'a',0,0),(2,'b',0,0),(3,'c',1,0)`, ins)
	bad := filepath.Join(dir, "bad.trend.db") // broken rows: the counted read
	execSQL(t, bad, ddlTargets, ddlMetrics, noKey,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced'),(2,'grad_reduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'a',0,0),(2,'b',0,0),(3,'c',1,0)`, ins,
		`INSERT INTO trend_data VALUES(0,'x',1,1,3.0,0,0,0),(2,1,1,1,'oops',0,0,0),(3,2,9,1,1.5,0,0,0),(4,3,1,7,2.5,'bad',0,0)`)
	noNorm := filepath.Join(dir, "nonorm.trend.db") // no norm column, two ranks: the counted read
	execSQL(t, noNorm, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, min REAL, max REAL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID`,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'a',0,0),(2,'b',0,0)`,
		`INSERT INTO trend_data VALUES(0,0,1,1,1,2),(0,0,2,1,3,4),(0,1,1,1,5,6),(1,0,1,1,7,8),(1,1,2,1,-1e10,1e10)`)
	return []string{noNorm, "../testdata/demo/npu/trend.db", "../testdata/demo/npu/monitor_output",
		"../testdata/monitor/formats21.trend.db", "../testdata/monitor/gen_a_monitor_metrics.db", "../testdata/monitor/norm_only.trend.db",
		"../testdata/monitor/csv_v1", "../testdata/monitor/csv_v2", micro, dups, bad}
}

// Out of core, with buckets and chunks of a few rows, every input loads
// to the same rows, targets, metrics and warnings as in memory, and leaves
// nothing in the spill folder.
func TestOutOfCoreLoadsLikeInMemory(t *testing.T) {
	ctx := context.Background()
	spillDir := t.TempDir()
	for _, p := range outOfCoreInputs(t) {
		want, err := LoadMonitor(ctx, p, model.FormatAuto, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		// chunks and buckets of a few rows (the demo's 15,600 rows: a
		// few dozen)
		small := 1 + want.Rows.Len()/500
		for _, o := range []OutOfCore{{Dir: spillDir, ChunkRows: small, BucketRows: small}, {Dir: spillDir, ChunkRows: 3 * small, BucketRows: 17 * small}, {Dir: spillDir, HeapBytes: 1 << 30}} {
			what := fmt.Sprintf("%s %+v", filepath.Base(p), o)
			var last model.Progress
			got, err := LoadMonitorOutOfCore(ctx, p, model.FormatAuto, func(pr model.Progress) { last = pr }, o)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			sameRows(t, what, &want.Rows, &got.Rows)
			if !got.Rows.Mapped {
				t.Errorf("%s: rows not mapped", what)
			}
			if last.Total == 0 {
				t.Errorf("%s: no progress reported", what)
			}
			if got.Rows.Len() > 0 && (last.Stage != model.StageSorting || last.Done != last.Total) {
				t.Errorf("%s: the last report is %+v, not the sort's end", what, last)
			}
			// the counts taken bucket by bucket are those of the rows
			if c := got.Rows.Counted; got.Rows.Len() > 0 && (c == nil || !reflect.DeepEqual(c.ByMetric, want.Rows.CountStats().ByMetric)) {
				t.Errorf("%s: kept non-finite counts %+v, the rows have %+v", what, c, want.Rows.CountStats())
			}
			for _, f := range []struct {
				name string
				a, b any
			}{{"warnings", firstRepeatless(said(want.WarningsReasons)), firstRepeatless(said(got.WarningsReasons))}, {"targets", want.Targets, got.Targets}, {"metrics", want.Metrics, got.Metrics},
				{"stats", want.HasStat, got.HasStat}, {"micro", want.ExplicitMicro, got.ExplicitMicro}, {"one-based", want.MicroOneBased, got.MicroOneBased},
				{"read mode", want.ReadMode, got.ReadMode}} {
				if !reflect.DeepEqual(f.a, f.b) {
					t.Errorf("%s: %s %q, want %q", what, f.name, f.b, f.a)
				}
			}
		}
	}
	if ents, _ := os.ReadDir(spillDir); len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", spillDir, ents)
	}
}

// firstRepeatless drops the first repeated row's name from the duplicate
// warning: the claimed read (a dozen ranks) places rank ranges in the
// order they finish, in memory as out of core, so which repeat comes
// first in row order varies from run to run.
func firstRepeatless(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i], _, _ = strings.Cut(w, "; the first repeat: ")
	}
	return out
}

// A cancelled load stops in the sort too, with the context's error.
func TestOutOfCoreSortCancelled(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	r := randomRows(rng, 100)
	s := newRowSink("test", OutOfCore{Dir: t.TempDir(), ChunkRows: 10, BucketRows: 10}, nil)
	if err := s.add(0, &r, nil, nil, -1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	d := &model.MonitorData{HasStat: [model.NumStats]bool{true, true, false, true}}
	if _, err := s.build(ctx, d); err != context.Canceled {
		t.Fatalf("build of a cancelled load: %v", err)
	}
}
