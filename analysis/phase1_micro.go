package analysis

import (
	"math"

	"spikescope/model"
)

// maxDecreaseShare: a pool of increments where more than this share of the
// cumulative norms fell instead of growing is not judged (the measure only
// holds for accumulating gradients).
const maxDecreaseShare = 0.25

// microScratch holds the per-parameter buffers of microStepSpikes, reused
// from one parameter to the next.
type microScratch struct {
	inc, delta, final, ratio []float64
	ms, row, opt             []int32
	lv                       []float64 // increments relative to their micro step's median (levels)
	fac                      []float64 // common level of the value's optimizer step (stepLevelFactors)
	levels                   levelScratch
	jumps, scaled            int
	targetJumps              int     // jumps of the current parameter
	skip                     []bool  // per pooled value: at a common spike (left out of the baseline)
	ends                     []int   // end of each series in inc
	last                     float64 // the latest norm of the current curve
	pos                      []int32 // positions grouped into pools
	vals                     []float64
	clamped                  []bool // N_k < N_{k−1}: the increment is undefined (0)
	skipped                  int    // pools left unjudged (too many decreases)
	pool                     []float64
	medInc, medDelta         []float64
	deltaMeds                bool  // medDelta holds the parameter's medians (medDeltaAt)
	perMicro                 bool  // the parameter's baselines are per micro step
	counts                   []int // finite increments per micro step
	cand                     []int
}

// microStepSpikes judges each micro-batch's own contribution in cumulative
// (accumulated) gradients. Curves are per (metric, parameter, rank,
// optimizer step), in micro-step order; metrics and optimizer steps never
// mix. For micro step k the increment inc_k = sqrt(max(N_k² − N_{k−1}², 0))
// (inc_0 = N_0) estimates the norm of micro-batch k; it is stationary across
// k for uncorrelated micro-batches, so it is compared against a baseline of
// the same parameter pooled over ranks, optimizer steps and micro steps —
// per micro step when every micro step has ≥ minMicroPool samples, which
// also removes the growth of correlated micro-batches and lets the later,
// noisier micro steps have their own spread. Robust thresholds as at step level,
// the judged point left out. A candidate must also raise the cumulative norm
// itself: its delta N_k − N_{k−1} must be ≥ MinEffect × the parameter's
// usual delta — after a spike a normal micro-batch can look large through
// sqrt(N_k² − N_{k−1}²) alone. Every parameter is judged on its own scale:
// nothing is preselected by absolute norm. The values that pass are held
// in c.tails for noiseFloor; it returns what it said.
func microStepSpikes(c *p1) (said p1said) {
	var s microScratch
	judged, perMicro, found := 0, 0, 0
	c.tails.redo = func(n int) { c.microChangesAgain(n) }
	for t := range c.d.Targets {
		gs := c.ix.targetGroups(t)
		if len(gs) == 0 {
			continue
		}
		judged++
		pm := c.microCurves(gs, &s)
		if pm {
			perMicro++
		}
		// pools: one per micro step when every micro step has enough
		// samples (later micro steps of cumulative norms are noisier),
		// else all micro steps of the parameter together
		s.pos = groupByMicro(s.ms, pm, s.pos)
		for lo := 0; lo < len(s.pos); {
			hi := len(s.pos)
			if pm {
				hi = lo + 1
				for hi < len(s.pos) && s.ms[s.pos[hi]] == s.ms[s.pos[lo]] {
					hi++
				}
			}
			said.short = c.microJudgePool(&s, s.pos[lo:hi], &found, said.short)
			lo = hi
		}
		c.tails.settle()
	}
	said.threshold("min_micro_pool", minMicroPool)
	said.threshold("level_history", levelHistory)
	said.threshold("level_persist", levelPersist)
	said.threshold("series_head_steps", seriesHeadSteps)
	said.reason(model.MicroStepRule{MinEffect: c.opt.MinEffect, LevelHistory: levelHistory, LevelPersist: levelPersist,
		Jumps: s.jumps, Scaled: s.scaled, HeadSteps: 2 * seriesHeadSteps, Judged: judged, PerMicro: perMicro, MinPool: minMicroPool,
		IQRMult: c.opt.IQRMult, MADMult: c.opt.MADMult, MADScale: madScale, Found: found})
	if s.skipped > 0 {
		said.reason(model.MicroPoolsSkipped{Pools: s.skipped, MaxDecreasePct: 100 * maxDecreaseShare})
	}
	historyNotes(&c.hist, true, &said)
	return said
}

