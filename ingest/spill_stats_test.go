package ingest

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unsafe"

	"spikescope/analysis"
	"spikescope/model"
)

// loadSpilled loads path with every load spilled (spill true) or none.
func loadSpilled(t *testing.T, path string, spill bool) *model.MonitorData {
	t.Helper()
	defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
	SpillStatsMinRows = math.MaxInt
	if spill {
		SpillStatsMinRows = 0
	}
	d, err := LoadMonitor(context.Background(), path, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// storesStats reports whether the rows store min, max or mean at all.
func storesStats(r *model.Rows) bool {
	for s := model.StatMin; s < model.NumStats; s++ {
		if !r.Lacks[s] {
			return true
		}
	}
	return false
}

// spillCaseDB writes a trend.db of two metrics whose min, max and mean
// hold NaN (NULL), ±Inf (beyond float32 and the ±(1e9+1) clamp) and a
// statistic all NULL in one metric, with a norm spike whose own min, max
// and mean are non-finite; lackMean drops the mean everywhere.
func spillCaseDB(t *testing.T, lackMean bool) string {
	path := filepath.Join(t.TempDir(), "case.trend.db")
	WriteTrendDB(t, path, BenchShape{Ranks: 4, Targets: 60, Metrics: 2, Steps: 40})
	stmts := []string{
		`UPDATE trend_data SET min = NULL WHERE (step*7 + target_id) % 11 = 0`,
		`UPDATE trend_data SET max = 1e39 WHERE (step + target_id) % 13 = 0`,
		`UPDATE trend_data SET mean = -1000000001 WHERE (rank + step + target_id) % 17 = 0`,
		`UPDATE trend_data SET max = NULL WHERE metric_id = 2`,
		`UPDATE trend_data SET norm = norm * 1000, min = NULL, max = 1e39, mean = -1e39 WHERE rank = 1 AND step = 30 AND target_id = 5 AND metric_id = 1`,
	}
	if lackMean {
		stmts = append(stmts, `UPDATE trend_data SET mean = NULL`)
	}
	execSQL(t, path, stmts...)
	return path
}

// TestSpillStatsSameResults: with min, max and mean spilled, every row
// reads the same statistics, Phase 1 finds the same candidates with the
// same min/max/mean, and the summary counts the same non-finite values —
// on inputs with NaN and ±Inf in them, lacking statistics and two metrics.
func TestSpillStatsSameResults(t *testing.T) {
	inputs := map[string]string{
		"generated":           spillCaseDB(t, false),
		"generated-lack-mean": spillCaseDB(t, true),
		"formats21":           filepath.Join(monitorTestdata, "formats21.trend.db"),
		"norm-only":           filepath.Join(monitorTestdata, "norm_only.trend.db"),
		"gen-a":               filepath.Join(monitorTestdata, "gen_a_monitor_metrics.db"),
		"csv-v1":              filepath.Join(monitorTestdata, "csv_v1"),
		"csv-v2":              filepath.Join(monitorTestdata, "csv_v2"),
		"demo-trenddb":        filepath.Join("..", "testdata", "demo", "npu", "trend.db"),
		"demo-csv":            filepath.Join("..", "testdata", "demo", "npu", "monitor_output"),
	}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range inputs {
			if !yield(k) {
				return
			}
		}
	}) {
		t.Run(name, func(t *testing.T) {
			heap, spilled := loadSpilled(t, inputs[name], false), loadSpilled(t, inputs[name], true)
			if heap.Rows.Mapped || heap.Rows.Counted != nil {
				t.Fatal("spill disabled, yet the rows were spilled")
			}
			if want := storesStats(&spilled.Rows); spilled.Rows.Mapped != want || (spilled.Rows.Counted != nil) != want {
				t.Fatalf("mapped %v, counted %v; the rows store min/max/mean: %v", spilled.Rows.Mapped, spilled.Rows.Counted != nil, want)
			}
			if heap.Rows.Len() != spilled.Rows.Len() || heap.Rows.Lacks != spilled.Rows.Lacks {
				t.Fatalf("rows %d lacks %v, spilled: %d %v", heap.Rows.Len(), heap.Rows.Lacks, spilled.Rows.Len(), spilled.Rows.Lacks)
			}
			for s := model.StatMin; s < model.NumStats; s++ {
				for i := range heap.Rows.Len() {
					if a, b := heap.Rows.Value(s, i), spilled.Rows.Value(s, i); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("%s of row %d: %v, spilled %v", s, i, a, b)
					}
				}
			}
			opt := analysis.DefaultPhase1Options()
			p1h, p1s := analysis.Phase1(heap, opt), analysis.Phase1(spilled, opt)
			if a, b := mustJSON(t, p1h), mustJSON(t, p1s); a != b {
				t.Fatalf("Phase 1 differs with spilled statistics:\n%s\n%s", a, b)
			}
			if a, b := mustJSON(t, SummariseMonitor(heap, nil)), mustJSON(t, SummariseMonitor(spilled, nil)); a != b {
				t.Fatalf("summary differs with spilled statistics:\n%s\n%s", a, b)
			}
			if name == "generated" {
				spikeSeen(t, p1s)
			}
		})
	}
}

