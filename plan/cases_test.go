package plan

import (
	"strconv"
	"strings"

	"spikescope/model"
)

// The plans a user meets, one Input each: every case the plan can write
// configs for. msprobe_check_test.go validates every config of every case
// against msprobe's rules; the Test… functions below them hold each
// case's plan to what the analysis already had.

// gptDump is a dump of (step, rank) at level of the Megatron-style GPT of
// megatronStep (layers 0..3 under prefix): the records msprobe writes at
// that level, keyed as msprobe keys them, each API record's parent its
// enclosing module (construct.json).
func gptDump(step, rank int, level, prefix string) *model.Dump {
	d := &model.Dump{Step: step, Rank: rank, Level: level, Task: TaskStatistics, Framework: "pytorch"}
	var stack []string
	for _, e := range megatronStep(prefix, 4) {
		switch e.kind {
		case "begin":
			stack = append(stack, e.name)
		case "end":
			stack = stack[:len(stack)-1]
		case "record":
			isModule := strings.HasPrefix(e.name, "Module.")
			if level == "L0" && !isModule || level == "L1" && isModule {
				continue
			}
			op := model.Op{Key: e.name, Layer: -1, Order: len(d.Ops),
				Inputs:  []model.TensorStat{{Dtype: "torch.bfloat16", Shape: []int64{4, 64}, Elements: 256}},
				Outputs: []model.TensorStat{{Dtype: "torch.bfloat16", Shape: []int64{4, 64}, Elements: 256}}}
			parts := strings.Split(e.name, ".")
			if isModule {
				op.Kind, op.Prefix = model.KindModule, "Module"
				op.ModulePath = strings.Join(parts[1:len(parts)-3], ".")
				op.Class = parts[len(parts)-3]
				if len(stack) > 1 {
					op.Parent = stack[len(stack)-2]
				}
			} else {
				op.Kind, op.Prefix = model.KindAPI, parts[0]
				op.ModulePath = strings.Join(parts[:len(parts)-2], ".")
				if len(stack) > 0 {
					op.Parent = stack[len(stack)-1]
				}
			}
			src := op.ModulePath
			if !isModule {
				src = op.Parent
			}
			if i := strings.Index(src, prefix); i >= 0 {
				rest := src[i+len(prefix):]
				if j := strings.IndexByte(rest, '.'); j > 0 {
					op.Layer, _ = strconv.Atoi(rest[:j])
				}
			}
			if strings.HasSuffix(e.name, ".backward.0") || strings.HasSuffix(e.name, ".backward") {
				op.Direction = model.Backward
			} else {
				op.Direction = model.Forward
			}
			d.Ops = append(d.Ops, op)
		}
	}
	return d
}

const gptPrefix = "module.module.decoder.layers."

// withDumps adds A, B (and C, D when cd) at step and level to in, with a
// trace whose first divergent layer is 2.
func withDumps(in Input, step int, level string, cd bool) Input {
	a, b := gptDump(step, 3, level, gptPrefix), gptDump(step, 3, level, gptPrefix)
	in.A, in.B = a, b
	in.ATree, in.BTree = tree(a), tree(b)
	if cd {
		c, d := gptDump(step, 4, level, gptPrefix), gptDump(step, 4, level, gptPrefix)
		in.C, in.D = c, d
		in.ATree, in.BTree = tree(a, c), tree(b, d)
	}
	in.P3 = &model.Phase3Result{LayerPrefix: "layers.", DivergenceSummary: model.DivergenceSummary{
		EarliestFwdDivergence: model.IntPtr(2), EarliestBwdDivergence: model.IntPtr(2)}}
	return in
}

// withDrill names the drill-down's first divergent record of layer 2.
func withDrill(in Input, key string) Input {
	in.P3.DivergenceSummary.Drilldown = &model.Drilldown{Direction: "fwd", Layer: model.IntPtr(2), Operator: key,
		Ops: []model.DrillOp{{Key: key, Flagged: true, Aligned: true}}}
	return in
}

// planCase is one plan a user can meet.
type planCase struct {
	name string
	in   Input
}

// planCases are the cases: every branch of Build that writes a config.
func planCases() []planCase {
	var cs []planCase
	add := func(name string, in Input) { cs = append(cs, planCase{name, in}) }

	add("no monitor data", Input{})

	w1 := run()
	w1.P1.Sharding.HasMicroStep, w1.P1.Sharding.AccumulationWindow = false, 0
	w1.Window = 1
	add("monitor only, W = 1 (--window 1)", w1)

	w1ms := run()
	w1ms.P1.Sharding.AccumulationWindow = 1
	add("monitor only, micro steps, W = 1", w1ms)

	wUnknown := run()
	wUnknown.P1.Sharding.HasMicroStep, wUnknown.P1.Sharding.AccumulationWindow = false, 0
	add("monitor only, one row per optimizer step, W unknown", wUnknown)

	add("monitor only, micro steps, W = 4", run())

	noBase := run()
	noBase.P1Baseline = nil
	add("monitor of the anomalous device only", noBase)

	noNorm := run()
	noNorm.NoNorm = true
	add("monitor without norm", noNorm)

	oneRank := run()
	p1 := *oneRank.P1
	p1.Summary.Ranks = []int{3}
	oneRank.P1 = &p1
	add("monitor of one rank", oneRank)

	trend := run()
	trend.MonitorFormat = model.FormatTrendDB
	trend.StepOffset = model.IntPtr(1000)
	add("trend.db with --step-offset", trend)

	aOnly := run()
	a := gptDump(5, 3, "mix", gptPrefix)
	aOnly.A, aOnly.ATree = a, tree(a)
	add("A without B", aOnly)

	add("dumps A, B without C, D (mix)", withDumps(run(), 7, "mix", false))
	add("dumps A, B without C, D (L0)", withDumps(run(), 5, "L0", false))

	l0 := withDumps(run(), 5, "L0", true)
	add("L0 dumps: first divergent layer, no drill-down", l0)
	add("L0 drill-down ended at a module",
		withDrill(withDumps(run(), 5, "L0", true), "Module."+gptPrefix+"2.mlp.linear_fc1.ColumnParallelLinear.forward.0"))
	add("mix drill-down named an operator",
		withDrill(withDumps(run(), 5, "mix", true), "Functional.linear.10.forward"))

	pp := withDrill(withDumps(run(), 5, "L0", false), "Module."+gptPrefix+"2.mlp.linear_fc1.ColumnParallelLinear.forward.0")
	pp.P1.Sharding.Stages = &model.StageLayout{Stages: 2, Inferred: true, RankStages: map[string]int{
		"0": 0, "1": 0, "2": 0, "3": 1, "4": 1, "5": 0, "6": 1, "7": 1}}
	pp.P3.DumpStage = &model.DumpStage{Stage: model.IntPtr(1), Stages: 2, LayerOffset: model.IntPtr(4), Source: "test"}
	add("PP run: L0 dumps of A and B on stage 1", pp)

	ms := run()
	msA := gptDump(5, 3, "L0", gptPrefix)
	msA.Framework = "mindspore"
	ms.A, ms.ATree = msA, tree(msA)
	add("MindSpore A", ms)
	return cs
}
