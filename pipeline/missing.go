package pipeline

import (
	"spikescope/analysis"
	"spikescope/model"
	"spikescope/words"
)

// missing lists what data the analysis lacked and what to collect next, in
// the order of the phases, in English and Chinese (words.Missing).
func (s *Session) missing() []model.Missing {
	out := s.missingReasons()
	words.Missing(out)
	return out
}

// missingReasons is missing's entries as reasons.
func (s *Session) missingReasons() []model.Missing {
	var out []model.Missing
	add := func(kind string, next model.Reason) {
		out = append(out, model.Missing{WhatReason: model.MissingWhat{Kind: kind}, NextReason: next})
	}
	if s.P1 == nil {
		add(model.MissingMonitor, model.NextMonitor{})
		return out
	}
	if s.P1Baseline == nil {
		add(model.MissingBaselineMonitor, model.NextBaselineMonitor{})
	}
	if s.P2 == nil { // saved results without Phase 2
		add(model.MissingPhase2, model.NextPhase2{})
		return out
	}
	step, rank, ok := s.rootStepRank()
	if !ok && len(s.P1.Anomalies) == 0 && s.In.Pin == nil {
		// No anomaly is a conclusion, not missing data: nothing to trace.
		return out
	}
	if !ok && s.A == nil && s.P3 == nil {
		add(model.MissingCoordinate, model.NextPin{})
		return out
	}
	switch {
	case s.P3 != nil && s.A == nil:
		// Results read from JSON: only the control group can be judged.
		if s.P3.Degraded {
			s.addControl(&out, step, rank)
		}
		return out
	case s.ATree == nil:
		next := model.NextDumpsAB{Step: step, Rank: rank, TrendDB: s.Monitor != nil && s.Monitor.Format == model.FormatTrendDB}
		next.Stage, next.Stages, next.StageRanks, next.More = stageControlRanks(s.P1, rank)
		add(model.MissingDumps, next)
		return out
	case s.A == nil && s.StepOffset != nil:
		add(model.MissingDumpA, model.NextDumpAOffset{Path: s.ATree.Path, DumpStep: step + *s.StepOffset, Rank: rank, OptStep: step, Offset: *s.StepOffset, Steps: s.ATree.Steps()})
		return out
	case s.A == nil:
		add(model.MissingDumpA, model.NextDumpA{Path: s.ATree.Path, Step: step, Rank: rank, Steps: s.ATree.Steps()})
		return out
	}
	dstep := step // the root step in dump steps
	if s.StepOffset != nil {
		dstep += *s.StepOffset
	}
	if ok && (s.In.StepA == nil || s.In.RankA == nil) && (s.A.Step >= 0 && s.A.Step != dstep || s.A.Rank != rank) {
		// A single dump given as A that is not at the root coordinate: the
		// step correspondence is unclear, the user must confirm (seed 用户交互).
		add(model.MissingConfirmA, model.NextConfirmA{AStep: s.A.Step, ARank: s.A.Rank, Step: step, Rank: rank})
	}
	if s.B == nil && s.ComparedWithC {
		add(model.MissingDumpBWithC, model.NextDumpBWithC{Step: s.A.Step, Rank: s.A.Rank})
		return out
	}
	if s.B == nil {
		add(model.MissingDumpB, model.NextDumpB{Step: s.A.Step, Rank: s.A.Rank})
	}
	if s.C == nil || s.D == nil {
		s.addControl(&out, s.A.Step, s.A.Rank)
	}
	return out
}

// addControl adds the missing control group (or its D) with where to dump it.
func (s *Session) addControl(out *[]model.Missing, step, rank int) {
	if s.C != nil {
		*out = append(*out, model.Missing{WhatReason: model.MissingWhat{Kind: model.MissingControlD},
			NextReason: model.NextControlD{Step: s.C.Step, Rank: s.C.Rank}})
		return
	}
	opt := step // step is a dump step: the Phase 1 candidates count optimizer steps
	if s.StepOffset != nil {
		opt -= *s.StepOffset
	}
	*out = append(*out, model.Missing{WhatReason: model.MissingWhat{Kind: model.MissingControl, Why: s.Control.Why, WhyText: s.Control.Reason},
		NextReason: model.NextControl{Step: step, ControlRank: analysis.SuggestControlRank(s.P1, opt, rank)}})
}

// FromResults is a session made of saved results (`report --phase1 …`):
// no data is loaded; Missing says what the results lack.
func FromResults(in Inputs, p1, p1Baseline *model.Phase1Result, p2 *model.Phase2Result, p3 *model.Phase3Result) *Session {
	s := &Session{In: in, P1: p1, P1Baseline: p1Baseline, P2: p2, P3: p3}
	if p3 != nil {
		s.Control.Reason = p3.ControlChoice
		if p3.Conclusion == nil {
			p3.Conclusion = analysis.ConcludePhase3(p3)
		}
	}
	s.judge()
	s.Missing = s.missing()
	return s
}
