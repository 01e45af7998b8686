// Package pipeline is the one analysis pipeline behind the TUI and
// `spikescope report`: load every input, run Phase 1 (and the baseline's
// Phase 1), Phase 2, pick the four dump groups, run Phase 3, and say what
// data was missing and what to collect next. Nothing here renders.
package pipeline

import (
	"spikescope/analysis"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/report"
	"spikescope/words"
)

// Inputs are the paths and options of one analysis.
type Inputs struct {
	Path   string       // monitor trend.db / CSV tree, or a dump tree (Phase 1 then runs on its parameter gradients)
	Format model.Format // "" or auto: detected
	// Baseline is the baseline device's monitor (or dump) path, optional.
	Baseline string
	// DumpA..DumpD are dump folders or step*/rank* trees, optional. Without
	// DumpA a dump tree given as Path is A's tree (and a dump baseline B's).
	DumpA, DumpB, DumpC, DumpD string
	// StepA/RankA pick A inside its tree; default: the Phase 2 root
	// coordinate (dump step = optimizer step, rank).
	StepA, RankA *int
	// AtB, AtC, AtD pick B, C, D inside their trees (trace's --step-b,
	// --rank-c, …); not given: B at A's coordinates, C chosen
	// (analysis.ChooseControl), D at C's.
	AtB, AtC, AtD model.Coord
	// Phase1 is a saved Phase 1 result (trace --phase1) that stands for
	// Phase 1 when no monitor is given; Phase 2 runs on it.
	Phase1 *model.Phase1Result
	// Phase1File is a saved Phase 1 JSON that Trace reads into Phase1.
	Phase1File string
	// Anchors are the Phase 3 anchor modules (trace --anchors); nil: automatic.
	Anchors []string
	// Pin is the pinned coordinate (--pin, parsed once by model.ParseCoord,
	// or the TUI's p); nil: Phase 2 chooses.
	Pin *model.Coord
	// LayerMapping is msprobe's layer-mapping YAML for dumps of two
	// frameworks (--layer-mapping), optional.
	LayerMapping string
	// Mem is the memory budget: monitor inputs whose estimated peak
	// exceeds it are read out of core, or refused before a row is read
	// when that cannot be (memcheck.go; zero: no limit).
	Mem memlimit.Budget
	P1  analysis.Phase1Options
	P2  analysis.Phase2Options
	P3  analysis.Phase3Options
	// Lang is the language of the results' texts (the JSON): words.Default
	// unless the command has --lang.
	Lang words.Lang
}

// Session is what was loaded and concluded. Copies made by WithPin and
// WithControl share the loaded data (read-only) with their parent.
type Session struct {
	In                         Inputs
	Monitor, BaselineMonitor   *model.MonitorData
	ATree, BTree, CTree, DTree *model.DumpTree
	P1, P1Baseline             *model.Phase1Result
	P2                         *model.Phase2Result
	A, B, C, D                 *model.Dump // the four groups actually compared
	Control                    analysis.ControlChoice
	P3                         *model.Phase3Result
	// LayerMapping is In.LayerMapping read (nil when none was given).
	LayerMapping *model.LayerMapping
	// Tracer is the Phase 3 run behind P3 (nil when Phase 3 did not run).
	Tracer  *analysis.Tracer
	Missing []model.Missing
	// StepOffset is dump step − optimizer step when A's dump steps were
	// found by value not to be optimizer steps (stepOffset); nil when the
	// dump steps are taken as optimizer steps.
	StepOffset *int
	// Notes say how the analysis read the data (e.g. the step mapping);
	// Phase 3's warnings repeat them so that the report and TUI show them.
	Notes []model.Reason
	// ComparedWithC is set when no baseline dump B exists and Phase 3
	// compared A with the nearby normal sample C in B's place.
	ComparedWithC bool
	// Verdict is the answer of all phases that ran (analysis.Verdict),
	// computed once; P2.Verdict and P3.Verdict point to it. nil when
	// nothing is anomalous.
	Verdict *model.Verdict
	// GradNorm is the global gradient norm per rank around the root step
	// and the share of its increase (analysis.GradNormAround); nil without
	// monitor rows.
	GradNorm *model.GradNorm

	// gnFrom and gnP1 are the data GradNorm was computed from.
	gnFrom *model.MonitorData
	gnP1   *model.Phase1Result
	// userControl is set when the user chose C (WithControl).
	userControl bool
}

// ReportInput is what the report renders for this session (pins included).
func (s *Session) ReportInput() report.Input {
	in := report.Input{
		Path: s.In.Path, Format: s.In.Format, BaselinePath: s.In.Baseline,
		P1: s.P1, P1Baseline: s.P1Baseline, P2: s.P2, P3: s.P3,
		Control: s.Control.Reason, ControlWhy: s.Control.Why, Missing: s.Missing, Verdict: s.Verdict,
	}
	if p := s.Plan(nil); !p.Nothing {
		in.Plan = &p
	}
	if s.Monitor != nil {
		in.Path, in.Format = s.Monitor.Path, s.Monitor.Format
	}
	if s.BaselineMonitor != nil {
		in.BaselinePath = s.BaselineMonitor.Path
	}
	in.Series = s.rootSeries()
	in.GradNorm = s.GradNorm
	return in
}

// sayLoad says the readers' warnings of the loaded data (their reasons)
// in the results' language, before the phases copy them.
func (s *Session) sayLoad() {
	words.Monitor(s.Monitor, s.In.Lang)
	words.Monitor(s.BaselineMonitor, s.In.Lang)
	for _, t := range []*model.DumpTree{s.ATree, s.BTree, s.CTree, s.DTree} {
		words.DumpTree(t, s.In.Lang)
	}
}

// judge computes the verdict from every phase that ran and hands it to the
// Phase 2 and Phase 3 results, so that every face shows the same one.
func (s *Session) judge() {
	s.Verdict = analysis.Verdict(analysis.VerdictInput{P1: s.P1, P1Baseline: s.P1Baseline, P2: s.P2, P3: s.P3})
	words.Verdict(s.Verdict, s.In.Lang)
	if s.P2 != nil {
		s.P2.Verdict = s.Verdict
	}
	if s.P3 != nil {
		s.P3.Verdict = s.Verdict
	}
}
