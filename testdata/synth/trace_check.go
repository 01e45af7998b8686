package synth

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"spikescope/model"
)

// Phase3Func is the trace under test (analysis.Phase3 with its options):
// synth cannot import analysis, whose tests import synth.
type Phase3Func func(a, b, c, d *model.Dump) *model.Phase3Result

// TraceCase is one Phase 3 scenario and what the trace must find in it.
type TraceCase struct {
	Name string
	Quad TraceQuad
	// MustFind: the fault must be found (start layer + drill-down); false: it
	// may be missed (below the noise) but no other layer may be named.
	MustFind bool
	// Drill: expected drill-down operator (substring); "" = the planted op.
	Drill string
	// DrillRole: the expected drill-down operator is the first op computing
	// this tensor at the fault layer (the planted op has no counterpart)
	DrillRole string
	// NoDrill: the drill-down operator is not checked (documented limitation)
	NoDrill bool
	// Uncompared: forward layers that must be listed as uncompared
	Uncompared []int
}

// Check builds the case's dumps, traces them with phase3 and says what is
// wrong with the result; "" = pass.
func (c TraceCase) Check(phase3 Phase3Func) string {
	a, b, cc, d := c.Quad.Build()
	r := phase3(a, b, cc, d)
	s := r.DivergenceSummary
	var fwd, bwd model.DirectionVerdict
	for _, v := range s.Directions {
		if v.Direction == "fwd" {
			fwd = v
		} else {
			bwd = v
		}
	}
	for _, l := range c.Uncompared {
		if !slices.Contains(s.UncomparedLayers.Fwd, l) {
			return fmt.Sprintf("layer %d not listed as uncompared (%v)", l, s.UncomparedLayers.Fwd)
		}
		if fwd.Verdict == "consistent" {
			return "forward consistent with an uncompared layer"
		}
	}
	f := c.Quad.Fault
	if !f.On {
		if len(fwd.Flagged)+len(bwd.Flagged) > 0 {
			return fmt.Sprintf("noise/bias only: flagged fwd %v bwd %v", fwd.Flagged, bwd.Flagged)
		}
		return ""
	}
	if math.IsNaN(f.F) {
		want := fmt.Sprintf("L%d ", f.Layer)
		v := fwd
		if f.Bwd {
			v = bwd
		}
		if !strings.HasPrefix(v.FirstNonFinite, want) || !strings.Contains(v.FirstNonFinite, TracePlantedKey(a, c.Quad)) {
			return fmt.Sprintf("first non-finite %q, want %s%s", v.FirstNonFinite, want, TracePlantedKey(a, c.Quad))
		}
		if v.Verdict == "consistent" {
			return "NaN direction called consistent"
		}
		if s.EarliestFwdDivergence != nil && *s.EarliestFwdDivergence < f.Layer {
			return fmt.Sprintf("fwd start L%d before the NaN layer", *s.EarliestFwdDivergence)
		}
		return ""
	}
	start, v := s.EarliestFwdDivergence, fwd
	if f.Bwd {
		start, v = s.EarliestBwdDivergence, bwd
		if len(fwd.Flagged) > 0 {
			return fmt.Sprintf("backward-only fault: forward flagged %v", fwd.Flagged)
		}
	}
	if start == nil {
		if c.MustFind {
			return "not found"
		}
		return ""
	}
	if *start != f.Layer {
		return fmt.Sprintf("start L%d, want L%d (flagged %v)", *start, f.Layer, v.Flagged)
	}
	if !v.P0 {
		return "planted direction not P0"
	}
	if c.NoDrill || !c.MustFind {
		return ""
	}
	want := c.Drill
	if c.DrillRole != "" {
		dir := "forward"
		if f.Bwd {
			dir = "backward"
		}
		want = TraceKeysOf(a)[fmt.Sprintf("%d/%d/%s/%s", f.Layer, max(f.Call, 0), dir, c.DrillRole)]
	}
	if want == "" {
		want = TracePlantedKey(a, c.Quad)
	}
	if s.Drilldown == nil || !strings.Contains(s.Drilldown.Operator, want) {
		op := ""
		if s.Drilldown != nil {
			op = s.Drilldown.Operator + " (" + s.Drilldown.Note + ")"
		}
		return fmt.Sprintf("drill-down %q, want %q", op, want)
	}
	return ""
}

// TraceFwdFault is a forward fault of factor f on tensor role of layer, in
// every micro-batch.
func TraceFwdFault(layer int, role string, f float64) TraceFault {
	return TraceFault{On: true, Layer: layer, Role: role, F: f, Call: -1}
}

// RunTraceCases checks every case in a parallel subtest (the matrices are
// long) and returns how many failed.
func RunTraceCases(t *testing.T, cases []TraceCase, phase3 Phase3Func) int {
	return RunCases(t, cases, func(c TraceCase) string { return c.Name },
		func(_ *testing.T, c TraceCase) string { return c.Check(phase3) })
}

// RunCases runs check on every case in a parallel subtest named by name
// and returns how many failed (check's answer: "" = pass, else why).
func RunCases[C any](t *testing.T, cases []C, name func(C) string, check func(*testing.T, C) string) int {
	var fails atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(name(c), func(t *testing.T) {
				t.Parallel()
				if why := check(t, c); why != "" {
					fails.Add(1)
					t.Errorf("%-28s FAIL %s", name(c), why)
				} else if testing.Verbose() {
					t.Logf("%-28s ok", name(c))
				}
			})
		}
	})
	return int(fails.Load())
}
