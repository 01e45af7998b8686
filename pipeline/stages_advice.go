package pipeline

import (
	"spikescope/analysis"
	"spikescope/model"
)

// stageControlRanks: on a pipeline run the control group C must hold the
// same layers as A — another rank of A's stage (other stages number other
// layers from 0): rank's stage of stages and up to four other ranks of it
// (more: it has more). stages 0 without inferred stages or without
// another rank.
func stageControlRanks(p1 *model.Phase1Result, rank int) (stage, stages int, ranks []int, more bool) {
	st, n, rs := analysis.StageControlRanks(p1, rank)
	if st < 0 || len(rs) == 0 {
		return 0, 0, nil, false
	}
	if len(rs) > 4 {
		return st, n, rs[:4:4], true
	}
	return st, n, rs, false
}
