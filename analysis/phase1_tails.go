package analysis

import (
	"math"
	"slices"

	"spikescope/model"
)

// Real gradient noise has heavier tails than its bulk says: on noise-only
// TrainerMon runs (testdata/msprobe-real: 2 and 4 ranks, W = 1 and 2,
// several seeds) a parameter whose values sit tightly around their median
// still reaches 1.6–2.4× it now and then, on one rank at one step, and that
// passes median + 10·MAD. noiseFloor asks of every value that passed the
// robust thresholds that it also stand out of the run's noise on a log
// scale:
//
//	log(value / baseline median) ≥ tailSpreads × max(run spread, own spread)
//
// where a spread is the noise of log(norm) from one optimizer step to the
// next (each series of a parameter on a rank — per micro step for
// cumulative gradients — after the step levels and series scales that the
// rules already divide out), estimated from the lower quartile of
// |Δ log value| (lowQuartileZ): the run's over all parameters and ranks,
// the parameter's own over its ranks (a small parameter — a bias, a
// layernorm — is noisier than a large matrix). Both are measured on the
// steps before the earliest value that passed the thresholds: what follows
// a fault (its propagation, an explosion) is no noise. Step-to-step changes
// carry no trend, so a warm-up or a drift does not widen them.
//
// Why 9: on those real noise-only runs the largest value, with the robust
// thresholds switched off altogether, is 4.1–6.2 such spreads above its
// median (the spreads are 0.09–0.13, i.e. 9–13% per step); every planted
// bad batch (loss × 1000, ×50, a corrupted batch) is 26–63 spreads above,
// its weakest parameter 12. 9 spreads leaves a margin of 1.45 over the
// largest noise; for normal noise it is a tail probability of 1e-19.
const tailSpreads = 9.0

// lowQuartileZ is the lower quartile of |Z| for a standard normal Z: the
// spread from the lower quartile of |Δ log value| (|Δ| ~ √2·σ·|Z|) stays
// right when up to 3/4 of the changes come from something other than noise.
const lowQuartileZ = 0.31864

// tailScratch collects the run's step-to-step changes of log(norm) and the
// values that passed the robust thresholds (held until the run's noise is
// known).
type tailScratch struct {
	diffs   []float64 // |Δ log value| between a series' consecutive steps
	at      []int32   // the optimizer step of each change's later value
	pend    []pending
	maxZ    float64 // largest z of a value left out by the floor
	dropped int
	pre     []float64 // spreadBefore's scratch
}

// reserve sizes the changes once for a pass over rows rows (a series has
// fewer changes than rows): appending value by value doubled them up to 2×
// their size and copied them on the way (12 bytes a row, 16M rows).
func (t *tailScratch) reserve(rows int) {
	if cap(t.diffs) < rows {
		t.diffs = append(make([]float64, 0, rows), t.diffs...)
		t.at = append(make([]int32, 0, rows), t.at...)
	}
}

// pending is a value that passed the robust thresholds.
type pending struct {
	a      model.Anomaly
	ell    float64 // log(value / baseline median)
	lo, hi int     // its parameter's changes: diffs[lo:hi]
}

// addDiffs adds the step-to-step changes of log(vals) of one series
// (consecutive finite positive values; steps[i] is vals[i]'s optimizer step).
func (t *tailScratch) addDiffs(vals []float64, steps []int32) {
	prev := math.NaN()
	for i, v := range vals {
		if !(v > 0) || !model.Finite(v) {
			prev = math.NaN()
			continue
		}
		l := math.Log(v)
		if !math.IsNaN(prev) {
			t.diffs = append(t.diffs, math.Abs(l-prev))
			t.at = append(t.at, steps[i])
		}
		prev = l
	}
}

// first is the earliest optimizer step of the held values.
func (t *tailScratch) first() int32 {
	first := int32(math.MaxInt32)
	for _, p := range t.pend {
		first = min(first, int32(p.a.OptStep()))
	}
	return first
}

// minOwnChanges is the least number of a parameter's own step-to-step
// changes for its own spread: the lower quartile of n values is off by
// about 1.8/√n of itself (half-normal changes), ±26% at 48; the run's
// spread (all parameters) needs only minHistory.
const minOwnChanges = 4 * minHistory

