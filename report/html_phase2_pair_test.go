package report

import (
	"strings"
	"testing"

	"spikescope/model"
)

// The Phase 2 plot's pair: the earliest qualifying, else the first judged
// (a pair without data at its next step has nothing to plot), else the
// first.
func TestJudgedPairSkipsUnjudged(t *testing.T) {
	for _, c := range []struct {
		name  string
		pairs []model.CrossStepPair
		from  int
	}{
		{"first judged", []model.CrossStepPair{{From: 2}, {From: 5, Judged: true}, {From: 7, Judged: true}}, 5},
		{"qualifying wins", []model.CrossStepPair{{From: 2, Judged: true}, {From: 9, Judged: true, Qualifies: true}, {From: 4, Judged: true, Qualifies: true}}, 4},
		{"none judged", []model.CrossStepPair{{From: 3}, {From: 6}}, 3},
	} {
		p := judgedPair(&model.Phase2Result{CrossStep: c.pairs})
		if p == nil || p.From != c.from {
			t.Errorf("%s: %+v, want the pair from %d", c.name, p, c.from)
		}
	}
	if judgedPair(&model.Phase2Result{}) != nil {
		t.Error("no pairs: a pair")
	}
}

// The cross-step table says a pair was not judged (the judged key) rather
// than "no clear transition"; a saved result without the key keeps its
// judged pairs as they were.
func TestCrossStepTableSaysNotJudged(t *testing.T) {
	in := fullInput()
	p2 := *in.P2
	name := p2.CrossStep[0].TargetName
	p2.CrossStep = []model.CrossStepPair{
		{From: 1, To: 2, TargetName: name, Threshold: 2, RanksTotal: 2, MinCommonRanks: 3},
		{From: 2, To: 3, TargetName: name, Threshold: 2, MinCommonRanks: 3},
		{From: 3, To: 4, TargetName: name, Threshold: 2, RanksOver: 1, RanksTotal: 3, Share: 1.0 / 3}, // saved before the key
	}
	in.P2 = &p2
	out := Render(in, "en")
	for _, want := range []string{
		"| optimizer step 1 → 2 (`" + name + "`) | 2.0x | 0/2 (0%) | not judged: 2 ranks with a finite final norm at both steps (needs 3) |",
		"| 0/0 (0%) | not judged (the reasoning says why) |",
		"| 1/3 (33%) | no clear transition |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}
