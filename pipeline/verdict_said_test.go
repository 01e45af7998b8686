package pipeline

import (
	"testing"

	"spikescope/analysis"
)

// words.Phase2 is said where Phase 2 finishes (phase2, its one caller),
// before any verdict exists: analysis.Phase2 returns no verdict, and the
// verdict, judged later, copies the root coordinate with its
// parameter_note already said. So words.Phase2 has no verdict coordinate
// to say.
func TestPhase2SaidBeforeTheVerdict(t *testing.T) {
	for name, s := range phase2Runs(t) {
		res, err := analysis.Phase2(s.P1, s.P1Baseline, nil, analysis.DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != nil {
			t.Errorf("%s: analysis.Phase2 returned a verdict", name)
		}
		root, v := s.P2.RootCauseCoordinate, s.Verdict
		if root == nil || v == nil || v.Coordinate == nil {
			t.Fatalf("%s: no root coordinate or verdict coordinate", name)
		}
		if v.Coordinate.ParameterNote != root.ParameterNote {
			t.Errorf("%s: the verdict's parameter_note %q, the root coordinate's %q", name, v.Coordinate.ParameterNote, root.ParameterNote)
		}
	}
}
