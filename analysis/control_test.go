package analysis

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// tTree builds a dump tree of steps × ranks; gradScale scales the
// parameter gradients of (step, rank).
func tTree(steps, ranks int, gradScale func(step, rank int) float64) *model.DumpTree {
	t := &model.DumpTree{Path: "tree"}
	for s := 0; s < steps; s++ {
		for r := 0; r < ranks; r++ {
			d := buildDump(fmt.Sprintf("tree/step%d/rank%d", s, r), tSpec{Layers: 2, Step: s, Rank: r})
			g := gradScale(s, r)
			for i := range d.Ops {
				for j := range d.Ops[i].Params {
					d.Ops[i].Params[j].Stat[model.StatNorm] *= g
				}
			}
			t.Dumps = append(t.Dumps, d)
		}
	}
	return t
}

func TestChooseControl(t *testing.T) {
	// step 0, ranks 0..7: rank 0 spikes (A), rank 1 is a Phase 1 anomaly,
	// rank 2 has gradients above P75, rank 3 qualifies.
	scale := func(step, rank int) float64 {
		switch {
		case step == 0 && rank == 0:
			return 50
		case step == 0 && rank == 2:
			return 20
		}
		return 1 + 0.01*float64(rank)
	}
	aTree := tTree(1, 8, scale)
	bTree := tTree(1, 8, func(int, int) float64 { return 1 })
	p1 := &model.Phase1Result{Anomalies: []model.Anomaly{{Rank: 1, Step: 0}, {Rank: 0, Step: 0}}}
	a := aTree.Find(0, 0)
	ch := chooseControlT(aTree, a, bTree, p1)
	if ch.C == nil || ch.C.Rank != 3 || ch.D != bTree.Find(0, 3) {
		t.Fatalf("choice %+v", ch)
	}
	byRank := map[int]ControlCandidate{}
	for _, c := range ch.Candidates {
		byRank[c.Rank] = c
	}
	if byRank[1].Accepted || !strings.Contains(byRank[1].Reason, "Phase 1") {
		t.Errorf("rank1 %+v", byRank[1])
	}
	if byRank[2].Accepted || !strings.Contains(byRank[2].Reason, "P75") {
		t.Errorf("rank2 %+v", byRank[2])
	}
	if !byRank[3].Accepted || !strings.Contains(ch.Reason, "C = step 0 rank 3") {
		t.Errorf("rank3 %+v / %s", byRank[3], ch.Reason)
	}

	// Every candidate spikes: no C, with the reason.
	p1all := &model.Phase1Result{Anomalies: []model.Anomaly{{Rank: 1}, {Rank: 2}, {Rank: 3}, {Rank: 4}, {Rank: 5}, {Rank: 6}, {Rank: 7}}}
	ch = chooseControlT(aTree, a, bTree, p1all)
	if ch.C != nil || !strings.Contains(ch.Reason, "every candidate spikes") {
		t.Fatalf("all spike: %+v", ch)
	}

	// No parameters_grad anywhere: "normal" undecidable.
	for _, d := range aTree.Dumps {
		synth.DropOps(d, func(op *model.Op) bool { return op.Direction == model.ParamGrad })
	}
	ch = chooseControlT(aTree, a, bTree, nil)
	if ch.C != nil || !strings.Contains(ch.Reason, "cannot be decided") {
		t.Fatalf("undecidable: %+v", ch)
	}

	// Alone in its tree.
	solo := tTree(1, 1, func(int, int) float64 { return 1 })
	if ch = chooseControlT(solo, solo.Dumps[0], nil, nil); ch.C != nil || !strings.Contains(ch.Reason, "no other rank") {
		t.Fatalf("solo: %+v", ch)
	}
}

