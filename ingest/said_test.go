package ingest

import (
	"spikescope/model"
	"spikescope/words"
)

// said is the English of a reader's warnings, as the outputs say them.
func said(rs []model.Reason) []string { return words.All(rs, words.English) }
