package report

import (
	"math"
	"spikescope/plan"

	"spikescope/model"
)

func fp(v float64) *model.Float { return model.FloatPtr(v) }
func ip(v int) *int             { return model.IntPtr(v) }

// fullInput is a hand-made run with every phase: micro-step monitor data
// with a baseline, a cross-step turn, four dump groups with one forward
// divergence at L2, an unaligned layer and a drill-down.
func fullInput() Input {
	cand := func(opt, ms, rank int, name string, norm, delta, dev, final float64) model.Anomaly {
		return model.Anomaly{Rank: rank, Step: opt*4 + ms, MicroStep: ip(ms), OptimizerStep: ip(opt), TargetName: name,
			Metric: "grad_unreduced", Norm: model.Float(norm), Delta: fp(delta), DeviationRatio: model.Float(dev),
			BaselineMedian: model.Float(norm / dev), SuspectFinalNorm: fp(final), Trigger: "micro_step_delta"}
	}
	p1 := &model.Phase1Result{
		Phase: 1, DBPath: "/runs/npu/trend.db", Format: model.FormatTrendDB,
		Sharding: model.ShardingAnalysis{PPStages: 1, HasMicroStep: true, AccumulationWindow: 4, OptimizerStepCount: 8,
			AccumulationDetected: true, PassUnit: "micro_step", Conclusion: "accumulation window 4 detected from periodic resets"},
		TargetRankNorms: map[string]model.TargetRankNorms{
			"2": {TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Ranks: map[string]model.Float{"0": 1.0, "1": 1.1, "2": 0.9}},
			"3": {TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Ranks: map[string]model.Float{"0": 1.2, "1": 1.0, "2": 7.5}},
			"4": {TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Ranks: map[string]model.Float{"0": 9.0, "1": 8.5, "2": 30}},
		},
		Summary: model.Phase1Summary{TotalTargets: 48, TotalRows: 12288, Steps: []int{0, 1, 2, 31}, Ranks: []int{0, 1, 2},
			PassUnit: "micro_step", AnomalyCount: 3},
		Anomalies: []model.Anomaly{
			cand(4, 1, 0, "decoder.layers.1.mlp|experts.weight", 9.0, 6.1, 41.2, 9.0),
			cand(3, 2, 2, "decoder.layers.1.mlp.linear_fc1.weight", 5.0, 4.2, 12.5, 7.5),
			cand(3, 1, 1, "decoder.layers.0.self_attention.linear_qkv.weight", math.Inf(1), math.NaN(), math.Inf(1), 2.0),
		},
		Reasoning:          []string{"window 4 from resets on 3/3 ranks"},
		DataKind:           "micro_step",
		Metric:             "grad_unreduced",
		OptimizerStepRange: []int{0, 7},
	}
	p1b := &model.Phase1Result{Phase: 1, DBPath: "/runs/gpu/trend.db", Format: model.FormatTrendDB}
	p2 := &model.Phase2Result{
		Phase: 2, Mode: "NPU (+GPU 标杆)", RootOptStep: ip(3),
		Reasoning:  "optimizer step 3 → 4: 3/3 ranks grew ≥ 2x | root in optimizer step 3",
		Decisions:  []string{"growth threshold 2.0x (default)"},
		Thresholds: map[string]float64{"rank_share": 0.6, "growth": 2},
		RootCauseCoordinate: &model.Coordinate{OptimizerStep: ip(3), MicroStep: ip(2), Step: ip(14), Rank: 2,
			TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Norm: 5.0, Delta: fp(4.2), DeviationRatio: 12.5},
		CrossDeviceVerification: "NPU delta=4.2 (rank=2), GPU delta=0.4, ratio 10.5x ≥ 2.0x → device-specific",
		CrossStep: []model.CrossStepPair{
			{From: 2, To: 3, TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Threshold: 2, RanksOver: 1, RanksTotal: 3, Share: 1.0 / 3},
			{From: 3, To: 4, TargetName: "decoder.layers.1.mlp.linear_fc1.weight", Threshold: 2, RanksOver: 3, RanksTotal: 3, Share: 1, Qualifies: true, BaselineGrowth: new(bool)},
		},
		Candidates: []model.CandidateVerdict{
			{Anomaly: p1.Anomalies[1], Value: 4.2, BaselineValue: fp(0.4), Ratio: fp(10.5), Verdict: "device-specific", Selected: true},
		},
	}
	layer := func(l int, fa, fb, fc, fd float64, fflag bool, ba, bb, bc, bd float64, bflag bool) model.LayerRow {
		m := model.MetricRow{
			Fwd: model.Quad{A: fp(fa), B: fp(fb), C: fp(fc), D: fp(fd)},
			Bwd: model.Quad{A: fp(ba), B: fp(bb), C: fp(bc), D: fp(bd)},
			FAB: fp(fa / fb), FCD: fp(fc / fd), BAB: fp(ba / bb), BCD: fp(bc / bd),
			FAnomaly: fp(fa / fb / (fc / fd)), BAnomaly: fp(ba / bb / (bc / bd)), FFlag: fflag, BFlag: bflag,
		}
		return model.LayerRow{Layer: l, Metrics: map[string]model.MetricRow{"Norm": m, "Max": m}}
	}
	un := layer(1, 31, 31, 31.31, 31, false, 0.3, 0.3, 0.3, 0.3, false)
	nm := un.Metrics["Norm"]
	nm.Fwd.A, nm.Fwd.B, nm.FAB, nm.FAnomaly = nil, nil, nil, nil
	un.Metrics = map[string]model.MetricRow{"Norm": nm}
	un.Alignment.Reasons = []string{"element count 8 vs 16"}
	attn := model.AnchorTable{Name: "self_attention", Layers: []model.LayerRow{
		layer(0, 20, 20, 20, 20, false, 0.2, 0.2, 0.2, 0.2, false),
		layer(1, 21, 21, 21.21, 21, false, 0.21, 0.21, 0.21, 0.21, false),
		layer(2, 33, 22, 21.78, 22, true, 0.44, 0.22, 0.2178, 0.22, true),
		layer(3, 34.5, 23, 23, 23, true, 0.69, 0.23, 0.23, 0.23, true),
	}}
	attn.Conclusion.EarliestFwdDivergence, attn.Conclusion.EarliestBwdDivergence = ip(2), ip(3)
	mlp := model.AnchorTable{Name: "mlp|moe", Layers: []model.LayerRow{
		layer(0, 30, 30, 30, 30, false, 0.3, 0.3, 0.3, 0.3, false), un,
	}}
	mlp.Conclusion.UncomparedLayers.Fwd = []int{1}
	mlp.Layers[0].Label, mlp.Layers[1].Label = "decoder.layers.0", "decoder.layers.1"
	attn.Thresholds = map[string]map[string]model.Band{"Norm": {"fwd": {Lower: 0.97, Upper: 1.03}, "bwd": {Lower: 0.95, Upper: 1.05}}}
	band := model.Band{Median: 1, IQR: 0.01, Lower: 0.97, Upper: 1.03, Samples: 4, Usable: true, Rule: "degree outside 1 ± max(3·IQR/median, 0.03)"}
	p3 := &model.Phase3Result{
		Phase: 3, LayerPrefix: "layers.", Anchors: []model.AnchorTable{attn, mlp},
		AnchorsUsed:   []string{"self_attention", "mlp|moe"},
		Dirs:          map[string]string{"A": "/dumps/npu/step3/rank2", "B": "/dumps/gpu/step3/rank2", "C": "/dumps/npu/step3/rank1", "D": "/dumps/gpu/step3/rank1"},
		AnchorWarning: &model.AnchorWarning{AnchorsFound: 2, Message: "only 2 anchors"},
		ControlChoice: "C = step 3 rank 1: not a Phase 1 candidate, grad norm below P75",
		ControlCandidates: []model.ControlCandidate{
			{Step: 3, Rank: 1, GradNorm: 0.5, Accepted: true, SameLayers: true, HasD: true, Reason: "below P75 0.8"},
			{Step: 3, Rank: 0, GradNorm: 9, ProfileDistance: fp(0.012), SameLayers: true, HasD: true, Reason: "Phase 1 candidate"},
		},
		DivergenceSummary: model.DivergenceSummary{
			EarliestFwdDivergence: ip(2), EarliestBwdDivergence: ip(3),
			MetricStarts: map[string]model.MetricStart{
				"Norm": {FwdStart: ip(2), BwdStart: ip(3), FwdMainSegment: []int{2, 3}},
				"Max":  {FwdStart: ip(2), BwdStart: ip(3)},
				"Mean": {},
			},
			Disagreements:    []string{"Mean→none"},
			IteratedMetrics:  true,
			IterationPath:    map[string][]string{"fwd": {"Norm→L2", "Max→L2"}, "bwd": {"Norm→L3"}},
			UncomparedLayers: model.DirLayers{Fwd: []int{1}},
			Thresholds: map[string]map[string]model.Band{
				"Norm": {"fwd": band, "bwd": band},
				"Mean": {"bwd": {Median: 0.1, IQR: 0.5, Samples: 4, Note: "erratic near zero"}},
			},
			Directions: []model.DirectionVerdict{
				{Direction: "fwd", Verdict: "divergent", Start: ip(2), Peak: ip(2), PeakValue: fp(1.515), Flagged: []int{2, 3}, Unaligned: []int{1}, P0: true},
				{Direction: "bwd", Verdict: "divergent", Start: ip(3), Peak: ip(3), PeakValue: fp(3), Flagged: []int{2, 3}, Amplified: true, FirstNonFinite: "L3 Functional.softmax.7.backward"},
			},
			Drilldown: &model.Drilldown{Direction: "fwd", Layer: ip(2), Operator: "Functional.softmax.3.forward", Metric: "Norm",
				Largest: "Functional.dropout.4.forward",
				Chain:   []string{"Functional.matmul.2.forward", "Module.layers.2.self_attention.linear_qkv.forward.0"},
				Ops: []model.DrillOp{
					{Key: "Module.layers.2.self_attention.linear_qkv.forward.0", Order: 10, Aligned: true,
						Metrics: map[string]model.MetricRow{"Norm": layer(2, 5, 5, 5, 5, false, 0, 0, 0, 0, false).Metrics["Norm"]}},
					{Key: "Functional.softmax.3.forward", Order: 12, Aligned: true, Flagged: true,
						Metrics: map[string]model.MetricRow{"Norm": layer(2, 8, 4, 4, 4, true, 0, 0, 0, 0, false).Metrics["Norm"]}},
				}},
		},
	}
	return Input{P1: p1, P1Baseline: p1b, P2: p2, P3: p3, BaselinePath: "/runs/gpu/trend.db",
		Control: "C = step 3 rank 1"}
}

