package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"spikescope/plan"
)

const demo = "testdata/demo"

// readConfig parses a written dump config.
func readConfig(t *testing.T, path string) plan.DumpConfig {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var c plan.DumpConfig
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return c
}

func TestPlanRebasedTrendDBWritesDumpsOnlyWithStepOffset(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := runArgs("plan", demo+"/npu/trend.db", "--baseline", demo+"/gpu/trend.db", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, plan.AnomalousConfig)); err == nil {
		t.Errorf("dump config written without --step-offset on a re-based trend.db")
	}
	md, _ := os.ReadFile(filepath.Join(out, plan.PlanFile))
	if !strings.Contains(string(md), "--step-offset") {
		t.Errorf("PLAN.md does not say how to fill in the step:\n%s\n%s", md, stdout)
	}
	out2 := filepath.Join(t.TempDir(), "plan")
	if code, _, stderr := runArgs("plan", demo+"/npu/trend.db", "--baseline", demo+"/gpu/trend.db", "--step-offset", "100", "-o", out2); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		c := readConfig(t, filepath.Join(out2, name))
		if !reflect.DeepEqual(c.Step, []int{105}) || c.Level != "L0" || c.Rank[0] > 3 || !containsInt(c.Rank, 3) || len(c.Rank) < 2 {
			t.Errorf("%s: step %v rank %v level %q, want step 105 (trend.db 5 + 100), rank 3 and a control, L0", name, c.Step, c.Rank, c.Level)
		}
	}
}

func TestPlanAWithoutBWritesTheBaselineConfigAtAsLevel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := runArgs("plan", demo+"/npu/trend.db", "--baseline", demo+"/gpu/trend.db", "--dump-a", demo+"/npu/dump", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, plan.AnomalousConfig)); err == nil {
		t.Errorf("anomalous config written although A and C are there")
	}
	c := readConfig(t, filepath.Join(out, plan.BaselineConfig))
	if !reflect.DeepEqual(c.Step, []int{5}) || c.Level != "mix" || !containsInt(c.Rank, 3) {
		t.Errorf("baseline: step %v rank %v level %q, want A's step 5, rank 3, mix", c.Step, c.Rank, c.Level)
	}
	if !strings.Contains(stdout, "config_baseline.json") {
		t.Errorf("stdout does not name the written file: %q", stdout)
	}
}

// The demo run has every input and its drill-down named an operator: the
// plan is a tensor dump of that operator on A and B (for msprobe
// compare), the one the trace names.
func TestPlanDemoAsksForTheNamedOperatorsTensors(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runArgs("plan", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	code, traceOut, stderr := runArgs("trace", "--dump-a", demo+"/npu/dump", "--dump-b", demo+"/gpu/dump")
	if code != 0 {
		t.Fatalf("trace: exit %d: %s", code, stderr)
	}
	var tr struct {
		DivergenceSummary struct {
			Drilldown struct{ Operator string } `json:"drilldown"`
		} `json:"divergence_summary"`
	}
	if err := json.Unmarshal([]byte(traceOut), &tr); err != nil || tr.DivergenceSummary.Drilldown.Operator == "" {
		t.Fatalf("trace names no operator: %v", err)
	}
	op := tr.DivergenceSummary.Drilldown.Operator
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		c := readConfig(t, filepath.Join(out, name))
		if c.Task != plan.TaskTensor || c.Tensor == nil || len(c.Tensor.List) != 1 || !strings.HasPrefix(op, c.Tensor.List[0]) || len(c.Rank) != 1 {
			t.Errorf("%s: task %q tensor %+v rank %v, want a tensor dump of %s on one rank", name, c.Task, c.Tensor, c.Rank, op)
		}
	}
	md, _ := os.ReadFile(filepath.Join(out, plan.PlanFile))
	if !strings.Contains(string(md), "msprobe compare -tp ./tensor_anomalous/") {
		t.Errorf("PLAN.md has no compare command:\n%s", md)
	}
}

func TestPlanRefusesAnInputFolderAndAnExistingFile(t *testing.T) {
	in := t.TempDir()
	data, err := os.ReadFile(demo + "/npu/trend.db")
	if err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(in, "trend.db")
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runArgs("plan", in, "--baseline", demo+"/gpu/trend.db", "-o", filepath.Join(in, "plan"))
	if code != 2 || !strings.Contains(stderr, "input folder") {
		t.Errorf("-o inside the input folder: exit %d, %q", code, stderr)
	}
	out := t.TempDir()
	old := []byte("the user's own notes\n")
	if err := os.WriteFile(filepath.Join(out, plan.PlanFile), old, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runArgs("plan", db, "--baseline", demo+"/gpu/trend.db", "--step-offset", "3", "-o", out)
	if code != 2 || !strings.Contains(stderr, plan.PlanFile) || strings.Count(stderr, "\n") != 1 {
		t.Errorf("existing PLAN.md: exit %d, %q; want exit 2 and one line naming it", code, stderr)
	}
	if got, _ := os.ReadFile(filepath.Join(out, plan.PlanFile)); string(got) != string(old) {
		t.Errorf("existing PLAN.md replaced")
	}
	if _, err := os.Stat(filepath.Join(out, plan.AnomalousConfig)); err == nil {
		t.Errorf("configs written although PLAN.md was refused")
	}
}

func TestPlanNeedsOAndAnIntegerOffset(t *testing.T) {
	if code, _, stderr := runArgs("plan", demo+"/npu/trend.db"); code != 2 || !strings.Contains(stderr, "-o DIR") {
		t.Errorf("no -o: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runArgs("plan", demo+"/npu/trend.db", "--step-offset", "x", "-o", t.TempDir()); code != 2 || !strings.Contains(stderr, "--step-offset") {
		t.Errorf("bad --step-offset: exit %d, %q", code, stderr)
	}
}

func containsInt(v []int, x int) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// A pinned coordinate is the one the configs dump, in the input's numbering.
func TestPlanDumpsThePinnedCoordinate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runArgs("plan", demo+"/npu/monitor_output", "--baseline", demo+"/gpu/trend.db",
		"--pin", "opt=4,rank=6,param=layers.1.mlp.linear_fc1.weight", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		c := readConfig(t, filepath.Join(out, name))
		if !reflect.DeepEqual(c.Step, []int{4}) || !containsInt(c.Rank, 6) || c.DumpPath == "" {
			t.Errorf("%s: step %v rank %v dump_path %q, want the pinned step 4 and rank 6", name, c.Step, c.Rank, c.DumpPath)
		}
	}
}

// copyDir copies the files of one dump folder.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Dumps of A's rank only on both devices: no control group to choose, so
// both configs dump control ranks at A's step and level.
func TestPlanABWithoutCDDumpsControlRanks(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	copyDir(t, demo+"/npu/dump/step5/rank3", filepath.Join(a, "step5", "rank3"))
	copyDir(t, demo+"/gpu/dump/step5/rank3", filepath.Join(b, "step5", "rank3"))
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runArgs("plan", demo+"/npu/monitor_output", "--baseline", demo+"/gpu/trend.db", "--dump-a", a, "--dump-b", b, "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		c := readConfig(t, filepath.Join(out, name))
		if !reflect.DeepEqual(c.Step, []int{5}) || c.Level != "mix" || len(c.Rank) == 0 || containsInt(c.Rank, 3) {
			t.Errorf("%s: step %v rank %v level %q, want step 5, control ranks only (A and B are there), mix", name, c.Step, c.Rank, c.Level)
		}
	}
}
