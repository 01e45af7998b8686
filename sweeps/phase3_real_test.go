package sweeps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// copyQuad copies a quad's dumps into a temporary folder (a, b, c, d),
// with edit applied to each group's dump.json text; it returns the quad
// on the copies.
func copyQuad(t *testing.T, q realQuad, edit func(group int, dumpJSON string) string) realQuad {
	t.Helper()
	dir := t.TempDir()
	out := realQuad{name: q.name}
	seats := []*string{&out.a, &out.b, &out.c, &out.d}
	for g, src := range []string{q.a, q.b, q.c, q.d} {
		if src == "" {
			continue
		}
		dst := filepath.Join(dir, string(rune('a'+g)))
		if err := os.MkdirAll(dst, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"dump.json", "construct.json", "stack.json"} {
			b, err := os.ReadFile(filepath.Join(src, f))
			if err != nil {
				t.Fatal(err)
			}
			if f == "dump.json" {
				b = []byte(edit(g, string(b)))
			}
			if err := os.WriteFile(filepath.Join(dst, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		*seats[g] = dst
	}
	return out
}

// withIgnoredOps adds, after every softmax call of an API-only dump, the
// records msprobe writes since its builtin ignore list (2026-03,
// builtin_ignore_ops.yaml): an npu_fusion_attention call whose outputs 4
// and 5 are null, and a Distributed.isend whose sent tensor (output 0) is
// null. The softmax's own statistics stand in for the tensors' values.
func withIgnoredOps(t *testing.T, dumpJSON string) string {
	t.Helper()
	// msprobe writes bare -Infinity, Infinity and NaN: kept through
	// encoding/json as strings and written back bare
	bare := strings.NewReplacer("-Infinity", `"-Infinity"`, "Infinity", `"Infinity"`, "NaN", `"NaN"`)
	dumpJSON = bare.Replace(dumpJSON)
	var doc map[string]any
	if err := json.Unmarshal([]byte(dumpJSON), &doc); err != nil {
		t.Fatal(err)
	}
	var order []string
	dec := json.NewDecoder(strings.NewReader(dumpJSON))
	depth := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				depth++
			} else {
				depth--
			}
		case string:
			if depth == 2 && dec.More() {
				// a key of "data" (values at depth 2 are objects, never bare strings)
				if _, ok := doc["data"].(map[string]any)[v]; ok {
					order = append(order, v)
				}
			}
		}
	}
	data := doc["data"].(map[string]any)
	var b strings.Builder
	b.WriteString(`{"task": "statistics", "level": "L1", "framework": "pytorch", "dump_data_dir": null, "data": {`)
	n := 0
	put := func(k string, v any) {
		if n > 0 {
			b.WriteString(",\n")
		}
		n++
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteString(": ")
		b.Write(vb)
	}
	calls := 0
	for _, k := range order {
		put(k, data[k])
		if !strings.HasPrefix(k, "Tensor.softmax.") || !strings.HasSuffix(k, ".forward") {
			continue
		}
		out := data[k].(map[string]any)["output"].([]any)[0]
		put(fmt.Sprintf("NPU.npu_fusion_attention.%d.forward", calls), map[string]any{
			"input_args":   []any{out, out, out, map[string]any{"type": "int", "value": 4}, map[string]any{"type": "str", "value": "BNSD"}},
			"input_kwargs": map[string]any{},
			"output":       []any{out, out, out, out, nil, nil},
		})
		put(fmt.Sprintf("Distributed.isend.%d.forward", calls), map[string]any{
			"input_args":   []any{out, map[string]any{"type": "int", "value": 1}},
			"input_kwargs": map[string]any{},
			"output":       []any{nil},
		})
		calls++
	}
	b.WriteString("}}")
	return strings.NewReplacer(`"-Infinity"`, "-Infinity", `"Infinity"`, "Infinity", `"NaN"`, "NaN").Replace(b.String())
}

