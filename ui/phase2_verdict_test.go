package ui

import (
	"testing"

	"spikescope/model"
)

// pairVerdict reads the pair's judged field, not the verdict's words: a
// reworded verdict of an unjudged pair still says "not judged", and a
// judged pair stays judged whatever its sentence says.
func TestPairVerdictReadsJudged(t *testing.T) {
	root := 4
	r := &model.Phase2Result{RootOptStep: &root}
	cases := []struct {
		c    model.CrossStepPair
		want string
	}{
		{model.CrossStepPair{From: 2, To: 3, RanksTotal: 2, Verdict: "only 2 ranks at both steps (needs 3)", MinCommonRanks: 3}, "not judged (2 of 3 ranks)"},
		{model.CrossStepPair{From: 2, To: 3, Verdict: "no data at optimizer step 3"}, "not judged (0 ranks)"},
		{model.CrossStepPair{From: 4, To: 5, RanksOver: 2, RanksTotal: 2, Qualifies: true, Judged: true, MinCommonRanks: 2, Verdict: "root cause in optimizer step 4"}, "root: step 4"},
		{model.CrossStepPair{From: 5, To: 6, RanksOver: 0, RanksTotal: 2, Judged: true, MinCommonRanks: 2, Verdict: "no clear turning point (not compared with the baseline)"}, "no turning point"},
	}
	for _, c := range cases {
		if got := pairVerdict(r, c.c); got != c.want {
			t.Errorf("%+v: %q, want %q", c.c, got, c.want)
		}
	}
}
