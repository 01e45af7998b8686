package pipeline

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/words"
)

// The one A/B/C/D group picker: the TUI, `report` and `trace` all take
// their four dumps from here, so they compare the same groups.

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

// pickGiven is the dump of t that the given parts of c leave, when exactly
// one does; a tree of a single dump is that dump.
func pickGiven(t *model.DumpTree, c model.Coord) *model.Dump {
	if t == nil || len(t.Dumps) == 0 {
		return nil
	}
	if len(t.Dumps) == 1 {
		return t.Dumps[0]
	}
	if matchCount(t, c) != 1 {
		return nil
	}
	for _, d := range t.Dumps {
		if (c.Step == nil || d.Step == *c.Step) && (c.Rank == nil || d.Rank == *c.Rank) {
			return d
		}
	}
	return nil
}

// pickAt is the dump of t at c, its parts not given taken from ref (B at
// A's coordinates, D at C's).
func pickAt(t *model.DumpTree, c model.Coord, ref *model.Dump) *model.Dump {
	step, rank := ref.Step, ref.Rank
	if c.Step != nil {
		step = *c.Step
	}
	if c.Rank != nil {
		rank = *c.Rank
	}
	return pickIn(t, step, rank)
}

// pickGroups chooses A, B, C, D for Phase 3.
func (s *Session) pickGroups() {
	s.StepOffset, s.Notes = nil, nil
	if s.ATree == nil {
		return
	}
	step, rank, ok := s.rootStepRank()
	if ok {
		if s.In.StepA == nil && s.ATree.Find(step, rank) == nil && s.ATree.Find(-1, rank) == nil {
			s.mapDumpSteps(rank)
		}
		if s.StepOffset != nil {
			step += *s.StepOffset
		}
		s.A = pickIn(s.ATree, step, rank)
	} else {
		// No root coordinate: the dump the given part leaves, or the
		// tree's only dump.
		s.A = pickGiven(s.ATree, model.Coord{Step: s.In.StepA, Rank: s.In.RankA})
	}
	if s.A == nil {
		return
	}
	s.B = pickAt(s.BTree, s.In.AtB, s.A)
	if s.userControl {
		return
	}
	bt := s.DTree // the baseline tree D is taken from
	if bt == nil {
		bt = s.BTree
	}
	switch {
	case s.CTree != nil && (len(s.CTree.Dumps) == 1 || !s.In.AtC.IsZero()):
		s.C = pickGiven(s.CTree, s.In.AtC)
		if s.C == nil {
			s.setControl(analysis.ControlChoice{Why: model.P3ControlNotInTree{At: coordText(s.In.AtC), Path: s.CTree.Path, Has: treeCoords(s.CTree)}})
			return
		}
		s.D = pickAt(s.DTree, s.In.AtD, s.C)
		s.setControl(analysis.ControlChoice{C: s.C, D: s.D, Why: model.P3ControlGiven{}})
	case s.CTree != nil:
		// Several dumps given as C: choose among them with the seed's filters.
		s.setControl(analysis.ChooseControl(s.CTree, s.A, bt, s.p1InDumpSteps()))
		s.C, s.D = s.Control.C, s.Control.D
	default:
		s.setControl(analysis.ChooseControl(s.ATree, s.A, bt, s.p1InDumpSteps()))
		s.C, s.D = s.Control.C, s.Control.D
	}
	if s.C != nil && s.D == nil && s.DTree != nil {
		s.D = pickAt(s.DTree, s.In.AtD, s.C)
	}
}

// setControl keeps the choice of C with its reasons said (the TUI and the
// JSON read the strings).
func (s *Session) setControl(ch analysis.ControlChoice) {
	if ch.Why != nil {
		ch.Reason = words.Say(ch.Why, s.In.Lang)
	}
	words.ControlCandidates(ch.Candidates, s.In.Lang)
	s.Control = ch
}

