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
// judged left out of the baseline. It is built for pools where outliers are
// rare: a cheap pre-screen (value ≥ MinEffect × a lower bound of any
// leave-one-out median) picks the few values worth an exact test, and only
// then is the pool sorted once. Scratch memory is reused across calls.
type robustJudge struct {
	rule   robustRule
	sorted []float64
	devs   []float64
	devMed float64 // the median the cached devs were computed for
	devOK  bool
	poolN  int // finite values in the last screened pool
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
	s := j.sorted[:0]
	for i, v := range vals {
		if model.Finite(v) && (skip == nil || !skip[i]) {
			s = append(s, v)
		}
	}
	j.sorted = s
	j.devOK = false
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
	s := j.sorted
	m := len(s)
	pos := sort.SearchFloat64s(s, v)
	if inPool && (pos >= m || s[pos] != v) {
		return robustVerdict{}
	}
	n := m - 1
	at := func(k int) float64 { // k-th element of s without position pos
		if k >= pos {
			return s[k+1]
		}
		return s[k]
	}
	if !inPool {
		n, pos = m, m // nothing left out
	}
	var r robustVerdict
	if n%2 == 1 {
		r.Median = at(n / 2)
	} else {
		r.Median = (at(n/2-1) + at(n/2)) / 2
	}
	r.Q1, r.Q3 = at(n/4), at(3*n/4)
	r.IQR = r.Q3 - r.Q1
	if inPool {
		r.MAD = j.madWithout(r.Median, math.Abs(v-r.Median)) * madScale
	} else {
		r.MAD = j.madAll(r.Median) * madScale
	}
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

// madWithout is the median absolute deviation from med over the pool minus
// one value whose deviation is own (unscaled).
func (j *robustJudge) madWithout(med, own float64) float64 {
	j.devsFor(med)
	d := j.devs
	pos := sort.SearchFloat64s(d, own)
	if pos >= len(d) {
		pos = len(d) - 1
	}
	n := len(d) - 1
	at := func(k int) float64 {
		if k >= pos {
			return d[k+1]
		}
		return d[k]
	}
	if n <= 0 {
		return 0
	}
	if n%2 == 1 {
		return at(n / 2)
	}
	return (at(n/2-1) + at(n/2)) / 2
}

// madAll is the median absolute deviation from med over the whole pool
// (unscaled).
func (j *robustJudge) madAll(med float64) float64 {
	j.devsFor(med)
	d := j.devs
	n := len(d)
	switch {
	case n == 0:
		return 0
	case n%2 == 1:
		return d[n/2]
	}
	return (d[n/2-1] + d[n/2]) / 2
}

// devsFor fills j.devs with |x − med| over the sorted pool, ascending.
func (j *robustJudge) devsFor(med float64) {
	if !j.devOK || j.devMed != med {
		// |x − med| over a sorted pool is a V: merge its two sorted arms
		s := j.sorted
		j.devs = j.devs[:0]
		hi := sort.SearchFloat64s(s, med)
		lo := hi - 1
		for lo >= 0 || hi < len(s) {
			if hi >= len(s) || (lo >= 0 && med-s[lo] <= s[hi]-med) {
				j.devs = append(j.devs, med-s[lo])
				lo--
			} else {
				j.devs = append(j.devs, s[hi]-med)
				hi++
			}
		}
		j.devMed, j.devOK = med, true
	}
}
