package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/model"
)

// stageControlAdvice: on a pipeline run the control group C must hold the
// same layers as A — another rank of A's stage (other stages number other
// layers from 0). "" without inferred stages or without another rank.
func stageControlAdvice(p1 *model.Phase1Result, rank int) (en, zh string) {
	st, stages, ranks := analysis.StageControlRanks(p1, rank)
	if st < 0 || len(ranks) == 0 {
		return "", ""
	}
	others := make([]string, len(ranks))
	for i, r := range ranks {
		others[i] = strconv.Itoa(r)
	}
	if len(others) > 4 {
		others = append(others[:4], "…")
	}
	list := strings.Join(others, ", ")
	return fmt.Sprintf("rank %d is on pipeline stage %d of %d: dump the control group on another rank of that stage (%s), which holds the same layers", rank, st, stages, list),
		fmt.Sprintf("rank %d 位于 pipeline stage %d（共 %d 个）：对照组请在同一 stage 的其他 rank（%s）采集，它们持有相同的层", rank, st, stages, list)
}
