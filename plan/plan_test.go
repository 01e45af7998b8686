package plan

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"spikescope/model"
)

// run is a synthetic 8-rank run: the spike is at optimizer step 5 on rank
// 3 (also a candidate on rank 2), micro-step monitor data in a CSV tree.
func run() Input {
	p1 := &model.Phase1Result{
		Format:   model.FormatCSV,
		Summary:  model.Phase1Summary{Ranks: []int{0, 1, 2, 3, 4, 5, 6, 7}, TotalTargets: 40},
		Sharding: model.ShardingAnalysis{HasMicroStep: true, AccumulationWindow: 4},
		Anomalies: []model.Anomaly{
			{Rank: 3, Step: 22, OptimizerStep: model.IntPtr(5), MicroStep: model.IntPtr(2), TargetName: "layers.2.mlp.linear_fc2.weight"},
			{Rank: 2, Step: 22, OptimizerStep: model.IntPtr(5), MicroStep: model.IntPtr(2), TargetName: "layers.2.mlp.linear_fc2.weight"},
		},
	}
	p2 := &model.Phase2Result{RootCauseCoordinate: &model.Coordinate{
		OptimizerStep: model.IntPtr(5), MicroStep: model.IntPtr(2), Rank: 3, TargetName: "layers.2.mlp.linear_fc2.weight"}}
	return Input{P1: p1, P1Baseline: p1, P2: p2, MonitorFormat: model.FormatCSV}
}

// dump is a dump of (step, rank) at level with module records of layers
// 0..3, and operators when level is mix.
func dump(step, rank int, level string) *model.Dump {
	d := &model.Dump{Step: step, Rank: rank, Level: level, Framework: "pytorch"}
	for l := 0; l < 4; l++ {
		path := "module.module.decoder.layers." + string(rune('0'+l))
		d.Ops = append(d.Ops, model.Op{Kind: model.KindModule, ModulePath: path, Layer: l,
			Inputs: make([]model.TensorStat, 1), Outputs: make([]model.TensorStat, 1)})
		if level == "mix" {
			d.Ops = append(d.Ops, model.Op{Kind: model.KindAPI, ModulePath: "Functional.linear", Layer: l,
				Inputs: make([]model.TensorStat, 2), Outputs: make([]model.TensorStat, 1)})
		}
	}
	return d
}

func tree(ds ...*model.Dump) *model.DumpTree { return &model.DumpTree{Dumps: ds} }

// config returns the dump config named name, failing when absent.
func config(t *testing.T, p Plan, name string) DumpConfig {
	t.Helper()
	for _, c := range p.Configs {
		if c.Name == name {
			return c.Value.(DumpConfig)
		}
	}
	t.Fatalf("no %s in the plan; files: %v", name, names(p))
	return DumpConfig{}
}

func names(p Plan) []string {
	var out []string
	for _, c := range p.Configs {
		out = append(out, c.Name)
	}
	return out
}

func has(p Plan, name string) bool {
	for _, c := range p.Configs {
		if c.Name == name {
			return true
		}
	}
	return false
}

func TestNoDumpsDumpsRootAndControlsAtL0OnBothDevices(t *testing.T) {
	p := Build(run())
	for _, name := range []string{AnomalousConfig, BaselineConfig} {
		c := config(t, p, name)
		if c.Task != "statistics" || c.Level != "L0" || c.Statistics.SummaryMode != "statistics" || !c.ExtraInfo {
			t.Errorf("%s: task %q level %q summary %q extra_info %v", name, c.Task, c.Level, c.Statistics.SummaryMode, c.ExtraInfo)
		}
		if !reflect.DeepEqual(c.Step, []int{5}) {
			t.Errorf("%s: step %v, want [5] (CSV steps are training steps)", name, c.Step)
		}
		// rank 2 is a candidate at step 5: the controls are 4 and 1
		if !reflect.DeepEqual(c.Rank, []int{1, 3, 4}) {
			t.Errorf("%s: rank %v, want [1 3 4]", name, c.Rank)
		}
	}
	if has(p, MonitorFile) {
		t.Errorf("monitor config written although the monitor data answers Phase 1-2")
	}
	if p.Nothing || len(p.Estimate) != 2 {
		t.Errorf("Nothing %v, estimates %v", p.Nothing, p.Estimate)
	}
}

func TestAWithoutBDumpsOnlyTheBaselineDevice(t *testing.T) {
	in := run()
	a, c := dump(5, 3, "mix"), dump(5, 4, "mix")
	in.ATree, in.A, in.C = tree(a, c), a, c
	p := Build(in)
	if has(p, AnomalousConfig) {
		t.Errorf("anomalous device rerun although A and C are there: %v", names(p))
	}
	b := config(t, p, BaselineConfig)
	if !reflect.DeepEqual(b.Rank, []int{3, 4}) || !reflect.DeepEqual(b.Step, []int{5}) || b.Level != "mix" {
		t.Errorf("baseline: rank %v step %v level %q, want [3 4] [5] mix (B and D at A's level)", b.Rank, b.Step, b.Level)
	}
}

