package main

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// demoCfg is the configuration the committed demo was generated with.
var demoCfg = synth.DefaultConfig()

// Expected demo sizes, derived from the configuration by hand:
// 1 embedding + 6 layers × 6 + final norm + output layer = 39 parameters;
// trend_data = 8 ranks × 10 steps × 39 × (4 micro steps + 1 reduced);
// one dumped micro batch = 52 records per layer + 27 outside the layers.
const (
	demoParams      = 39
	demoTrendRows   = 8 * 10 * 39 * (4 + 1)
	demoDumpEntries = 52*6 + 27
)

func openDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func queryInt(t *testing.T, db *sql.DB, q string) int {
	t.Helper()
	var n int
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

// dumpKeys returns the keys of dump.json's data object in file order.
func dumpKeys(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	dec := json.NewDecoder(bytes.NewReader(doc.Data))
	dec.Token() // {
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

func TestExtractDemoHasAllFormats(t *testing.T) {
	dir, cleanup, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	run := synth.Generate(demoCfg)
	if got := len(run.Params); got != demoParams {
		t.Fatalf("parameters = %d, want %d", got, demoParams)
	}
	for _, p := range []string{synth.DemoTrendDB, synth.DemoBaselineTrendDB} {
		db := openDB(t, filepath.Join(dir, p))
		if n := queryInt(t, db, "SELECT count(*) FROM trend_data"); n != demoTrendRows {
			t.Errorf("%s: %d trend_data rows, want %d", p, n, demoTrendRows)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM trend_data WHERE metric_id = 2"); n != 8*10*demoParams {
			t.Errorf("%s: %d grad_reduced rows, want %d", p, n, 8*10*demoParams)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM monitoring_targets"); n != demoParams {
			t.Errorf("%s: %d targets", p, n)
		}
		if n := queryInt(t, db, "SELECT max_step FROM global_stats"); n != 39 {
			t.Errorf("%s: max_step %d, want 39", p, n)
		}
		if n := queryInt(t, db, "SELECT max_rank FROM global_stats"); n != 7 {
			t.Errorf("%s: max_rank %d, want 7", p, n)
		}
		// grad_reduced only at each optimizer step's first micro step
		if n := queryInt(t, db, "SELECT count(*) FROM trend_data WHERE metric_id = 2 AND step % 4 != 0"); n != 0 {
			t.Errorf("%s: %d grad_reduced rows off the window start", p, n)
		}
		var name string
		if err := db.QueryRow("SELECT metric_name FROM monitoring_metrics WHERE metric_id = 1").Scan(&name); err != nil || name != "grad_unreduced" {
			t.Errorf("%s: metric 1 = %q, %v", p, name, err)
		}
	}
	rankDirs, err := os.ReadDir(filepath.Join(dir, synth.DemoCSVDir))
	if err != nil {
		t.Fatal(err)
	}
	if len(rankDirs) != 8 {
		t.Fatalf("%d rank folders, want 8", len(rankDirs))
	}
	for i, rd := range rankDirs {
		if !strings.Contains(rd.Name(), fmt.Sprintf("-rank%d-", i)) {
			t.Errorf("rank folder %q is not rank %d", rd.Name(), i)
		}
		files, _ := os.ReadDir(filepath.Join(dir, synth.DemoCSVDir, rd.Name()))
		if len(files) != 20 {
			t.Errorf("%s: %d files, want 20", rd.Name(), len(files))
		}
	}
	un, err := os.ReadFile(filepath.Join(dir, synth.DemoCSVDir, rankDirs[3].Name(), "grad_unreduced_5-5.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(un), "\n"), "\n")
	if lines[0] != "vpp_stage,name,step,micro_step,min,max,mean,norm,shape,dtype" || len(lines) != 1+4*demoParams {
		t.Errorf("grad_unreduced_5-5.csv: header %q, %d lines", lines[0], len(lines))
	}
	if !strings.HasPrefix(lines[3], `0,layers.0.self_attention.linear_qkv.weight,5,0,`) ||
		!strings.HasSuffix(lines[3], `,"[3072, 4096]",torch.float32`) {
		t.Errorf("line 3 = %q", lines[3])
	}
	for _, f := range run.DumpFolders() {
		for _, root := range []string{synth.DemoDumpDir, synth.DemoBaselineDumpDir} {
			d := filepath.Join(dir, root, f.Path())
			for _, name := range []string{"construct.json", "stack.json"} {
				if st, err := os.Stat(filepath.Join(d, name)); err != nil || st.Size() == 0 {
					t.Errorf("%s/%s missing or empty (%v)", d, name, err)
				}
			}
			if n := len(dumpKeys(t, filepath.Join(d, "dump.json"))); n != demoDumpEntries {
				t.Errorf("%s: %d dump entries, want %d", d, n, demoDumpEntries)
			}
		}
	}
	cleanup()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cleanup left %s (%v)", dir, err)
	}
}

// writeAll writes every format of the demo into dir.
func writeAll(t *testing.T, dir string) {
	t.Helper()
	run := synth.Generate(demoCfg)
	for _, err := range []error{
		run.WriteTrendDB(filepath.Join(dir, "a.trend.db")),
		run.WriteCSVTree(filepath.Join(dir, "csv")),
		run.WriteDumps(filepath.Join(dir, "dump"), synth.Anomalous),
		run.WriteDumps(filepath.Join(dir, "dump_b"), synth.Baseline),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
}

// treeFiles maps relative path → content for every file under dir except
// SQLite files.
func treeFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(p, ".db") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	return out
}

// trendRows reads trend_data in primary-key order as text lines.
func trendRows(t *testing.T, path string) []string {
	t.Helper()
	db := openDB(t, path)
	rows, err := db.Query("SELECT rank, step, target_id, metric_id, norm, min, max, mean FROM trend_data ORDER BY rank, step, target_id, metric_id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var r, s, tg, m int
		var v [4]sql.NullFloat64
		if err := rows.Scan(&r, &s, &tg, &m, &v[0], &v[1], &v[2], &v[3]); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprint(r, s, tg, m, v))
	}
	return out
}

func TestGeneratorIsDeterministic(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeAll(t, a)
	writeAll(t, b)
	fa, fb := treeFiles(t, a), treeFiles(t, b)
	if len(fa) != 8*20+2*3*3 || len(fa) != len(fb) {
		t.Fatalf("%d and %d files, want %d", len(fa), len(fb), 8*20+2*3*3)
	}
	for name, ba := range fa {
		if !bytes.Equal(ba, fb[name]) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	ra, rb := trendRows(t, filepath.Join(a, "a.trend.db")), trendRows(t, filepath.Join(b, "a.trend.db"))
	if len(ra) != demoTrendRows || strings.Join(ra, "\n") != strings.Join(rb, "\n") {
		t.Errorf("trend.db rows differ (%d vs %d)", len(ra), len(rb))
	}
}

// TestCommittedDemoIsCurrent guards against a stale testdata/demo: the
// embedded files equal what the generator writes now.
func TestCommittedDemoIsCurrent(t *testing.T) {
	dir, cleanup, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	tmp := t.TempDir()
	run := synth.Generate(demoCfg)
	if err := run.WriteDumps(filepath.Join(tmp, "dump"), synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteCSVTree(filepath.Join(tmp, "csv")); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteTrendDBFor(filepath.Join(tmp, "b.db"), synth.Baseline); err != nil {
		t.Fatal(err)
	}
	gen, demo := treeFiles(t, tmp), treeFiles(t, dir)
	for rel, b := range gen {
		var want string
		switch {
		case strings.HasPrefix(rel, "dump"):
			want = filepath.Join(filepath.FromSlash(synth.DemoDumpDir), strings.TrimPrefix(rel, "dump"+string(filepath.Separator)))
		default:
			want = filepath.Join(filepath.FromSlash(synth.DemoCSVDir), strings.TrimPrefix(rel, "csv"+string(filepath.Separator)))
		}
		if !bytes.Equal(b, demo[want]) {
			t.Errorf("%s is stale: rerun go run ./testdata/gen", want)
		}
	}
	if a, b := trendRows(t, filepath.Join(tmp, "b.db")), trendRows(t, filepath.Join(dir, synth.DemoBaselineTrendDB)); strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("%s is stale", synth.DemoBaselineTrendDB)
	}
	var truth synth.Truth
	tb, err := os.ReadFile(filepath.Join(dir, "TRUTH.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(tb, &truth); err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(run.Truth())
	got, _ := json.Marshal(truth)
	if !bytes.Equal(want, got) {
		t.Errorf("TRUTH.json is stale:\n got %s\nwant %s", got, want)
	}
}

// TestMonitorMatchesTrendDB: Run.Monitor returns exactly the trend.db rows.
func TestMonitorMatchesTrendDB(t *testing.T) {
	dir := t.TempDir()
	run := synth.Generate(demoCfg)
	path := filepath.Join(dir, "x.trend.db")
	if err := run.WriteTrendDB(path); err != nil {
		t.Fatal(err)
	}
	md := run.Monitor(synth.Anomalous)
	if md.ExplicitMicro || md.Format != model.FormatTrendDB || md.Rows.Len() != demoTrendRows || len(md.Targets) != demoParams {
		t.Fatalf("monitor: explicit=%v format=%s rows=%d targets=%d", md.ExplicitMicro, md.Format, md.Rows.Len(), len(md.Targets))
	}
	db := openDB(t, path)
	rows, err := db.Query(`SELECT d.rank, d.step, t.target_name, m.metric_name, d.norm, d.min, d.max, d.mean
		FROM trend_data d JOIN monitoring_targets t USING (target_id) JOIN monitoring_metrics m USING (metric_id)
		ORDER BY d.rank, d.step, d.target_id, d.metric_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var rank, step int
		var target, metric string
		var v [4]float64
		if err := rows.Scan(&rank, &step, &target, &metric, &v[0], &v[1], &v[2], &v[3]); err != nil {
			t.Fatal(err)
		}
		r := &md.Rows
		if int(r.RankOf(i)) != rank || int(r.Step[i]) != step || md.Targets[r.TargetOf(i)].Name != target ||
			md.Metrics[r.MetricOf(i)] != metric || r.MicroOf(i) != model.NoMicro {
			t.Fatalf("row %d: monitor (%d,%d,%s,%s) vs db (%d,%d,%s,%s)", i, r.RankOf(i), r.Step[i],
				md.Targets[r.TargetOf(i)].Name, md.Metrics[r.MetricOf(i)], rank, step, target, metric)
		}
		for s := model.Stat(0); s < model.NumStats; s++ {
			want := v[s] // the norm as read, min/max/mean as float32
			if s != model.StatNorm {
				want = float64(float32(want))
			}
			if r.Value(s, i) != want {
				t.Fatalf("row %d %s: monitor %v vs db %v", i, s, r.Value(s, i), v[s])
			}
		}
	}
	if i != demoTrendRows {
		t.Errorf("%d db rows", i)
	}
}

// finalNorm is the accumulated norm of a parameter at the end of an
// optimizer step (6-digit value as stored).
func finalNorm(md *model.MonitorData, rank, optStep, window int, name string) float64 {
	step := int32(optStep*window + window - 1)
	for i := range md.Rows.Len() {
		if int(md.Rows.RankOf(i)) == rank && md.Rows.Step[i] == step && md.Rows.MetricOf(i) == 0 && md.Targets[md.Rows.TargetOf(i)].Name == name {
			return md.Rows.Value(model.StatNorm, i)
		}
	}
	return math.NaN()
}

// TestPlantedFaultInMonitor checks the planted structure: the largest
// increment at the fault step is the truth coordinate; the step after grows
// ≥2× on ≥60% of the ranks (and the step before does not); the baseline
// never does.
func TestPlantedFaultInMonitor(t *testing.T) {
	run := synth.Generate(demoCfg)
	tr := run.Truth()
	if tr.FaultOptStep != 5 || tr.FaultMicroStep != 2 || tr.FaultTrendStep != 22 || tr.FaultRank != 3 || tr.FaultLayer != 2 {
		t.Fatalf("truth coordinate %+v", tr)
	}
	if tr.Parameter != "layers.2.mlp.linear_fc2.weight" || tr.PlantedOperator != "NPU.npu_swiglu.2.forward" {
		t.Fatalf("truth parameter %q, operator %q", tr.Parameter, tr.PlantedOperator)
	}
	W := demoCfg.Window
	// largest cumulative increment over every (rank, micro step, parameter) of step 5
	best, bestDelta := "", 0.0
	for rank := 0; rank < demoCfg.Ranks; rank++ {
		for m := 1; m < W; m++ {
			for p, par := range run.Params {
				d := run.Grad(synth.Anomalous, rank, 5, m, p).Norm - run.Grad(synth.Anomalous, rank, 5, m-1, p).Norm
				if d > bestDelta {
					best, bestDelta = fmt.Sprintf("%d/%d/%s", rank, m, par.Squashed), d
				}
			}
		}
	}
	if best != "3/2/layers.2.mlp.linear_fc2.weight" {
		t.Errorf("largest increment at step 5: %s", best)
	}
	an, base := run.Monitor(synth.Anomalous), run.Monitor(synth.Baseline)
	grow := func(md *model.MonitorData, from int) (n int) {
		for rank := 0; rank < demoCfg.Ranks; rank++ {
			if finalNorm(md, rank, from+1, W, tr.Parameter) >= 2*finalNorm(md, rank, from, W, tr.Parameter) {
				n++
			}
		}
		return n
	}
	if n := grow(an, 5); n < 6 {
		t.Errorf("step 5→6: %d ranks grow ≥2×, want ≥ 6", n)
	}
	if n := grow(an, 4); n != 1 {
		t.Errorf("step 4→5: %d ranks grow ≥2×, want 1 (the fault rank)", n)
	}
	for s := 0; s+1 < demoCfg.OptSteps; s++ {
		if n := grow(base, s); n != 0 {
			t.Errorf("baseline step %d→%d: %d ranks grow ≥2×", s, s+1, n)
		}
	}
	if fmt.Sprint(tr.ExplosionRanks) != "[1 2 3 5 6 7]" {
		t.Errorf("explosion ranks %v", tr.ExplosionRanks)
	}
}

// outStat reads output[0] Norm of every forward record of a dump.json.
func outNorms(t *testing.T, path string) map[string]float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Data map[string]struct {
			Output []*struct{ Norm *float64 } `json:"output"`
			Weight []struct{ Norm float64 }   `json:"weight"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for k, v := range doc.Data {
		switch {
		case len(v.Output) > 0 && v.Output[0] != nil && v.Output[0].Norm != nil:
			out[k] = *v.Output[0].Norm
		case len(v.Weight) > 0:
			out[k] = v.Weight[0].Norm
		}
	}
	return out
}

// TestPlantedFaultInDumps: in A/B the planted operator is the first forward
// op of the fault layer that deviates; upstream ops match within device
// noise; C/D never deviate; A's largest parameter gradient is the fault
// layer's fc2.
func TestPlantedFaultInDumps(t *testing.T) {
	dir, cleanup, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	tr := synth.Generate(demoCfg).Truth()
	A := outNorms(t, filepath.Join(dir, tr.DumpA, "dump.json"))
	B := outNorms(t, filepath.Join(dir, tr.DumpB, "dump.json"))
	C := outNorms(t, filepath.Join(dir, tr.DumpC, "dump.json"))
	D := outNorms(t, filepath.Join(dir, tr.DumpD, "dump.json"))
	keys := dumpKeys(t, filepath.Join(dir, tr.DumpA, "dump.json"))
	firstDev := ""
	for _, k := range keys {
		if !strings.HasSuffix(k, ".forward") && !strings.Contains(k, ".forward.") {
			continue
		}
		a, okA := A[k]
		b, okB := B[k]
		if !okA || !okB {
			continue
		}
		if r := a / b; math.Abs(r-1) > 0.03 {
			firstDev = k
			if r < 1.5 {
				t.Errorf("first deviating op %s: A/B = %.3f, want ≥ 1.5", k, r)
			}
			break
		}
	}
	if firstDev != tr.PlantedOperator {
		t.Errorf("first deviating forward op = %q, want %q", firstDev, tr.PlantedOperator)
	}
	for k, c := range C {
		if r := c / D[k]; math.Abs(r-1) > 0.03 {
			t.Errorf("C/D deviates at %s: %.4f", k, r)
		}
	}
	type kn struct {
		k string
		n float64
	}
	var grads []kn
	for k, n := range A {
		if strings.Contains(k, ".parameters_grad.") {
			grads = append(grads, kn{k, n})
		}
	}
	sort.Slice(grads, func(i, j int) bool { return grads[i].n > grads[j].n })
	if len(grads) != demoParams || grads[0].k != tr.DumpGradKeys[0] {
		t.Errorf("%d parameter gradients, largest %v, want %s", len(grads), grads[0], tr.DumpGradKeys[0])
	}
}

// TestLargeGenerators: the benchmark generators make exactly what is asked.
func TestLargeGenerators(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "big.trend.db")
	if err := synth.WriteLargeTrendDB(db, 12345, 4); err != nil {
		t.Fatal(err)
	}
	if n := queryInt(t, openDB(t, db), "SELECT count(*) FROM trend_data"); n != 12345 {
		t.Errorf("large trend.db: %d rows, want 12345", n)
	}
	if err := synth.WriteLargeCSVTree(filepath.Join(dir, "csv"), 5000); err != nil {
		t.Fatal(err)
	}
	rows := 0
	filepath.WalkDir(filepath.Join(dir, "csv"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			rows += strings.Count(string(b), "\n") - 1
		}
		return err
	})
	if rows != 5000 {
		t.Errorf("large CSV tree: %d rows, want 5000", rows)
	}
	dd := filepath.Join(dir, "dump")
	if err := synth.WriteLargeDump(dd, 3000); err != nil {
		t.Fatal(err)
	}
	if n := len(dumpKeys(t, filepath.Join(dd, "dump.json"))); n != 3000 {
		t.Errorf("large dump: %d entries, want 3000", n)
	}
	if n := bytes.Count(synth.LargeDump(700), []byte("\n  \"")); n != 700 {
		t.Errorf("LargeDump(700): %d entries", n)
	}
}

// BenchmarkWriteLargeTrendDB measures the benchmark-data generator itself
// (1M rows per iteration).
func BenchmarkWriteLargeTrendDB(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.trend.db")
	for b.Loop() {
		if err := synth.WriteLargeTrendDB(path, 1_000_000, 4); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGenerateDemo measures generating the demo run in memory.
func BenchmarkGenerateDemo(b *testing.B) {
	for b.Loop() {
		synth.Generate(demoCfg)
	}
}

// rowSet renders every monitor row as text keyed by names, sorted, so that
// two loads can be compared regardless of row and id order.
func rowSet(md *model.MonitorData) []string {
	out := make([]string, md.Rows.Len())
	r := &md.Rows
	for i := range out {
		out[i] = fmt.Sprint(r.RankOf(i), r.Step[i], r.MicroOf(i), md.Targets[r.TargetOf(i)].Name, md.Metrics[r.MetricOf(i)],
			r.Value(0, i), r.Value(1, i), r.Value(2, i), r.Value(3, i))
	}
	sort.Strings(out)
	return out
}

// TestDemoLoadsLikeMonitor: what ingest reads from the demo's trend.db and
// CSV tree is what Run.Monitor promises (the CSV with its explicit micro
// steps mapped to the same global steps).
func TestDemoLoadsLikeMonitor(t *testing.T) {
	dir, cleanup, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	run := synth.Generate(demoCfg)
	for _, dev := range []synth.Device{synth.Anomalous, synth.Baseline} {
		path := filepath.Join(dir, synth.DemoTrendDB)
		if dev == synth.Baseline {
			path = filepath.Join(dir, synth.DemoBaselineTrendDB)
		}
		md, err := ingest.LoadMonitor(context.Background(), path, model.FormatTrendDB, nil)
		if err != nil {
			t.Fatal(err)
		}
		want, got := rowSet(run.Monitor(dev)), rowSet(md)
		if len(got) != len(want) {
			t.Fatalf("%s: ingest read %d rows, want %d", path, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d: ingest %q, Monitor %q", path, i, got[i], want[i])
			}
		}
	}
	csv, err := ingest.LoadMonitor(context.Background(), filepath.Join(dir, synth.DemoCSVDir), model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !csv.ExplicitMicro || csv.Rows.Len() != demoTrendRows {
		t.Fatalf("CSV: explicit=%v rows=%d", csv.ExplicitMicro, csv.Rows.Len())
	}
	// map the CSV's (optimizer step, micro step) onto the trend.db's global step
	var got []string
	r := &csv.Rows
	for i := 0; i < r.Len(); i++ {
		step := int(r.Step[i]) * demoCfg.Window
		if r.MicroOf(i) != model.NoMicro {
			step += int(r.MicroOf(i))
		}
		v := [4]float64{}
		for s := range v {
			v[s] = r.Value(model.Stat(s), i)
			if v[s] == 0 {
				v[s] = 0 // the CSV keeps -0.0, the trend.db stores 0.0
			}
		}
		got = append(got, fmt.Sprint(r.RankOf(i), step, model.NoMicro, csv.Targets[r.TargetOf(i)].Name, csv.Metrics[r.MetricOf(i)], v[0], v[1], v[2], v[3]))
	}
	sort.Strings(got)
	want := rowSet(run.Monitor(synth.Anomalous))
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("CSV row %d: %q, want %q", i, got[i], want[i])
		}
	}
}

// pyFloat matches Python's repr of a float (what pandas and json.dump print).
var pyFloat = regexp.MustCompile(`^-?(\d+\.\d+|\d(\.\d+)?e[-+]\d{2,3}|NaN|Infinity)$`)

// TestNumberFormatsArePython: every CSV value cell and every dump statistic
// is printed as Python would (e.g. "0.0", "-0.0", "1e-06", never "0" or
// "1e-6"), and dump.json uses json.dump(indent=1)'s layout.
func TestNumberFormatsArePython(t *testing.T) {
	dir, cleanup, err := extractDemo()
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	cells, sci := 0, 0
	filepath.WalkDir(filepath.Join(dir, synth.DemoCSVDir), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		micro := strings.Contains(lines[0], "micro_step")
		for _, ln := range lines[1:] {
			f := strings.Split(ln, ",")
			first := 3
			if micro {
				first = 4
			}
			for _, c := range f[first : first+4] {
				cells++
				if strings.Contains(c, "e-") {
					sci++
				}
				if !pyFloat.MatchString(c) {
					t.Fatalf("%s: cell %q is not a Python float repr", p, c)
				}
			}
		}
		return nil
	})
	if cells != demoTrendRows*4 || sci == 0 {
		t.Errorf("%d cells checked (want %d), %d in scientific notation", cells, demoTrendRows*4, sci)
	}
	tr := synth.Generate(demoCfg).Truth()
	b, err := os.ReadFile(filepath.Join(dir, tr.DumpA, "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("{\n \"task\": \"statistics\",\n \"level\": \"mix\",\n \"framework\": \"pytorch\",\n \"dump_data_dir\": null,\n \"data\": {\n  \"")) ||
		bytes.HasSuffix(b, []byte("\n")) || !bytes.Contains(b, []byte("\"shape\": [\n      4096,\n      1,\n")) {
		t.Errorf("dump.json layout is not json.dump(indent=1)'s")
	}
	stats := regexp.MustCompile(`"(Max|Min|Mean|Norm)": ([^,\n]+)`).FindAllSubmatch(b, -1)
	for _, m := range stats {
		v := string(m[2])
		if v != "null" && v != "true" && v != "false" && !pyFloat.MatchString(v) {
			t.Fatalf("dump statistic %s = %q is not a Python float repr", m[1], v)
		}
	}
	if len(stats) < 3000 {
		t.Errorf("only %d statistics found", len(stats))
	}
}

// TestConfigVariants: more micro batches per dump and a run not starting at
// step 0 keep every coordinate consistent.
func TestConfigVariants(t *testing.T) {
	c := synth.DefaultConfig()
	c.FirstStep, c.Fault.OptStep = 100, 105
	c.DumpMicroBatches = c.Window
	run := synth.Generate(c)
	tr := run.Truth()
	if tr.FaultOptStep != 105 || tr.FaultTrendStep != 22 || tr.PlantedOperator != "NPU.npu_swiglu.14.forward" ||
		tr.DumpA != synth.DemoDumpDir+"/step105/rank3" {
		t.Fatalf("truth %+v", tr)
	}
	// parameters_grad counters continue across the dumped steps: step104 .0-.3, step105 .4-.7
	if tr.DumpGradKeys[0] != "Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.parameters_grad.7" {
		t.Errorf("grad key %s", tr.DumpGradKeys[0])
	}
	dir := t.TempDir()
	if err := run.WriteCSVTree(filepath.Join(dir, "csv")); err != nil {
		t.Fatal(err)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, "csv", "*-rank3-*", "grad_unreduced_105-105.csv")); len(m) != 1 {
		t.Errorf("grad_unreduced_105-105.csv of rank 3: %v", m)
	}
	if err := run.WriteDumps(filepath.Join(dir, "a"), synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteDumps(filepath.Join(dir, "b"), synth.Baseline); err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(dir, "a", "step105", "rank3", "dump.json")
	keys := dumpKeys(t, a)
	if len(keys) != 4*demoDumpEntries {
		t.Errorf("%d entries, want %d", len(keys), 4*demoDumpEntries)
	}
	A, B := outNorms(t, a), outNorms(t, filepath.Join(dir, "b", "step105", "rank3", "dump.json"))
	for key, want := range map[string][2]float64{
		"NPU.npu_swiglu.14.forward":                               {1.5, 3.5},
		"NPU.npu_swiglu.2.forward":                                {0.97, 1.03},
		"Module.module.module.decoder.layers.2.mlp.MLP.forward.2": {1.4, 3.5},
		"Module.module.module.decoder.layers.2.mlp.MLP.forward.3": {0.97, 1.03},
	} {
		if r := A[key] / B[key]; !(r >= want[0] && r <= want[1]) {
			t.Errorf("%s: A/B = %.3f, want in %v", key, r, want)
		}
	}
	con, err := os.ReadFile(filepath.Join(dir, "a", "step105", "rank3", "construct.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(con, []byte("\"megatron_micro_step_number\": 3\n}")) {
		t.Errorf("construct.json does not end with megatron_micro_step_number 3")
	}
}
