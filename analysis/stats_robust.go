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

// screen is prescreen over the pool of finite values not marked in skip
// (nil: all of them). It reports false, with nothing screened, when the
// pool is too small to judge anything.
func (j *robustJudge) screen(vals []float64, skip []bool, out []int) ([]int, bool) {
	out = out[:0]
	s := j.pool.fill(vals, skip)
	m := len(s)
	j.poolN = m
	if m-1 < minBaselineSamples {
		return out, false
	}
	// Removing one value leaves a median ≥ the element of rank (m-2)/2.
	lb := quickSelect(s, (m-2)/2)
	if !(lb > 0) {
		return out, true
	}
	bar := j.rule.MinEffect * lb
	for i, v := range vals {
		if model.Finite(v) && v >= bar && v > lb {
			out = append(out, i)
		}
	}
	if len(out) > 0 {
		slices.Sort(s)
	}
	return out, true
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
