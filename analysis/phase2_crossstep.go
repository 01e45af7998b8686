package analysis

import (
	"slices"
	"strconv"

	"spikescope/model"
)

// crossStepRoot is the seed's cross-step rule: if between adjacent
// optimizer steps k → k+1 at least RankShare of the ranks grow the final
// norm of the SAME parameter ≥ Growth×, the root cause is in step k (an
// anomalous gradient polluted the weights, the next step exploded). Pairs
// start at every step with candidates and are truly adjacent (k+1, or the
// next recorded step of a monitor with a step interval; never the
// next step that happens to have candidates: bug 11); the earliest
// qualifying pair wins (Phase2 may then move it one step back: prePair).
// Every pair evaluated becomes a CrossStepPair row (pairs, in the order
// judged). Only the anomalous side decides; the baseline's growth on the
// same pair only labels it "shared" (双端共有). Returns the root step (nil
// when no pair qualifies), the common ranks a pair needed (minCommon: 0
// when no pair could be judged), the rows and what the rule said.
func crossStepRoot(p1, baseline *model.Phase1Result, opt Phase2Options) (root *int, minCommon int, pairs []model.CrossStepPair, s said) {
	pairs = []model.CrossStepPair{}
	trn := p1.TargetRankNorms
	if len(trn) == 0 {
		s.both(model.P2NoRankNormsBrief{}, model.P2NoRankNorms{})
		return nil, 0, pairs, s
	}
	candSteps := map[int]bool{}
	for i := range p1.Anomalies {
		candSteps[p1.Anomalies[i].OptStep()] = true
	}
	s.reason(model.P2ThresholdsBrief{Growth: opt.Growth, RankShare: opt.RankShare})
	minCommon = minCommonRanks
	if n := len(p1.Summary.Ranks); n > 0 && n < minCommonRanks {
		// a run of one or two ranks: every rank it has is enough
		minCommon = n
		s.decide(model.P2FewRanks{N: n, Need: minCommonRanks})
	}
	// judge applies the rule to one pair: its row, what it said, and the
	// root at the first qualifying pair
	judge := func(k, nk int, target string, prev, next map[string]model.Float, why model.Reason) bool {
		row, js := judgePair(k, nk, target, prev, next, why, baselinePair(baseline, k, target), opt, minCommon, root)
		pairs = append(pairs, row)
		s.add(js)
		if row.Qualifies && root == nil {
			root = model.IntPtr(k)
		}
		return row.Qualifies
	}
	for _, k := range sortedStepKeys(trn) {
		if !candSteps[k] {
			continue
		}
		e := trn[strconv.Itoa(k)]
		nk := nextStepOf(e, k)
		next, why := nextRanks(trn, k, e)
		q := judge(k, nk, e.TargetName, e.Ranks, next, why)
		// the step after may explode on another parameter: compare that
		// parameter with itself at k as well (same parameter, adjacent steps)
		if n, ok := trn[strconv.Itoa(nk)]; !q && ok && n.TargetName != e.TargetName && n.PrevStep != nil && *n.PrevStep == k && len(n.PrevRanks) > 0 {
			judge(k, nk, n.TargetName, n.PrevRanks, n.Ranks, nil)
		}
	}
	if root != nil {
		s.reason(model.P2RootBrief{Step: *root})
	}
	return root, minCommon, pairs, s
}

// nextRanks finds the final norms of e's parameter at the step after k: the
// entry's own next_ranks, or a reference-made k+1 entry of the same
// parameter. Different parameters are never compared.
func nextRanks(trn map[string]model.TargetRankNorms, k int, e model.TargetRankNorms) (map[string]model.Float, model.Reason) {
	nk := nextStepOf(e, k)
	if e.NextStep != nil && len(e.NextRanks) > 0 {
		return e.NextRanks, nil
	}
	n, ok := trn[strconv.Itoa(nk)]
	switch {
	case !ok:
		return nil, model.P2PairNoData{Next: nk}
	case n.TargetName != e.TargetName:
		return nil, model.P2PairOtherParam{Next: nk, Other: n.TargetName}
	}
	return n.Ranks, nil
}

// nextStepOf is the optimizer step after k that Phase 1 recorded for the
// entry (k+1, or the next recorded step of a monitor with a step interval);
// k+1 for reference-made files without next_step.
func nextStepOf(e model.TargetRankNorms, k int) int {
	if e.NextStep != nil && *e.NextStep > k {
		return *e.NextStep
	}
	return k + 1
}

// growthCount counts the ranks present (finite) at both steps, and those
// whose final norm grew ≥ growth× from a positive value.
func growthCount(prev, next map[string]model.Float, growth float64) (over, total int) {
	for r, pv := range prev {
		nv, ok := next[r]
		p, n := float64(pv), float64(nv)
		if !ok || !model.Finite(p) || !model.Finite(n) {
			continue
		}
		total++
		if p > 0 && n >= growth*p {
			over++
		}
	}
	return over, total
}