// spikeSeen: the generated case's spike is a candidate whose min, max and
// mean are NaN, +Inf and -Inf (read from the spilled columns).
func spikeSeen(t *testing.T, p1 *model.Phase1Result) {
	t.Helper()
	for _, a := range p1.Anomalies {
		if a.Rank == 1 && a.Step == 30 && a.TargetName == "layers.1.mlp.linear_fc0.weight" {
			if !math.IsNaN(float64(a.Min)) || !math.IsInf(float64(a.Max), 1) || !math.IsInf(float64(a.Mean), -1) {
				t.Fatalf("spike min/max/mean %v %v %v, want NaN +Inf -Inf", a.Min, a.Max, a.Mean)
			}
			return
		}
	}
	t.Fatalf("the spike is not a candidate among %d", len(p1.Anomalies))
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestSpillStatsCountsFollowAppends: rows appended after a spill (copying
// the mapped columns to the heap) are counted by the summary, as if the
// rows had never been spilled.
func TestSpillStatsCountsFollowAppends(t *testing.T) {
	path := spillCaseDB(t, false)
	heap, spilled := loadSpilled(t, path, false), loadSpilled(t, path, true)
	mapped := unsafe.SliceData(spilled.Rows.Stats[model.StatMin])
	for _, d := range []*model.MonitorData{heap, spilled} {
		d.Rows.Append(0, 99, model.NoMicro, 0, 0, [model.NumStats]float64{1, math.NaN(), math.Inf(1), math.Inf(-1)})
		d.Rows.Append(2, 99, model.NoMicro, 3, 1, [model.NumStats]float64{math.NaN(), math.Inf(-1), math.NaN(), 0})
	}
	if spilled.Rows.Counted != nil {
		t.Fatal("counts of the loaded rows kept after an append")
	}
	if unsafe.SliceData(spilled.Rows.Stats[model.StatMin]) == mapped {
		t.Fatal("append grew the mapped column in place")
	}
	fresh := SummariseMonitor(loadSpilled(t, path, false), nil)
	loaded := mustJSON(t, fresh)
	if a, b := mustJSON(t, SummariseMonitor(heap, nil)), mustJSON(t, SummariseMonitor(spilled, nil)); a != b || a == loaded {
		t.Fatalf("summary after appends differs (or misses them):\n%s\n%s", a, b)
	}

	// the summary takes the kept counts instead of reading the columns
	// again, while they describe the rows; counts of another row count
	// (rows changed behind the methods' back) are not used
	d := loadSpilled(t, path, true)
	d.Rows.Counted.ByMetric[0][model.StatMin].NaN += 1000
	if r := SummariseMonitor(d, nil); r.Metrics[0].NonFinite["min"].NaN != fresh.Metrics[0].NonFinite["min"].NaN+1000 {
		t.Fatalf("summary counted min again: %+v", r.Metrics[0].NonFinite["min"])
	}
	d.Rows.Counted.Rows++
	if got := mustJSON(t, SummariseMonitor(d, nil)); got != loaded {
		t.Fatalf("summary used counts of another row count:\n%s\n%s", got, loaded)
	}
}

// TestSpillStatsKeptInMemory: without room, in an input's folder, in a
// folder that cannot be written, or on rows mapped already, the columns
// stay as they are and the results are those of the heap.
func TestSpillStatsKeptInMemory(t *testing.T) {
	db := spillCaseDB(t, false)
	csv := filepath.Join(t.TempDir(), "tree")
	WriteMonitorCSVTree(t, csv, BenchShape{Ranks: 2, Targets: 20, Metrics: 2, Steps: 6})
	want := mustJSON(t, SummariseMonitor(loadSpilled(t, db, false), nil))
	check := func(what, path string) {
		t.Helper()
		d := loadSpilled(t, path, true)
		if d.Rows.Mapped || d.Rows.Counted != nil {
			t.Errorf("%s: spilled", what)
		}
		if path == db {
			if got := mustJSON(t, SummariseMonitor(d, nil)); got != want {
				t.Errorf("%s: summary differs:\n%s\n%s", what, got, want)
			}
		}
	}

	defer func(f func(string) (int64, bool)) { spillFree = f }(spillFree)
	spillFree = func(string) (int64, bool) { return SpillHeadroom, true } // the headroom, nothing more
	check("a full spill folder", db)
	spillFree = func(string) (int64, bool) { return 0, false }
	check("free space unknown", db)
	spillFree = func(d string) (int64, bool) { return 1 << 40, true }

	t.Setenv("SPIKESCOPE_SPILL_DIR", filepath.Join(t.TempDir(), "missing"))
	check("a missing spill folder", db)
	t.Setenv("SPIKESCOPE_SPILL_DIR", filepath.Dir(db))
	check("the trend.db's folder", db)
	t.Setenv("SPIKESCOPE_SPILL_DIR", csv)
	check("the CSV tree", csv)
	sub := filepath.Join(csv, "spill")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", sub)
	check("a folder inside the CSV tree", csv)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(csv, link); err == nil {
		t.Setenv("SPIKESCOPE_SPILL_DIR", link)
		check("a link to the CSV tree", csv)
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", t.TempDir())
	if d := loadSpilled(t, csv, true); !d.Rows.Mapped {
		t.Error("a spill folder outside the input: not spilled")
	}

	// rows mapped already (loaded out of core) are not spilled again
	d := loadSpilled(t, db, false)
	d.Rows.Mapped = true
	col := unsafe.SliceData(d.Rows.Stats[model.StatMax])
	if SpillStats("", d) || unsafe.SliceData(d.Rows.Stats[model.StatMax]) != col || d.Rows.Counted != nil {
		t.Error("rows mapped already were spilled again")
	}
}

func TestInsideInput(t *testing.T) {
	root := t.TempDir()
	in := filepath.Join(root, "run")
	file := filepath.Join(in, "x.trend.db")
	if err := os.MkdirAll(filepath.Join(in, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir, input string
		want       bool
	}{
		{in, in, true}, {filepath.Join(in, "sub"), in, true}, {in, file, true}, {filepath.Join(in, "sub"), file, true},
		{root, in, false}, {root, file, false}, {filepath.Join(root, "run2"), in, false}, {filepath.Join(root, "..run"), in, false},
		{filepath.Join(in, "..x"), in, true},
		{root, filepath.Join(root, "gone"), true}, // an input that cannot be looked at
		{root, "", false},                         // rows built in memory
	} {
		if got := insideInput(c.dir, c.input); got != c.want {
			t.Errorf("insideInput(%s, %s) = %v, want %v", c.dir, c.input, got, c.want)
		}
	}
}