// microJudgePool judges the normalised increments at positions pos: it
// holds the values that pass in c.tails and returns short with the
// would-be candidates of a pool too short appended.
func (c *p1) microJudgePool(s *microScratch, pos []int32, found *int, short []model.ShortHistory) []model.ShortHistory {
	s.vals = s.vals[:0]
	s.skip = s.skip[:0]
	clamped := 0
	for _, j := range pos {
		s.vals = append(s.vals, s.ratio[j])
		if s.clamped[j] {
			clamped++
		}
		if s.targetJumps > 0 {
			s.skip = append(s.skip, s.levels.isJump(s.opt[j]))
		}
	}
	// common spikes (steps kept at a preceding level) are judged, but never
	// part of the baseline of the others
	var skip []bool
	if s.targetJumps > 0 {
		skip = s.skip
	}
	if float64(clamped) > maxDecreaseShare*float64(len(pos)) {
		s.skipped++ // the cumulative norm often falls here: increments carry no signal
		return short
	}
	var left bool
	s.cand, left = c.judge.prescreenFlaggable(s.vals, skip, s.cand)
	pool := c.judge.poolN
	few := c.hist.tooShort(pool)
	for _, ci := range s.cand {
		j := int(pos[ci])
		v := s.ratio[j]
		vd := c.judge.judgeIn(v, !left || !skip[ci])
		if !vd.Flagged {
			continue
		}
		k := s.ms[j]
		md := c.medDeltaAt(s, k)
		if md > 0 {
			if !(s.delta[j] >= c.opt.MinEffect*md) {
				continue
			}
		} else if !(s.delta[j] > 0) {
			continue
		}
		a := c.anomaly(s.row[j])
		f := s.fac[j]
		a.Delta = model.FloatPtr(s.delta[j] * f)
		a.Increment = model.FloatPtr(s.inc[j] * f)
		a.SuspectFinalNorm = model.FloatPtr(s.final[j])
		a.BaselineMedian = model.Float(s.medInc[k] * vd.Median * f)
		a.BaselineIQR = model.FloatPtr(s.medInc[k] * vd.IQR * f)
		a.DeviationRatio = model.Float(v / vd.Median)
		a.Trigger, a.Test = "micro_step_delta", vd.Trigger
		if few && !beyondShortHistory(v, vd.Median) {
			short = c.hist.unflag(short, a, pool)
			continue
		}
		c.tails.hold(a, v, vd.Median)
		*found++
	}
	return short
}