// growthSpread is the measured growth next/prev over the ranks present
// (finite) at both steps with a positive previous value: its median and
// its maximum (nil, nil when no rank has both), so that a reader sees how
// far the pair is from the threshold, not only how many ranks passed it.
func growthSpread(prev, next map[string]model.Float) (median, maximum *model.Float) {
	var g []float64
	for r, pv := range prev {
		nv, ok := next[r]
		p, n := float64(pv), float64(nv)
		if ok && model.Finite(p) && model.Finite(n) && p > 0 {
			g = append(g, n/p)
		}
	}
	if len(g) == 0 {
		return nil, nil
	}
	slices.Sort(g)
	m := g[len(g)/2]
	if len(g)%2 == 0 {
		m = (g[len(g)/2-1] + g[len(g)/2]) / 2
	}
	md, mx := model.Float(m), model.Float(g[len(g)-1])
	return &md, &mx
}

// judgePair applies the rule to one parameter between k and the next
// recorded step nk (k+1 unless the monitor skipped steps), with minCommon
// ranks needed at both steps; root is the root step chosen so far (nil
// before the first qualifying pair: this pair, if it qualifies, is the
// root). Returns the CrossStepPair row (its Qualifies says whether the pair
// qualifies) and what the rule said.
func judgePair(k, nk int, target string, prev, next map[string]model.Float, why model.Reason, base [2]map[string]model.Float, opt Phase2Options, minCommon int, root *int) (model.CrossStepPair, said) {
	var s said
	row := model.CrossStepPair{From: k, To: nk, TargetName: target, Threshold: opt.Growth, MinCommonRanks: minCommon}
	if next == nil {
		row.VerdictReason = why
		s.decide(model.P2PairUnjudged{From: k, To: nk, Target: target, Why: why})
		return row, s
	}
	over, total := growthCount(prev, next, opt.Growth)
	row.RanksOver, row.RanksTotal = over, total
	row.GrowthMedian, row.GrowthMax = growthSpread(prev, next)
	if total < minCommon {
		row.VerdictReason = model.P2PairFewRanks{Total: total, Need: minCommon}
		s.reason(model.P2PairFewRanksBrief{From: k, To: nk, Total: total})
		s.decide(model.P2PairUnjudged{From: k, To: nk, Target: target, Why: row.VerdictReason})
		return row, s
	}
	row.Judged = true
	row.Share = float64(over) / float64(total)
	row.Qualifies = row.Share >= opt.RankShare
	if base[0] != nil && base[1] != nil {
		bo, bt := growthCount(base[0], base[1], opt.Growth)
		shared := bt >= minCommon && float64(bo)/float64(bt) >= opt.RankShare
		row.BaselineGrowth = &shared
	}
	s.reason(model.P2PairBrief{From: k, To: nk, Target: target, Over: over, Total: total, Share: row.Share, Growth: opt.Growth})
	d := model.P2Pair{From: k, To: nk, Target: target, Over: over, Total: total, Growth: opt.Growth, Share: row.Share,
		RankShare: opt.RankShare, BaselineGrows: row.BaselineGrowth}
	if row.GrowthMedian != nil {
		d.HasGrowth, d.Median, d.Max = true, float64(*row.GrowthMedian), float64(*row.GrowthMax)
	}
	switch {
	case row.Qualifies && root == nil:
		row.VerdictReason = model.P2PairVerdict{Outcome: model.P2PairRoot, Step: k}
		d.Outcome = model.P2PairRoot
	case row.Qualifies:
		row.VerdictReason = model.P2PairVerdict{Outcome: model.P2PairLater, Step: *root}
		d.Outcome = model.P2PairLater
	default:
		row.VerdictReason = model.P2PairVerdict{Outcome: model.P2PairNone}
	}
	s.decide(d)
	return row, s
}

// baselinePair returns the baseline's final norms of target at k and the next step
// (nil when the baseline does not have them).
func baselinePair(baseline *model.Phase1Result, k int, target string) [2]map[string]model.Float {
	if baseline == nil {
		return [2]map[string]model.Float{}
	}
	trn := baseline.TargetRankNorms
	if e, ok := trn[strconv.Itoa(k)]; ok && e.TargetName == target {
		if n, _ := nextRanks(trn, k, e); n != nil {
			return [2]map[string]model.Float{e.Ranks, n}
		}
	}
	for key, n := range trn { // the entry whose previous step is k (k+1, or the next recorded step)
		if n.TargetName == target && n.PrevStep != nil && *n.PrevStep == k && key != strconv.Itoa(k) {
			return [2]map[string]model.Float{n.PrevRanks, n.Ranks}
		}
	}
	return [2]map[string]model.Float{}
}
