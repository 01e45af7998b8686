package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

const demoNPU = "testdata/demo/npu"

// detectRun runs `spikescope detect args…` and decodes the JSON on stdout.
func detectRun(t *testing.T, args ...string) (*model.Phase1Result, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"detect"}, args...), &out, &errb)
	if code != 0 {
		return nil, code, errb.String()
	}
	var res model.Phase1Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out.String())
	}
	return &res, code, errb.String()
}

// The demo run's planted fault (TRUTH.json: opt 5, ms 2, rank 3,
// layers.2.mlp.linear_fc2.weight, trend.db step 22) is the first candidate
// of the trend.db (window 4 detected) and of the CSV tree (explicit micro).
func TestDetectDemoTrendDBAndCSV(t *testing.T) {
	for _, c := range []struct {
		args []string
		step int
	}{
		{[]string{filepath.Join(demoNPU, "trend.db")}, 22},
		{[]string{filepath.Join(demoNPU, "monitor_output"), "--csv"}, 5},
	} {
		res, code, stderr := detectRun(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		a := res.Anomalies[0]
		if res.Phase != 1 || res.Sharding.AccumulationWindow != 4 || !res.Sharding.HasMicroStep || a.Rank != 3 || a.Step != c.step ||
			a.OptStep() != 5 || a.Micro() != 2 || a.TargetName != "layers.2.mlp.linear_fc2.weight" || a.Delta == nil {
			t.Fatalf("%v: sharding %+v first %+v", c.args, res.Sharding, a)
		}
		if res.DBPath != c.args[0] || res.Summary.AnomalyCount != len(res.Anomalies) || len(res.Reasoning) == 0 {
			t.Fatalf("%v: db_path %q summary %+v", c.args, res.DBPath, res.Summary)
		}
	}
}

// Flags may follow PATH; --window 1 forces step level; --summary caps the
// list at 50 but keeps the full count; -o writes a file and nothing on stdout.
func TestDetectFlagsAfterPathSummaryAndOutput(t *testing.T) {
	res, code, _ := detectRun(t, filepath.Join(demoNPU, "trend.db"), "--window", "1", "--summary", "--min-effect", "1.5")
	if code != 0 || res.Sharding.AccumulationWindow != 0 || res.DataKind != "step" || res.Sharding.PassUnit != "(step,)" {
		t.Fatalf("exit %d sharding %+v", code, res.Sharding)
	}
	full, _, _ := detectRun(t, filepath.Join(demoNPU, "trend.db"))
	if len(full.Anomalies) <= 50 {
		t.Fatalf("demo has %d anomalies; the --summary check needs > 50", len(full.Anomalies))
	}
	sum, _, _ := detectRun(t, "--summary", filepath.Join(demoNPU, "trend.db"))
	if len(sum.Anomalies) != 50 || sum.Summary.AnomalyCount != len(full.Anomalies) {
		t.Fatalf("summary: %d listed, count %d (full %d)", len(sum.Anomalies), sum.Summary.AnomalyCount, len(full.Anomalies))
	}
	out := filepath.Join(t.TempDir(), "p1.json")
	var so, se bytes.Buffer
	if code := run([]string{"detect", filepath.Join(demoNPU, "trend.db"), "-o", out}, &so, &se); code != 0 || so.Len() != 0 {
		t.Fatalf("exit %d stdout %q", code, so.String())
	}
	b, err := os.ReadFile(out)
	if err != nil || !json.Valid(b) || !strings.Contains(se.String(), out) {
		t.Fatalf("file: %v valid=%v stderr %q", err, json.Valid(b), se.String())
	}
}

// A step-level monitor CSV (example 1 of the reference): one spike.
func TestDetectStepLevelCSV(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "Feb20_16-27-56-rank0-b2f0e6a1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("vpp_stage,name,step,min,max,mean,norm,shape,dtype\n")
	t0 := []string{"1.0", "1.1", "0.9", "1.0", "1.05", "20.0"}
	t1 := []string{"2.0", "2.1", "1.9", "2.0", "2.05", "2.1"}
	for s := range t0 {
		b.WriteString("0,decoder.layers.0.mlp.linear_fc1.weight," + strconv.Itoa(s) + ",-0.1,0.1,0.0," + t0[s] + ",\"[8, 4]\",torch.float32\n")
		b.WriteString("0,decoder.layers.1.self_attention.linear_qkv.weight," + strconv.Itoa(s) + ",-0.2,0.2,0.0," + t1[s] + ",\"[8, 4]\",torch.float32\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "grad_unreduced_0-5.csv"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	res, code, stderr := detectRun(t, filepath.Dir(dir), "--format", "csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(res.Anomalies) != 1 || res.Anomalies[0].Step != 5 || float64(res.Anomalies[0].Norm) != 20 || res.Sharding.AccumulationWindow != 0 {
		t.Fatalf("result %+v", res)
	}
}

func TestDetectErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"detect"}, "exactly one PATH"},
		{[]string{"detect", "a", "b"}, "exactly one PATH"},
		{[]string{"detect", "/no/such/run.db"}, "/no/such/run.db"},
		{[]string{"detect", demoNPU, "--format", "xml"}, "unknown --format"},
		{[]string{"detect", demoNPU, "--min-effect", "0"}, "--min-effect"},
		{[]string{"detect", demoNPU, "--bogus"}, "bogus"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
	}
}