// degradedInput is a run with monitor data only: no baseline, no dumps, so
// Phase 2 is single-device and Phase 3 did not run.
func degradedInput() Input {
	in := fullInput()
	in.P1Baseline, in.BaselinePath, in.P3, in.Control = nil, "", nil, ""
	in.P1.Format, in.P1.DBPath = model.FormatCSV, "/runs/npu/monitor_csv"
	in.P2.Mode = "单设备"
	in.P2.CrossDeviceVerification = "无标杆数据"
	for i := range in.P2.Candidates {
		in.P2.Candidates[i].BaselineValue, in.P2.Candidates[i].Ratio, in.P2.Candidates[i].Verdict = nil, nil, "no baseline"
	}
	in.P2.CrossStep[1].BaselineGrowth = nil
	in.Missing = []model.Missing{
		{What: "baseline device's monitor data (Phase 2)", Next: "monitor the baseline device on the same run (same steps and ranks)"},
		{What: "dump statistics", Next: "dump A at optimizer step 3 on rank 2, and C/D at optimizer step 3 on rank 1"},
	}
	p := plan.Build(plan.Input{P1: in.P1, P2: in.P2, MonitorFormat: in.P1.Format})
	in.Plan = &p
	return in
}

// noControlInput has dumps A and B only: Phase 3 ran degraded, without C/D.
func noControlInput() Input {
	in := fullInput()
	p3 := in.P3
	p3.Degraded = true
	p3.DegradedNote = "only A and B given"
	p3.ControlChoice = ""
	in.Control = "no C: every candidate of the tree spikes"
	delete(p3.Dirs, "C")
	delete(p3.Dirs, "D")
	for ai := range p3.Anchors {
		for li := range p3.Anchors[ai].Layers {
			l := &p3.Anchors[ai].Layers[li]
			for k, m := range l.Metrics {
				m.Fwd.C, m.Fwd.D, m.Bwd.C, m.Bwd.D, m.FCD, m.BCD = nil, nil, nil, nil, nil, nil
				m.FAnomaly, m.BAnomaly = m.FAB, m.BAB
				l.Metrics[k] = m
			}
		}
	}
	p3.DivergenceSummary.Thresholds = nil
	p3.DivergenceSummary.Drilldown = nil
	in.Missing = []model.Missing{{What: "control group C/D", Next: "dump C and D at optimizer step 3 on rank 1 (not a Phase 1 candidate)"}}
	return in
}

