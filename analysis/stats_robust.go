package analysis

import (
	"math"
	"slices"
	"sort"

	"spikescope/model"
)

// Robust-baseline constants of Phase 1 (method.md "Detection").
const (
	// madScale turns a MAD into a standard-deviation estimate for normal
	// data, so that the MAD multiplier means "k sigmas".
	madScale = 1.4826
	// zeroSpreadMult is the reference's fallback threshold when the IQR or
	// the MAD of a baseline is zero: flag only above 10× the median.
	zeroSpreadMult = 10.0
	// minBaselineSamples is the smallest baseline (after excluding the
	// judged point) that can judge anything: two values give a median and
	// a spread (the reference needs 3 including the judged point; dump
	// trees often hold only 3 dumps of a parameter).
	minBaselineSamples = 2
)

// robustRule holds the thresholds of a robust outlier test.
type robustRule struct {
	IQRMult, MADMult, MinEffect float64
}

// robustVerdict is the baseline of one judged value, computed without it.
type robustVerdict struct {
	Median, Q1, Q3, IQR, MAD float64 // MAD already scaled by madScale
	IQRThr, MADThr           float64
	Trigger                  string // "iqr", "mad", "iqr+mad"
	Flagged                  bool
}

// robustJudge tests values against their own pool with the point being
// judged left out of the baseline: the robust estimator (robustPool) with
// rank-picked quantiles on the values themselves, thresholds
// Q3 + IQRMult·IQR and median + MADMult·MAD. It is built for pools where
// outliers are rare: a cheap pre-screen (value ≥ MinEffect × a lower bound
// of any leave-one-out median) picks the few values worth an exact test,
// and only then is the pool sorted once. Scratch memory is reused across
// calls.
type robustJudge struct {
	rule  robustRule
	pool  robustPool
	poolN int // finite values in the last screened pool
}

// prescreen returns the indexes of vals (finite values only are considered)
// that could pass the minimum-effect test with themselves excluded, and a
// sorted copy of the finite values when there is any such index.
func (j *robustJudge) prescreen(vals []float64, out []int) []int {
	out, _ = j.screen(vals, nil, out)
	return out
}

// prescreenExcept is prescreen with a baseline pool that leaves out the
// values where skip[i] (common spikes of the run: they must not widen the
// baseline of everything else); those values are still screened, and
// judged with judgeIn(v, false). With too few values left, or skip nil,
// it is prescreen; it reports whether the skipped values were left out.
func (j *robustJudge) prescreenExcept(vals []float64, skip []bool, out []int) ([]int, bool) {
	if skip == nil {
		return j.prescreen(vals, out), false
	}
	out, enough := j.screen(vals, skip, out)
	if !enough {
		return j.prescreen(vals, out), false
	}
	return out, true
}

// prescreenFlaggable is prescreenExcept for a caller that acts only on the
// values judgeIn flags: a pool whose candidates provably cannot be flagged
// (cannotFlag) returns none, and is not sorted. Phase 1's rules judge their
// pools with it; the candidates it returns are judged exactly as
// prescreenExcept's.
func (j *robustJudge) prescreenFlaggable(vals []float64, skip []bool, out []int) ([]int, bool) {
	if skip != nil {
		var enough bool
		if out, enough = j.screenAs(vals, skip, out, true); enough {
			return out, true
		}
	}
	out, _ = j.screenAs(vals, nil, out, true)
	return out, false
}

// screen is prescreen over the pool of finite values not marked in skip
// (nil: all of them). It reports false, with nothing screened, when the
// pool is too small to judge anything.
func (j *robustJudge) screen(vals []float64, skip []bool, out []int) ([]int, bool) {
	return j.screenAs(vals, skip, out, false)
}

// screenAs is screen; with flaggable, a pool whose candidates cannot be
// flagged (cannotFlag) returns none.
func (j *robustJudge) screenAs(vals []float64, skip []bool, out []int, flaggable bool) ([]int, bool) {
	out = out[:0]
	s := j.pool.fill(vals, skip)
	m := len(s)
	j.poolN = m
	if m-1 < minBaselineSamples {
		return out, false
	}
	// Removing one value leaves a median ≥ the element of rank (m-2)/2
	// (quickSelect; fill looked for −0 already).
	var lb float64
	if j.pool.negZero {
		lb = quickSelectHoare(s, (m-2)/2)
	} else {
		lb = selectBranchless(s, (m-2)/2)
	}
	if !(lb > 0) {
		return out, true
	}
	bar := j.rule.MinEffect * lb
	top := math.Inf(-1)
	for i, v := range vals {
		if model.Finite(v) && v >= bar && v > lb {
			out = append(out, i)
			top = max(top, v)
		}
	}
	if len(out) > 0 {
		if flaggable && j.cannotFlag(s, top) {
			return out[:0], true
		}
		slices.Sort(s)
	}
	return out, true
}

// flagMargin is the relative margin by which cannotFlag's bounds must
// clear the largest candidate: it covers the rounding of the thresholds'
// arithmetic (a multiply and an add, fused or not) many times over.
const flagMargin = 1e-9

