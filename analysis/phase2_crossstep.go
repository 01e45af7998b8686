package analysis

import (
	"fmt"
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
// Every pair evaluated becomes a CrossStepPair row.
// Only the anomalous side decides; the baseline's growth on the same pair
// only labels it "shared" (双端共有).
func (c *p2) crossStepRoot(p1, baseline *model.Phase1Result, opt Phase2Options) *int {
	trn := p1.TargetRankNorms
	if len(trn) == 0 {
		c.both("该数据类型无跨 step 判定依据 (无 target_rank_norms)，跳过",
			"the Phase 1 result has no per-rank final norms of the candidate steps: the cross-step rule cannot be applied")
		return nil
	}
	candSteps := map[int]bool{}
	for i := range p1.Anomalies {
		candSteps[p1.Anomalies[i].OptStep()] = true
	}
	c.reason(fmt.Sprintf("增长阈值: %.2fx, rank 占比阈值: %.0f%%", opt.Growth, 100*opt.RankShare))
	c.minCommon = minCommonRanks
	if n := len(p1.Summary.Ranks); n > 0 && n < minCommonRanks {
		// a run of one or two ranks: every rank it has is enough
		c.minCommon = n
		c.decide(fmt.Sprintf("the run has %d rank(s): a pair is judged when all of them are present at both steps (instead of %d common ranks)", n, minCommonRanks))
	}
	var root *int
	for _, k := range sortedStepKeys(trn) {
		if !candSteps[k] {
			continue
		}
		e := trn[strconv.Itoa(k)]
		nk := nextStepOf(e, k)
		next, why := nextRanks(trn, k, e)
		q := c.judgePair(k, nk, e.TargetName, e.Ranks, next, why, baselinePair(baseline, k, e.TargetName), opt, &root)
		// the step after may explode on another parameter: compare that
		// parameter with itself at k as well (same parameter, adjacent steps)
		if n, ok := trn[strconv.Itoa(nk)]; !q && ok && n.TargetName != e.TargetName && n.PrevStep != nil && *n.PrevStep == k && len(n.PrevRanks) > 0 {
			c.judgePair(k, nk, n.TargetName, n.PrevRanks, n.Ranks, "", baselinePair(baseline, k, n.TargetName), opt, &root)
		}
	}
	if root != nil {
		c.reason(fmt.Sprintf("  → 大多数 rank 梯度显著增长，根因在 opt_step %d", *root))
	}
	return root
}

// nextRanks finds the final norms of e's parameter at the step after k: the
// entry's own next_ranks, or a reference-made k+1 entry of the same
// parameter. Different parameters are never compared.
func nextRanks(trn map[string]model.TargetRankNorms, k int, e model.TargetRankNorms) (map[string]model.Float, string) {
	nk := nextStepOf(e, k)
	if e.NextStep != nil && len(e.NextRanks) > 0 {
		return e.NextRanks, ""
	}
	n, ok := trn[strconv.Itoa(nk)]
	switch {
	case !ok:
		return nil, fmt.Sprintf("no data at optimizer step %d: pair not judged", nk)
	case n.TargetName != e.TargetName:
		return nil, fmt.Sprintf("optimizer step %d lists another parameter (%s): different parameters are not compared", nk, n.TargetName)
	}
	return n.Ranks, ""
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
// recorded step nk (k+1 unless the monitor skipped steps), records
// the CrossStepPair row and its reasoning, sets *root at the first
// qualifying pair, and reports whether this pair qualifies.
func (c *p2) judgePair(k, nk int, target string, prev, next map[string]model.Float, why string, base [2]map[string]model.Float, opt Phase2Options, root **int) bool {
	row := model.CrossStepPair{From: k, To: nk, TargetName: target, Threshold: opt.Growth, MinCommonRanks: c.minCommon}
	if next == nil {
		row.Verdict = why
		c.res.CrossStep = append(c.res.CrossStep, row)
		c.decide(fmt.Sprintf("optimizer step %d → %d (%s): %s", k, nk, target, why))
		return false
	}
	over, total := growthCount(prev, next, opt.Growth)
	row.RanksOver, row.RanksTotal = over, total
	row.GrowthMedian, row.GrowthMax = growthSpread(prev, next)
	if total < c.minCommon {
		row.Verdict = fmt.Sprintf("only %d ranks with a finite final norm at both steps (needs %d): not judged", total, c.minCommon)
		if total == 0 {
			row.Verdict = "no rank has a finite final norm at both steps: not judged"
		}
		c.res.CrossStep = append(c.res.CrossStep, row)
		c.reason(fmt.Sprintf("opt_step %d → %d: 重叠 rank 不足 (%d)", k, nk, total))
		c.decide(fmt.Sprintf("optimizer step %d → %d (%s): %s", k, nk, target, row.Verdict))
		return false
	}
	row.Judged = true
	row.Share = float64(over) / float64(total)
	row.Qualifies = row.Share >= opt.RankShare
	if base[0] != nil && base[1] != nil {
		bo, bt := growthCount(base[0], base[1], opt.Growth)
		shared := bt >= c.minCommon && float64(bo)/float64(bt) >= opt.RankShare
		row.BaselineGrowth = &shared
	}
	c.reason(fmt.Sprintf("opt_step %d → %d (%s): %d/%d ranks (%.0f%%) 的最终 norm >= %.2fx 增长",
		k, nk, lastSegment(target), over, total, 100*row.Share, opt.Growth))
	d := fmt.Sprintf("optimizer step %d → %d, parameter %s: %d of %d ranks grew ≥ %.2f× (%.0f%%, needs ≥ %.0f%%)",
		k, nk, target, over, total, opt.Growth, 100*row.Share, 100*opt.RankShare)
	if row.GrowthMedian != nil {
		d += fmt.Sprintf("; measured growth median %.3g×, max %.3g×", float64(*row.GrowthMedian), float64(*row.GrowthMax))
	}
	switch {
	case row.Qualifies && *root == nil:
		row.Verdict = fmt.Sprintf("root cause in optimizer step %d", k)
		kk := k
		*root = &kk
		d += fmt.Sprintf(" → qualifies: the root cause is in the earlier step %d (earliest qualifying pair)", k)
	case row.Qualifies:
		row.Verdict = fmt.Sprintf("qualifies, but the earlier optimizer step %d already does", **root)
		d += " → qualifies, but an earlier pair already did (propagation)"
	default:
		row.Verdict = "no clear turning point"
		d += " → does not qualify"
	}
	if row.BaselineGrowth != nil {
		if *row.BaselineGrowth {
			d += "; the baseline grows too (shared by both devices): this does not move the root step"
		} else {
			d += "; the baseline does not grow"
		}
	}
	c.decide(d)
	c.res.CrossStep = append(c.res.CrossStep, row)
	return row.Qualifies
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
