package analysis

import (
	"fmt"

	"spikescope/model"
)

// otherStage says why a control candidate on rank rc holds other layers
// than A on rank ra when Phase 1 put them on different pipeline stages
// (both dumps number their layers from 0, so their module paths match);
// "" when the stages are the same or unknown.
func otherStage(p1 *model.Phase1Result, ra, rc int) string {
	if p1 == nil {
		return ""
	}
	pl := p1.Sharding.Stages
	sa, sc := pl.StageOf(ra), pl.StageOf(rc)
	if sa < 0 || sc < 0 || sa == sc {
		return ""
	}
	return fmt.Sprintf("on pipeline stage %d, A on stage %d: other layers under the same layer numbers", sc, sa)
}