// cannotFlag reports whether no value up to top can be flagged by judgeIn
// against the pool s (its n finite values, with s[(n-2)/2] already
// selected: screen's lb), whether judged with one copy of itself left out
// (a view of n−1 values) or not (n): without sorting the pool. In a view
// of n−1 values the k-th value lies between the pool's k-th and (k+1)-th,
// so a few of the pool's order statistics bound the view's quartiles and
// median, and the count of values near the median bounds its MAD from
// below:
//
//   - Q3 ≥ A = s₍₃₍ₙ₋₁₎/₄₎, Q1 ≤ B = s₍₍ₙ₋₁₎/₄₊₁₎: the IQR threshold is
//     ≥ A + IQRMult·(A − B) when A > B (the IQR is then > 0);
//   - the median lies in [s₍₍ₙ₋₂₎/₂₎, s₍₍ₙ₋₁₎/₂₊₁₎]; when at most
//     ⌊(n−2)/2⌋ values lie within 2δ of that range, at least half of any
//     view's deviations from its median are ≥ δ, so its MAD is ≥ δ and the
//     MAD threshold ≥ median + MADMult·madScale·δ.
//
// When both bounds clear top (by flagMargin), judgeIn flags nothing; false
// means only "not proven" (the caller sorts and judges). s is reordered.
func (j *robustJudge) cannotFlag(s []float64, top float64) bool {
	n := len(s)
	if n < 8 || !(top > 0) {
		return false
	}
	if j.pool.negZero {
		// −0 and +0 would sort in another order than without the
		// selections below: judge as before
		return false
	}
	r0 := (n - 2) / 2
	b, a, u := (n-1)/4+1, 3*(n-1)/4, (n-1)/2+1
	if b >= r0 || a <= r0 || u <= r0 || u > a {
		return false
	}
	L := s[r0]
	B := selectBranchless(s[:r0], b)
	right := s[r0+1:]
	ar, ur := a-r0-1, u-r0-1
	A := selectBranchless(right, ar)
	// s₍ᵤ₎: the (ur)-th smallest of right, among right[:ar+1] (ur ≤ ar)
	U := A
	if ur < ar {
		m0, m1 := math.Inf(1), math.Inf(1)
		for _, v := range right[:ar+1] {
			if v < m0 {
				m0, m1 = v, m0
			} else if v < m1 {
				m1 = v
			}
		}
		switch ur {
		case 0:
			U = m0
		case 1:
			U = m1
		default:
			return false
		}
	}
	// the IQR threshold
	iqr := A - B
	if !(iqr > 0) {
		return false
	}
	need := top * (1 + flagMargin)
	if !(A+j.rule.IQRMult*iqr >= need) {
		return false
	}
	// the MAD threshold: a δ that would clear top, then whether the pool
	// proves it
	lmed, umed := min(L, (L+L)/2), max(U, (U+U)/2)
	scale := j.rule.MADMult * madScale
	if !(scale > 0) {
		return false
	}
	delta := (need - lmed) / scale * (1 + flagMargin)
	if !(delta > 1e-300) || !(delta > 1e-9*max(math.Abs(lmed), math.Abs(umed))) || math.IsInf(delta, 0) {
		return false
	}
	if !(lmed+j.rule.MADMult*(delta*madScale) >= need) {
		return false
	}
	lo, hi := lmed-2*delta, umed+2*delta
	near, most := 0, (n-2)/2
	for _, v := range s {
		if v > lo && v < hi {
			near++
		}
	}
	return near <= most
}

// judge tests v (a member of the prescreened pool) against the pool without
// one copy of v. prescreen must have returned v's index.
func (j *robustJudge) judge(v float64) robustVerdict {
	return j.judgeIn(v, true)
}

// judgeIn tests v against the prescreened pool: without one copy of v when
// inPool, against the whole pool when v was left out of it (prescreenExcept).
func (j *robustJudge) judgeIn(v float64, inPool bool) robustVerdict {
	base := whole(j.pool.sorted)
	if inPool {
		base.out = sort.SearchFloat64s(base.s, v)
		if base.out >= len(base.s) || base.s[base.out] != v {
			return robustVerdict{}
		}
	}
	var r robustVerdict
	r.Median = base.median(rankPick)
	r.Q1, r.Q3 = base.quartiles(rankPick)
	r.IQR = r.Q3 - r.Q1
	r.MAD = j.pool.mad(r.Median, linearScale, rankPick, inPool, math.Abs(v-r.Median)) * madScale
	if !(r.Median > 0) {
		return r
	}
	if r.IQR > 0 {
		r.IQRThr = r.Q3 + j.rule.IQRMult*r.IQR
	} else {
		r.IQRThr = zeroSpreadMult * r.Median
	}
	if r.MAD > 0 {
		r.MADThr = r.Median + j.rule.MADMult*r.MAD
	} else {
		r.MADThr = zeroSpreadMult * r.Median
	}
	overI, overM := v > r.IQRThr, v > r.MADThr
	switch {
	case overI && overM:
		r.Trigger = "iqr+mad"
	case overI:
		r.Trigger = "iqr"
	case overM:
		r.Trigger = "mad"
	}
	r.Flagged = r.Trigger != "" && v >= j.rule.MinEffect*r.Median
	return r
}
