package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"spikescope/model"
)

// Every cross-step row says, as fields, whether the rule was applied and
// how many common ranks it needed; readers no longer parse the verdict.
func TestCrossStepJudgedField(t *testing.T) {
	pair := func(summaryRanks []int, prev, next map[string]model.Float) model.CrossStepPair {
		t.Helper()
		p1 := &model.Phase1Result{DataKind: "micro_step", Summary: model.Phase1Summary{Ranks: summaryRanks},
			Anomalies:       []model.Anomaly{microAnomaly(0, 1, 2, fc1, 5, 4, 6, 4)},
			TargetRankNorms: map[string]model.TargetRankNorms{"1": {TargetName: fc1, Ranks: prev, NextStep: model.IntPtr(2), NextRanks: next}}}
		p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
		if err != nil || len(p2.CrossStep) != 1 {
			t.Fatalf("phase 2 = %s (%v)", jsn(p2), err)
		}
		return p2.CrossStep[0]
	}
	cases := []struct {
		name         string
		ranks        []int
		prev, next   map[string]model.Float
		judged       bool
		min, over    int
		qualifies    bool
		verdictWords string
	}{
		// 4-rank run, 2 ranks at both steps: below the thresholds' 3
		{"4 ranks, 2 common", []int{0, 1, 2, 3}, ranks(6, 1), ranks(60, 10), false, 3, 2, false, "not judged"},
		// a 2-rank run needs its 2 ranks only, and both grew 10×
		{"2-rank run", []int{0, 1}, ranks(6, 1), ranks(60, 10), true, 2, 2, true, "root cause"},
		// a 1-rank run: its single rank decides
		{"1-rank run", []int{0}, ranks(6), ranks(60), true, 1, 1, true, "root cause"},
		{"3 common", []int{0, 1, 2}, ranks(6, 1, 1), ranks(60, 1, 1), true, 3, 1, false, "no clear turning point"},
	}
	for _, c := range cases {
		got := pair(c.ranks, c.prev, c.next)
		if got.Judged != c.judged || got.MinCommonRanks != c.min || got.RanksOver != c.over || got.Qualifies != c.qualifies || !strings.Contains(got.Verdict, c.verdictWords) {
			t.Errorf("%s: %s", c.name, jsn(got))
		}
	}
	// no data at the next step: not judged, with the requirement it would have had
	p1 := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{microAnomaly(0, 1, 2, fc1, 5, 4, 6, 4)},
		TargetRankNorms: map[string]model.TargetRankNorms{"1": {TargetName: fc1, Ranks: ranks(6, 1, 1)}}}
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if r := p2.CrossStep[0]; r.Judged || r.MinCommonRanks != 3 {
		t.Errorf("no next step: %s", jsn(r))
	}
	// the keys are in the JSON, also when false
	b, _ := json.Marshal(p2.CrossStep[0])
	if !strings.Contains(string(b), `"judged":false`) || !strings.Contains(string(b), `"min_common_ranks":3`) {
		t.Errorf("JSON %s", b)
	}
}

// judgePair is a plain function of the pair and the root chosen so far:
// the first qualifying pair is the root, a later qualifying pair names
// the earlier root, a pair with too few common ranks is not judged; what
// it says comes back with the row.
func TestJudgePairReturnsItsVerdict(t *testing.T) {
	opt := DefaultPhase2Options()
	none := [2]map[string]model.Float{}
	row, s := judgePair(3, 4, fc1, ranks(1, 1, 1), ranks(10, 10, 1), nil, none, opt, 3, nil)
	if v, _ := row.VerdictReason.(model.P2PairVerdict); !row.Qualifies || v.Outcome != model.P2PairRoot || v.Step != 3 ||
		len(s.reasons) != 1 || len(s.decisions) != 1 {
		t.Errorf("first qualifying pair: %s, said %d/%d", jsn(row), len(s.reasons), len(s.decisions))
	}
	row, _ = judgePair(3, 4, fc1, ranks(1, 1, 1), ranks(10, 10, 1), nil, none, opt, 3, model.IntPtr(1))
	if v, _ := row.VerdictReason.(model.P2PairVerdict); !row.Qualifies || v.Outcome != model.P2PairLater || v.Step != 1 {
		t.Errorf("a later qualifying pair: %s", jsn(row))
	}
	row, _ = judgePair(3, 4, fc1, ranks(1, 1, 1), ranks(10, 1, 1), nil, none, opt, 3, nil)
	if v, _ := row.VerdictReason.(model.P2PairVerdict); row.Qualifies || !row.Judged || v.Outcome != model.P2PairNone {
		t.Errorf("1 of 3 ranks grew: %s", jsn(row))
	}
	row, s = judgePair(3, 4, fc1, ranks(1, 1), ranks(10, 10), nil, none, opt, 3, nil)
	if _, ok := s.decisions[len(s.decisions)-1].(model.P2PairUnjudged); row.Judged || row.Qualifies || !ok {
		t.Errorf("2 common ranks of 3 needed: %s", jsn(row))
	}
}