// sameDumpNotes warn when the control group is no control: C is A's own
// dump, or D is C's (A and B come from the same tree).
func (s *Session) sameDumpNotes() {
	switch {
	case s.C != nil && s.C == s.A:
		s.Notes = append(s.Notes, model.P3SameDumpC{})
	case s.C != nil && s.C == s.D:
		s.Notes = append(s.Notes, model.P3SameDumpD{})
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
	s.Notes = append(s.Notes, analysis.StepOffsetReason(matches))
}

// p1InDumpSteps is Phase 1 in dump steps (analysis.Phase1InDumpSteps)
// when a step offset applies, P1 itself otherwise.
func (s *Session) p1InDumpSteps() *model.Phase1Result {
	if s.StepOffset == nil {
		return s.P1
	}
	return analysis.Phase1InDumpSteps(s.P1, *s.StepOffset)
}

// Phase3Problem says why Phase 3 did not run, for a face that has nothing
// to show without it (trace); nil when it ran. The words name the flags
// that pick the groups.
func (s *Session) Phase3Problem() error {
	if s.P3 != nil {
		return nil
	}
	if s.ATree == nil || len(s.ATree.Dumps) == 0 {
		return &ingest.InputError{Problem: "A: no dump to trace: give --dump-a (a dump.json folder or a step*/rank* tree)"}
	}
	t := s.ATree
	if s.A == nil {
		step, rank, ok := s.rootStepRank()
		given := model.Coord{Step: s.In.StepA, Rank: s.In.RankA}
		switch {
		case ok && s.StepOffset != nil:
			return &ingest.InputError{Path: t.Path, Problem: fmt.Sprintf("A: no dump at step %d rank %d (optimizer step %d, dump steps = optimizer steps %+d by gradient norms; has %s)", step+*s.StepOffset, rank, step, *s.StepOffset, treeCoords(t))}
		case ok:
			return &ingest.InputError{Path: t.Path, Problem: fmt.Sprintf("A: no dump at step %d rank %d, the root-cause coordinate (has %s): pick A with --step/--rank", step, rank, treeCoords(t))}
		case !given.IsZero():
			what := "no dump"
			if matchCount(t, given) > 1 {
				what = "several dumps"
			}
			return &ingest.InputError{Path: t.Path, Problem: fmt.Sprintf("A: %s at %s (has %s): pick one with --step/--rank", what, coordText(given), treeCoords(t))}
		}
		return &ingest.InputError{Path: t.Path, Problem: fmt.Sprintf("A: holds %d dumps (%s) and no root-cause coordinate was found: pick one with --step/--rank", len(t.Dumps), treeCoords(t))}
	}
	if s.BTree != nil {
		return &ingest.InputError{Path: s.BTree.Path, Problem: fmt.Sprintf("B: no dump at step %d rank %d (has %s): pick one with --step-b/--rank-b", s.A.Step, s.A.Rank, treeCoords(s.BTree))}
	}
	why := s.Control.Reason
	if why == "" {
		why = "no control sample C"
	}
	return &ingest.InputError{Problem: fmt.Sprintf("no baseline dump B for A (step %d rank %d) and no nearby normal sample C to compare it with (%s): give --dump-b", s.A.Step, s.A.Rank, why)}
}

// matchCount is how many dumps of t the given parts of c leave.
func matchCount(t *model.DumpTree, c model.Coord) int {
	n := 0
	for _, d := range t.Dumps {
		if (c.Step == nil || d.Step == *c.Step) && (c.Rank == nil || d.Rank == *c.Rank) {
			n++
		}
	}
	return n
}

// coordText prints a partly given coordinate ("step 7 rank any").
func coordText(c model.Coord) string {
	part := func(v *int) string {
		if v == nil {
			return "any"
		}
		return strconv.Itoa(*v)
	}
	return "step " + part(c.Step) + " rank " + part(c.Rank)
}

// treeCoords lists a tree's (step, rank) pairs, shortened.
func treeCoords(t *model.DumpTree) string {
	var parts []string
	for i, d := range t.Dumps {
		if i == 12 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("step %d rank %d", d.Step, d.Rank))
	}
	return strings.Join(parts, ", ")
}