// Under pipeline parallelism a nearer rank holding other layers loses to a
// rank holding A's layers; other steps of A's rank come after A's step.
func TestChooseControlPrefersSameLayers(t *testing.T) {
	aTree := tTree(2, 3, func(step, rank int) float64 {
		if step == 1 && rank == 0 {
			return 30
		}
		return 1
	})
	// rank 1 of step 1 holds other layers (another pipeline stage).
	d := aTree.Find(1, 1)
	for i := range d.Ops {
		d.Ops[i].ModulePath = strings.Replace(d.Ops[i].ModulePath, "decoder.layers", "decoder.stage2.layers", 1)
	}
	ch := chooseControlT(aTree, aTree.Find(1, 0), nil, nil)
	if ch.C == nil || ch.C.Step != 1 || ch.C.Rank != 2 {
		t.Fatalf("choice %+v", ch)
	}
	if ch.D != nil || !strings.Contains(ch.Reason, "D missing") {
		t.Errorf("no baseline tree: %s", ch.Reason)
	}
	// candidate order: same step (ranks 1, 2), then same rank (step 0)
	if len(ch.Candidates) != 3 || ch.Candidates[2].Step != 0 || ch.Candidates[2].Rank != 0 {
		t.Errorf("candidates %+v", ch.Candidates)
	}
}

// A separate tree of normal samples (A not part of it): every dump is a
// candidate, nearest step first; A loaded twice (same folder) is skipped.
func TestChooseControlSeparateTree(t *testing.T) {
	cTree := tTree(3, 2, func(step, rank int) float64 { return 1 + 0.01*float64(step+rank) })
	a := buildDump("a/step1/rank0", tSpec{Layers: 2, Step: 1, Rank: 0})
	ch := chooseControlT(cTree, a, nil, nil)
	// the same coordinate in another run is a legitimate (the nearest) candidate
	if ch.C == nil || ch.C.Step != 1 || ch.C.Rank != 0 || len(ch.Candidates) != 6 {
		t.Fatalf("choice %+v", ch)
	}
	order := ""
	for _, c := range ch.Candidates {
		order += fmt.Sprintf("%d/%d ", c.Step, c.Rank)
	}
	if order != "1/0 1/1 0/0 2/0 0/1 2/1 " { // same step, same rank, then the rest by step distance
		t.Errorf("order %s", order)
	}
	a.Path = "tree/step1/rank1/"
	ch = chooseControlT(cTree, a, nil, nil)
	for _, c := range ch.Candidates {
		if c.Step == 1 && c.Rank == 1 {
			t.Fatalf("A itself is a candidate: %+v", ch.Candidates)
		}
	}
	if len(ch.Candidates) != 5 {
		t.Errorf("candidates %+v", ch.Candidates)
	}
}

// A single-step dump's Phase 1 list ranks the largest gradient norms of
// every rank (trigger dump_abs_norm): healthy ranks on it stay candidates
// for C, judged by the P75 rule; listed verdicts still exclude.
func TestChooseControlDumpRankingIsNoVerdict(t *testing.T) {
	aTree := tTree(1, 4, func(step, rank int) float64 {
		if rank == 0 {
			return 50
		}
		return 1 + 0.01*float64(rank)
	})
	bTree := tTree(1, 4, func(int, int) float64 { return 1 })
	var ranking []model.Anomaly
	for r := 0; r < 4; r++ {
		ranking = append(ranking, model.Anomaly{Rank: r, Step: 0, Trigger: "dump_abs_norm"})
	}
	a := aTree.Find(0, 0)
	ch := chooseControlT(aTree, a, bTree, &model.Phase1Result{Anomalies: ranking})
	if ch.C == nil || ch.C.Rank != 1 {
		t.Fatalf("ranking taken as verdicts: %+v", ch)
	}
	ranking[1].Trigger = "iqr"
	ch = chooseControlT(aTree, a, bTree, &model.Phase1Result{Anomalies: ranking})
	if ch.C == nil || ch.C.Rank == 1 {
		t.Fatalf("a step-level verdict on rank 1 must exclude it: %+v", ch)
	}
}
