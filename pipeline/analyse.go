package pipeline

import (
	"fmt"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/words"
)

// Analyse runs Phase 1 (and the baseline's Phase 1), Phase 2 (with the pin
// at In.Pin), picks A/B/C/D and runs Phase 3 — as far as the data allows.
// Missing data is recorded in Missing, not returned as an error; the only
// error is a pin that matches no data (InputError on
// "--pin").
func (s *Session) Analyse() error {
	s.P1, s.P1Baseline = nil, nil
	if s.Monitor == nil && s.ATree != nil {
		s.Monitor = ingest.GradientsFromDumps(s.ATree)
		words.Monitor(s.Monitor, s.In.Lang)
	}
	// B's dump tree stands in for a baseline monitor only when Phase 1 runs
	// on dumps too: parameter names of dumps and monitors differ.
	if s.BaselineMonitor == nil && s.BTree != nil && s.In.Baseline == "" &&
		s.Monitor != nil && s.Monitor.Format == model.FormatDump {
		s.BaselineMonitor = ingest.GradientsFromDumps(s.BTree)
		words.Monitor(s.BaselineMonitor, s.In.Lang)
	}
	// the data as analysed: with pipeline stages, targets split per stage
	// ("pp1:layers.2…"), so that the TUI draws the series a candidate names
	switch {
	case s.In.Phase1 != nil:
		s.P1 = s.In.Phase1
	case s.Monitor != nil:
		s.P1, s.Monitor = analysis.Phase1Data(s.Monitor, s.In.P1)
	}
	if s.BaselineMonitor != nil {
		s.P1Baseline, s.BaselineMonitor = analysis.Phase1Data(s.BaselineMonitor, s.In.P1)
	}
	words.Phase1(s.P1, s.In.Lang) // a saved result (In.Phase1) has no reasons: kept as read
	words.Phase1(s.P1Baseline, s.In.Lang)
	return s.fromPhase2()
}

// pinError makes a pin problem a bad-input error (exit code 2).
func pinError(err error) error {
	return &ingest.InputError{Path: "--pin", Problem: err.Error(), Err: err}
}

// fromPhase2 re-runs everything from Phase 2 on, keeping Phase 1.
func (s *Session) fromPhase2() error {
	s.P2, s.P3 = nil, nil
	s.A, s.B = nil, nil
	if !s.userControl {
		s.C, s.D, s.Control = nil, nil, analysis.ControlChoice{}
	}
	if s.P1 != nil {
		p2, err := phase2(s.P1, s.P1Baseline, s.In.Pin, s.In.P2, s.In.Lang)
		if err != nil {
			return pinError(err)
		}
		s.P2 = p2
	}
	s.gradNorm()
	s.pickGroups()
	s.runPhase3()
	s.judge()
	s.Missing = s.missing()
	return nil
}

// phase2 runs Phase 2 and says its reasons in l (words.Default: the
// drop-in JSON's languages).
func phase2(p1, baseline *model.Phase1Result, pin *model.Coord, opt analysis.Phase2Options, l words.Lang) (*model.Phase2Result, error) {
	res, err := analysis.Phase2(p1, baseline, pin, opt)
	if err != nil {
		return nil, err
	}
	words.Phase2(res, l)
	return res, nil
}

// WithPin returns a copy of s with Phase 2 and 3 re-run under pin (nil =
// unpin). Phase 1 is not recomputed; the copy shares the loaded data.
func (s *Session) WithPin(pin *model.Coord) (*Session, error) {
	c := *s
	c.In.Pin = pin
	c.userControl = false
	if err := c.fromPhase2(); err != nil {
		return nil, err
	}
	return &c, nil
}

