package analysis

import (
	"testing"

	"spikescope/model"
)

// p2With is a Phase 2 result whose root event is e (coordinate co).
func p2With(co *model.Coordinate, evs ...model.SpikeEvent) *model.Phase2Result {
	for i := range evs {
		evs[i].Coordinate = co
	}
	return &model.Phase2Result{RootCauseCoordinate: co, Events: evs, Thresholds: map[string]float64{"device_ratio": 2, "rank_share": 0.6}}
}

func p3Concluded(fwdFlag bool, uncompared bool) *model.Phase3Result {
	p3 := &model.Phase3Result{Anchors: []model.AnchorTable{{Name: "mlp", Layers: make([]model.LayerRow, 4)}}}
	ds := &p3.DivergenceSummary
	if fwdFlag {
		ds.EarliestFwdDivergence = model.IntPtr(2)
		ds.Directions = []model.DirectionVerdict{{Direction: "fwd", Verdict: "divergent", Start: model.IntPtr(2), Flagged: []int{2}}}
		ds.Drilldown = &model.Drilldown{Direction: "fwd", Layer: model.IntPtr(2), Operator: "op.2.forward", Metric: "Norm"}
	} else {
		ds.Directions = []model.DirectionVerdict{{Direction: "fwd", Verdict: "consistent"}, {Direction: "bwd", Verdict: "consistent"}}
	}
	if uncompared {
		ds.UncomparedLayers.Fwd = []int{1}
	}
	p3.Conclusion = ConcludePhase3(p3)
	return p3
}

func TestVerdictRules(t *testing.T) {
	co := &model.Coordinate{OptimizerStep: model.IntPtr(5), Rank: 3, TargetName: "layers.2.mlp.linear_fc1.weight"}
	kernel := model.SpikeEvent{Root: true, RootStep: 5, Ranks: []int{3}, RanksTotal: 8, Parameters: 1, ParametersPerRank: 20, Extent: extentKernel}
	specific, sharedEv := kernel, kernel
	specific.Baseline, sharedEv.Baseline = eventSpecific, eventShared
	nfShared := sharedEv
	nfShared.NonFinite, nfShared.Ranks = true, []int{0, 1, 2, 3, 4, 5, 6, 7}
	wide := model.SpikeEvent{Root: true, RootStep: 5, Ranks: []int{0, 1, 2, 3, 4, 5, 6}, RanksTotal: 8, Parameters: 20, ParametersPerRank: 20, Extent: extentRunWide, Conducts: true, ConductsInto: []int{6}}
	bl := &model.Phase1Result{}
	for _, c := range []struct {
		name          string
		in            VerdictInput
		cause, likely string
		rule          string
		layer         int // -1: none
	}{
		{"nothing", VerdictInput{P2: &model.Phase2Result{}}, "", "", "", -1},
		{"one device, one parameter of one rank", VerdictInput{P2: p2With(co, kernel)}, model.CauseUndetermined, model.CauseDevice, model.EvExtent, 2},
		{"device-specific", VerdictInput{P1Baseline: bl, P2: p2With(co, specific)}, model.CauseDevice, "", model.EvDeviceSpecific, 2},
		{"shared", VerdictInput{P1Baseline: bl, P2: p2With(co, sharedEv)}, model.CauseData, "", model.EvShared, 2},
		{"shared NaN", VerdictInput{P1Baseline: bl, P2: p2With(co, nfShared)}, model.CauseNumerics, "", model.EvSharedNonFinite, 2},
		{"growth on most ranks", VerdictInput{P2: p2With(co, wide)}, model.CauseDynamics, "", model.EvRunWideGrowth, 2},
		{"Phase 3 divergence", VerdictInput{P2: p2With(co, kernel), P3: p3Concluded(true, false)}, model.CauseDevice, "", model.EvP3Divergence, 2},
		{"Phase 3 agrees", VerdictInput{P2: p2With(co, sharedEv), P3: p3Concluded(false, false)}, model.CauseData, "", model.EvP3Consistent, 2},
		{"Phase 3 agrees, monitor says device", VerdictInput{P1Baseline: bl, P2: p2With(co, specific), P3: p3Concluded(false, false)}, model.CauseUndetermined, model.CauseDevice, model.EvConflict, 2},
		{"Phase 3 undecided: the monitor decides", VerdictInput{P1Baseline: bl, P2: p2With(co, specific), P3: p3Concluded(false, true)}, model.CauseDevice, "", model.EvDeviceSpecific, 2},
		{"Phase 3 divergence alone", VerdictInput{P3: p3Concluded(true, false)}, model.CauseDevice, "", model.EvP3Divergence, 2},
	} {
		v := Verdict(c.in)
		if c.cause == "" {
			if v != nil {
				t.Errorf("%s: verdict %s", c.name, jsn(v))
			}
			continue
		}
		if v == nil || v.Cause != c.cause || v.Likely != c.likely {
			t.Errorf("%s: %s, want %s/%s", c.name, jsn(v), c.cause, c.likely)
			continue
		}
		found := false
		for _, e := range v.Evidence {
			found = found || e.Rule == c.rule
		}
		if !found || v.ActionReason == nil || v.ActionID == "" {
			t.Errorf("%s: evidence %s action %v", c.name, jsn(v.Evidence), v.ActionReason)
		}
		for _, e := range v.Evidence {
			if e.Reason == nil || e.Text != "" || v.Action != "" {
				t.Errorf("%s: the rule wrote a sentence or kept no reason: %s", c.name, jsn(e))
			}
		}
		if (v.Layer == nil) != (c.layer < 0) || v.Layer != nil && *v.Layer != c.layer {
			t.Errorf("%s: layer %v", c.name, v.Layer)
		}
	}
}

