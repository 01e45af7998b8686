package pipeline

import (
	"context"
	"strings"

	"spikescope/ingest"
	"spikescope/model"
	"spikescope/words"
)

// GroupNames are the four Phase 3 groups' flag suffixes, in A, B, C, D order.
var GroupNames = [4]string{"a", "b", "c", "d"}

// Trace loads the inputs and returns the Phase 3 result that the trace
// subcommand prints: the groups the TUI and report compare on the same
// inputs, with each tree's warnings prefixed by its group and the control
// candidates the choice of C considered.
func Trace(ctx context.Context, in Inputs) (*model.Phase3Result, error) {
	if in.Phase1File != "" {
		p1, err := ingest.ReadPhase1(in.Phase1File)
		if err != nil {
			return nil, err
		}
		in.Phase1 = p1
	}
	s, err := Load(ctx, in, nil)
	if err != nil {
		return nil, err
	}
	trees := [4]*model.DumpTree{s.ATree, s.BTree, s.CTree, s.DTree}
	var warnings []string
	for g, t := range trees {
		if t == nil {
			continue
		}
		if len(t.Dumps) == 0 {
			return nil, &ingest.InputError{Path: t.Path, Problem: "no dump.json found"}
		}
		warnings = append(warnings, prefixAll(strings.ToUpper(GroupNames[g])+": ", t.Warnings)...)
	}
	if err := s.Phase3Problem(); err != nil {
		return nil, err
	}
	if (in.StepA == nil || in.RankA == nil) && len(s.ATree.Dumps) > 1 {
		warnings = append(warnings, words.Say(model.P3RootDump{Step: s.A.Step, Rank: s.A.Rank}, in.Lang))
	}
	res := s.P3
	if len(res.ControlCandidates) == 0 { // trace's JSON lists what the choice of C considered
		res.ControlCandidates = s.Control.Candidates
	}
	res.Warnings = append(warnings, res.Warnings...)
	return res, nil
}

// OpsForLayer lists the operators of one layer and pass of Phase 3's A
// against the drill-down band (analysis.Tracer.OpsForLayer) with why each
// unaligned one is not compared; nil when Phase 3 did not run.
func (s *Session) OpsForLayer(anchor string, layer int, dir string) []model.DrillOp {
	if s.Tracer == nil {
		return nil
	}
	ops := s.Tracer.OpsForLayer(anchor, layer, dir)
	words.Phase3Ops(ops, s.In.Lang)
	return ops
}

func prefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}
