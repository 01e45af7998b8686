package analysis

import (
	"fmt"

	"spikescope/model"
)

// stepLevelSpikes is the step-level rule: per parameter, a robust baseline
// (median, MAD×1.4826, IQR) over all ranks and steps that leaves out the
// point being judged; a candidate is above the IQR (q3 + k·IQR) or MAD
// (median + k·MAD) threshold and at least MinEffect × the baseline median.
// Also the rule of multi-step dumps.
func (c *p1) stepLevelSpikes() {
	var cand []int
	judged, found := 0, 0
	for t := range c.d.Targets {
		lo, hi := c.ix.block(t)
		vals, rows := c.ix.norm[lo:hi], c.ix.order[lo:hi]
		if len(vals) == 0 {
			continue
		}
		judged++
		cand = c.judge.prescreen(vals, cand)
		for _, k := range cand {
			v := vals[k]
			vd := c.judge.judge(v)
			if !vd.Flagged {
				continue
			}
			a := c.anomaly(rows[k])
			a.BaselineMedian = model.Float(vd.Median)
			a.BaselineIQR = model.FloatPtr(vd.IQR)
			a.DeviationRatio = model.Float(v / vd.Median)
			a.Trigger, a.Test = vd.Trigger, vd.Trigger
			c.res.Anomalies = append(c.res.Anomalies, a)
			found++
		}
	}
	c.res.Reasoning = append(c.res.Reasoning, fmt.Sprintf(
		"step level: %d parameters judged against their own baseline over all ranks and steps without the judged point; candidate when > q3 + %g·IQR or > median + %g·MAD×%.4f, and ≥ %g× the median: %d found",
		judged, c.opt.IQRMult, c.opt.MADMult, madScale, c.opt.MinEffect, found))
}
