package analysis

import (
	"math"
	"sort"

	"spikescope/model"
)

// The robust estimator every band and baseline of the method is read from:
// a pool of finite values, sorted once, whose centre is the median and whose
// spread is the IQR or the median absolute deviation (MAD), on the values
// or on their logarithm, with at most one value left out (Phase 1/2 judge a
// value against its pool without it). Its users differ only in the
// parameters:
//
//   - Phase 1/2's baseline ([robustJudge]): rank-picked quantiles, a value
//     left out, the IQR and the MAD on the values themselves, thresholds
//     Q3 + k·IQR and median + k·MAD (zeroSpreadMult × median when a spread
//     is zero); no floor.
//   - The seed's control band ([controlBand]): interpolated quantiles,
//     1 ± max(k·IQR/|median|, floor) on the ratios.
//   - The anomaly degree's band ([logBand], [degreeBand]): the control
//     band's centre and usability, limits exp(±max(f·k·IQR(ln r), ln(1+floor)))
//     with k widened for the comparisons of a trace (familyFactor), f = √2
//     for a degree against a control pair, and the IQR at its
//     one-standard-error upper bound.
//   - The degraded band ([robustLogBand]): as the degree's band with the
//     spread 2·MAD(ln(r/median)) in place of the IQR, so up to half the
//     ratios may be off without widening it.
//
// A band is unusable (a note says why) when its ratios change sign or its
// spread is wider than its median.

// quantileRule is how a quantile is read from a sorted pool.
type quantileRule uint8

const (
	// interpolated: the linearly interpolated "type 7" estimator
	// (interpQuantile), used by the bands.
	interpolated quantileRule = iota
	// rankPick: the median of the middle pair, the quartiles at ranks
	// ⌊n/4⌋ and ⌊3n/4⌋ (the reference's Phase 1 baseline).
	rankPick
)

// bandScale is the scale a spread is measured and a band applied on.
type bandScale uint8

const (
	// linearScale: the values themselves; a band is 1 ± spread/|median|.
	linearScale bandScale = iota
	// logScale: ln of the ratios; a band is exp(±spread), symmetric for a
	// multiplicative noise.
	logScale
)

// spreadStat is the spread statistic of a band.
type spreadStat uint8

const (
	spreadIQR spreadStat = iota // Q3 − Q1
	spreadMAD                   // 2·MAD, the IQR of normal noise
)

// bandSpec parameterises robustPool.band.
type bandSpec struct {
	Scale  bandScale
	Spread spreadStat
	// Mult is the spread multiplier (the seed's 3 in 3·IQR), widened by
	// familyFactor for Comparisons.
	Mult        float64
	Comparisons int
	// Floor is the band's minimal relative half-width (the seed's 0.03).
	Floor float64
	// Factor widens the spread on the log scale (√2 for the anomaly
	// degree against a control pair, else 1).
	Factor float64
	// SEWiden takes the log-scale spread at its one-standard-error upper
	// bound (iqrLogSE): a band learned from few ratios does not flag noise
	// when their spread came out low.
	SEWiden bool
}

// robustPool is the estimator's sample: the finite values of a series,
// sorted, and the deviations from a median (cached: a pool is judged
// against one median many times). Scratch memory is reused across fills.
type robustPool struct {
	sorted   []float64
	devs     []float64
	devMed   float64 // the median the cached devs were computed for
	devScale bandScale
	devOK    bool
	negZero  bool // the last fill took a −0 (a selection keeps the pivoting partition)
}

// fill loads the finite values of vals not marked in skip (nil: all of
// them), in their order; sort them (or select in them) before reading
// statistics. It returns the pool.
func (p *robustPool) fill(vals []float64, skip []bool) []float64 {
	s, negZero := p.sorted[:0], false
	for i, v := range vals {
		if model.Finite(v) && (skip == nil || !skip[i]) {
			s = append(s, v)
			negZero = negZero || v == 0 && math.Signbit(v)
		}
	}
	p.sorted, p.negZero = s, negZero
	p.devOK = false
	return s
}

// poolView is a sorted pool with at most one position left out.
type poolView struct {
	s   []float64
	out int // the position left out; len(s) when none
}

// whole is the view of all of s.
func whole(s []float64) poolView { return poolView{s: s, out: len(s)} }

// n is the number of values in the view.
func (v poolView) n() int {
	if v.out < len(v.s) {
		return len(v.s) - 1
	}
	return len(v.s)
}

// at is the k-th value of the view.
func (v poolView) at(k int) float64 {
	if k >= v.out {
		return v.s[k+1]
	}
	return v.s[k]
}

// quantile is the interpolated q-quantile of the view (interpQuantile).
func (v poolView) quantile(q float64) float64 {
	n := v.n()
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return v.at(0)
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return v.at(n - 1)
	}
	return v.at(lo) + (h-float64(lo))*(v.at(lo+1)-v.at(lo))
}

// median is the view's median by rule (rankPick: 0 for an empty view).
func (v poolView) median(rule quantileRule) float64 {
	if rule == interpolated {
		return v.quantile(0.5)
	}
	n := v.n()
	switch {
	case n <= 0:
		return 0
	case n%2 == 1:
		return v.at(n / 2)
	}
	return (v.at(n/2-1) + v.at(n/2)) / 2
}

