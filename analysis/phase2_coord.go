package analysis

import (
	"cmp"
	"fmt"
	"math"
	"strconv"

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
// labelled shared.
func (c *p2) pickCoordinate(cands []model.Anomaly, kind string, baseline *model.Phase1Result, opt Phase2Options) {
	if len(cands) == 0 {
		c.both("无候选坐标", "no candidate in the root step")
		return
	}
	sortForCoordinate(cands)
	verdicts := make([]model.CandidateVerdict, len(cands))
	for i := range cands {
		v, _ := coordValue(&cands[i], kind)
		verdicts[i] = model.CandidateVerdict{Anomaly: cands[i], Value: model.Float(v), Verdict: "no baseline"}
	}
	defer func() { c.res.Candidates = verdicts }()
	if baseline == nil {
		a := &cands[0]
		v, key := coordValue(a, kind)
		verdicts[0].Selected = true
		c.res.RootCauseCoordinate = coordOf(a)
		switch {
		case a.NonFinite:
			if a.MicroStep != nil {
				c.reason(fmt.Sprintf("无标杆，取最早的非有限值 (rank=%d ms=%d)", a.Rank, a.Micro()))
			} else {
				c.reason(fmt.Sprintf("无标杆，取最早的非有限值 (rank=%d step=%d)", a.Rank, a.Step))
			}
		case a.MicroStep != nil:
			c.reason(fmt.Sprintf("无标杆，取偏离自身基线最大者 (rank=%d ms=%d, %.3g×)", a.Rank, a.Micro(), float64(a.DeviationRatio)))
		default:
			c.reason(fmt.Sprintf("无标杆，取偏离自身基线最大者 (rank=%d step=%d, %.3g×)", a.Rank, a.Step, float64(a.DeviationRatio)))
		}
		what := fmt.Sprintf("the largest deviation from its own baseline (%.3g×; Phase 1's first candidate of the step)", float64(a.DeviationRatio))
		switch {
		case a.NonFinite:
			what = "the first non-finite value (NaN/Inf)"
		case kind == kindDump && a.MicroStep != nil:
			what = fmt.Sprintf("the earliest parameters_grad call where a gradient jumps, then the largest deviation (%.3g×)", float64(a.DeviationRatio))
		case kind == kindMicro:
			what = fmt.Sprintf("the earliest micro step, then the largest deviation from its own increments (%.3g×; Phase 1's first candidate of the step)", float64(a.DeviationRatio))
		}
		c.decide(fmt.Sprintf("no baseline: coordinate = %s of the root step's %d candidates: %s %.6g at rank %d, %s, step %d%s (never the raw %s across parameters of different sizes)",
			what, len(cands), key, v, a.Rank, a.TargetName, a.Step, microText(a, ", micro step "), key))
		return
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
	deviceSpecific := func(i int, a *model.Anomaly, msg, decision string) {
		verdicts[i].Verdict = "device-specific"
		if selected >= 0 {
			return
		}
		selected = i
		verdicts[i].Selected = true
		c.res.RootCauseCoordinate = coordOf(a)
		c.res.CrossDeviceVerification = msg
		c.reason(msg)
		c.decide(decision)
	}
	for i := range cands {
		a := &cands[i]
		v, key := coordValue(a, kind)
		b := baselineMatch(a, idx[baselineKey(a)], kind, c.sameStep)
		if b == nil {
			deviceSpecific(i, a, fmt.Sprintf("NPU %s=%.4g (rank=%d), GPU 同参数无异常 → NPU 独有", key, v, a.Rank),
				fmt.Sprintf("candidate rank %d %s%s: the baseline has no candidate on the same parameter%s → device-specific, selected",
					a.Rank, a.TargetName, microText(a, " micro step "), map[bool]string{true: " and micro step", false: ""}[kind == kindMicro]))
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
			deviceSpecific(i, a, fmt.Sprintf("NPU %s=%.4g (rank=%d), GPU %s=%.4g (rank=%d), NPU/GPU=%.1fx ≥ %.1fx → NPU 设备特异性异常",
				key, v, a.Rank, key, bv, b.Rank, r, opt.DeviceRatio),
				fmt.Sprintf("candidate rank %d %s%s: %s %.4g vs baseline %.4g (rank %d) = %.2f× ≥ %.2f× → device-specific, selected",
					a.Rank, a.TargetName, microText(a, " micro step "), key, v, bv, b.Rank, r, opt.DeviceRatio))
			continue
		}
		verdicts[i].Verdict = "shared"
		if selected < 0 {
			c.decide(fmt.Sprintf("candidate rank %d %s%s: %s %.4g vs baseline %.4g = %.2f× < %.2f× → close on both devices (shared), skipped",
				a.Rank, a.TargetName, microText(a, " micro step "), key, v, bv, r, opt.DeviceRatio))
		}
	}
	if selected >= 0 {
		return
	}
	a := &cands[0]
	v, key := coordValue(a, kind)
	verdicts[0].Selected = true
	c.res.RootCauseCoordinate = coordOf(a)
	msg := fmt.Sprintf("所有坐标 GPU 侧接近 (双端共有)。偏离最大: rank=%d (NPU %s %.4g)", a.Rank, key, v)
	c.res.CrossDeviceVerification = msg
	c.reason(msg)
	_ = key
	c.decide(fmt.Sprintf("every candidate of the root step is close to the baseline (< %.2f×): shared anomaly; coordinate = Phase 1's first candidate of the step (largest deviation from its own baseline, %.3g×), rank %d %s", opt.DeviceRatio, float64(a.DeviationRatio), a.Rank, a.TargetName))
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

// microText is prefix + the micro step, or "" when the candidate has none
// (step-level data, dumps).
func microText(a *model.Anomaly, prefix string) string {
	if a.MicroStep == nil {
		return ""
	}
	return prefix + strconv.Itoa(*a.MicroStep)
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
func ParameterLocatesOrigin(co *model.Coordinate, cands []model.Anomaly, perRank int, snapshot bool) (bool, string) {
	if co == nil {
		return true, ""
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
		return true, ""
	}
	switch {
	case allNF:
		return false, fmt.Sprintf("all %d parameters of rank %d that are candidates (of about %d a rank holds) are non-finite at the same step: a NaN/Inf reaches every gradient of the rank in one backward pass, so the parameter does not locate the origin; %s is named only to keep the coordinate (Phase 1's first candidate); the first non-finite layer and operator come from Phase 3 (dumps of this step)",
			n, co.Rank, perRank, co.TargetName)
	case !snapshot:
		return false, fmt.Sprintf("%d parameters of rank %d (of about %d a rank holds, ≥ %.0f%%) spike together at the same step: the parameter does not locate the origin; %s is named only to keep the coordinate (Phase 1's first candidate); the layer and operator come from Phase 3 (dumps of this step)",
			n, co.Rank, perRank, 100*dataLikeShare, co.TargetName)
	}
	return true, ""
}

// judgeParameter applies ParameterLocatesOrigin to the root coordinate.
func (c *p2) judgeParameter(p1 *model.Phase1Result, cands []model.Anomaly, snapshot bool) {
	co := c.res.RootCauseCoordinate
	if co == nil || p1 == nil {
		return
	}
	ok, why := ParameterLocatesOrigin(co, cands, parametersPerRank(p1), snapshot)
	co.ParameterDecides = model.BoolPtr(ok)
	if !ok {
		co.ParameterNote = why
		c.both("该 rank 的参数同时异常，参数名不定位根因，见 Phase 3", why)
	}
}
