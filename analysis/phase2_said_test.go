package analysis

import (
	"spikescope/model"
	"spikescope/words"
)

// phase2Said is Phase2 with its texts said from its reasons, as the
// pipeline says them (words.Default): what a test of the texts reads.
func phase2Said(p1, baseline *model.Phase1Result, pin *model.Coord, opt Phase2Options) (*model.Phase2Result, error) {
	res, err := Phase2(p1, baseline, pin, opt)
	if err == nil {
		words.Phase2(res, words.Default)
	}
	return res, err
}
