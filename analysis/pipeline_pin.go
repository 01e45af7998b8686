package analysis

import (
	"fmt"

	"spikescope/model"
)

// resolveStageParam resolves a pinned parameter on a run with pipeline
// stages: "pp1:layers.2…" as is; a name without a stage is the parameter of
// the pinned rank's stage (the stage-local name the user sees in the
// monitor files). Without stages, or without a rank, the plain rule
// (exact name or unique suffix) applies: a bare name held by several
// stages is ambiguous and the error lists them.
func resolveStageParam(p1 *model.Phase1Result, names []string, pin *Pin) (string, error) {
	pl := p1.Sharding.Pipeline
	if pl == nil || !pl.Inferred || pl.Stages < 2 || pin.Rank == nil {
		return resolveParam(names, pin.Param)
	}
	st := pl.StageOf(*pin.Rank)
	if ps, _, ok := model.SplitStageName(pin.Param); ok {
		if st >= 0 && ps != st {
			return "", fmt.Errorf("parameter %q is of pipeline stage %d, rank %d is on stage %d", pin.Param, ps, *pin.Rank, st)
		}
		return resolveParam(names, pin.Param)
	}
	if st < 0 {
		return resolveParam(names, pin.Param)
	}
	var own, bases []string
	for _, n := range names {
		if s, base, ok := model.SplitStageName(n); ok && s == st {
			own, bases = append(own, n), append(bases, base)
		}
	}
	base, err := resolveParam(bases, pin.Param)
	if err != nil {
		return "", fmt.Errorf("%v on pipeline stage %d (rank %d)", err, st, *pin.Rank)
	}
	for i, b := range bases {
		if b == base {
			return own[i], nil
		}
	}
	return "", fmt.Errorf("parameter %q matches no parameter of pipeline stage %d", pin.Param, st)
}
