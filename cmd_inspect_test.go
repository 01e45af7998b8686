package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"spikescope/pipeline"
	"strings"
	"testing"

	"spikescope/ingest"
)

func runInspectArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(append([]string{"inspect"}, args...), &out, &errb)
	return code, out.String(), errb.String()
}

func TestInspectBadPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "missing.trend.db")
	code, out, errs := runInspectArgs(p)
	if code != 2 || out != "" {
		t.Errorf("code %d stdout %q", code, out)
	}
	if strings.Count(errs, "\n") != 1 || !strings.Contains(errs, p+": does not exist") {
		t.Errorf("stderr %q, want one line naming the path", errs)
	}
}

func TestInspectEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	code, _, errs := runInspectArgs("--json", dir)
	if code != 2 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, dir+": empty folder") {
		t.Errorf("code %d stderr %q", code, errs)
	}
}

func TestInspectUsage(t *testing.T) {
	code, _, errs := runInspectArgs()
	if code != 2 || !strings.Contains(errs, "want exactly one PATH") {
		t.Errorf("code %d stderr %q", code, errs)
	}
	code, _, errs = runInspectArgs("x", "--format", "xml")
	if code != 2 || !strings.Contains(errs, `unknown --format "xml"`) {
		t.Errorf("code %d stderr %q", code, errs)
	}
	code, _, errs = runInspectArgs("x", "--bogus")
	if code != 2 || strings.Count(errs, "\n") != 1 {
		t.Errorf("code %d stderr %q", code, errs)
	}
	code, out, _ := runInspectArgs("-h")
	if code != 0 || !strings.Contains(out, "usage: spikescope inspect") {
		t.Errorf("help: code %d out %q", code, out)
	}
}