// microCurves fills the scratch with the increments, deltas and normalised
// increments (ratio) of one parameter; it reports whether per-micro-step
// baselines were used.
func (c *p1) microCurves(gs []seriesGroup, s *microScratch) bool {
	ix := c.ix
	s.inc, s.delta, s.final, s.ms, s.row = s.inc[:0], s.delta[:0], s.final[:0], s.ms[:0], s.row[:0]
	s.opt = s.opt[:0]
	s.ends = s.ends[:0]
	s.clamped = s.clamped[:0]
	maxK := int32(0)
	for _, g := range gs {
		curOpt, start := 0, len(s.inc)
		prev := math.NaN()
		closeCurve := func() {
			if n := len(s.final); n > start {
				last := s.last
				for j := start; j < n; j++ {
					s.final[j] = last
				}
			}
		}
		for k := int(g.Lo); k < int(g.Hi); k++ {
			o, ms := c.m.mapStep(ix.step[k], ix.microAt(k))
			if k == int(g.Lo) || o != curOpt {
				closeCurve()
				curOpt, start = o, len(s.inc)
				prev = math.NaN()
				if ms == 0 {
					prev = 0 // the curve starts from an empty accumulator
				}
			}
			n := ix.norm[k]
			inc, delta := math.NaN(), math.NaN()
			clamp := false
			if model.Finite(n) && model.Finite(prev) {
				delta = n - prev
				inc = math.Sqrt(max(n*n-prev*prev, 0))
				clamp = n < prev
			}
			s.clamped = append(s.clamped, clamp)
			if ms < 0 {
				ms = 0
			}
			s.inc = append(s.inc, inc)
			s.delta = append(s.delta, delta)
			s.final = append(s.final, 0)
			s.ms = append(s.ms, int32(ms))
			s.opt = append(s.opt, int32(o))
			s.row = append(s.row, ix.row(k))
			maxK = max(maxK, int32(ms))
			prev, s.last = n, n
		}
		closeCurve()
		s.ends = append(s.ends, len(s.inc))
	}
	nk := int(maxK) + 1
	s.medInc = resizeF(s.medInc, nk)
	s.medDelta = resizeF(s.medDelta, nk)
	// per-micro-step medians when every micro step has enough samples
	s.counts = resizeI(s.counts, nk)
	counts := s.counts
	clear(counts)
	for j, v := range s.inc {
		if model.Finite(v) {
			counts[s.ms[j]]++
		}
	}
	perMicro := true
	for _, n := range counts {
		if n > 0 && n < minMicroPool {
			perMicro = false
		}
	}
	// increments and deltas relative to their optimizer step's common level
	// (warm-up, drift, loss-scale shifts); reported values stay raw. The
	// levels are taken over increments already relative to their micro
	// step's median, so that a partial optimizer step (only its first or
	// last micro steps recorded) is not off-level by its composition.
	s.lv = resizeF(s.lv, len(s.inc))
	copy(s.lv, s.inc)
	if perMicro {
		// a rough per-micro-step scale is enough here: a subsample
		medianPerMicroSampled(s.inc, s.ms, counts, levelSample, s.medInc, &s.pool)
		for j, k := range s.ms {
			if m := s.medInc[k]; m > 0 {
				s.lv[j] = s.inc[j] / m
			}
		}
	}
	var nj int
	s.fac, nj = stepLevelFactors(s.opt, s.lv, c.opt.MinEffect, s.fac, &s.levels)
	s.jumps += nj
	s.targetJumps = nj
	s.scaled += seriesScales(s.opt, s.lv, s.fac, s.ends, &s.levels)
	for j, f := range s.fac {
		s.inc[j] /= f
		s.delta[j] /= f
	}
	if perMicro {
		medianPerMicro(s.inc, s.ms, counts, s.medInc, &s.pool)
	} else {
		mi := c.medianWhere(s.inc, nil, 0, &s.pool)
		for k := 0; k < nk; k++ {
			s.medInc[k] = mi
		}
	}
	// the deltas' medians only matter to a value that passes the
	// thresholds: medDeltaAt takes them then
	s.perMicro, s.deltaMeds = perMicro, false
	s.ratio = resizeF(s.ratio, len(s.inc))
	for j, v := range s.inc {
		m := s.medInc[s.ms[j]]
		if m > 0 && model.Finite(v) {
			s.ratio[j] = v / m
		} else {
			s.ratio[j] = math.NaN()
		}
	}
	c.tails.mark()
	c.microDiffs(s, nk)
	return perMicro
}

// medDeltaAt is the median delta of micro step k of the current parameter
// (of all its deltas when its baselines are not per micro step), the
// parameter's medians taken at the first call (most parameters have no
// value that passes the thresholds and need none).
func (c *p1) medDeltaAt(s *microScratch, k int32) float64 {
	if !s.deltaMeds {
		if s.perMicro {
			medianPerMicro(s.delta, s.ms, s.counts, s.medDelta, &s.pool)
		} else {
			md := c.medianWhere(s.delta, nil, 0, &s.pool)
			for k := range s.medDelta {
				s.medDelta[k] = md
			}
		}
		s.deltaMeds = true
	}
	return s.medDelta[k]
}

// microChangesAgain adds the changes of the first n targets with values
// again, as microStepSpikes computed them (the tails' redo).
func (c *p1) microChangesAgain(n int) {
	var s microScratch
	for t := 0; t < len(c.d.Targets) && n > 0; t++ {
		if gs := c.ix.targetGroups(t); len(gs) > 0 {
			c.microCurves(gs, &s) // adds the changes (microDiffs)
			n--
		}
	}
}

