package pipeline

import (
	"spikescope/model"
	"spikescope/words"
)

// phase2Said says a Phase 2 result's texts from its reasons, as the
// pipeline does (words.Default): analysis.Phase2 keeps reasons only.
func phase2Said(res *model.Phase2Result, err error) (*model.Phase2Result, error) {
	if err == nil {
		words.Phase2(res, words.Default)
	}
	return res, err
}
