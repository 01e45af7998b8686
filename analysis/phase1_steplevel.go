package analysis

import (
	"spikescope/model"
)

// stepLevelSpikes is the step-level rule: per parameter, a robust baseline
// (median, MAD×1.4826, IQR) over all ranks and steps that leaves out the
// point being judged; a candidate is above the IQR (q3 + k·IQR) or MAD
// (median + k·MAD) threshold and at least MinEffect × the baseline median.
// Values are first divided by their step's common level
// (stepLevelFactors), so the baseline is robust to warm-up and trends.
// Also the rule of multi-step dumps. The values that pass are held in
// c.tails for noiseFloor; it returns what it said.
func stepLevelSpikes(c *p1) (s p1said) {
	var sc stepScratch
	var skipBuf []bool
	var cidx []int
	judged, found, jumps, scaled := 0, 0, 0, 0
	c.tails.redo = func(n int) { c.stepChangesAgain(n) }
	for t := range c.d.Targets {
		lo, nj, ns := c.stepValues(t, &sc)
		if nj < 0 {
			continue
		}
		judged++
		jumps += nj
		scaled += ns
		ts, fac, norm, ls := sc.ts, sc.fac, sc.norm, &sc.ls
		c.stepDiffs(t, lo, &sc)
		// common spikes (steps kept at a preceding level) are judged, but
		// never part of the baseline of the others
		var skip []bool
		if nj > 0 {
			skip = resizeB(skipBuf, len(norm))
			skipBuf = skip
			for k := range skip {
				skip[k] = ls.isJump(ts[k])
			}
		}
		var left bool
		cidx, left = c.judge.prescreenFlaggable(norm, skip, cidx)
		pool := c.judge.poolN
		short := c.hist.tooShort(pool)

		for _, k := range cidx {
			v := norm[k]
			vd := c.judge.judgeIn(v, !left || !skip[k])
			if !vd.Flagged {
				continue
			}
			a := c.anomaly(c.ix.row(lo + k))
			a.BaselineMedian = model.Float(vd.Median * fac[k])
			a.BaselineIQR = model.FloatPtr(vd.IQR * fac[k])
			a.DeviationRatio = model.Float(v / vd.Median)
			a.Trigger, a.Test = vd.Trigger, vd.Trigger
			if short && !beyondShortHistory(v, vd.Median) {
				s.short = c.hist.unflag(s.short, a, pool)
				continue
			}
			c.tails.hold(a, v, vd.Median)
			found++
		}
		c.tails.settle()
	}
	s.threshold("level_history", levelHistory)
	s.threshold("level_persist", levelPersist)
	s.threshold("series_head_steps", seriesHeadSteps)
	s.reason(model.StepLevelRule{Judged: judged, MinEffect: c.opt.MinEffect, LevelHistory: levelHistory,
		LevelPersist: levelPersist, Jumps: jumps, Scaled: scaled, HeadSteps: 2 * seriesHeadSteps,
		IQRMult: c.opt.IQRMult, MADMult: c.opt.MADMult, MADScale: madScale, Found: found})
	historyNotes(&c.hist, false, &s)
	return s
}

// stepScratch holds a parameter's values relative to their step's common
// level (stepValues), reused from one parameter to the next.
type stepScratch struct {
	ts        []int32
	fac, norm []float64
	ls        levelScratch
	ends      []int
}

// stepValues fills sc with target t's optimizer steps (ts), common levels
// (fac) and values relative to them (norm), from its first row lo; nj is
// the number of level jumps (−1: the target has no values), ns the series
// scaled.
func (c *p1) stepValues(t int, sc *stepScratch) (lo, nj, ns int) {
	lo, hi := c.ix.block(t)
	vals := c.ix.norm[lo:hi]
	if len(vals) == 0 {
		return lo, -1, 0
	}
	// each value relative to its step's common level (stepLevelFactors)
	sc.ts = sc.ts[:0]
	for k := lo; k < hi; k++ {
		o, _ := c.m.mapStep(c.ix.step[k], c.ix.microAt(k))
		sc.ts = append(sc.ts, int32(o))
	}
	sc.fac, nj = stepLevelFactors(sc.ts, vals, c.opt.MinEffect, sc.fac, &sc.ls)
	sc.ends = sc.ends[:0]
	for _, g := range c.ix.targetGroups(t) {
		sc.ends = append(sc.ends, int(g.Hi)-lo)
	}
	ns = seriesScales(sc.ts, vals, sc.fac, sc.ends, &sc.ls)
	sc.norm = resizeF(sc.norm, len(vals))
	for k, v := range vals {
		sc.norm[k] = v / sc.fac[k]
	}
	return lo, nj, ns
}

// stepDiffs adds target t's step-to-step changes (noiseFloor).
func (c *p1) stepDiffs(t, lo int, sc *stepScratch) {
	c.tails.mark()
	for _, g := range c.ix.targetGroups(t) {
		c.tails.addDiffs(sc.norm[int(g.Lo)-lo:int(g.Hi)-lo], sc.ts[int(g.Lo)-lo:int(g.Hi)-lo])
	}
}

// stepChangesAgain adds the changes of the first n targets with values
// again, as stepLevelSpikes computed them (the tails' redo).
func (c *p1) stepChangesAgain(n int) {
	var sc stepScratch
	for t := 0; t < len(c.d.Targets) && n > 0; t++ {
		if lo, nj, _ := c.stepValues(t, &sc); nj >= 0 {
			c.stepDiffs(t, lo, &sc)
			n--
		}
	}
}
