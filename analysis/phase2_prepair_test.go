package analysis

import (
	"strings"
	"testing"

	"spikescope/model"
)

// prePairRun is a micro-step run of 5 ranks with a window of 4: step 2 has
// no candidate, step 3 has the given candidates of fc1 (rank → micro
// steps), and the final norms of fc1 at steps 2, 3 and 4 (step 3 → 4 does
// not grow, so only the pre-pair 2 → 3 can decide).
func prePairRun(cands map[int][]int, prev, cur []float64) *model.Phase1Result {
	p1 := &model.Phase1Result{DataKind: kindMicro,
		Sharding: model.ShardingAnalysis{HasMicroStep: true, AccumulationWindow: 4},
		Summary:  model.Phase1Summary{Ranks: []int{0, 1, 2, 3, 4}},
		TargetRankNorms: map[string]model.TargetRankNorms{
			"3": {TargetName: fc1, Ranks: ranks(cur...), PrevStep: model.IntPtr(2), PrevRanks: ranks(prev...),
				NextStep: model.IntPtr(4), NextRanks: ranks(cur...)},
		}}
	for r := 0; r < 5; r++ {
		for _, ms := range cands[r] {
			p1.Anomalies = append(p1.Anomalies, microAnomaly(r, 3, ms, fc1, cur[r], cur[r]/4+float64(r), cur[r], 6+float64(r)))
		}
	}
	return p1
}

// every rank but rank 4 grows ≥ 2× from step 2 to step 3; rank 2 has the
// largest final norm at step 2 (the weak fault).
var (
	prePrev = []float64{1, 1.1, 1.8, 0.9, 1}
	preCur  = []float64{5, 6, 8, 4.5, 1.2}
)

func allMicro(ranks []int, ms ...int) map[int][]int {
	m := map[int][]int{}
	for _, r := range ranks {
		m[r] = ms
	}
	return m
}

