package analysis

import (
	"fmt"
	"math"

	"spikescope/model"
)

// nonFiniteCandidates adds, per (parameter, rank) series, the first NaN or
// Inf norm (NULL in a trend.db is NaN): the first non-finite value is itself
// a candidate. A parameter that is non-finite on every row of every rank
// yields one candidate, not one per row or rank.
func (c *p1) nonFiniteCandidates() {
	r := &c.d.Rows
	norm := r.Val[model.StatNorm]
	series, whole := 0, 0
	for t := range c.d.Targets {
		gs := c.ix.targetGroups(t)
		if len(gs) == 0 {
			continue
		}
		allNF := true
		var firsts []int32
		for _, g := range gs {
			first := int32(-1)
			for _, i := range c.ix.rowsOf(g) {
				if !isFinite(norm[i]) {
					if first < 0 {
						first = i
					}
				} else {
					allNF = false
				}
			}
			if first >= 0 {
				firsts = append(firsts, first)
			}
		}
		if allNF {
			firsts = firsts[:1]
			whole++
		}
		for _, i := range firsts {
			a := c.anomaly(i)
			a.NonFinite = true
			a.Trigger = "nonfinite"
			a.DeviationRatio = model.Float(math.Inf(1))
			a.BaselineMedian = model.Float(math.NaN())
			if c.kind == kindMicro {
				a.SuspectFinalNorm = model.FloatPtr(c.curveFinal(gsOf(gs, r.Rank[i]), i))
			}
			c.res.Anomalies = append(c.res.Anomalies, a)
			series++
		}
	}
	if series > 0 {
		msg := fmt.Sprintf("non-finite norms (NaN/Inf/NULL): %d candidates, the first non-finite value of each (parameter, rank) series", series)
		if whole > 0 {
			msg += fmt.Sprintf("; %d parameters have no finite value at all (one candidate each)", whole)
		}
		c.res.Reasoning = append(c.res.Reasoning, msg)
	}
}

func gsOf(gs []seriesGroup, rank int32) seriesGroup {
	for _, g := range gs {
		if g.Rank == rank {
			return g
		}
	}
	return seriesGroup{}
}

// curveFinal is the last norm of the optimizer step of row i in group g.
func (c *p1) curveFinal(g seriesGroup, i int32) float64 {
	r := &c.d.Rows
	o, _ := c.m.mapStep(r.Step[i], r.Micro[i])
	v := math.NaN()
	for _, j := range c.ix.rowsOf(g) {
		if oj, _ := c.m.mapStep(r.Step[j], r.Micro[j]); oj == o {
			v = r.Val[model.StatNorm][j]
		}
	}
	return v
}
