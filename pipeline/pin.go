package pipeline

import "spikescope/model"

// WithPinnedAnomaly is WithPin at the coordinate of candidate a (its
// optimizer step, or step on step-level data, micro step, rank and
// parameter); a == nil unpins.
func (s *Session) WithPinnedAnomaly(a *model.Anomaly) (*Session, error) {
	return s.WithPin(a.Coord())
}
