package plan

import (
	"reflect"
	"strings"
	"testing"
)

// caseNamed is the plan case called name.
func caseNamed(t *testing.T, name string) Input {
	t.Helper()
	for _, c := range planCases() {
		if c.name == name {
			return c.in
		}
	}
	t.Fatalf("no case %q", name)
	return Input{}
}

func monitorDevice(p Plan) string {
	for _, c := range p.Configs {
		if c.Name == MonitorFile {
			return c.Device
		}
	}
	return ""
}

// Monitor data only, one micro batch per optimizer step: the optimizer
// step is the micro batch, so no monitor rerun; the dumps of A, B, C, D.
// With the window unknown the rerun is asked for, with how to skip it.
func TestMonitorOnlyW1AsksForNoMicroStepRerun(t *testing.T) {
	for _, name := range []string{"monitor only, W = 1 (--window 1)", "monitor only, micro steps, W = 1"} {
		p := Build(caseNamed(t, name))
		if has(p, MonitorFile) || strings.Contains(Markdown(p, false), "monitor_mbs_grad") {
			t.Errorf("%s: a monitor rerun for the micro step: %v\n%s", name, names(p), Markdown(p, false))
		}
		for _, f := range []string{AnomalousConfig, BaselineConfig} {
			if c := config(t, p, f); c.Level != "L0" || !containsInt(c.Rank, 3) || len(c.Rank) < 2 {
				t.Errorf("%s: %s level %s rank %v, want L0 on A's rank and controls", name, f, c.Level, c.Rank)
			}
		}
	}
	p := Build(caseNamed(t, "monitor only, one row per optimizer step, W unknown"))
	if monitorDevice(p) != "both devices" || !strings.Contains(p.Actions[0].En, "--window 1") {
		t.Errorf("window unknown: monitor %q, action %q; want both devices and how to skip it at W = 1", monitorDevice(p), p.Actions[0].En)
	}
}

// Monitor data with micro steps (W = 4) on both devices: nothing more to
// monitor; the dumps at the root coordinate's step, level L0.
func TestMonitorOnlyWithMicroStepsDumpsOnly(t *testing.T) {
	p := Build(caseNamed(t, "monitor only, micro steps, W = 4"))
	if has(p, MonitorFile) {
		t.Errorf("monitor rerun although micro steps and the baseline are there")
	}
	md := Markdown(p, false)
	for _, want := range []string{"task statistics, step 5, ranks 1, 3, 4, level L0", "debugger.start(model=model)", "debugger.step()", "1.1.0 or later", "--dump-a ./dump_anomalous --dump-b ./dump_baseline"} {
		if !strings.Contains(md, want) {
			t.Errorf("PLAN.md lacks %q:\n%s", want, md)
		}
	}
}

// The anomalous device's monitor data only: whether the spike is the
// device's or the batch's is undetermined, and the baseline device's
// monitor run decides it — before any dump (a data spike has nothing to
// trace). With the baseline there, no monitor rerun.
func TestAnomalousMonitorOnlyAsksForTheBaselineMonitorFirst(t *testing.T) {
	p := Build(caseNamed(t, "monitor of the anomalous device only"))
	if !reflect.DeepEqual(names(p), []string{MonitorFile}) || monitorDevice(p) != "the baseline device" {
		t.Fatalf("files %v device %q: want the baseline device's monitor config only", names(p), monitorDevice(p))
	}
	if !strings.Contains(p.Actions[0].En, "undetermined") || !strings.Contains(p.Actions[0].En, "optimizer step 5") {
		t.Errorf("action %q: want what it decides, at the coordinate", p.Actions[0].En)
	}
	if len(p.Unknown) != 1 || !strings.Contains(p.Unknown[0].En, "run plan again") {
		t.Errorf("unknown %v: want the dumps after the baseline monitor", p.Unknown)
	}
	if has(Build(run()), MonitorFile) {
		t.Errorf("monitor + baseline monitor: a monitor rerun")
	}
}

// Dumps of A and B without C and D: the control ranks only, at A's step
// and level; A and B are not dumped again.
func TestDumpsWithoutCDDumpControlsOnly(t *testing.T) {
	for name, level := range map[string]string{"dumps A, B without C, D (mix)": "mix", "dumps A, B without C, D (L0)": "L0"} {
		in := caseNamed(t, name)
		p := Build(in)
		for _, f := range []string{AnomalousConfig, BaselineConfig} {
			c := config(t, p, f)
			if containsInt(c.Rank, 3) && level == "mix" || c.Step[0] != in.A.Step {
				t.Errorf("%s: %s rank %v step %v, want the controls at A's step %d", name, f, c.Rank, c.Step, in.A.Step)
			}
		}
		if level == "mix" {
			if c := config(t, p, AnomalousConfig); c.Level != "mix" || len(c.Statistics.List) != 0 {
				t.Errorf("%s: level %s list %v, want A's level, unnarrowed", name, c.Level, c.Statistics.List)
			}
			if md := Markdown(p, false); !strings.Contains(md, "--dump-c ./dump_anomalous --dump-d ./dump_baseline") {
				t.Errorf("%s: PLAN.md does not say to pass the new dumps as C and D:\n%s", name, md)
			}
		}
	}
}

