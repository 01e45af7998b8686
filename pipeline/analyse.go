package pipeline

import (
	"fmt"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
)

// Analyse runs Phase 1 (and the baseline's Phase 1), Phase 2 (with the pin
// of In.Pin), picks A/B/C/D and runs Phase 3 — as far as the data allows.
// Missing data is recorded in Missing, not returned as an error; the only
// errors are a malformed pin and a pin that matches no data (InputError on
// "--pin").
func (s *Session) Analyse() error {
	s.P1, s.P1Baseline = nil, nil
	if s.Monitor == nil && s.ATree != nil {
		s.Monitor = ingest.GradientsFromDumps(s.ATree)
	}
	// B's dump tree stands in for a baseline monitor only when Phase 1 runs
	// on dumps too: parameter names of dumps and monitors differ.
	if s.BaselineMonitor == nil && s.BTree != nil && s.In.Baseline == "" &&
		s.Monitor != nil && s.Monitor.Format == model.FormatDump {
		s.BaselineMonitor = ingest.GradientsFromDumps(s.BTree)
	}
	// the data as analysed: with pipeline stages, targets split per stage
	// ("pp1:layers.2…"), so that the TUI draws the series a candidate names
	if s.Monitor != nil {
		s.P1, s.Monitor = analysis.Phase1Data(s.Monitor, s.In.P1)
	}
	if s.BaselineMonitor != nil {
		s.P1Baseline, s.BaselineMonitor = analysis.Phase1Data(s.BaselineMonitor, s.In.P1)
	}
	s.pin = nil
	if strings.TrimSpace(s.In.Pin) != "" {
		p, err := analysis.ParsePin(s.In.Pin)
		if err != nil {
			return pinError(err)
		}
		s.pin = &p
	}
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
		p2, err := analysis.Phase2(s.P1, s.P1Baseline, s.pin, s.In.P2)
		if err != nil {
			return pinError(err)
		}
		s.P2 = p2
	}
	s.pickGroups()
	s.runPhase3()
	s.Missing = s.missing()
	return nil
}

// WithPin returns a copy of s with Phase 2 and 3 re-run under pin (nil =
// unpin). Phase 1 is not recomputed; the copy shares the loaded data.
func (s *Session) WithPin(pin *analysis.Pin) (*Session, error) {
	c := *s
	c.pin = pin
	c.In.Pin = formatPin(pin)
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
	c.Control.Reason = fmt.Sprintf("C chosen by the user: step %d rank %d", step, rank)
	if err := c.fromPhase2(); err != nil {
		return nil, err
	}
	return &c, nil
}

// formatPin writes a pin back in ParsePin's syntax ("" for nil).
func formatPin(p *analysis.Pin) string {
	if p == nil {
		return ""
	}
	return p.String()
}

// rootStepRank is where A is taken: StepA/RankA when given, else the Phase
// 2 root coordinate (dump step = optimizer step). ok is false when neither
// says.
func (s *Session) rootStepRank() (step, rank int, ok bool) {
	if s.P2 != nil && s.P2.RootCauseCoordinate != nil {
		c := s.P2.RootCauseCoordinate
		rank = c.Rank
		switch {
		case c.OptimizerStep != nil:
			step = *c.OptimizerStep
		case c.Step != nil:
			step = *c.Step
		}
		ok = true
	}
	if s.In.StepA != nil {
		step = *s.In.StepA
	}
	if s.In.RankA != nil {
		rank = *s.In.RankA
	}
	if s.In.StepA != nil && s.In.RankA != nil {
		ok = true
	}
	return step, rank, ok
}

// pickIn finds the dump at (step, rank) in t. A tree of a single dump is
// that dump whatever its coordinates (the user pointed at it), and a tree
// without step folders matches any step.
func pickIn(t *model.DumpTree, step, rank int) *model.Dump {
	if t == nil || len(t.Dumps) == 0 {
		return nil
	}
	if len(t.Dumps) == 1 {
		return t.Dumps[0]
	}
	if d := t.Find(step, rank); d != nil {
		return d
	}
	return t.Find(-1, rank)
}