func TestABWithoutCDDumpsTheControlRanksAtAsStep(t *testing.T) {
	in := run()
	a, b := dump(7, 3, "mix"), dump(7, 3, "mix")
	in.ATree, in.BTree, in.A, in.B = tree(a), tree(b), a, b
	in.DumpStepOffset = model.IntPtr(2)
	p := Build(in)
	for _, name := range []string{AnomalousConfig, BaselineConfig} {
		c := config(t, p, name)
		if !reflect.DeepEqual(c.Rank, []int{1, 4}) || !reflect.DeepEqual(c.Step, []int{7}) || c.Level != "mix" {
			t.Errorf("%s: rank %v step %v level %q, want [1 4] [7] mix", name, c.Rank, c.Step, c.Level)
		}
	}
}

func TestL0DumpsWithoutOperatorsAskForMixNarrowedToTheLayer(t *testing.T) {
	in := run()
	a, b, c, d := dump(5, 3, "L0"), dump(5, 3, "L0"), dump(5, 4, "L0"), dump(5, 4, "L0")
	in.ATree, in.BTree, in.A, in.B, in.C, in.D = tree(a, c), tree(b, d), a, b, c, d
	in.P3 = &model.Phase3Result{LayerPrefix: "layers.", DivergenceSummary: model.DivergenceSummary{
		EarliestFwdDivergence: model.IntPtr(2), EarliestBwdDivergence: model.IntPtr(2)}}
	p := Build(in)
	for _, name := range []string{AnomalousConfig, BaselineConfig} {
		c := config(t, p, name)
		if c.Level != "mix" || !reflect.DeepEqual(c.Statistics.List, []string{"module.module.decoder.layers.2."}) {
			t.Errorf("%s: level %q list %q, want mix narrowed to layer 2", name, c.Level, c.Statistics.List)
		}
		if !reflect.DeepEqual(c.Rank, []int{3, 4}) {
			t.Errorf("%s: rank %v, want A's and C's [3 4]", name, c.Rank)
		}
	}
	// the narrowed dump is smaller than the whole model at level mix
	if !strings.Contains(p.Estimate[0].En, "from the 2 records") {
		t.Errorf("estimate %q: want layer 2's 2 module records", p.Estimate[0].En)
	}
}

func TestEverythingThereIsNothingToCollect(t *testing.T) {
	in := run()
	a, b, c, d := dump(5, 3, "mix"), dump(5, 3, "mix"), dump(5, 4, "mix"), dump(5, 4, "mix")
	in.ATree, in.BTree, in.A, in.B, in.C, in.D = tree(a, c), tree(b, d), a, b, c, d
	in.P3 = &model.Phase3Result{DivergenceSummary: model.DivergenceSummary{EarliestFwdDivergence: model.IntPtr(2)}}
	p := Build(in)
	if !p.Nothing || len(p.Configs) != 0 {
		t.Fatalf("Nothing %v, files %v", p.Nothing, names(p))
	}
	if md := Markdown(p, false); !strings.Contains(md, "Nothing is missing") {
		t.Errorf("PLAN.md does not say so:\n%s", md)
	}
}

func TestMonitorWithoutMicroStepsAsksForMonitorMbsGrad(t *testing.T) {
	in := run()
	in.P1.Sharding.HasMicroStep = false
	in.NoNorm = true
	p := Build(in)
	var m MonitorConfig
	for _, c := range p.Configs {
		if c.Name == MonitorFile {
			m = c.Value.(MonitorConfig)
		}
	}
	if !m.MonitorMbsGrad || !m.WgDistribution || !contains(m.Ops, "norm") {
		t.Errorf("monitor config %+v: want monitor_mbs_grad, wg_distribution and norm", m)
	}
	if got := len(p.Actions); got < 2 || !strings.Contains(p.Actions[0].En, "micro") || !strings.Contains(p.Actions[1].En, "norm") {
		t.Errorf("actions %v: want the micro-step and the norm reason", p.Actions)
	}
}

func TestNoMonitorDataAsksForTheMonitorOnly(t *testing.T) {
	p := Build(Input{})
	if !reflect.DeepEqual(names(p), []string{MonitorFile}) || p.Configs[0].Device != "both devices" {
		t.Errorf("files %v: want only %s for both devices", names(p), MonitorFile)
	}
}