// A drill-down on level-L0 dumps ended at a module: level mix narrowed to
// its layer on A and C (both devices), and PLAN.md says why: an L0
// drill-down ends at a module, mix finds the API call inside it. The
// config keeps, by msprobe's rules, the API calls made inside the layer.
func TestL0DrillDownAtAModuleAsksForMixOfItsLayer(t *testing.T) {
	p := Build(caseNamed(t, "L0 drill-down ended at a module"))
	md := Markdown(p, false)
	for _, f := range []string{AnomalousConfig, BaselineConfig} {
		c := config(t, p, f)
		if c.Level != "mix" || !reflect.DeepEqual(c.Statistics.List, []string{gptPrefix + "2."}) || !reflect.DeepEqual(c.Rank, []int{3, 4}) {
			t.Errorf("%s: level %s list %v rank %v, want mix of layer 2 on ranks 3 and 4", f, c.Level, c.Statistics.List, c.Rank)
		}
		kept := msKept(megatronStep(gptPrefix, 4), c.Level, c.Statistics.List, scope26)
		apis := 0
		for _, k := range kept {
			if !strings.HasPrefix(k, "Module.") {
				apis++
			}
		}
		if apis != 20 {
			t.Errorf("%s keeps %d API calls, want layer 2's 20", f, apis)
		}
	}
	for _, want := range []string{"ended at module Module." + gptPrefix + "2.mlp.linear_fc1", "a drill-down on them ends at a module", "level mix records the API calls made inside each module", "1.2.0 or later"} {
		if !strings.Contains(md, want) {
			t.Errorf("PLAN.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "hold no operators") {
		t.Errorf("PLAN.md says the dumps hold no operators right after naming the drill-down's record")
	}
}

// A drill-down that already named an operator: a tensor dump of that call
// on A and B for msprobe compare, not another statistics pass; with the
// tensors there, nothing.
func TestNamedOperatorAsksForItsTensorsOnAAndB(t *testing.T) {
	in := caseNamed(t, "mix drill-down named an operator")
	p := Build(in)
	if len(p.Configs) != 2 {
		t.Fatalf("files %v: want the two tensor configs", names(p))
	}
	for _, f := range []string{AnomalousConfig, BaselineConfig} {
		c := config(t, p, f)
		if c.Task != TaskTensor || c.Statistics != nil || c.Tensor == nil || !reflect.DeepEqual(c.Rank, []int{3}) || !reflect.DeepEqual(c.Step, []int{5}) || c.Level != "mix" {
			t.Fatalf("%s: %+v, want task tensor of rank 3 step 5 at A's level", f, c)
		}
		if kept := msKept(megatronStep(gptPrefix, 4), c.Level, c.Tensor.List, scope26); !reflect.DeepEqual(kept, []string{"Functional.linear.10.forward", "Functional.linear.10.backward"}) {
			t.Errorf("%s keeps %v, want Functional.linear.10 forward and backward", f, kept)
		}
	}
	md := Markdown(p, false)
	for _, want := range []string{"msprobe compare -tp ./tensor_anomalous/step5/rank3/dump.json -gp ./tensor_baseline/step5/rank3/dump.json -o ./compare_out",
		`"npu_path": "./tensor_anomalous/step5/rank3/dump.json"`, "not another statistics pass"} {
		if !strings.Contains(md, want) {
			t.Errorf("PLAN.md lacks %q:\n%s", want, md)
		}
	}
	in.A.Task, in.B.Task = TaskTensor, TaskTensor
	if p := Build(in); !p.Nothing {
		t.Errorf("tensor dumps there: files %v unknown %v", names(p), p.Unknown)
	}
}

// A pipeline-parallel run: the controls are on A's stage, the list entry
// is the layer in the stage's own numbering, and PLAN.md gives both.
func TestStagesRunNarrowsToTheStagesLayer(t *testing.T) {
	p := Build(caseNamed(t, "PP run: L0 dumps of A and B on stage 1"))
	c := config(t, p, AnomalousConfig)
	if !reflect.DeepEqual(c.Rank, []int{3, 4, 6}) || c.Level != "mix" || !reflect.DeepEqual(c.Statistics.List, []string{gptPrefix + "2."}) {
		t.Errorf("rank %v level %s list %v, want A's rank and stage 1's controls 4, 6 at mix of the stage's layer 2", c.Rank, c.Level, c.Statistics.List)
	}
	md := Markdown(p, false)
	for _, want := range []string{"layer 2 of pipeline stage 1, global layer 6", "on A's pipeline stage 1"} {
		if !strings.Contains(md, want) {
			t.Errorf("PLAN.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "rank 4 is the control group") != 2 {
		t.Errorf("rank 4's reason is not given once per device:\n%s", md)
	}
}