// TestWriteLargeTrendDBForBenchmarks is a tool, not a check: with
// SPIKESCOPE_LARGE_TRENDDB=path:rows it writes the large trend.db used by
// the whole-`detect` benchmark of docs/benchmarks.md (synth.WriteLargeTrendDB,
// window 8). Skipped otherwise.
func TestWriteLargeTrendDBForBenchmarks(t *testing.T) {
	spec := os.Getenv("SPIKESCOPE_LARGE_TRENDDB")
	if spec == "" {
		t.Skip("set SPIKESCOPE_LARGE_TRENDDB=path:rows to write a benchmark trend.db")
	}
	path, rowsText, _ := strings.Cut(spec, ":")
	rows, err := strconv.Atoi(rowsText)
	if err != nil {
		t.Fatal(err)
	}
	if err := synth.WriteLargeTrendDB(path, rows, 8); err != nil {
		t.Fatal(err)
	}
}

// largeTrendDB returns a cached trend.db of rows rows (synth.WriteLargeTrendDB,
// window 8) under $TMPDIR/spikescope-bench/.
func largeTrendDB(b *testing.B, rows int) string {
	dir := filepath.Join(os.TempDir(), "spikescope-bench")
	path := filepath.Join(dir, "detect-"+strconv.Itoa(rows)+".trend.db")
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

// BenchmarkDetect runs the whole `spikescope detect` (load, Phase 1, JSON)
// on 2M- and 10M-row trend.db files, and in the same run the yardstick
// `sqlite3 FILE "SELECT rank,step,target_id,metric_id,norm FROM trend_data"`
// on the same file (skipped without the sqlite3 CLI).
func BenchmarkDetect(b *testing.B) {
	for _, rows := range []int{2_000_000, 10_000_000} {
		name := strconv.Itoa(rows/1_000_000) + "M"
		path := largeTrendDB(b, rows)
		b.Run("spikescope-"+name, func(b *testing.B) {
			for b.Loop() {
				var so, se bytes.Buffer
				if code := run([]string{"detect", path, "-o", os.DevNull}, &so, &se); code != 0 {
					b.Fatalf("exit %d: %s", code, se.String())
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
		b.Run("sqlite3-"+name, func(b *testing.B) {
			if _, err := exec.LookPath("sqlite3"); err != nil {
				b.Skip("no sqlite3 CLI")
			}
			for b.Loop() {
				cmd := exec.Command("sqlite3", path, "SELECT rank,step,target_id,metric_id,norm FROM trend_data")
				if err := cmd.Run(); err != nil { // stdout nil = /dev/null
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
		})
	}
}

// The demo's dump tree holds three dumps (step4/rank3, step5/rank3,
// step5/rank5): three values per parameter are too little history to call
// the planted fault's 2.3× (rank 3, step 5, layers.2 linear_fc2) a spike —
// real gradient noise reaches that. It is reported under
// too_little_history, not as a candidate, and select names no root.
func TestDetectDumpTreeOfThreeDumps(t *testing.T) {
	res, code, se := detectRun(t, filepath.Join(demoNPU, "dump"), "--dump")
	if code != 0 {
		t.Fatalf("exit %d %s", code, se)
	}
	if res.DataKind != "dump" || len(res.Anomalies) != 0 || len(res.TooLittleHistory) != 1 {
		t.Fatalf("result %+v", res)
	}
	h := res.TooLittleHistory[0]
	if h.Rank != 3 || h.Step != 5 || h.Samples != 3 || h.MinSamples != int(res.Thresholds["min_history"]) ||
		!strings.HasSuffix(h.TargetName, "decoder.layers.2.mlp.linear_fc2.RowParallelLinear.weight") {
		t.Fatalf("too little history %+v", h)
	}
	p1 := filepath.Join(t.TempDir(), "p1.json")
	var so, se2 bytes.Buffer
	if code := run([]string{"detect", "--dump", filepath.Join(demoNPU, "dump"), "-o", p1}, &so, &se2); code != 0 {
		t.Fatal(se2.String())
	}
	sel, code, _ := selectRun(t, "--phase1", p1)
	if code != 0 || sel.RootOptStep != nil || sel.RootCauseCoordinate != nil {
		t.Fatalf("select %+v", sel)
	}
}
