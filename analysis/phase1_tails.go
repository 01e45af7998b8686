package analysis

import (
	"fmt"
	"math"

	"spikescope/model"
)

// tailSpreads is the heavy-tail floor of Phase 1 (noiseFloor). Real
// gradient norms have heavier tails than their bulk spread says: on
// noise-only TrainerMon runs a parameter whose robust spread is tight
// still reaches 1.7× its median now and then, and that passes median +
// 10·MAD. So a candidate must also be far beyond the run's own noise on a
// log scale: log(value / median) ≥ tailSpreads × the spread of log values
// (1.4826·MAD of log(value / median)), where the spread is the larger of
// its own pool's and the run's (the median over all pools of the run:
// parameters with a tight bulk borrow the run's typical spread).
//
// Why 8: on real noise-only runs (testdata/msprobe-real: 2 and 4 ranks,
// W = 1 and 2, several seeds) the largest value seen is about 5–6 such
// spreads above its median; a bad batch is hundreds of spreads above.
// 8 leaves that margin, and on normal noise 8 spreads is a tail
// probability of 1e-15, so the floor costs nothing on gentle noise.
const tailSpreads = 8.0

// pending is a value that passed the robust thresholds, waiting for the
// run's spread (noiseFloor).
type pending struct {
	a      model.Anomaly
	ell    float64 // log(value / baseline median)
	spread float64 // its pool's spread of log values
	pool   int     // values in its pool
}

// tailScratch collects the pools' log spreads and the pending values.
type tailScratch struct {
	spreads []float64
	pend    []pending
	buf     []float64
	maxZ    float64 // largest z of a value left out by the floor
	dropped int
}

// logSpread is the median of |log(x / med)| × madScale over the finite
// positive values of vals not marked in skip (0 when fewer than 3 such
// values). With keys (a pool of several micro steps) med is each key's own
// median: micro steps of cumulative gradients differ by construction, and
// that is no noise.
func (t *tailScratch) logSpread(vals []float64, keys []int32, skip []bool) float64 {
	b := t.buf[:0]
	for i, v := range vals {
		if v > 0 && model.Finite(v) && (skip == nil || !skip[i]) {
			b = append(b, math.Log(v))
		}
	}
	t.buf = b
	if len(b) < 3 {
		return 0
	}
	if keys == nil {
		med := medianInPlace(b)
		for i, v := range b {
			b[i] = math.Abs(v - med)
		}
	} else {
		var ks []int32
		for i, v := range vals {
			if v > 0 && model.Finite(v) && (skip == nil || !skip[i]) {
				ks = append(ks, keys[i])
			}
		}
		meds := map[int32]float64{}
		var one []float64
		for _, k := range ks {
			if _, ok := meds[k]; ok {
				continue
			}
			one = one[:0]
			for j, x := range b {
				if ks[j] == k {
					one = append(one, x)
				}
			}
			meds[k] = medianInPlace(one)
		}
		for j, x := range b {
			b[j] = math.Abs(x - meds[ks[j]])
		}
	}
	s := medianInPlace(b) * madScale
	t.spreads = append(t.spreads, s)
	return s
}

// hold keeps a value that passed the thresholds until noiseFloor.
func (c *p1) hold(a model.Anomaly, v, median, spread float64, pool int) {
	c.tails.pend = append(c.tails.pend, pending{a: a, ell: math.Log(v / median), spread: spread, pool: pool})
}

// noiseFloor turns the held values into candidates (or too-little-history
// reports) when they are beyond tailSpreads × max(own spread, run spread)
// on a log scale, and says what it left out.
func (c *p1) noiseFloor() {
	t := &c.tails
	run := 0.0
	if len(t.spreads) == 0 && len(t.pend) == 0 {
		return
	}
	if len(t.spreads) > 0 {
		s := append([]float64(nil), t.spreads...)
		run = medianInPlace(s)
	}
	c.res.Thresholds["tail_spreads"] = tailSpreads
	c.res.Thresholds["run_log_spread"] = run
	for _, p := range t.pend {
		sp := max(p.spread, run)
		z := math.Inf(1)
		if sp > 0 {
			z = p.ell / sp
		}
		if z < tailSpreads {
			t.dropped++
			t.maxZ = max(t.maxZ, z)
			continue
		}
		c.res.Anomalies = append(c.res.Anomalies, p.a)
	}
	if t.dropped > 0 {
		c.res.Reasoning = append(c.res.Reasoning, fmt.Sprintf(
			"heavy tails: %d value(s) passed the robust thresholds but stay within %g spreads of log(norm) of their median (the spread being the larger of their own and the run's, %.3g): ordinary batch noise on real gradients, not candidates (the largest was %.2g spreads)",
			t.dropped, tailSpreads, run, t.maxZ))
	}
	t.pend = t.pend[:0]
}