// A NaN on every parameter of one rank: the parameter does not decide, so
// the verdict names no layer from it.
func TestVerdictNoLayerFromUndecidedParameter(t *testing.T) {
	co := &model.Coordinate{OptimizerStep: model.IntPtr(5), Rank: 3, TargetName: "embedding.word_embeddings.weight", ParameterDecides: model.BoolPtr(false)}
	co2 := *co
	co2.TargetName = "layers.0.attn.weight"
	e := model.SpikeEvent{Root: true, RootStep: 5, Ranks: []int{3}, RanksTotal: 8, Parameters: 20, ParametersPerRank: 20, Extent: extentData, NonFinite: true}
	v := Verdict(VerdictInput{P2: p2With(&co2, e)})
	if v == nil || v.Layer != nil || v.Cause != model.CauseUndetermined || v.Likely != model.CauseDevice {
		t.Fatalf("verdict %s", jsn(v))
	}
	if c, l := EventCause(&e); c != model.CauseUndetermined || l != model.CauseDevice {
		t.Fatalf("event cause %s/%s: a NaN on one rank is likely a device fault, not data", c, l)
	}
}

// Every parameter of rank 3 NaN at once (the parameter does not decide),
// and Phase 3 finds where A first turns NaN while B stays finite: device,
// with the non-finite origin's layer and operator, not the parameter's.
func TestVerdictNonFiniteOrigin(t *testing.T) {
	co := &model.Coordinate{OptimizerStep: model.IntPtr(5), Rank: 3, TargetName: "embedding.position_embeddings.weight", ParameterDecides: model.BoolPtr(false)}
	e := model.SpikeEvent{Root: true, RootStep: 5, Ranks: []int{3}, RanksTotal: 8, Parameters: 28, ParametersPerRank: 28, Extent: extentData, NonFinite: true}
	p3 := p3Concluded(true, false)
	p3.DivergenceSummary.EarliestFwdDivergence = model.IntPtr(3)
	p3.DivergenceSummary.Directions[0].Start = model.IntPtr(3)
	p3.DivergenceSummary.Drilldown = &model.Drilldown{Direction: "fwd", Layer: model.IntPtr(3), Operator: "Functional.softmax.3.forward", NonFinite: true}
	p3.Conclusion = ConcludePhase3(p3)
	v := Verdict(VerdictInput{P2: p2With(co, e), P3: p3})
	if v == nil || v.Cause != model.CauseDevice || v.Layer == nil || *v.Layer != 3 || v.OperatorName() != "Functional.softmax.3.forward" {
		t.Fatalf("verdict %s", jsn(v))
	}
	rules := map[string]bool{}
	for _, ev := range v.Evidence {
		rules[ev.Rule] = true
	}
	if !rules[model.EvP3NonFinite] || !rules[model.EvP3Divergence] {
		t.Fatalf("evidence %s", jsn(v.Evidence))
	}
}
