package analysis

import (
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"

	"spikescope/model"
)

// The robust estimator (robust_band.go) replaced four learners that each
// filtered, sorted and read quantiles on their own. Their last versions are
// kept below as the oracle: every parameterisation must reproduce its
// learner bit for bit on random ratio sets (NaN, ±Inf, zeros, negatives,
// ties, one or two samples).

// randomRatios draws a ratio set: mostly noise around a level, with
// non-finite values, zeros, negatives, ties and outliers mixed in.
func randomRatios(rng *rand.Rand) []float64 {
	n := rng.IntN(12)
	if rng.IntN(4) == 0 {
		n = rng.IntN(200)
	}
	level := math.Exp(4 * (rng.Float64() - 0.5))
	if rng.IntN(10) == 0 {
		level = -level
	}
	noise := []float64{0, 1e-4, 0.01, 0.1, 0.5, 2}[rng.IntN(6)]
	rs := make([]float64, n)
	for i := range rs {
		rs[i] = level * (1 + noise*rng.NormFloat64())
		switch rng.IntN(40) {
		case 0:
			rs[i] = math.NaN()
		case 1:
			rs[i] = math.Inf(1)
		case 2:
			rs[i] = math.Inf(-1)
		case 3:
			rs[i] = 0
		case 4:
			rs[i] = math.Copysign(0, -1)
		case 5:
			rs[i] = -rs[i]
		case 6:
			rs[i] *= 1000
		case 7:
			if i > 0 {
				rs[i] = rs[rng.IntN(i)]
			}
		case 8:
			rs[i] = fixedSample
		}
	}
	if noise == 0 && n > 0 && rng.IntN(2) == 0 {
		rs[0] = level * 1.5
	}
	return rs
}

// sameBits reports whether two floats are the same bits (NaN included).
func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func sameBand(t *testing.T, what string, rs []float64, got, want model.Band) bool {
	t.Helper()
	if got.Samples != want.Samples || got.Usable != want.Usable ||
		!sameBits(float64(got.Median), float64(want.Median)) || !sameBits(float64(got.IQR), float64(want.IQR)) ||
		!sameBits(float64(got.Lower), float64(want.Lower)) || !sameBits(float64(got.Upper), float64(want.Upper)) ||
		!reflect.DeepEqual(got.NoteReasons, want.NoteReasons) || !reflect.DeepEqual(got.RuleReason, want.RuleReason) {
		t.Errorf("%s of %v:\n got %+v\nwant %+v", what, rs, got, want)
		return false
	}
	return true
}

func TestRobustBand_ReproducesTheFourLearners(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 7))
	mults := []float64{3, 5, 2.5, 1}
	floors := []float64{0.03, 0, 0.1}
	comps := []int{0, 1, 2, 100, 480, 5000}
	factors := []float64{1, math.Sqrt2, 0.5}
	usable := [3]int{}
	for k := 0; k < 5000; k++ {
		rs := randomRatios(rng)
		keep := slices.Clone(rs)
		mult, floor := mults[rng.IntN(len(mults))], floors[rng.IntN(len(floors))]
		c, f := comps[rng.IntN(len(comps))], factors[rng.IntN(len(factors))]
		bs := [3]model.Band{controlBand(rs, mult, floor), logBand(rs, mult, floor, c, f), robustLogBand(rs, mult, floor, c)}
		ok := sameBand(t, "controlBand", rs, bs[0], oldControlBand(rs, mult, floor)) &&
			sameBand(t, "logBand", rs, bs[1], oldLogBand(rs, mult, floor, c, f)) &&
			sameBand(t, "robustLogBand", rs, bs[2], oldRobustLogBand(rs, mult, floor, c))
		if !ok {
			t.FailNow()
		}
		if !slices.EqualFunc(rs, keep, sameBits) {
			t.Fatalf("a band learner changed its input %v", keep)
		}
		for i, b := range bs {
			if b.Usable {
				usable[i]++
			}
		}
	}
	// the random sets reach the usable and the unusable paths of each
	for i, n := range usable {
		if n < 500 || n > 4500 {
			t.Errorf("learner %d: %d of 5000 bands usable: the random sets miss a path", i, n)
		}
	}
}

