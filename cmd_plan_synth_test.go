package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/plan"
	"spikescope/testdata/synth"
)

// A synthetic run traced on level-L0 dumps (modules, no operators): the
// plan asks for level mix on both devices, narrowed to the first
// divergent layer, on A's and C's ranks at A's step.
func TestPlanL0DumpsAskForMixNarrowedToTheLayer(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	dir := t.TempDir()
	npu, gpu := filepath.Join(dir, "npu"), filepath.Join(dir, "gpu")
	for _, w := range []func() error{
		func() error { return run.WriteCSVTreeV2For(filepath.Join(npu, "monitor"), synth.Anomalous) },
		func() error { return run.WriteCSVTreeV2For(filepath.Join(gpu, "monitor"), synth.Baseline) },
		func() error { return run.WriteL0Dumps(filepath.Join(npu, "dump"), synth.Anomalous) },
		func() error { return run.WriteL0Dumps(filepath.Join(gpu, "dump"), synth.Baseline) },
	} {
		if err := w(); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "plan")
	code, stdout, stderr := runArgs("plan", filepath.Join(npu, "monitor"), "--baseline", filepath.Join(gpu, "monitor"),
		"--dump-a", filepath.Join(npu, "dump"), "--dump-b", filepath.Join(gpu, "dump"), "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stderr, stdout)
	}
	f := run.Cfg.Fault
	for _, name := range []string{plan.AnomalousConfig, plan.BaselineConfig} {
		c := readConfig(t, filepath.Join(out, name))
		if c.Level != "mix" || len(c.Statistics.List) == 0 {
			t.Fatalf("%s: level %q list %q, want mix narrowed to a layer", name, c.Level, c.Statistics.List)
		}
		want := "layers." + strconv.Itoa(f.Layer) + "."
		if !strings.HasSuffix(c.Statistics.List[0], want) {
			t.Errorf("%s: list %q, want the planted layer (…%s)", name, c.Statistics.List, want)
		}
		if len(c.Step) != 1 || c.Step[0] != f.OptStep || !containsInt(c.Rank, f.Rank) || len(c.Rank) < 2 {
			t.Errorf("%s: step %v rank %v, want step %d, rank %d and a control", name, c.Step, c.Rank, f.OptStep, f.Rank)
		}
	}
}

// A monitor without per-micro-batch gradients: the plan writes the
// monitor config with monitor_mbs_grad on.
func TestPlanStepLevelMonitorAsksForMonitorMbsGrad(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	dir := t.TempDir()
	for dev, name := range map[synth.Device]string{synth.Anomalous: "npu", synth.Baseline: "gpu"} {
		if err := run.WriteStepCSVTreeFor(filepath.Join(dir, name), dev); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runArgs("plan", filepath.Join(dir, "npu"), "--baseline", filepath.Join(dir, "gpu"), "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(out, plan.MonitorFile))
	if err != nil {
		t.Fatal(err)
	}
	var m plan.MonitorConfig
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if !m.MonitorMbsGrad || !m.WgDistribution {
		t.Errorf("monitor config %s: want monitor_mbs_grad and wg_distribution true", data)
	}
	md, _ := os.ReadFile(filepath.Join(out, plan.PlanFile))
	if !strings.Contains(string(md), "no micro steps") {
		t.Errorf("PLAN.md does not say why:\n%s", md)
	}
}

// The same run with --window 1 (one micro batch per optimizer step): the
// step fixes the micro batch, so no monitor rerun; the dumps only.
func TestPlanWindow1AsksForNoMonitorRerun(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	dir := t.TempDir()
	for dev, name := range map[synth.Device]string{synth.Anomalous: "npu", synth.Baseline: "gpu"} {
		if err := run.WriteStepCSVTreeFor(filepath.Join(dir, name), dev); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "plan")
	code, _, stderr := runArgs("plan", filepath.Join(dir, "npu"), "--baseline", filepath.Join(dir, "gpu"), "--window", "1", "-o", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, plan.MonitorFile)); err == nil {
		t.Errorf("monitor config written although --window 1 fixes the micro batch")
	}
	if c := readConfig(t, filepath.Join(out, plan.AnomalousConfig)); c.Level != "L0" || len(c.Rank) < 2 {
		t.Errorf("anomalous config: level %q rank %v, want L0 on A's rank and controls", c.Level, c.Rank)
	}
	if code, _, stderr := runArgs("plan", filepath.Join(dir, "npu"), "--window", "-1", "-o", out); code != 2 || !strings.Contains(stderr, "--window") {
		t.Errorf("--window -1: exit %d %q", code, stderr)
	}
}
