package analysis

import (
	"math"

	"spikescope/model"
)

// nonFiniteCandidates adds, per (parameter, rank) series, every onset of a
// NaN or Inf norm (NULL in a trend.db is NaN): the first non-finite value
// after a finite one is itself a candidate (a NaN that stays is one
// candidate; an overflow that comes back is a candidate each time). A parameter that is non-finite on every row of every rank
// yields one candidate, not one per row or rank. It returns the candidates
// and what it says about them (nil when none).
func nonFiniteCandidates(c *p1) (found []model.Anomaly, said model.Reason) {
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
			// every onset: a non-finite value after a finite one (or the
			// series' first value) — an fp16 loss-scale overflow that recurs
			// is one event each time, not only the first time
			prevFinite := true
			for k := int(g.Lo); k < int(g.Hi); k++ {
				fin := model.Finite(ix.norm[k])
				if !fin && prevFinite {
					firsts = append(firsts, hit{g, k})
				}
				if fin {
					allNF = false
				}
				prevFinite = fin
			}
		}
		if allNF {
			firsts = firsts[:1]
			whole++
		}
		for _, h := range firsts {
			a := c.anomaly(ix.row(h.pos))
			a.NonFinite = true
			a.Trigger = "nonfinite"
			a.DeviationRatio = model.Float(math.Inf(1))
			a.BaselineMedian = model.Float(math.NaN())
			if c.kind == kindMicro {
				a.SuspectFinalNorm = model.FloatPtr(c.curveFinal(h.g, h.pos))
			}
			found = append(found, a)
			series++
		}
	}
	if series > 0 {
		said = model.NonFiniteOnsets{Candidates: series, Whole: whole}
	}
	return found, said
}

// curveFinal is the last norm of the optimizer step of position pos in
// group g.
func (c *p1) curveFinal(g seriesGroup, pos int) float64 {
	ix := c.ix
	o, _ := c.m.mapStep(ix.step[pos], ix.microAt(pos))
	v := math.NaN()
	for k := int(g.Lo); k < int(g.Hi); k++ {
		if ok, _ := c.m.mapStep(ix.step[k], ix.microAt(k)); ok == o {
			v = ix.norm[k]
		}
	}
	return v
}
