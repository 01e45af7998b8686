package pipeline

import (
	"context"
	"path/filepath"
	"spikescope/words"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// rebasedRun writes a synthetic run monitored from training step 100: its
// trend.db steps are re-based to 0 (as data2db does) while the dump folders
// keep the training steps (step104, step105).
func rebasedRun(t *testing.T) (Inputs, synth.Truth) {
	t.Helper()
	run := synth.Generate(synth.RebasedConfig())
	p, err := run.WriteDevices(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return Inputs{Path: p.TrendDB, Baseline: p.BaselineTrendDB, DumpA: p.Dumps, DumpB: p.BaselineDumps}, run.Truth()
}

// The trend.db counts optimizer steps from 0, the dumps from 100: A is
// found at dump step 105 by its gradient norms and Phase 3 runs.
func TestStepOffsetMapsRebasedTrendDB(t *testing.T) {
	in, tr := rebasedRun(t)
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	root := s.P2.RootCauseCoordinate
	if root == nil || root.OptimizerStep == nil || *root.OptimizerStep != tr.FaultOptStep-100 || root.Rank != tr.FaultRank {
		t.Fatalf("root = %+v, want re-based optimizer step %d rank %d", root, tr.FaultOptStep-100, tr.FaultRank)
	}
	if s.StepOffset == nil || *s.StepOffset != 100 {
		t.Fatalf("StepOffset = %v, want 100", deref(s.StepOffset))
	}
	if s.A == nil || s.A.Step != 105 || s.A.Rank != tr.FaultRank {
		t.Fatalf("A = %+v, want step 105 rank %d", s.A, tr.FaultRank)
	}
	if s.B == nil || s.B.Step != 105 {
		t.Fatalf("B = %+v, want step 105", s.B)
	}
	if s.C == nil || s.C.Step != 105 || s.C.Rank != 5 || s.D == nil {
		t.Errorf("C = %+v D = %v, want step 105 rank 5 with D", s.C, s.D != nil)
	}
	if s.P3 == nil {
		t.Fatal("Phase 3 did not run")
	}
	ds := s.P3.DivergenceSummary
	if ds.EarliestFwdDivergence == nil || *ds.EarliestFwdDivergence != tr.ExpectedFwdLayer {
		t.Errorf("earliest forward divergence %v, want L%d", deref(ds.EarliestFwdDivergence), tr.ExpectedFwdLayer)
	}
	if ds.Drilldown == nil || ds.Drilldown.Operator != tr.PlantedOperator {
		t.Errorf("drill-down %+v, want %s", ds.Drilldown, tr.PlantedOperator)
	}
	// Both dumped steps of rank 3 (104 and 105) agree on every parameter.
	want := "dump step 104 = optimizer step 4 (gradient norms agree on 39 of 39 parameters); dump step 105 = optimizer step 5"
	if len(s.Notes) != 1 || !strings.Contains(words.Say(s.Notes[0], words.English), want) {
		t.Errorf("notes = %q, want one containing %q", s.Notes, want)
	}
	if len(s.P3.Warnings) == 0 || s.P3.Warnings[0] != words.Say(s.Notes[0], words.English) {
		t.Errorf("Phase 3 warnings %q do not carry the note", s.P3.Warnings)
	}
	if len(s.Missing) != 0 {
		t.Errorf("missing = %+v", s.Missing)
	}
}

// Dumps whose gradient norms match no optimizer step keep today's answer:
// no A, and the missing note names the dump steps.
func TestStepOffsetPerturbedDumpKeepsMissing(t *testing.T) {
	in, _ := rebasedRun(t)
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range s.ATree.Dumps {
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Direction != model.ParamGrad {
				continue
			}
			for j := range op.Params {
				op.Params[j].Stat[model.StatNorm] *= 1.05
			}
		}
	}
	if err := s.Analyse(); err != nil {
		t.Fatal(err)
	}
	if s.StepOffset != nil || s.A != nil || s.P3 != nil || len(s.Notes) != 0 {
		t.Fatalf("StepOffset %v A %v P3 %v notes %q: want none", deref(s.StepOffset), s.A, s.P3 != nil, s.Notes)
	}
	found := false
	for _, m := range s.Missing {
		if m.What == "dump A at the root-cause coordinate" && strings.Contains(m.Next, "no dump at step 5 on rank 3 (steps 104, 105)") {
			found = true
		}
	}
	if !found {
		t.Errorf("missing = %+v", s.Missing)
	}
}

// A single dump given as A, found by value to be the root's optimizer step,
// needs no confirmation of the step correspondence.
func TestStepOffsetConfirmsSingleDump(t *testing.T) {
	in, _ := rebasedRun(t)
	in.DumpA = filepath.Join(in.DumpA, "step105", "rank3")
	in.DumpB = filepath.Join(in.DumpB, "step105", "rank3")
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s.StepOffset == nil || *s.StepOffset != 100 || s.A == nil || s.A.Step != 105 || s.P3 == nil {
		t.Fatalf("StepOffset %v A %+v P3 %v", deref(s.StepOffset), s.A, s.P3 != nil)
	}
	for _, m := range s.Missing {
		if strings.HasPrefix(m.What, "confirmation") {
			t.Errorf("asks for confirmation although the norms agree: %+v", m)
		}
	}
}

// The offset found on another dumped step says which dump step to collect
// when the root's own step was not dumped.
func TestStepOffsetNamesTheDumpStepToCollect(t *testing.T) {
	in, _ := rebasedRun(t)
	s, err := Load(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	var kept []*model.Dump
	for _, d := range s.ATree.Dumps {
		if d.Step != 105 || d.Rank != 3 {
			kept = append(kept, d)
		}
	}
	s.ATree = &model.DumpTree{Path: s.ATree.Path, Dumps: kept}
	if err := s.Analyse(); err != nil {
		t.Fatal(err)
	}
	if s.StepOffset == nil || *s.StepOffset != 100 || s.A != nil || s.P3 != nil {
		t.Fatalf("StepOffset %v A %v P3 %v", deref(s.StepOffset), s.A, s.P3 != nil)
	}
	if len(s.Missing) != 1 || !strings.Contains(s.Missing[0].Next, "no dump at step 105 on rank 3 (optimizer step 5, dump steps = optimizer steps +100 by gradient norms; steps 104, 105)") {
		t.Errorf("missing = %+v", s.Missing)
	}
}
