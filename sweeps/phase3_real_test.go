package sweeps

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
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

// spikeQuads: step 1 rank 0 of a spike tree holds the planted fault
// (decoder.layers.1.mlp.linear_fc1.weight ×20 during that step): A/B across
// ranks with the clean step as control, A/B across steps with the other
// rank as control, and A/B alone.
func spikeQuads(tree string) []realQuad {
	return []realQuad{
		{tree + " ranks", realAt(tree, 1, 0), realAt(tree, 1, 1), realAt(tree, 0, 0), realAt(tree, 0, 1)},
		{tree + " steps", realAt(tree, 1, 0), realAt(tree, 0, 0), realAt(tree, 1, 1), realAt(tree, 0, 1)},
		{tree + " degraded", realAt(tree, 1, 0), realAt(tree, 1, 1), "", ""},
	}
}

// checkSpike: the forward diverges first, at layer 1, and the drill-down's
// operator is the planted module or an op inside it.
func checkSpike(t *testing.T, q realQuad, res *model.Phase3Result, inside func(dd *model.Drilldown) bool) {
	t.Helper()
	s := res.DivergenceSummary
	if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 1 {
		t.Errorf("%s: earliest forward divergence %v, want layer 1 (%s)", q.name, s.EarliestFwdDivergence, strings.Join(divergenceWords(res), "; "))
		return
	}
	fwd := s.Directions[0]
	if fwd.Direction != "fwd" || !fwd.P0 || fwd.Start == nil || *fwd.Start != 1 || len(fwd.Unaligned) > 0 {
		t.Errorf("%s: forward verdict %+v, want P0 from layer 1 with every layer compared", q.name, fwd)
	}
	dd := s.Drilldown
	if dd == nil || dd.Direction != "fwd" || dd.Layer == nil || *dd.Layer != 1 || !inside(dd) {
		t.Errorf("%s: drill-down %+v, want the operator inside layers.1.mlp.linear_fc1", q.name, dd)
	}
}

// TestRealSpikeFound: the planted fault of dump_L0_spike and
// dump_mix_spike is found at layer 1 forward, and the operator is the
// module at L0 and its API call at mix.
func TestRealSpikeFound(t *testing.T) {
	const planted = "decoder.layers.1.mlp.linear_fc1."
	for _, q := range spikeQuads("dump_L0_spike") {
		checkSpike(t, q, traceReal(t, q), func(dd *model.Drilldown) bool {
			return strings.HasPrefix(dd.Operator, "Module."+planted) && strings.Contains(dd.Operator, ".forward.")
		})
	}
	for _, q := range spikeQuads("dump_mix_spike") {
		checkSpike(t, q, traceReal(t, q), func(dd *model.Drilldown) bool {
			if !strings.HasPrefix(dd.Operator, "Functional.") {
				return false
			}
			for _, op := range dd.Ops {
				if op.Key == dd.Operator {
					return strings.Contains(op.Parent, planted) || strings.Contains(op.Within, planted)
				}
			}
			return false
		})
	}
}

// TestRealL1SpikeFromCompared: an API-only dump with a real fault
// (dump_L1_spike: dump_mix_spike's API records alone, as msprobe writes
// them at L1): the layers are inferred, every forward layer is compared
// (the causal mask's −inf statistics are masked alike in all groups, not
// a failure to compare), the start is a compared layer and the operator
// is the API call inside the planted module (its parent in the mix dump).
func TestRealL1SpikeFromCompared(t *testing.T) {
	mix, err := ingest.LoadDumpTree(context.Background(), filepath.Join(realDir, "dump_mix_spike"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ""
	if d := mix.Find(1, 0); d != nil {
		for _, op := range d.Ops {
			if strings.HasPrefix(op.Key, "Functional.linear.") && op.Direction == model.Forward && strings.Contains(op.Parent, "decoder.layers.1.mlp.linear_fc1.") {
				want = op.Key
			}
		}
	}
	if want == "" {
		t.Fatal("dump_mix_spike step 1 rank 0 has no linear call inside layers.1.mlp.linear_fc1")
	}
	for _, q := range spikeQuads("dump_L1_spike") {
		res := traceReal(t, q)
		if res.LayerPrefix != "inferred_layer." {
			t.Errorf("%s: layer prefix %q, want inferred layers", q.name, res.LayerPrefix)
		}
		checkSpike(t, q, res, func(dd *model.Drilldown) bool { return dd.Operator == want })
		if u := res.DivergenceSummary.UncomparedLayers; len(u.Fwd) > 0 {
			t.Errorf("%s: forward layers %v listed as not compared", q.name, u.Fwd)
		}
	}
}
