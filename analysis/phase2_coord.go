package analysis

import (
	"cmp"
	"math"

	"spikescope/model"
)

// coordValue is the value a coordinate is ranked by: the delta for
// micro-step data, the norm otherwise.
func coordValue(a *model.Anomaly, kind string) (float64, string) {
	if kind == kindMicro && a.Delta != nil {
		return float64(*a.Delta), "delta"
	}
	return float64(a.Norm), "norm"
}

// pickCoordinate chooses the coordinate within the root step in Phase 1's
// ranking (sortForCoordinate): earliest micro step, non-finite first, then
// the largest deviation from the parameter's own baseline. With a baseline it walks the candidates from the most
// anomalous: the baseline's same parameter (+ micro step; same rank and
// step preferred: bug 16) with a ratio ≥ DeviceRatio, or missing → device
// specific, selected; close → skipped. All close → the best candidate,
// labelled shared. sameStep: match the baseline at the same optimizer
// step (alignedSteps). Returns the coordinate (nil without candidates),
// every candidate's verdict, the cross-device verification (nil: none
// made) and what the rule said.
func pickCoordinate(cands []model.Anomaly, kind string, baseline *model.Phase1Result, sameStep bool, opt Phase2Options) (co *model.Coordinate, verdicts []model.CandidateVerdict, verify model.Reason, s said) {
	if len(cands) == 0 {
		s.both(model.P2NoCandidateBrief{}, model.P2NoRootCandidate{})
		return nil, []model.CandidateVerdict{}, nil, s
	}
	sortForCoordinate(cands)
	verdicts = make([]model.CandidateVerdict, len(cands))
	for i := range cands {
		v, _ := coordValue(&cands[i], kind)
		verdicts[i] = model.CandidateVerdict{Anomaly: cands[i], Value: model.Float(v), Verdict: "no baseline"}
	}
	if baseline == nil {
		a := &cands[0]
		v, key := coordValue(a, kind)
		verdicts[0].Selected = true
		co = coordOf(a)
		s.reason(model.P2NoBaselinePickBrief{NonFinite: a.NonFinite, Rank: a.Rank, Micro: microOf(a), Step: a.Step,
			Dev: float64(a.DeviationRatio)})
		way := model.P2PickDeviation
		switch {
		case a.NonFinite:
			way = model.P2PickNonFinite
		case kind == kindDump && a.MicroStep != nil:
			way = model.P2PickDumpCall
		case kind == kindMicro:
			way = model.P2PickMicro
		}
		s.decide(model.P2NoBaselinePick{Way: way, Dev: float64(a.DeviationRatio), N: len(cands), Key: key, Value: v,
			Rank: a.Rank, Target: a.TargetName, Step: a.Step, Micro: microOf(a)})
		return co, verdicts, nil, s
	}
	idx := map[string][]*model.Anomaly{}
	for i := range baseline.Anomalies {
		b := &baseline.Anomalies[i]
		idx[baselineKey(b)] = append(idx[baselineKey(b)], b) // pipeline layouts may differ (stages_baseline.go)
	}
	// Every candidate gets its verdict against the baseline (the table shows
	// them all); the walk from the most anomalous selects the first
	// device-specific one.
	selected := -1
	// deviceSpecific labels candidate i; the first one is selected, with
	// msg as the cross-device verification and decision in the log.
	deviceSpecific := func(i int, a *model.Anomaly, msg, decision model.Reason) {
		verdicts[i].Verdict = "device-specific"
		if selected >= 0 {
			return
		}
		selected = i
		verdicts[i].Selected = true
		co = coordOf(a)
		verify = msg
		s.reason(msg)
		s.decide(decision)
	}
	for i := range cands {
		a := &cands[i]
		v, key := coordValue(a, kind)
		b := baselineMatch(a, idx[baselineKey(a)], kind, sameStep)
		if b == nil {
			deviceSpecific(i, a, model.P2SpecificNoMatchBrief{Key: key, Value: v, Rank: a.Rank},
				model.P2SpecificNoMatch{Rank: a.Rank, Target: a.TargetName, Micro: microOf(a), MicroData: kind == kindMicro})
			continue
		}
		bv, _ := coordValue(b, kind)
		verdicts[i].BaselineValue = model.FloatPtr(bv)
		r := math.Inf(1)
		switch {
		case a.NonFinite && b.NonFinite:
			r = 1
		case bv > 0:
			r = v / bv
		}
		verdicts[i].Ratio = model.FloatPtr(r)
		if r >= opt.DeviceRatio || a.NonFinite && !b.NonFinite {
			deviceSpecific(i, a, model.P2SpecificRatioBrief{Key: key, Value: v, BValue: bv, Rank: a.Rank, BRank: b.Rank, Ratio: r, Threshold: opt.DeviceRatio},
				model.P2SpecificRatio{Rank: a.Rank, Target: a.TargetName, Micro: microOf(a), Key: key, Value: v, BValue: bv,
					BRank: b.Rank, Ratio: r, Threshold: opt.DeviceRatio})
			continue
		}
		verdicts[i].Verdict = "shared"
		if selected < 0 {
			s.decide(model.P2SharedSkipped{Rank: a.Rank, Target: a.TargetName, Micro: microOf(a), Key: key, Value: v, BValue: bv,
				Ratio: r, Threshold: opt.DeviceRatio})
		}
	}
	if selected >= 0 {
		return co, verdicts, verify, s
	}
	a := &cands[0]
	v, key := coordValue(a, kind)
	verdicts[0].Selected = true
	msg := model.P2AllSharedBrief{Rank: a.Rank, Key: key, Value: v}
	s.reason(msg)
	s.decide(model.P2AllShared{Threshold: opt.DeviceRatio, Dev: float64(a.DeviationRatio), Rank: a.Rank, Target: a.TargetName})
	return coordOf(a), verdicts, msg, s
}