// spreadBefore is the noise spread of the changes diffs[lo:hi] at steps
// before first: 0 when fewer than need come before it.
//
// The changes are counted first and the scratch sized once: grown by
// append over the whole run's changes (the run's spread) it doubled up to
// twice their size, garbage as large as the changes on top of them (Phase
// 1's largest allocation, 8 bytes a row and more). It is for a
// parameter's own changes; the run's spread selects in place
// (runSpreadInPlace).
func (t *tailScratch) spreadBefore(lo, hi int, first int32, need int) float64 {
	n := 0
	for _, at := range t.at[lo:hi] {
		if at < first {
			n++
		}
	}
	if n < need {
		return 0
	}
	pre := slices.Grow(t.pre[:0], n)
	for i := lo; i < hi; i++ {
		if t.at[i] < first {
			pre = append(pre, t.diffs[i])
		}
	}
	t.pre = pre
	return lowQuartileSpread(pre)
}

// lowQuartileSpread is the noise spread of the changes d (reordered).
func lowQuartileSpread(d []float64) float64 {
	q := quickSelect(d, len(d)/4)
	return q / (lowQuartileZ * math.Sqrt2)
}

// runSpreadInPlace is spreadBefore over all the run's changes, selecting
// among them in place: the changes before first are moved to the front of
// diffs (their order is lost: call it after every parameter's own spread)
// instead of copied into a scratch as large as them — 8 bytes a row when
// the first held value comes late in the run, on top of the changes and
// their steps (12 bytes a row). The value selected is the same: the lower
// quartile of the same changes.
func (t *tailScratch) runSpreadInPlace(first int32, need int) float64 {
	n := 0
	for i, at := range t.at {
		if at < first {
			t.diffs[n] = t.diffs[i]
			n++
		}
	}
	if n < need {
		return 0
	}
	return lowQuartileSpread(t.diffs[:n])
}

// ownSpread is a parameter's own noise spread: from its changes before
// first (at least minOwnChanges of them, else 0), or from all its changes
// when that is lower — a few steps of history overstate the noise by
// chance as often as they understate it, and the lower quartile of the
// whole run stays right while less than 3/4 of it follows a fault.
func (t *tailScratch) ownSpread(lo, hi int, first int32) float64 {
	pre := t.spreadBefore(lo, hi, first, minOwnChanges)
	if pre == 0 {
		return 0
	}
	if all := t.spreadBefore(lo, hi, math.MaxInt32, minOwnChanges); all > 0 {
		return min(pre, all)
	}
	return pre
}

// hold keeps a value that passed the thresholds until noiseFloor; the
// parameter's step-to-step changes are diffs[lo:hi].
func (c *p1) hold(a model.Anomaly, v, median float64, lo, hi int) {
	c.tails.pend = append(c.tails.pend, pending{a: a, ell: math.Log(v / median), lo: lo, hi: hi})
}

// noiseFloor turns the held values into candidates when they stand
// tailSpreads spreads of the run's noise above their median (see
// tailSpreads), and says what it left out.
func (c *p1) noiseFloor() {
	t := &c.tails
	defer func() { t.pend, t.diffs, t.at = t.pend[:0], t.diffs[:0], t.at[:0] }()
	if len(t.pend) == 0 {
		return
	}
	first := t.first()
	// every parameter's own spread first: the run's is selected in place,
	// reordering the changes
	own := make([]float64, len(t.pend))
	for k, p := range t.pend {
		own[k] = t.ownSpread(p.lo, p.hi, first)
	}
	run := t.runSpreadInPlace(first, minHistory)
	c.res.Thresholds["tail_spreads"] = tailSpreads
	c.res.Thresholds["run_noise_spread"] = run
	if run == 0 {
		// nothing recorded before the first value that passed: the noise
		// is unknown, the robust thresholds decide alone
		for _, p := range t.pend {
			c.res.Anomalies = append(c.res.Anomalies, p.a)
		}
		c.res.ReasoningReasons = append(c.res.ReasoningReasons, model.TailsUnmeasured{First: int(first), Need: minHistory})
		return
	}
	for k, p := range t.pend {
		sp := max(run, own[k])
		if z := p.ell / sp; z < tailSpreads {
			t.dropped++
			t.maxZ = max(t.maxZ, z)
			continue
		}
		c.res.Anomalies = append(c.res.Anomalies, p.a)
	}
	if t.dropped > 0 {
		c.res.ReasoningReasons = append(c.res.ReasoningReasons, model.TailsDropped{Dropped: t.dropped, Spreads: tailSpreads, First: int(first), Spread: run, MaxZ: t.maxZ})
	}
}
