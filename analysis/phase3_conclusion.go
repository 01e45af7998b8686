package analysis

import (
	"strings"

	"spikescope/model"
)

// ConcludePhase3 reads a Phase 3 result into its conclusion (Step 3's
// verdict): forward divergent when the forward verdict is divergent or
// flags a layer, else backward, else undetermined when layers went
// uncompared, else consistent; the first divergent layer of a direction is
// the earliest divergence, else the direction's start. nil for nil.
func ConcludePhase3(p3 *model.Phase3Result) *model.Phase3Conclusion {
	if p3 == nil {
		return nil
	}
	ds := &p3.DivergenceSummary
	c := &model.Phase3Conclusion{}
	for i := range ds.Directions {
		if isFwdName(ds.Directions[i].Direction) {
			c.Fwd = &ds.Directions[i]
		} else {
			c.Bwd = &ds.Directions[i]
		}
	}
	divergent := func(d *model.DirectionVerdict) bool {
		return d != nil && (strings.EqualFold(d.Verdict, "divergent") || len(d.Flagged) > 0)
	}
	c.FwdDivergent, c.BwdDivergent = divergent(c.Fwd), divergent(c.Bwd)
	c.Uncompared = len(ds.UncomparedLayers.Fwd)+len(ds.UncomparedLayers.Bwd) > 0
	c.FwdStart, c.BwdStart = ds.EarliestFwdDivergence, ds.EarliestBwdDivergence
	if c.FwdStart == nil && c.Fwd != nil {
		c.FwdStart = c.Fwd.Start
	}
	if c.BwdStart == nil && c.Bwd != nil {
		c.BwdStart = c.Bwd.Start
	}
	switch {
	case c.FwdDivergent:
		c.Verdict = model.VerdictForward
	case c.BwdDivergent:
		c.Verdict = model.VerdictBackward
		c.ForwardUnsure = c.Fwd != nil && !strings.EqualFold(c.Fwd.Verdict, "consistent")
	case c.Uncompared:
		c.Verdict = model.VerdictUndetermined
	default:
		c.Verdict = model.VerdictConsistent
	}
	if d := ds.Drilldown; d != nil && d.Operator != "" {
		c.Operator = d
	}
	return c
}

// isFwdName reports whether a direction name is the forward pass.
func isFwdName(d string) bool {
	d = strings.ToLower(d)
	return d == "fwd" || d == "forward" || d == "前向"
}