// pickGroups chooses A, B, C, D for Phase 3.
func (s *Session) pickGroups() {
	s.StepOffset, s.Notes = nil, nil
	step, rank, ok := s.rootStepRank()
	if s.ATree == nil || (!ok && len(s.ATree.Dumps) != 1) {
		return
	}
	if ok && s.In.StepA == nil && s.ATree.Find(step, rank) == nil && s.ATree.Find(-1, rank) == nil {
		s.mapDumpSteps(rank)
	}
	if s.StepOffset != nil {
		step += *s.StepOffset
	}
	s.A = pickIn(s.ATree, step, rank)
	if s.A == nil {
		return
	}
	s.B = pickIn(s.BTree, s.A.Step, s.A.Rank)
	if s.userControl {
		return
	}
	switch {
	case s.CTree != nil && len(s.CTree.Dumps) == 1:
		s.C = s.CTree.Dumps[0]
		s.D = pickIn(s.DTree, s.C.Step, s.C.Rank)
		s.Control = analysis.ControlChoice{C: s.C, D: s.D, Reason: "C given by --dump-c"}
	case s.CTree != nil:
		// Several dumps given as C: choose among them with the seed's filters.
		bt := s.DTree
		if bt == nil {
			bt = s.BTree
		}
		s.Control = analysis.ChooseControl(s.CTree, s.A, bt, s.p1InDumpSteps())
		s.C, s.D = s.Control.C, s.Control.D
	default:
		bt := s.DTree
		if bt == nil {
			bt = s.BTree
		}
		s.Control = analysis.ChooseControl(s.ATree, s.A, bt, s.p1InDumpSteps())
		s.C, s.D = s.Control.C, s.Control.D
	}
	if s.C != nil && s.D == nil && s.DTree != nil {
		s.D = pickIn(s.DTree, s.C.Step, s.C.Rank)
	}
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
	var in analysis.Phase3Input
	switch {
	case s.B != nil:
		in = analysis.Phase3Input{A: s.A, B: s.B, Phase1: s.P1, ControlNote: s.Control.Reason, LayerMapping: s.LayerMapping}
		if s.C != nil && s.D != nil {
			in.C, in.D = s.C, s.D
		}
	case s.C != nil:
		in = analysis.Phase3Input{A: s.A, B: s.C, Phase1: s.P1, ControlNote: s.Control.Reason, LayerMapping: s.LayerMapping, BaselineGroup: "C"}
		s.ComparedWithC = true
	default:
		return
	}
	// The tracer keeps its indexed dumps: the UI lists any layer's
	// operators from it without indexing the dumps again.
	s.Tracer = analysis.NewTracer(in, s.In.P3)
	s.P3 = s.Tracer.Result()
	if s.ComparedWithC {
		s.P3.DegradedNote = fmt.Sprintf("no baseline dump: A is compared with the nearby normal sample C (step %d rank %d) of the same device in B's place; ratios include the data differences of the two samples, and device bias cannot be separated", s.C.Step, s.C.Rank)
		s.P3.Warnings = append([]string{s.P3.DegradedNote}, s.P3.Warnings...)
		if s.P3.Dirs != nil {
			s.P3.Dirs["B"] = s.C.Path + " (C in B's place: no baseline dump)"
		}
	}
	if len(s.Notes) > 0 {
		s.P3.Warnings = append(append([]string(nil), s.Notes...), s.P3.Warnings...)
	}
}

// mapDumpSteps sets StepOffset (and a note) when A's dumps of rank match
// optimizer steps by value with a non-zero offset (trend.db steps re-based
// by data2db); otherwise dump steps stay optimizer steps.
func (s *Session) mapDumpSteps(rank int) {
	off, matches, ok := analysis.DumpStepOffset(s.Monitor, s.P1, s.ATree, rank)
	if !ok || off == 0 {
		return
	}
	s.StepOffset = &off
	s.Notes = append(s.Notes, analysis.StepOffsetNote(matches))
}

// p1InDumpSteps is Phase 1 in dump steps (analysis.Phase1InDumpSteps)
// when a step offset applies, P1 itself otherwise.
func (s *Session) p1InDumpSteps() *model.Phase1Result {
	if s.StepOffset == nil {
		return s.P1
	}
	return analysis.Phase1InDumpSteps(s.P1, *s.StepOffset)
}