// quartiles are the view's first and third quartiles by rule.
func (v poolView) quartiles(rule quantileRule) (q1, q3 float64) {
	if rule == interpolated {
		return v.quantile(0.25), v.quantile(0.75)
	}
	n := v.n()
	return v.at(n / 4), v.at(3 * n / 4)
}

// deviations are the absolute deviations of the sorted pool from med on a
// scale (|x − med|, or |ln(x/med)|), ascending; cached per med and scale.
func (p *robustPool) deviations(med float64, scale bandScale) []float64 {
	if p.devOK && p.devMed == med && p.devScale == scale {
		return p.devs
	}
	s, d := p.sorted, p.devs[:0]
	if scale == linearScale {
		// |x − med| over a sorted pool is a V: merge its two sorted arms
		hi := sort.SearchFloat64s(s, med)
		lo := hi - 1
		for lo >= 0 || hi < len(s) {
			if hi >= len(s) || (lo >= 0 && med-s[lo] <= s[hi]-med) {
				d = append(d, med-s[lo])
				lo--
			} else {
				d = append(d, s[hi]-med)
				hi++
			}
		}
	} else {
		for _, v := range s {
			d = append(d, math.Abs(math.Log(v/med)))
		}
		sort.Float64s(d)
	}
	p.devs, p.devMed, p.devScale, p.devOK = d, med, scale, true
	return d
}

// mad is the median absolute deviation (unscaled) of the sorted pool from
// med on a scale; with leaveOut, of the pool without one value whose
// deviation is own (the value a leave-one-out baseline judges).
func (p *robustPool) mad(med float64, scale bandScale, rule quantileRule, leaveOut bool, own float64) float64 {
	d := p.deviations(med, scale)
	v := whole(d)
	if leaveOut {
		v.out = min(sort.SearchFloat64s(d, own), len(d)-1)
	}
	return v.median(rule)
}

// learnBand learns the band of ratios by spec (robustPool.band on a pool
// of its own).
func learnBand(ratios []float64, spec bandSpec) model.Band {
	var p robustPool
	p.fill(ratios, nil)
	return p.band(spec)
}

// band learns a band of ratios from the filled pool: the median of the
// ratios, the spread by spec, and limits relative to the median (a degree
// is a ratio over the median, or over the control ratio). The reported IQR
// is the ratios' own (the MAD's equivalent on the ratio scale with
// spreadMAD); with spreadIQR the seed's linear band is reported even when
// the band is unusable, with spreadMAD no limits are.
func (p *robustPool) band(spec bandSpec) model.Band {
	mult := spec.Mult * familyFactor(spec.Mult, spec.Comparisons)
	sort.Float64s(p.sorted)
	vals := p.sorted
	b := model.Band{Samples: len(vals)}
	nan := model.Float(math.NaN())
	if len(vals) == 0 {
		b.Median, b.IQR, b.Lower, b.Upper = nan, nan, nan, nan
		b.NoteReasons = []model.Reason{noteNoControl}
		return b
	}
	all := whole(vals)
	med := all.median(interpolated)
	b.Median = model.Float(med)
	// A zero ratio alone is a real finding (a vanished value), but ratios
	// on both sides of zero mean values near zero. The MAD of ln(r/median)
	// needs every ratio positive.
	signChange := med <= 0 || vals[0] < 0 || spec.Spread == spreadMAD && vals[0] == 0
	var logSpread float64 // the spread on the log scale, spreadMAD
	switch spec.Spread {
	case spreadIQR:
		q1, q3 := all.quartiles(interpolated)
		iqr := q3 - q1
		b.IQR = model.Float(iqr)
		spread := spec.Floor
		if med != 0 {
			spread = math.Max(mult*iqr/math.Abs(med), spec.Floor)
		}
		b.Lower, b.Upper = model.Float(1-spread), model.Float(1+spread)
	case spreadMAD:
		b.IQR, b.Lower, b.Upper = nan, nan, nan
		if !signChange {
			mad := p.mad(med, logScale, interpolated, false, 0)
			b.IQR = model.Float(med * (math.Exp(mad) - math.Exp(-mad)))
			logSpread = 2 * mad
		}
	}
	switch {
	case signChange:
		b.NoteReasons = []model.Reason{noteSignChange}
		return b
	case float64(b.IQR) > math.Abs(med):
		b.NoteReasons = []model.Reason{noteScatter}
		return b
	}
	b.Usable = true
	if spec.Scale == linearScale {
		return b
	}
	n := len(vals)
	if spec.Spread == spreadIQR {
		logs := make([]float64, 0, len(vals))
		for _, r := range vals {
			if r > 0 {
				logs = append(logs, math.Log(r))
			}
		}
		sort.Float64s(logs)
		q1, q3 := whole(logs).quartiles(interpolated)
		logSpread, n = q3-q1, len(logs)
	}
	if spec.SEWiden {
		logSpread *= 1 + iqrLogSE/math.Sqrt(float64(n))
	}
	spread := math.Max(spec.Factor*mult*logSpread, math.Log1p(spec.Floor))
	b.Lower, b.Upper = model.Float(math.Exp(-spread)), model.Float(math.Exp(spread))
	return b
}
