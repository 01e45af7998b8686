package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// savedResults writes a small Phase 1 and Phase 2 JSON and returns their paths.
func savedResults(t *testing.T) (p1Path, p2Path string) {
	t.Helper()
	dir := t.TempDir()
	a := model.Anomaly{Rank: 3, Step: 22, MicroStep: model.IntPtr(2), OptimizerStep: model.IntPtr(5),
		TargetName: "decoder.layers.2.mlp.linear_fc2.weight", Norm: 4.5, Delta: model.FloatPtr(3.25),
		DeviationRatio: 6.5, SuspectFinalNorm: model.FloatPtr(5.125), Trigger: "micro_step_delta"}
	p1 := model.Phase1Result{Phase: 1, DBPath: "/runs/npu/trend.db", Format: model.FormatTrendDB,
		Sharding:  model.ShardingAnalysis{AccumulationWindow: 4, OptimizerStepCount: 10, PassUnit: "micro_step"},
		Summary:   model.Phase1Summary{TotalTargets: 30, Steps: []int{0, 39}, Ranks: []int{0, 1, 2, 3}, PassUnit: "micro_step", AnomalyCount: 1},
		Anomalies: []model.Anomaly{a}}
	p2 := model.Phase2Result{Phase: 2, Mode: "单设备", RootOptStep: model.IntPtr(5),
		RootCauseCoordinate: &model.Coordinate{OptimizerStep: model.IntPtr(5), MicroStep: model.IntPtr(2), Rank: 3,
			TargetName: a.TargetName, Norm: 4.5, Delta: model.FloatPtr(3.25)},
		Candidates: []model.CandidateVerdict{{Anomaly: a, Value: 3.25, Verdict: "no baseline", Selected: true}}}
	write := func(name string, v any) string {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("p1.json", p1), write("p2.json", p2)
}

func TestReportFromJSONWritesFileInChinese(t *testing.T) {
	p1, p2 := savedResults(t)
	out := filepath.Join(t.TempDir(), "report.md")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "--phase1", p1, "--phase2", p2, "--lang", "zh", "-o", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("-o should leave stdout empty, got %q", stdout.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	for _, want := range []string{
		"| 项目 | 值 |",
		"| Opt Step | Rank | 参数 | ms | delta | 偏离 | 最终 Norm |",
		"| 5 | 3 | `decoder.layers.2.mlp.linear_fc2.weight` | 2 | 3.25 | 6.5x | 5.125 |",
		"| Opt Step | Rank | 参数 | ms | delta | 标杆 delta | 比值 | 判定 |",
		// what is missing, in Chinese, with where to dump next.
		"| 标杆设备的监控数据（Phase 2 用） |",
		"在异常设备 step 5、rank 3 采集 dump A",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestReportLangDefaultsFromLANG(t *testing.T) {
	p1, _ := savedResults(t)
	t.Setenv("LC_ALL", "")
	for lang, header := range map[string]string{
		"zh_CN.UTF-8": "| Opt Step | Rank | 参数 | ms | delta | 偏离 | 最终 Norm |",
		"en_US.UTF-8": "| Opt Step | Rank | Parameter | ms | delta | Deviation | Final Norm |",
		"":            "| Opt Step | Rank | Parameter | ms | delta | Deviation | Final Norm |",
	} {
		t.Setenv("LANG", lang)
		var stdout, stderr bytes.Buffer
		if code := run([]string{"report", "--phase1", p1}, &stdout, &stderr); code != 0 {
			t.Fatalf("LANG=%q: exit %d: %s", lang, code, stderr.String())
		}
		if !strings.Contains(stdout.String(), header) {
			t.Errorf("LANG=%q: report lacks %q", lang, header)
		}
	}
}

func TestReportExitCodes(t *testing.T) {
	p1, _ := savedResults(t)
	notJSON := filepath.Join(t.TempDir(), "p1.json")
	os.WriteFile(notJSON, []byte("phase 1?"), 0o644)
	missing := filepath.Join(t.TempDir(), "nope.db")
	for _, c := range []struct {
		args []string
		code int
		msg  string // in the one stderr line
	}{
		{[]string{"report", "--bogus"}, 2, "flag provided but not defined"},
		{[]string{"report", "a", "b"}, 2, "one PATH at most"},
		{[]string{"report", "--step", "x", "a"}, 2, "--step"},
		{[]string{"report", "--format", "xml", "a"}, 2, "--format"},
		{[]string{"report", "--phase1", notJSON}, 2, notJSON + ": not a valid Phase 1 JSON"},
		{[]string{"report", "--phase1", missing}, 2, missing},
		{[]string{"report", "--phase2", p1}, 2, "Phase 2"},
		{[]string{"report", "--phase1", p1, "x.db"}, 2, "not both"},
		{[]string{"report", missing}, 2, "nope.db"},
		{[]string{"report", "--phase1", p1, "-o", filepath.Join(t.TempDir(), "no", "dir", "r.md")}, 2, "cannot write the report"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(c.args, &stdout, &stderr)
		if code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, stderr.String())
			continue
		}
		line := stderr.String()
		if strings.Count(line, "\n") != 1 || !strings.Contains(line, c.msg) {
			t.Errorf("%v: stderr %q, want one line with %q", c.args, line, c.msg)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "-h"}, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "--phase1") {
		t.Errorf("report -h: exit %d, %q", code, stdout.String())
	}
}

// No PATH: the embedded demo run, analysed through all three phases.
func TestReportDemoRun(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"report", "--lang", "en"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{
		"Phase 2: root-cause coordinate optimizer step 5, micro step 2, rank 3, `layers.2.mlp.linear_fc2.weight`",
		"Phase 3: earliest divergence forward L2, backward L2; drill-down operator `NPU.npu_swiglu.2.forward`",
		"None: every phase had its data.",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("demo report lacks %q", want)
		}
	}
}

// PATH with flags after it, a pin, and --step/--rank choosing A.
func TestReportPathWithPinAndFlagsAfterIt(t *testing.T) {
	demo := filepath.Join("testdata", "demo")
	var stdout, stderr bytes.Buffer
	code := run([]string{"report", filepath.Join(demo, "npu", "trend.db"), "--lang", "zh",
		"--dump-a", filepath.Join(demo, "npu", "dump"), "--dump-b", filepath.Join(demo, "gpu", "dump"),
		"--pin", "opt=5,ms=2,rank=3,param=layers.2.mlp.linear_fc1.weight"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	md := stdout.String()
	for _, want := range []string{
		"Phase 2: 根因坐标 opt_step 5, ms 2, rank 3, `layers.2.mlp.linear_fc1.weight` (用户指定)",
		"| 方向 | 判定 | 起点 | 最大点 | 证据 |",
		"| 标杆设备的监控数据（Phase 2 用） |", // no --baseline
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	stdout.Reset()
	stderr.Reset()
	if code := run([]string{"report", filepath.Join(demo, "npu", "trend.db"), "--pin", "opt=99,rank=0,param=x"}, &stdout, &stderr); code != 2 ||
		!strings.HasPrefix(stderr.String(), "spikescope: --pin: ") {
		t.Errorf("pin on no data: exit %d, %q", code, stderr.String())
	}
}