// (1) A weak fault at step 2 (no candidate) polluted the weights: step 3
// is elevated at every micro step on the grown ranks → root 2, at the rank
// with the largest final norm at step 2, micro step unknown.
func TestPrePairPollutionMovesRootBack(t *testing.T) {
	p1 := prePairRun(allMicro([]int{0, 1, 2, 3}, 0, 1, 2, 3), prePrev, preCur)
	for _, base := range []*model.Phase1Result{nil, p1} {
		p2, err := phase2Said(p1, base, nil, DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		co := p2.RootCauseCoordinate
		if pv(p2.RootOptStep) != 2 || co == nil || co.Rank != 2 || co.MicroStep != nil || pv(co.OptimizerStep) != 2 ||
			co.TargetName != fc1 || float64(co.Norm) != 1.8 || len(p2.Candidates) != 0 {
			t.Fatalf("phase 2 = %s", jsn(p2))
		}
		row := p2.CrossStep[0]
		if row.From != 2 || row.To != 3 || !row.Qualifies || row.RanksOver != 4 || row.RanksTotal != 5 || p2.CrossStep[1].Qualifies {
			t.Fatalf("cross step = %s", jsn(p2.CrossStep))
		}
		if !strings.Contains(p2.Reasoning, "micro step 未知") || !strings.Contains(strings.Join(p2.Decisions, "\n"), "micro step unknown") {
			t.Fatalf("reasoning = %q decisions = %q", p2.Reasoning, p2.Decisions)
		}
	}
	// the explosion keeps growing: the ordinary pair 3 → 4 qualifies, the
	// pre-pair still moves the root to 2 and 3 → 4 becomes propagation
	p1 = prePairRun(allMicro([]int{0, 1, 2, 3}, 0, 1, 2, 3), prePrev, preCur)
	e := p1.TargetRankNorms["3"]
	e.NextRanks = ranks(50, 60, 80, 45, 12)
	p1.TargetRankNorms["3"] = e
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 2 || p2.RootCauseCoordinate.Rank != 2 || len(p2.CrossStep) != 2 || p2.CrossStep[0].From != 2 ||
		!p2.CrossStep[1].Qualifies || p2.CrossStep[1].Verdict != "qualifies, but the earlier optimizer step 2 already does" {
		t.Fatalf("growing explosion: %s", jsn(p2))
	}
	// 3 of the 4 grown ranks polluted (75% ≥ 60%) still qualifies; 2 of 4 does not
	c := allMicro([]int{0, 1, 2}, 0, 1, 2, 3)
	c[3] = []int{2}
	if p2, _ := phase2Said(prePairRun(c, prePrev, preCur), nil, nil, DefaultPhase2Options()); pv(p2.RootOptStep) != 2 {
		t.Fatalf("3 of 4 polluted: %s", jsn(p2))
	}
	c[2] = []int{1, 2, 3}
	if p2, _ := phase2Said(prePairRun(c, prePrev, preCur), nil, nil, DefaultPhase2Options()); pv(p2.RootOptStep) != 3 {
		t.Fatalf("2 of 4 polluted: %s", jsn(p2))
	}
	// candidates on exactly half the window (0 and 1 of 4) are not "most"
	if p2, _ := phase2Said(prePairRun(allMicro([]int{0, 1, 2, 3}, 0, 1), prePrev, preCur), nil, nil, DefaultPhase2Options()); pv(p2.RootOptStep) != 3 {
		t.Fatalf("half the window: %s", jsn(p2))
	}
	// a candidate at step 2 itself: the pre-pair is not needed (the
	// ordinary pair 2 → 3 judges it) and is judged once only
	p1 = prePairRun(allMicro([]int{0, 1, 2, 3}, 0, 1, 2, 3), prePrev, preCur)
	p1.Anomalies = append(p1.Anomalies, microAnomaly(2, 2, 1, fc1, 1.8, 1, 1.8, 3))
	p1.TargetRankNorms["2"] = model.TargetRankNorms{TargetName: fc1, Ranks: ranks(prePrev...), NextStep: model.IntPtr(3), NextRanks: ranks(preCur...)}
	p2, _ = phase2Said(p1, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 2 || pv(p2.RootCauseCoordinate.MicroStep) != 1 || len(p2.CrossStep) != 2 || p2.CrossStep[1].From != 3 {
		t.Fatalf("candidate at step 2: %s", jsn(p2))
	}
}

// (2) An in-step fault at micro step 2 of step 3 on every rank (raising
// micro steps 2 and 3): step 2 → 3 grows on most ranks, but the root stays 3.
func TestPrePairInStepFaultLaterMicroStep(t *testing.T) {
	p2, _ := phase2Said(prePairRun(allMicro([]int{0, 1, 2, 3, 4}, 2, 3), prePrev, preCur), nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || p2.RootCauseCoordinate == nil || pv(p2.RootCauseCoordinate.MicroStep) != 2 || len(p2.CrossStep) != 1 || p2.CrossStep[0].From != 3 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	if !strings.Contains(strings.Join(p2.Decisions, "\n"), "an in-step fault of step 3") {
		t.Fatalf("decisions = %q", p2.Decisions)
	}
}

// (3) A fault at micro step 0 of step 3 on every rank, affecting only that
// micro-batch: it starts at 0 but covers 1 of 4 micro steps → root 3.
func TestPrePairInStepFaultMicroStepZero(t *testing.T) {
	p2, _ := phase2Said(prePairRun(allMicro([]int{0, 1, 2, 3, 4}, 0), prePrev, preCur), nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || pv(p2.RootCauseCoordinate.MicroStep) != 0 || pv(p2.RootCauseCoordinate.OptimizerStep) != 3 || len(p2.CrossStep) != 1 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
}

// (4) Step-level data (and a window of one micro step) cannot tell
// pollution from an in-step fault: unchanged, the root stays 3.
func TestPrePairStepLevelUnchanged(t *testing.T) {
	p1 := prePairRun(nil, prePrev, preCur)
	p1.DataKind, p1.Sharding = kindStep, model.ShardingAnalysis{}
	for r := 0; r < 4; r++ {
		p1.Anomalies = append(p1.Anomalies, model.Anomaly{Rank: r, Step: 3, TargetName: fc1, Norm: fl(preCur[r]), DeviationRatio: fl(5 + float64(r)), Trigger: "iqr"})
	}
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	// the coordinate is the largest deviation from its own history (rank 3,
	// 8×), not the largest raw norm (rank 2, 8)
	if pv(p2.RootOptStep) != 3 || p2.RootCauseCoordinate.Rank != 3 || len(p2.CrossStep) != 1 {
		t.Fatalf("step level: %s", jsn(p2))
	}
	p1 = prePairRun(allMicro([]int{0, 1, 2, 3}, 0), prePrev, preCur)
	p1.Sharding.AccumulationWindow = 1
	p2, _ = phase2Said(p1, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || len(p2.CrossStep) != 1 {
		t.Fatalf("window 1: %s", jsn(p2))
	}
}

// End to end through Phase 1: rank 1's micro-batch 2 of step 6 is 1.4× (too
// weak for a candidate), then every micro-batch of every rank explodes at
// step 7 → root 6 at rank 1; the same explosion at micro step 2 of step 7
// only (an in-step fault on every rank) keeps the root at 7.
func TestPrePairEndToEnd(t *testing.T) {
	for _, inStep := range []bool{false, true} {
		res := accumRun{Ranks: 6, Params: 12, Steps: 48, W: 4, Noise: 0.1, Seed: 5, Spike: func(r, p, opt, ms int) float64 {
			switch {
			case opt == 6 && r == 1 && ms == 2 && !inStep:
				return 1.4
			case opt == 7 && (!inStep || ms == 2):
				return 30
			}
			return 1
		}}.build().run(t)
		for _, a := range res.Anomalies {
			if a.OptStep() == 6 {
				t.Fatalf("step 6 has a candidate: %s", jsn(a))
			}
		}
		p2, _ := phase2Said(res, nil, nil, DefaultPhase2Options())
		co := p2.RootCauseCoordinate
		switch {
		case !inStep && (pv(p2.RootOptStep) != 6 || co.Rank != 1 || co.MicroStep != nil):
			t.Fatalf("pollution: %s", jsn(p2))
		case inStep && (pv(p2.RootOptStep) != 7 || pv(co.MicroStep) != 2):
			t.Fatalf("in-step fault: %s", jsn(p2))
		}
	}
}
