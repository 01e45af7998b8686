package pipeline

import (
	"spikescope/analysis"
	"spikescope/model"
)

// WithPinnedAnomaly is WithPin at the coordinate of candidate a (its
// optimizer step, or step on step-level data, micro step, rank and
// parameter); a == nil unpins.
func (s *Session) WithPinnedAnomaly(a *model.Anomaly) (*Session, error) {
	return s.WithPin(pinOf(a))
}

// pinOf is the pin at a candidate's coordinate, nil for nil.
func pinOf(a *model.Anomaly) *analysis.Pin {
	if a == nil {
		return nil
	}
	rank := a.Rank
	pin := &analysis.Pin{Rank: &rank, Param: a.TargetName}
	if a.OptimizerStep != nil {
		pin.OptStep = model.IntPtr(*a.OptimizerStep)
	} else {
		pin.Step = model.IntPtr(a.Step)
	}
	if a.MicroStep != nil {
		pin.MicroStep = model.IntPtr(*a.MicroStep)
	}
	return pin
}