// microDiffs adds the run-noise changes of one parameter's normalised
// increments: per series and micro step, from one optimizer step to the
// next (noiseFloor).
func (c *p1) microDiffs(s *microScratch, nk int) {
	last := make([]float64, nk)
	start := 0
	t := &c.tails
	for _, end := range s.ends {
		for k := range last {
			last[k] = math.NaN()
		}
		for j := start; j < end; j++ {
			v, k := s.ratio[j], s.ms[j]
			if !(v > 0) || !model.Finite(v) {
				last[k] = math.NaN()
				continue
			}
			l := math.Log(v)
			if !math.IsNaN(last[k]) {
				d := math.Abs(l - last[k])
				// tails.add's common case: no sink, room in the last chunk
				if n := t.n; t.sink == nil && n>>changeShift < len(t.dc) {
					t.dc[n>>changeShift][n&changeMask] = d
					t.ac[n>>changeShift][n&changeMask] = s.opt[j]
					t.n = n + 1
				} else {
					t.add(d, s.opt[j])
				}
			}
			last[k] = l
		}
		start = end
	}
}

// medianWhere is the median of vals[j] where ms[j] == k (all when ms is nil).
func (c *p1) medianWhere(vals []float64, ms []int32, k int32, pool *[]float64) float64 {
	p := (*pool)[:0]
	for j, v := range vals {
		if ms == nil || ms[j] == k {
			p = append(p, v)
		}
	}
	*pool = p
	return medianInPlace(p)
}

func resizeF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// medianPerMicro sets out[k] to the median of vals[j] with ms[j] == k, with
// one bucketing pass (counts[k] ≥ the number of such values).
func medianPerMicro(vals []float64, ms []int32, counts []int, out []float64, pool *[]float64) {
	p := resizeF(*pool, len(vals))
	*pool = p
	off := make([]int, len(counts)+1)
	for k, n := range counts {
		off[k+1] = off[k] + n
	}
	fill := append([]int(nil), off[:len(counts)]...)
	negZero := false
	for j, v := range vals {
		k := ms[j]
		if model.Finite(v) && fill[k] < off[k+1] {
			p[fill[k]] = v
			fill[k]++
			negZero = negZero || v == 0 && math.Signbit(v)
		}
	}
	for k := range counts {
		out[k] = medianFinite(p[off[k]:fill[k]], negZero)
	}
}

// levelSample is the number of values per micro step that set the
// micro-step scale of the common levels (medianPerMicroSampled).
const levelSample = 256

// medianPerMicroSampled sets out[k] to the median of about n of the
// values vals[j] with ms[j] == k (counts[k] of them are finite), taken at
// an even stride within each micro step.
func medianPerMicroSampled(vals []float64, ms []int32, counts []int, n int, out []float64, pool *[]float64) {
	nk := len(counts)
	stride := make([]int, nk)
	sub := make([]int, nk)
	for k, c := range counts {
		stride[k] = max(1, c/n)
		sub[k] = min(c, n+1)
	}
	// left[k]: finite values of micro step k to pass before the next one
	// taken (every stride[k]-th, from the first: no division a value)
	left := make([]int, nk)
	p := resizeF(*pool, len(vals))[:0]
	q := make([]int32, 0, nk*(n+1))
	for j, v := range vals {
		if !model.Finite(v) {
			continue
		}
		k := ms[j]
		if left[k] == 0 {
			p = append(p, v)
			q = append(q, k)
			left[k] = stride[k]
		}
		left[k]--
	}
	for k := range sub {
		sub[k] = 0
	}
	for _, k := range q {
		sub[k]++
	}
	*pool = p
	buf := append([]float64(nil), p...)
	medianPerMicro(buf, q, sub, out, pool)
}

// groupByMicro returns the positions 0..len(ms)-1, grouped by micro step
// (a stable counting sort) when byMicro, else in order.
func groupByMicro(ms []int32, byMicro bool, pos []int32) []int32 {
	pos = pos[:0]
	if !byMicro {
		for j := range ms {
			pos = append(pos, int32(j))
		}
		return pos
	}
	maxK := int32(0)
	for _, k := range ms {
		maxK = max(maxK, k)
	}
	off := make([]int32, maxK+2)
	for _, k := range ms {
		off[k+1]++
	}
	for k := 1; k < len(off); k++ {
		off[k] += off[k-1]
	}
	if cap(pos) < len(ms) {
		pos = make([]int32, len(ms))
	}
	pos = pos[:len(ms)]
	for j, k := range ms {
		pos[off[k]] = int32(j)
		off[k]++
	}
	return pos
}
