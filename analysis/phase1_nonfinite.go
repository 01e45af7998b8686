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
	ix := c.ix
	series, whole := 0, 0
	for t := range c.d.Targets {
		gs := c.ix.targetGroups(t)
		if len(gs) == 0 {
			continue
		}
		allNF := true
		type hit struct {
			g   seriesGroup
			pos int
		}
		var firsts []hit
		for _, g := range gs {
			first := -1
			for k := int(g.Lo); k < int(g.Hi); k++ {
				if !model.Finite(ix.norm[k]) {
					if first < 0 {
						first = k
					}
				} else {
					allNF = false
				}
			}
			if first >= 0 {
				firsts = append(firsts, hit{g, first})
			}
		}
		if allNF {
			firsts = firsts[:1]
			whole++
		}
		for _, h := range firsts {
			a := c.anomaly(ix.order[h.pos])
			a.NonFinite = true
			a.Trigger = "nonfinite"
			a.DeviationRatio = model.Float(math.Inf(1))
			a.BaselineMedian = model.Float(math.NaN())
			if c.kind == kindMicro {
				a.SuspectFinalNorm = model.FloatPtr(c.curveFinal(h.g, h.pos))
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

// curveFinal is the last norm of the optimizer step of position pos in
// group g.
func (c *p1) curveFinal(g seriesGroup, pos int) float64 {
	ix := c.ix
	o, _ := c.m.mapStep(ix.step[pos], ix.micro[pos])
	v := math.NaN()
	for k := int(g.Lo); k < int(g.Hi); k++ {
		if ok, _ := c.m.mapStep(ix.step[k], ix.micro[k]); ok == o {
			v = ix.norm[k]
		}
	}
	return v
}
