package analysis

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"

	"spikescope/model"
)

// microOrder places a candidate within its optimizer step: by the
// position of its micro-batch (not the input's number for it, which need
// not start at 0), a candidate that names no micro-batch after those that
// do (a single-step dump's gradient that grew evenly over its calls).
func microOrder(a *model.Anomaly) int {
	if p := a.MicroPos(); p >= 0 {
		return p
	}
	return math.MaxInt
}

// earliestFirst orders candidates the way the method reads them: optimizer
// step, micro step, non-finite first, then deviation (descending), rank and
// parameter. The earliest anomaly is the root-cause suspect, not the largest.
func earliestFirst(as []model.Anomaly) {
	slices.SortStableFunc(as, cmpEarliest)
}

// earliestFirstShort orders the too-little-history values like candidates.
func earliestFirstShort(hs []model.ShortHistory) {
	slices.SortStableFunc(hs, func(a, b model.ShortHistory) int { return cmpEarliest(a.Anomaly, b.Anomaly) })
}

// cmpEarliest is the order of earliestFirst.
func cmpEarliest(a, b model.Anomaly) int {
	if c := cmp.Compare(a.OptStep(), b.OptStep()); c != 0 {
		return c
	}
	if c := cmp.Compare(microOrder(&a), microOrder(&b)); c != 0 {
		return c
	}
	if a.NonFinite != b.NonFinite {
		if a.NonFinite {
			return -1
		}
		return 1
	}
	if c := cmpDesc(float64(a.DeviationRatio), float64(b.DeviationRatio)); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Rank, b.Rank); c != 0 {
		return c
	}
	return cmp.Compare(a.TargetName, b.TargetName)
}

// cmpDesc orders finite values descending, NaN last.
func cmpDesc(a, b float64) int {
	an, bn := a != a, b != b
	switch {
	case an && bn:
		return 0
	case an:
		return 1
	case bn:
		return -1
	}
	return cmp.Compare(b, a)
}

// targetRankNorms records, for every optimizer step k with candidates, the
// focus parameter (the largest final norm among the step's candidates) and
// its final norm on every rank at k-1, k and k+1 — the cross-step rule
// compares the same parameter across truly adjacent steps (bug 11). It
// returns them by optimizer step with what it says (nil when no candidate).
func targetRankNorms(c *p1, as []model.Anomaly) (map[string]model.TargetRankNorms, model.Reason) {
	if len(as) == 0 {
		return nil, nil
	}
	type focus struct {
		target int
		val    float64
	}
	byStep := map[int]*focus{}
	var steps []int
	nameIdx := map[string]int{}
	for t, tg := range c.d.Targets {
		if _, ok := nameIdx[tg.Name]; !ok || len(c.ix.targetGroups(t)) > 0 {
			nameIdx[tg.Name] = t
		}
	}
	for i := range as {
		a := &as[i]
		v := float64(a.Norm)
		if a.SuspectFinalNorm != nil {
			v = float64(*a.SuspectFinalNorm)
		}
		k := a.OptStep()
		f := byStep[k]
		if f == nil {
			f = &focus{target: nameIdx[a.TargetName], val: v}
			if !model.Finite(v) {
				f.val = -1
			}
			byStep[k] = f
			steps = append(steps, k)
			continue
		}
		if model.Finite(v) && v > f.val {
			f.target, f.val = nameIdx[a.TargetName], v
		}
	}
	recorded := c.recordedOptSteps()
	out := map[string]model.TargetRankNorms{}
	for _, k := range steps {
		f := byStep[k]
		e := model.TargetRankNorms{TargetName: c.d.Targets[f.target].Name, Ranks: c.finalNorms(f.target, k)}
		pk, nk := adjacentSteps(recorded, k)
		if prev := c.finalNorms(f.target, pk); len(prev) > 0 {
			e.PrevStep, e.PrevRanks = model.IntPtr(pk), prev
		}
		next := c.finalNorms(f.target, nk)
		if len(next) > 0 {
			e.NextStep, e.NextRanks = model.IntPtr(nk), next
			if _, own := byStep[nk]; !own {
				out[strconv.Itoa(nk)] = model.TargetRankNorms{TargetName: e.TargetName, Ranks: next,
					PrevStep: model.IntPtr(k), PrevRanks: e.Ranks}
			}
		}
		out[strconv.Itoa(k)] = e
	}
	return out, model.CrossStepNorms{Steps: len(steps)}
}

// recordedOptSteps are the distinct optimizer steps of the analysed rows,
// ascending.
func (c *p1) recordedOptSteps() []int {
	var out []int
	for _, st := range c.ix.distinctSteps(c.d) {
		o, _ := c.m.mapStep(int32(st), 0)
		if len(out) == 0 || o > out[len(out)-1] {
			out = append(out, o)
		} else if o != out[len(out)-1] {
			out = append(out, o) // not monotonic (explicit micro steps): sorted below
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// adjacentSteps are the recorded optimizer steps just before and after k:
// k±1 when every step is recorded; the neighbours a monitor with a step
// interval (every N-th step) did record otherwise. Adjacent means adjacent
// in the data, never "the next step that has candidates" (bug 11).
func adjacentSteps(recorded []int, k int) (prev, next int) {
	i := sort.SearchInts(recorded, k)
	prev, next = k-1, k+1
	if i > 0 {
		prev = recorded[i-1]
	}
	j := i
	if j < len(recorded) && recorded[j] == k {
		j++
	}
	if j < len(recorded) {
		next = recorded[j]
	}
	return prev, next
}

// finalNorms maps rank → the final norm of target t at optimizer step k
// (the last micro step; the step's norm for step-level data).
func (c *p1) finalNorms(t, k int) map[string]model.Float {
	ix := c.ix
	out := map[string]model.Float{}
	for _, g := range ix.targetGroups(t) {
		lo := int(g.Lo)
		// optimizer steps are non-decreasing along a series
		hi := lo + sort.Search(int(g.Hi)-lo, func(j int) bool {
			o, _ := c.m.mapStep(ix.step[lo+j], ix.microAt(lo+j))
			return o > k
		})
		if hi == lo {
			continue
		}
		if o, _ := c.m.mapStep(ix.step[hi-1], ix.microAt(hi-1)); o == k {
			out[strconv.Itoa(int(g.Rank))] = model.Float(ix.norm[hi-1])
		}
	}
	return out
}