// WithControl returns a copy of s with C chosen by the user at (step, rank)
// — from CTree, else from A's tree — and D at the same place in DTree, else
// in B's tree. Phase 3 is re-run.
func (s *Session) WithControl(step, rank int) (*Session, error) {
	src, srcName := s.CTree, "--dump-c"
	if src == nil {
		src, srcName = s.ATree, "A's dump tree"
	}
	if src == nil {
		return nil, &ingest.InputError{Problem: "no dump tree to take C from: give --dump-c or --dump-a"}
	}
	cd := src.Find(step, rank)
	if cd == nil {
		return nil, &ingest.InputError{Path: src.Path,
			Problem: fmt.Sprintf("no dump at step %d rank %d in %s (steps %v)", step, rank, srcName, src.Steps())}
	}
	c := *s
	c.userControl = true
	c.C = cd
	c.D = nil
	dsrc := s.DTree
	if dsrc == nil {
		dsrc = s.BTree
	}
	if dsrc != nil {
		c.D = dsrc.Find(step, rank)
	}
	// Keep the automatic candidates (the UI lists them) with the user's pick.
	c.Control.C, c.Control.D = c.C, c.D
	c.Control.Why = model.P3ControlUser{Step: step, Rank: rank}
	c.Control.Reason = words.Say(c.Control.Why, s.In.Lang)
	if err := c.fromPhase2(); err != nil {
		return nil, err
	}
	return &c, nil
}

// runPhase3 runs Phase 3 when A and B are there. C without D (or D
// without C) cannot form a control ratio: run degraded on A/B. Without any
// baseline dump but with a nearby normal sample C of the same device, A is
// compared with C (the seed needs at least the anomalous side's dumps):
// degraded, and the ratios then include the samples' data differences.
func (s *Session) runPhase3() {
	s.ComparedWithC, s.Tracer = false, nil
	if s.A == nil {
		return
	}
	in := analysis.Phase3Input{A: s.A, Phase1: s.P1, ControlNote: s.Control.Why, LayerMapping: s.LayerMapping, Anchors: s.In.Anchors}
	switch {
	case s.B != nil:
		in.B = s.B
		if s.C != nil && s.D != nil {
			in.C, in.D = s.C, s.D
		}
	case s.C != nil:
		in.B, in.BaselineGroup = s.C, "C"
		s.ComparedWithC = true
	default:
		return
	}
	s.sameDumpNotes()
	// The tracer keeps its indexed dumps: the UI lists any layer's
	// operators from it without indexing the dumps again.
	s.Tracer = analysis.NewTracer(in, s.In.P3)
	s.P3 = s.Tracer.Result()
	if s.ComparedWithC {
		s.P3.DegradedNoteReason = model.P3NoBaselineDump{Step: s.C.Step, Rank: s.C.Rank}
		s.P3.WarningsReasons = append([]model.Reason{s.P3.DegradedNoteReason}, s.P3.WarningsReasons...)
		if s.P3.Dirs != nil {
			s.P3.Dirs["B"] = s.C.Path + model.StandInPath
		}
	}
	if len(s.Notes) > 0 {
		s.P3.WarningsReasons = append(append([]model.Reason(nil), s.Notes...), s.P3.WarningsReasons...)
	}
	words.Phase3(s.P3, s.In.Lang)
	s.P3.Conclusion = analysis.ConcludePhase3(s.P3)
}

// gradNorm computes the grad-norm view for the root step; it is kept when
// the data and the root step did not change (a control choice).
func (s *Session) gradNorm() {
	root := rootStep(s.P2)
	if g := s.GradNorm; g != nil && s.gnFrom == s.Monitor && s.gnP1 == s.P1 && eqIntPtr(g.Root, root) {
		return
	}
	s.GradNorm, s.gnFrom, s.gnP1 = GradNormOf(s.Monitor, s.P1, s.P2), s.Monitor, s.P1
}

// GradNormOf is the grad-norm view (analysis.GradNormAround) of monitor
// data d as Phase 1 analysed it (p1) at Phase 2's root step (p2 may be
// nil: no root); nil without data.
func GradNormOf(d *model.MonitorData, p1 *model.Phase1Result, p2 *model.Phase2Result) *model.GradNorm {
	if d == nil || p1 == nil {
		return nil
	}
	return analysis.GradNormAround(d, p1, rootStep(p2))
}

// rootStep is Phase 2's root optimizer step (the step, on data without
// optimizer steps), nil when there is none.
func rootStep(p2 *model.Phase2Result) *int {
	switch {
	case p2 == nil:
		return nil
	case p2.RootOptStep != nil:
		return p2.RootOptStep
	case p2.RootCauseCoordinate == nil:
		return nil
	case p2.RootCauseCoordinate.OptimizerStep != nil:
		return p2.RootCauseCoordinate.OptimizerStep
	}
	return p2.RootCauseCoordinate.Step
}
