package pipeline

import (
	"spikescope/ingest"
	"spikescope/model"
)

// FromResultFiles is FromResults on saved results of detect, select and
// trace (any path may be empty; ingest.ReadResult refuses another phase's
// result).
func FromResultFiles(phase1, phase1B, phase2, phase3 string) (*Session, error) {
	var p1s [2]*model.Phase1Result
	for i, path := range []string{phase1, phase1B} {
		if path != "" {
			var err error
			if p1s[i], err = ingest.ReadPhase1(path); err != nil {
				return nil, err
			}
		}
	}
	var p2 *model.Phase2Result
	var p3 *model.Phase3Result
	if phase2 != "" {
		if err := ingest.ReadResult(phase2, "Phase 2 JSON", &p2); err != nil {
			return nil, err
		}
	}
	if phase3 != "" {
		if err := ingest.ReadResult(phase3, "Phase 3 JSON", &p3); err != nil {
			return nil, err
		}
	}
	p2.Restage(p1s[0])
	return FromResults(Inputs{}, p1s[0], p1s[1], p2, p3), nil
}