// TestRobustBand_JudgeReproducesTheOldJudge screens and judges random pools
// (with and without left-out spikes) with the estimator's judge and the
// old one, reusing both across pools as Phase 1 does.
func TestRobustBand_JudgeReproducesTheOldJudge(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 9))
	rule := robustRule{IQRMult: 5, MADMult: 10, MinEffect: 1.5}
	j, o := robustJudge{rule: rule}, oldRobustJudge{rule: rule}
	var cj, co []int
	flagged, judged := 0, 0
	for k := 0; k < 5000; k++ {
		vals := randomRatios(rng)
		for i := range vals {
			if rng.IntN(30) == 0 {
				vals[i] *= 20 // a spike
			}
		}
		var skip []bool
		if rng.IntN(2) == 0 {
			skip = make([]bool, len(vals))
			for i := range skip {
				skip[i] = rng.IntN(8) == 0
			}
		}
		var lj, lo bool
		if rng.IntN(3) == 0 {
			cj, co = j.prescreen(vals, cj), o.prescreen(vals, co)
		} else {
			cj, lj = j.prescreenExcept(vals, skip, cj)
			co, lo = o.prescreenExcept(vals, skip, co)
		}
		if !slices.Equal(cj, co) || lj != lo || j.poolN != o.poolN {
			t.Fatalf("screen of %v (skip %v): got %v %v %d, want %v %v %d", vals, skip, cj, lj, j.poolN, co, lo, o.poolN)
		}
		if len(cj) > 0 && !slices.EqualFunc(j.pool.sorted, o.sorted, sameBits) {
			t.Fatalf("pool of %v: got %v, want %v", vals, j.pool.sorted, o.sorted)
		}
		for _, ci := range cj {
			v := vals[ci]
			in := !lj || !skip[ci]
			g, w := j.judgeIn(v, in), o.judgeIn(v, in)
			// a value twice, and one outside the pool
			g2, w2 := j.judge(v), o.judge(v)
			g3, w3 := j.judgeIn(v*1.01, false), o.judgeIn(v*1.01, false)
			for _, p := range [][2]robustVerdict{{g, w}, {g2, w2}, {g3, w3}} {
				if !sameVerdict(p[0], p[1]) {
					t.Fatalf("judge %v in %v: got %+v, want %+v", v, vals, p[0], p[1])
				}
			}
			judged++
			if g.Flagged {
				flagged++
			}
		}
	}
	if judged < 1000 || flagged < 100 || flagged == judged {
		t.Errorf("%d values judged, %d flagged: the random pools miss a path", judged, flagged)
	}
}

func sameVerdict(a, b robustVerdict) bool {
	return sameBits(a.Median, b.Median) && sameBits(a.Q1, b.Q1) && sameBits(a.Q3, b.Q3) &&
		sameBits(a.IQR, b.IQR) && sameBits(a.MAD, b.MAD) && sameBits(a.IQRThr, b.IQRThr) &&
		sameBits(a.MADThr, b.MADThr) && a.Trigger == b.Trigger && a.Flagged == b.Flagged
}

// BenchmarkRobustJudge screens and judges 8-rank series of 1000 steps with
// a few spikes: the estimator's judge against the old one.
func BenchmarkRobustJudge(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	series := make([][]float64, 64)
	for i := range series {
		s := make([]float64, 1000)
		for k := range s {
			s[k] = 1 + 0.1*rng.NormFloat64()
			if rng.IntN(200) == 0 {
				s[k] *= 5
			}
		}
		series[i] = s
	}
	rule := robustRule{IQRMult: 5, MADMult: 10, MinEffect: 1.5}
	b.Run("estimator", func(b *testing.B) {
		j := robustJudge{rule: rule}
		var cand []int
		for b.Loop() {
			for _, s := range series {
				cand = j.prescreen(s, cand)
				for _, ci := range cand {
					j.judge(s[ci])
				}
			}
		}
	})
	b.Run("old", func(b *testing.B) {
		j := oldRobustJudge{rule: rule}
		var cand []int
		for b.Loop() {
			for _, s := range series {
				cand = j.prescreen(s, cand)
				for _, ci := range cand {
					j.judge(s[ci])
				}
			}
		}
	})
}

// The learners as they were before the estimator (the oracle).

