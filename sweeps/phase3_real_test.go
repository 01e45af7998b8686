package sweeps

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/pipeline"
)

// Phase 3 on dumps written by msprobe itself (testdata/msprobe-real: a
// 2-layer GPT with Megatron names, 2 steps × 2 gloo ranks, levels L0, L1
// and mix; see its README). The noise-only dumps hold no fault: any
// divergence between their ranks or steps is a false alarm.

const realDir = "../testdata/msprobe-real"

// realAt is one group's dump folder: tree/step<s>/rank<r>.
func realAt(tree string, step, rank int) string {
	return filepath.Join(realDir, tree, fmt.Sprintf("step%d", step), fmt.Sprintf("rank%d", rank))
}

// realQuad is one choice of the four groups (C, D empty: degraded).
type realQuad struct {
	name       string
	a, b, c, d string
}

// noiseQuads are every four-group choice of a noise-only tree: A/B across
// ranks (C/D the same ranks at the other step), A/B across steps (C/D the
// other rank), each with every group in the A seat, and the degraded pair
// (A/B alone).
func noiseQuads(tree string) []realQuad {
	var qs []realQuad
	for s := 0; s < 2; s++ {
		for r := 0; r < 2; r++ {
			qs = append(qs,
				realQuad{fmt.Sprintf("%s ranks A=s%dr%d", tree, s, r), realAt(tree, s, r), realAt(tree, s, 1-r), realAt(tree, 1-s, r), realAt(tree, 1-s, 1-r)},
				realQuad{fmt.Sprintf("%s steps A=s%dr%d", tree, s, r), realAt(tree, s, r), realAt(tree, 1-s, r), realAt(tree, s, 1-r), realAt(tree, 1-s, 1-r)},
				realQuad{fmt.Sprintf("%s ranks degraded A=s%dr%d", tree, s, r), realAt(tree, s, r), realAt(tree, s, 1-r), "", ""},
			)
		}
	}
	return qs
}

// rerunQuads: B is the rerun of A's run at A's step and rank (identical
// data), C/D the same at the other step or the other rank.
func rerunQuads() []realQuad {
	var qs []realQuad
	for s := 0; s < 2; s++ {
		for r := 0; r < 2; r++ {
			qs = append(qs,
				realQuad{fmt.Sprintf("rerun A=s%dr%d C=other step", s, r), realAt("dump_L0", s, r), realAt("dump_L0_rerun", s, r), realAt("dump_L0", 1-s, r), realAt("dump_L0_rerun", 1-s, r)},
				realQuad{fmt.Sprintf("rerun A=s%dr%d C=other rank", s, r), realAt("dump_L0", s, r), realAt("dump_L0_rerun", s, r), realAt("dump_L0", s, 1-r), realAt("dump_L0_rerun", s, 1-r)},
			)
		}
	}
	return qs
}

func traceReal(t *testing.T, q realQuad) *model.Phase3Result {
	t.Helper()
	in := pipeline.Inputs{DumpA: q.a, DumpB: q.b, DumpC: q.c, DumpD: q.d, P3: analysis.DefaultPhase3Options()}
	res, err := pipeline.Trace(context.Background(), in)
	if err != nil {
		t.Fatalf("%s: %v", q.name, err)
	}
	return res
}

// divergenceWords lists what a result flags (empty: nothing).
func divergenceWords(res *model.Phase3Result) []string {
	var out []string
	s := res.DivergenceSummary
	if s.EarliestFwdDivergence != nil {
		out = append(out, fmt.Sprintf("earliest fwd L%d", *s.EarliestFwdDivergence))
	}
	if s.EarliestBwdDivergence != nil {
		out = append(out, fmt.Sprintf("earliest bwd L%d", *s.EarliestBwdDivergence))
	}
	for _, d := range s.Directions {
		if d.Verdict == "divergent" || len(d.Flagged) > 0 {
			out = append(out, fmt.Sprintf("%s %s flagged %v", d.Direction, d.Verdict, d.Flagged))
		}
	}
	if dd := s.Drilldown; dd != nil && dd.Operator != "" {
		out = append(out, "operator "+dd.Operator)
	}
	for _, a := range res.Anchors {
		for m, dl := range a.Conclusion.MetricLayers {
			if len(dl.Fwd)+len(dl.Bwd) > 0 {
				out = append(out, fmt.Sprintf("%s %s fwd %v bwd %v", a.Name, m, dl.Fwd, dl.Bwd))
			}
		}
	}
	return out
}

// TestRealNoiseOnlyFlagsNothing: every choice of groups from msprobe's
// own noise-only dumps (L0, L1, mix, mix with a finite mask; ranks ×
// steps, the rerun as B, with and without a control pair) flags no layer
// and names no operator.
func TestRealNoiseOnlyFlagsNothing(t *testing.T) {
	var qs []realQuad
	for _, tree := range []string{"dump_L0", "dump_L1", "dump_mix", "dump_mix_finitemask"} {
		qs = append(qs, noiseQuads(tree)...)
	}
	qs = append(qs, rerunQuads()...)
	for _, q := range qs {
		res := traceReal(t, q)
		if w := divergenceWords(res); len(w) > 0 {
			t.Errorf("%s: a noise-only comparison flags: %s", q.name, strings.Join(w, "; "))
		}
	}
}
