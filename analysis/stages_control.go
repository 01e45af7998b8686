package analysis

import (
	"spikescope/model"
)

// otherStage says why a control candidate on rank rc holds other layers
// than A on rank ra when Phase 1 put them on different pipeline stages
// (both dumps number their layers from 0, so their module paths match);
// nil when the stages are the same or unknown.
func otherStage(p1 *model.Phase1Result, ra, rc int) model.Reason {
	if p1 == nil {
		return nil
	}
	pl := p1.Sharding.Stages
	sa, sc := pl.StageOf(ra), pl.StageOf(rc)
	if sa < 0 || sc < 0 || sa == sc {
		return nil
	}
	return model.P3CandOtherStage{Stage: sc, AStage: sa}
}