func TestInspectTrendDBText(t *testing.T) {
	code, out, errs := runInspectArgs(filepath.Join("testdata", "monitor", "formats21.trend.db"))
	if code != 0 {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	for _, want := range []string{
		"format:      trenddb",
		"rows:        11",
		"ranks:       2 (0-1)",
		"steps:       0..3 (4 distinct steps) — as stored: a global micro-step index",
		"micro steps: not recorded",
		"parameters:  3 (e.g. layers.0.self_attention.linear_qkv.layer_norm_weight,",
		"grad_unreduced          8 rows   non-finite: norm: NaN 1; min: -Inf 1; max: +Inf 1; mean: NaN 1",
		"grad_reduced            3 rows   non-finite: none",
		// formats.md §2.1 lists rank 1's rows of opt step 1 only
		"- rank 1 has 2 of 4 steps (missing 0-1)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestInspectCSVJSONFlagAfterPath(t *testing.T) {
	code, out, errs := runInspectArgs(filepath.Join("testdata", "monitor", "csv_v1"), "--json", "--format", "csv")
	if code != 0 {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	var rep pipeline.InspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := rep.Monitor
	if rep.Format != "csv" || m == nil || m.Rows != 21 || !m.ExplicitMicro || m.Window != 2 || len(m.Ranks) != 2 {
		t.Fatalf("report %+v monitor %+v", rep, m)
	}
	if m.Steps == nil || m.Steps.Min != 0 || m.Steps.Max != 1 || m.MicroSteps == nil || m.MicroSteps.Count != 2 {
		t.Errorf("steps %+v micro %+v", m.Steps, m.MicroSteps)
	}
	byName := map[string]*ingest.MetricReport{}
	for _, mt := range m.Metrics {
		byName[mt.Name] = mt
	}
	red := byName["grad_reduced"]
	if red == nil || red.Rows != 5 || red.NonFinite["min"].PosInf != 1 || red.NonFinite["min"].NegInf != 1 ||
		red.NonFinite["norm"].NaN != 1 || red.NonFinite["max"].NaN != 1 {
		t.Errorf("grad_reduced %+v", red)
	}
	if a := byName["actv"]; a == nil || a.Rows != 3 || strings.Join(a.AllNaN, ",") != "min,max,mean" {
		t.Errorf("actv %+v", a)
	}
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0], "stack_info.csv") {
		t.Errorf("warnings %q", rep.Warnings)
	}
}

func TestInspectDump(t *testing.T) {
	dir := filepath.Join("testdata", "msprobe", "examples", "quick_start", "gpu_dump")
	code, out, errs := runInspectArgs(dir, "--json")
	if code != 0 {
		t.Fatalf("code %d stderr %q", code, errs)
	}
	var rep pipeline.InspectReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	d := rep.Dump
	if rep.Format != "dump" || d == nil || d.Dumps != 2 || len(d.Steps) != 2 || d.Ops == 0 || d.Forward == 0 || d.Tensors == 0 {
		t.Fatalf("dump report %+v", d)
	}
	if d.Task != "statistics" {
		t.Errorf("task %q", d.Task)
	}
}

// TestInspectBadInputs runs every kind of bad monitor input through the CLI:
// each must give exit code 2 and one stderr line naming the file and the
// problem.
func TestInspectBadInputs(t *testing.T) {
	dir := t.TempDir()
	mkdb := func(name string, stmts ...string) string {
		p := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", p)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	targets := `CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY, target_name TEXT, vpp_stage INTEGER, micro_step INTEGER)`
	metrics := `CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY, metric_name TEXT)`
	noRecognised := filepath.Join(dir, "junk")
	write("junk/notes.txt", "x")
	emptyDir := filepath.Join(dir, "empty")
	os.Mkdir(emptyDir, 0o755)
	notAFile := filepath.Join(dir, "folder.trend.db")
	os.Mkdir(notAFile, 0o755)
	cases := []struct {
		path, format, want string
	}{
		{mkdb("mt.trend.db", metrics, `CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, norm REAL)`), "auto", "missing table(s) monitoring_targets"},
		{mkdb("mc.trend.db", targets, metrics, `CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, norm REAL)`), "auto", "table trend_data lacks column(s) metric_id"},
		{mkdb("wt.trend.db", targets, metrics, `CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, norm TEXT)`), "auto", "column trend_data.norm has type TEXT"},
		{write("rank0/grad_unreduced_0-0.csv", "vpp_stage,name,step,norm\n0,w,0\n"), "auto", "line 2: 3 fields, the header has 4"},
		{write("zero.trend.db", ""), "auto", "empty file (0 bytes)"},
		{write("zero/rank1/grad_reduced_0-0.csv", ""), "csv", "empty file (0 bytes)"},
		{filepath.Join(dir, "absent"), "auto", "does not exist"},
		{emptyDir, "auto", "empty folder"},
		{noRecognised, "auto", "no monitor CSV, trend.db or dump.json"},
		{notAFile, "trenddb", "no trend database (*.db) in this folder"},
		{write("trunc.trend.db", "SQLite format 3\x00garbage"), "auto", "SQLite database"},
	}
	for _, c := range cases {
		code, out, errs := runInspectArgs(c.path, "--format", c.format)
		if code != 2 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, c.want) {
			t.Errorf("%s: code %d stdout %q stderr %q, want exit 2 and %q", c.path, code, out, errs, c.want)
		}
		if c.path != noRecognised && c.path != emptyDir && !strings.Contains(errs, filepath.Base(c.path)) {
			t.Errorf("%s: stderr %q does not name the file", c.path, errs)
		}
	}
}

// A rank whose file of one step was lost is named with the missing step.
func TestInspectWarnsAboutMissingSteps(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "monitor_output")
	copyTree(t, filepath.Join("testdata", "demo", "npu", "monitor_output"), dir)
	ranks, err := filepath.Glob(filepath.Join(dir, "*-rank2-*"))
	if err != nil || len(ranks) != 1 {
		t.Fatalf("rank 2 folder: %v %v", ranks, err)
	}
	for _, f := range []string{"grad_unreduced_3-3.csv", "grad_reduced_3-3.csv"} {
		if err := os.Remove(filepath.Join(ranks[0], f)); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errs := runInspectArgs(dir)
	if code != 0 || !strings.Contains(out, "rank 2 has 9 of 10 steps (missing 3)") {
		t.Fatalf("exit %d, stderr %q, stdout:\n%s", code, errs, out)
	}
	if strings.Contains(out, "rank 1 has") {
		t.Fatalf("a complete rank is reported:\n%s", out)
	}
}