// baselineMatch finds the baseline candidate for a: same parameter (and
// micro step for micro-step data), preferring the same rank and step, then
// the same optimizer step, then the largest value. A non-finite value on
// either side matches only at the same optimizer step.
//
// sameStep (the two runs cover overlapping optimizer steps: alignedSteps)
// matches only at the same optimizer step: a baseline candidate at
// another step is another event, not this coordinate on the baseline.
func baselineMatch(a *model.Anomaly, bs []*model.Anomaly, kind string, sameStep bool) *model.Anomaly {
	var best *model.Anomaly
	bestTier := -1
	var bestV float64
	for _, b := range bs {
		if kind == kindMicro && b.MicroPos() != a.MicroPos() { // the same micro-batch, whatever each input's numbering
			continue
		}
		if (sameStep || a.NonFinite || b.NonFinite) && b.OptStep() != a.OptStep() {
			continue // a NaN/Inf matches only the same coordinate: an overflow elsewhere is another event
		}
		tier := 0
		if b.OptStep() == a.OptStep() {
			tier = 1
			if b.Rank == a.Rank {
				tier = 2
			}
		}
		v, _ := coordValue(b, kind)
		if tier > bestTier || (tier == bestTier && cmp.Compare(v, bestV) > 0) {
			best, bestTier, bestV = b, tier, v
		}
	}
	return best
}

// microOf is the candidate's micro step, or nil when it has none
// (step-level data, dumps).
func microOf(a *model.Anomaly) *int {
	if a.MicroStep == nil {
		return nil
	}
	return model.IntPtr(*a.MicroStep)
}

// alignedSteps tells whether the anomalous run and its baseline cover
// overlapping optimizer steps (their Phase 1 optimizer_step_range): then
// the same coordinate on the baseline is at the same optimizer step. With
// a range unknown (a reference-made file) or disjoint ranges (a baseline
// numbered otherwise), the seed's match by parameter alone applies.
func alignedSteps(p1, baseline *model.Phase1Result) bool {
	if p1 == nil || baseline == nil {
		return false
	}
	a, b := p1.OptimizerStepRange, baseline.OptimizerStepRange
	return len(a) == 2 && len(b) == 2 && a[0] <= b[1] && b[0] <= a[1]
}

// ParameterLocatesOrigin judges whether the coordinate's parameter locates
// the origin of the anomaly. It does not when, on the coordinate's rank,
// optimizer step and micro step, at least two parameters and at least
// dataLikeShare of the parameters a rank holds (perRank) are candidates
// together — every parameter non-finite at once (a NaN spreads to every
// gradient of its rank in one backward pass), or most of them spiking
// together (a bad batch raises every gradient): then which of them is
// named is a tie-break (Phase 1's ranking), not a location, and the layer
// and operator must come from Phase 3. On a single-step dump (snapshot:
// its candidates are the largest gradients, not spikes) only the
// non-finite case applies. Returns the verdict and, when false, why (with
// the numbers).
func ParameterLocatesOrigin(co *model.Coordinate, cands []model.Anomaly, perRank int, snapshot bool) (bool, model.Reason) {
	if co == nil {
		return true, nil
	}
	pos := -1
	switch {
	case co.MicroIndex != nil:
		pos = *co.MicroIndex
	case co.MicroStep != nil:
		pos = *co.MicroStep
	}
	names := map[string]bool{}
	allNF := true
	for i := range cands {
		a := &cands[i]
		if a.Rank != co.Rank || co.OptimizerStep != nil && a.OptStep() != *co.OptimizerStep {
			continue
		}
		if co.MicroStep != nil && a.MicroPos() != pos {
			continue
		}
		names[a.TargetName] = true
		allNF = allNF && a.NonFinite
	}
	n := len(names)
	if n < 2 || perRank <= 0 || float64(n) < dataLikeShare*float64(perRank) {
		return true, nil
	}
	if allNF || !snapshot {
		return false, model.P2ParamNotLocating{AllNonFinite: allNF, N: n, Rank: co.Rank, PerRank: perRank,
			Share: dataLikeShare, Target: co.TargetName}
	}
	return true, nil
}

// judgeParameter applies ParameterLocatesOrigin to the root coordinate
// co: whether its parameter decides (nil without a coordinate), why not,
// and what the rule said.
func judgeParameter(co *model.Coordinate, p1 *model.Phase1Result, cands []model.Anomaly, snapshot bool) (decides *bool, why model.Reason, s said) {
	if co == nil || p1 == nil {
		return nil, nil, s
	}
	ok, why := ParameterLocatesOrigin(co, cands, parametersPerRank(p1), snapshot)
	if !ok {
		s.both(model.P2ParamNotLocatingBrief{}, why)
		return model.BoolPtr(false), why, s
	}
	return model.BoolPtr(true), nil, s
}
