package analysis

import (
	"cmp"
	"math"
	"slices"

	"spikescope/model"
)

// triggerDumpAbsNorm marks the single-step dump candidates: a ranking of
// the largest parameter-gradient norms (the reference's trigger name).
const triggerDumpAbsNorm = "dump_abs_norm"

// dumpSpikes is the single-step dump rule: the largest parameter-gradient
// norms (top N), each with its deviation against the median of ALL
// parameters of the step (the reference uses the median of the top N,
// which depends on N: reference bug 12). It returns the candidates and what
// it said.
func dumpSpikes(c *p1) (found []model.Anomaly, said p1said) {
	norm := c.d.Rows.Norm
	rows := make([]int32, 0, c.ix.rows)
	vals := make([]float64, 0, c.ix.rows)
	for k, v := range c.ix.norm {
		if model.Finite(v) {
			rows = append(rows, c.ix.row(k))
			vals = append(vals, v)
		}
	}
	med := medianInPlace(vals)
	slices.SortStableFunc(rows, func(a, b int32) int { return cmp.Compare(norm[b], norm[a]) })
	n := min(len(rows), c.opt.DumpTopN)
	for _, i := range rows[:n] {
		a := c.anomaly(i)
		a.BaselineMedian = model.Float(med)
		if med > 0 {
			a.DeviationRatio = model.Float(norm[i] / med)
		} else {
			a.DeviationRatio = model.Float(math.Inf(1))
		}
		a.Trigger = triggerDumpAbsNorm
		found = append(found, a)
	}
	said.threshold("dump_top_n", float64(c.opt.DumpTopN))
	said.reason(model.DumpTopN{N: n, Of: len(rows), Median: med})
	return found, said
}