// TestRealIgnoredOpsMasked: null statistics written by msprobe's builtin
// ignore list are masked: the noise-only L1 dumps with them added still
// flag nothing and list no layer as not compared.
func TestRealIgnoredOpsMasked(t *testing.T) {
	for _, q := range noiseQuads("dump_L1")[:3] {
		q2 := copyQuad(t, q, func(_ int, s string) string { return withIgnoredOps(t, s) })
		res := traceReal(t, q2)
		if w := divergenceWords(res); len(w) > 0 {
			t.Errorf("%s with null-masked records: flags %s", q.name, strings.Join(w, "; "))
		}
		u := res.DivergenceSummary.UncomparedLayers
		if len(u.Fwd)+len(u.Bwd) > 0 {
			t.Errorf("%s with null-masked records: layers not compared fwd %v bwd %v", q.name, u.Fwd, u.Bwd)
		}
		found := false
		for _, a := range res.AnchorsUsed {
			if strings.HasPrefix(a, "isend") || strings.HasPrefix(a, "npu_fusion_attention") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: the added records are no anchors (%v): the case tests nothing", q.name, res.AnchorsUsed)
		}
	}
}

// TestRealDtypeDiffers: when A's and B's tensors differ in dtype, the
// trace says that the groups can differ by msprobe's precision setting
// alone; with one dtype it says nothing of the kind.
func TestRealDtypeDiffers(t *testing.T) {
	q := noiseQuads("dump_mix")[0]
	same := traceReal(t, q)
	for _, w := range same.Warnings {
		if strings.Contains(w, "dtype") {
			t.Errorf("one dtype in every group, yet: %s", w)
		}
	}
	q2 := copyQuad(t, q, func(g int, s string) string {
		if g == 1 {
			return strings.ReplaceAll(s, `"torch.float32"`, `"torch.bfloat16"`)
		}
		return s
	})
	res := traceReal(t, q2)
	found := false
	for _, w := range res.Warnings {
		if strings.Contains(w, "A has float32 where B has bfloat16") && strings.Contains(w, "precision") {
			found = true
		}
	}
	if !found {
		t.Errorf("B in bfloat16, A in float32: no warning about precision in %q", res.Warnings)
	}
}

// TestRealDevicePair: the kit's device pair (plan/: a 4-layer GPT whose
// "gpu" run replays the "npu" run with 1e-3 noise inside every
// linear/matmul; a kernel fault, ×8 on a quarter of the output channels of
// decoder.layers.1.mlp.linear_fc1, on the npu run at step 1 rank 0; rank 1
// clean). A/B = the devices at rank 0, C/D at rank 1: the forward diverges
// first at layer 1, at the planted module (L0) or its linear call (mix).
// Rank 1's pair alone (no fault) flags nothing.
func TestRealDevicePair(t *testing.T) {
	at := func(level, dev string, rank int) string {
		return filepath.Join(realDir, "plan", level, dev, "step1", fmt.Sprintf("rank%d", rank))
	}
	const planted = "decoder.layers.1.mlp.linear_fc1."
	for _, level := range []string{"l0", "mix"} {
		q := realQuad{"device pair " + level, at(level, "npu", 0), at(level, "gpu", 0), at(level, "npu", 1), at(level, "gpu", 1)}
		checkSpike(t, q, traceReal(t, q), func(dd *model.Drilldown) bool {
			if strings.HasPrefix(dd.Operator, "Module."+planted) {
				return true
			}
			for _, op := range dd.Ops {
				if op.Key == dd.Operator {
					return strings.HasPrefix(op.Key, "Functional.linear.") && strings.Contains(op.Parent, planted)
				}
			}
			return false
		})
		clean := realQuad{"device pair " + level + " rank 1 alone", at(level, "npu", 1), at(level, "gpu", 1), "", ""}
		if w := divergenceWords(traceReal(t, clean)); len(w) > 0 {
			t.Errorf("%s: a noise-only device pair flags: %s", clean.name, strings.Join(w, "; "))
		}
	}
}