func TestRebasedTrendDBWithholdsTheDumpUntilTheOffsetIsKnown(t *testing.T) {
	in := run()
	in.MonitorFormat = model.FormatTrendDB
	p := Build(in)
	if has(p, AnomalousConfig) || has(p, BaselineConfig) {
		t.Errorf("dump configs written with an unknown training step: %v", names(p))
	}
	if len(p.Unknown) == 0 || !strings.Contains(p.Unknown[0].En, "--step-offset") {
		t.Errorf("unknown %v: want how to find the offset", p.Unknown)
	}
	in.StepOffset = model.IntPtr(1000)
	p = Build(in)
	if c := config(t, p, AnomalousConfig); !reflect.DeepEqual(c.Step, []int{1005}) {
		t.Errorf("step %v, want [1005] (trend.db step 5 + offset 1000)", c.Step)
	}
}

func TestStageKeepsControlsOnAsStage(t *testing.T) {
	in := run()
	in.P1.Sharding.Stages = &model.StageLayout{Stages: 2, Inferred: true, RankStages: map[string]int{
		"0": 0, "1": 0, "2": 0, "3": 1, "4": 1, "5": 0, "6": 1, "7": 1}}
	c := config(t, Build(in), AnomalousConfig)
	if !reflect.DeepEqual(c.Rank, []int{3, 4, 6}) {
		t.Errorf("rank %v, want [3 4 6]: controls on stage 1 only", c.Rank)
	}
}

func TestMindSporeRunGetsTheMindSporeForm(t *testing.T) {
	in := run()
	a := dump(5, 3, "mix")
	a.Framework = "mindspore"
	in.ATree, in.A = tree(a), a
	p := Build(in)
	var raw map[string]any
	data, _ := ConfigJSON(Config{Value: config(t, p, AnomalousConfig)})
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	if _, ok := raw["async_dump"]; ok {
		t.Errorf("MindSpore form has async_dump: %s", data)
	}
	if len(p.Unknown) == 0 || !strings.Contains(p.Unknown[0].En, "R mod N") {
		t.Errorf("unknown %v: want MindSpore's per-node rank numbering", p.Unknown)
	}
	data, _ = ConfigJSON(Config{Value: config(t, p, BaselineConfig)})
	if !strings.Contains(string(data), `"async_dump": false`) {
		t.Errorf("PyTorch baseline lacks async_dump: %s", data)
	}
}

func TestNoRootCoordinateSaysPin(t *testing.T) {
	in := run()
	in.P2.RootCauseCoordinate = nil
	p := Build(in)
	if p.Nothing || len(p.Configs) != 0 || len(p.Unknown) != 1 || !strings.Contains(p.Unknown[0].En, "--pin") {
		t.Errorf("Nothing %v unknown %v", p.Nothing, p.Unknown)
	}
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

func TestBaselineMonitorWithoutTheRootRankAsksForEveryRank(t *testing.T) {
	in := run()
	base := *in.P1
	base.Summary.Ranks = []int{0, 2, 4, 6} // a filter kept one replica of each pair
	in.P1Baseline = &base
	p := Build(in)
	if !has(p, MonitorFile) || p.Configs[0].Device != "the baseline device" {
		t.Fatalf("files %v: want the monitor config for the baseline device", names(p))
	}
	if m := p.Configs[0].Value.(MonitorConfig); !m.WgDistribution {
		t.Errorf("monitor config %+v", m)
	}
	if !strings.Contains(p.Actions[0].En, "no rank 3") {
		t.Errorf("action %q: want why", p.Actions[0].En)
	}
	base.Summary.Ranks = []int{0, 1, 2, 3}
	if has(Build(in), MonitorFile) {
		t.Errorf("monitor config although the baseline has rank 3")
	}
}

func TestMissingDataNoConfigCollectsIsStillOpen(t *testing.T) {
	in := run()
	a, b, c, d := dump(5, 3, "mix"), dump(5, 3, "mix"), dump(5, 4, "mix"), dump(5, 4, "mix")
	in.ATree, in.BTree, in.A, in.B, in.C, in.D = tree(a, c), tree(b, d), a, b, c, d
	in.Missing = []model.Missing{{What: "confirmation: A is not at the root-cause coordinate", Next: "confirm that dump steps are optimizer steps"}}
	p := Build(in)
	if p.Nothing || len(p.Configs) != 0 || len(p.Unknown) != 1 || !strings.Contains(p.Unknown[0].En, "confirm that dump steps") {
		t.Errorf("Nothing %v files %v unknown %v: want the missing item as still open", p.Nothing, names(p), p.Unknown)
	}
}

func TestPlanMarkdownInBothLanguages(t *testing.T) {
	p := Build(run())
	en, zh := Markdown(p, false), Markdown(p, true)
	for _, want := range []string{"# Next-collection plan", "config_anomalous.json` (anomalous)", `"level": "L0"`, "Dump size (estimate)"} {
		if !strings.Contains(en, want) {
			t.Errorf("English PLAN.md lacks %q", want)
		}
	}
	for _, want := range []string{"# 下一轮采集计划", "config_baseline.json` (标杆设备)", "dump 大小（估算）"} {
		if !strings.Contains(zh, want) {
			t.Errorf("Chinese PLAN.md lacks %q", want)
		}
	}
}