func oldLogBand(ratios []float64, iqrMult, floor float64, comparisons int, factor float64) model.Band {
	iqrMult *= familyFactor(iqrMult, comparisons)
	b := oldControlBand(ratios, iqrMult, floor)
	if !b.Usable {
		return b
	}
	logs := make([]float64, 0, len(ratios))
	for _, r := range ratios {
		if model.Finite(r) && r > 0 {
			logs = append(logs, math.Log(r))
		}
	}
	sort.Float64s(logs)
	iqr := interpQuantile(logs, 0.75) - interpQuantile(logs, 0.25)
	// The IQR of n ratios is itself an estimate (relative standard error
	// iqrLogSE/√n): its one-standard-error upper bound keeps a band learned
	// from few layers from flagging noise when the IQR came out low.
	iqr *= 1 + iqrLogSE/math.Sqrt(float64(len(logs)))
	spread := math.Max(factor*iqrMult*iqr, math.Log1p(floor))
	b.Lower, b.Upper = model.Float(math.Exp(-spread)), model.Float(math.Exp(spread))
	return b
}
func oldControlBand(ratios []float64, iqrMult, floor float64) model.Band {
	vals := make([]float64, 0, len(ratios))
	for _, r := range ratios {
		if model.Finite(r) {
			vals = append(vals, r)
		}
	}
	b := model.Band{Samples: len(vals)}
	if len(vals) == 0 {
		nan := model.Float(math.NaN())
		b.Median, b.IQR, b.Lower, b.Upper = nan, nan, nan, nan
		b.NoteReasons = []model.Reason{noteNoControl}
		return b
	}
	sort.Float64s(vals)
	med := interpQuantile(vals, 0.5)
	iqr := interpQuantile(vals, 0.75) - interpQuantile(vals, 0.25)
	b.Median, b.IQR = model.Float(med), model.Float(iqr)
	spread := floor
	if med != 0 {
		spread = math.Max(iqrMult*iqr/math.Abs(med), floor)
	}
	b.Lower, b.Upper = model.Float(1-spread), model.Float(1+spread)
	switch {
	case med <= 0 || vals[0] < 0:
		// A zero ratio alone is a real finding (a vanished value), but
		// ratios on both sides of zero mean values near zero.
		b.NoteReasons = []model.Reason{noteSignChange}
	case iqr > math.Abs(med):
		b.NoteReasons = []model.Reason{noteScatter}
	default:
		b.Usable = true
	}
	return b
}
func oldRobustLogBand(ratios []float64, iqrMult, floor float64, comparisons int) model.Band {
	iqrMult *= familyFactor(iqrMult, comparisons)
	vals := make([]float64, 0, len(ratios))
	for _, r := range ratios {
		if model.Finite(r) {
			vals = append(vals, r)
		}
	}
	b := model.Band{Samples: len(vals), RuleReason: bandRuleDegradedOps}
	nan := model.Float(math.NaN())
	b.Median, b.IQR, b.Lower, b.Upper = nan, nan, nan, nan
	if len(vals) == 0 {
		b.NoteReasons = []model.Reason{noteNoControl}
		return b
	}
	sort.Float64s(vals)
	med := interpQuantile(vals, 0.5)
	b.Median = model.Float(med)
	if med <= 0 || vals[0] <= 0 {
		b.NoteReasons = []model.Reason{noteSignChange}
		return b
	}
	dev := make([]float64, len(vals))
	for i, v := range vals {
		dev[i] = math.Abs(math.Log(v / med))
	}
	sort.Float64s(dev)
	mad := interpQuantile(dev, 0.5)
	b.IQR = model.Float(med * (math.Exp(mad) - math.Exp(-mad)))
	if float64(b.IQR) > med {
		b.NoteReasons = []model.Reason{noteScatter}
		return b
	}
	iqr := 2 * mad * (1 + iqrLogSE/math.Sqrt(float64(len(vals))))
	spread := math.Max(iqrMult*iqr, math.Log1p(floor))
	b.Lower, b.Upper = model.Float(math.Exp(-spread)), model.Float(math.Exp(spread))
	b.Usable = true
	return b
}

// The Phase 1/2 judge as it was before the estimator (the oracle).

type oldRobustJudge struct {
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
func (j *oldRobustJudge) prescreen(vals []float64, out []int) []int {
	out, _ = j.screen(vals, nil, out)
	return out
}

// prescreenExcept is prescreen with a baseline pool that leaves out the
// values where skip[i] (common spikes of the run: they must not widen the
// baseline of everything else); those values are still screened, and
// judged with judgeIn(v, false). With too few values left, or skip nil,
// it is prescreen; it reports whether the skipped values were left out.
func (j *oldRobustJudge) prescreenExcept(vals []float64, skip []bool, out []int) ([]int, bool) {
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
func (j *oldRobustJudge) screen(vals []float64, skip []bool, out []int) ([]int, bool) {
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
func (j *oldRobustJudge) judge(v float64) robustVerdict {
	return j.judgeIn(v, true)
}

// judgeIn tests v against the prescreened pool: without one copy of v when
// inPool, against the whole pool when v was left out of it (prescreenExcept).
func (j *oldRobustJudge) judgeIn(v float64, inPool bool) robustVerdict {
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
func (j *oldRobustJudge) madWithout(med, own float64) float64 {
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
func (j *oldRobustJudge) madAll(med float64) float64 {
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
func (j *oldRobustJudge) devsFor(med float64) {
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
