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
	var ts []int32
	var fac, norm []float64
	var ls levelScratch
	var skipBuf []bool
	var cidx, ends []int
	judged, found, jumps, scaled := 0, 0, 0, 0
	for t := range c.d.Targets {
		lo, hi := c.ix.block(t)
		vals := c.ix.norm[lo:hi]
		if len(vals) == 0 {
			continue
		}
		judged++
		// each value relative to its step's common level (stepLevelFactors)
		ts = ts[:0]
		for k := lo; k < hi; k++ {
			o, _ := c.m.mapStep(c.ix.step[k], c.ix.microAt(k))
			ts = append(ts, int32(o))
		}
		var nj int
		fac, nj = stepLevelFactors(ts, vals, c.opt.MinEffect, fac, &ls)
		jumps += nj
		ends = ends[:0]
		for _, g := range c.ix.targetGroups(t) {
			ends = append(ends, int(g.Hi)-lo)
		}
		scaled += seriesScales(ts, vals, fac, ends, &ls)
		norm = resizeF(norm, len(vals))
		for k, v := range vals {
			norm[k] = v / fac[k]
		}
		c.tails.mark()
		for _, g := range c.ix.targetGroups(t) {
			c.tails.addDiffs(norm[int(g.Lo)-lo:int(g.Hi)-lo], ts[int(g.Lo)-lo:int(g.Hi)-lo])
		}
		// common spikes (steps kept at a preceding level) are judged, but
		// never part of the baseline of the others
		var skip []bool
		if nj > 0 {
			skip = resizeB(skipBuf, len(vals))
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