// emptyInput is a quiet run: Phase 1 found nothing, nothing else ran.
func emptyInput() Input {
	return Input{
		P1: &model.Phase1Result{Phase: 1, DBPath: "/runs/quiet/trend.db", Format: model.FormatTrendDB,
			Summary:  model.Phase1Summary{TotalTargets: 12, Steps: []int{0, 9}, Ranks: []int{0, 1}, PassUnit: "step"},
			Sharding: model.ShardingAnalysis{PassUnit: "step"}, Missing: []string{"no micro_step column"}},
		Missing: []model.Missing{{What: "baseline device's monitor data (Phase 2)", Next: "monitor the baseline device"}},
	}
}

// pinnedInput is fullInput pinned at the later candidate of optimizer step
// 4: the report says what the automatic choice was.
func pinnedInput() Input {
	in := fullInput()
	p2 := *in.P2
	p2.Pinned, p2.Automatic, p2.AutomaticOptStep = true, p2.RootCauseCoordinate, p2.RootOptStep
	p2.RootCauseCoordinate = &model.Coordinate{OptimizerStep: ip(4), MicroStep: ip(1), Step: ip(17), Rank: 0,
		TargetName: "decoder.layers.1.mlp|experts.weight", Norm: 9.0, Delta: fp(6.1), DeviationRatio: 41.2}
	p2.RootOptStep, p2.CrossStep, p2.Candidates = ip(4), nil, nil
	p2.Decisions = []string{"pinned by the user: opt=4,ms=1,rank=0,param=decoder.layers.1.mlp|experts.weight"}
	p2.Reasoning = "pinned by the user"
	in.P2 = &p2
	return in
}
