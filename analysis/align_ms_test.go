package analysis

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// msVerdict runs Phase 3 and returns the forward verdict.
func msRun(a, b, c, d *model.Dump, lm *model.LayerMapping) (*model.Phase3Result, model.DirectionVerdict) {
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d, LayerMapping: lm}, DefaultPhase3Options())
	var fwd model.DirectionVerdict
	for _, v := range r.DivergenceSummary.Directions {
		if v.Direction == "fwd" {
			fwd = v
		}
	}
	return r, fwd
}

// msLayerMapping is a layer-mapping file for the MindFormers cells against
// legacy Megatron (ModelLink) modules, as a user writes it for msprobe.
var msLayerMapping = &model.LayerMapping{Path: "mapping.yaml", Rules: map[string]map[string]string{
	"TopLayer":         {"network": "module"},
	"LLamaDecodeLayer": {"attention_norm": "input_norm", "attention": "self_attention", "ffn_norm": "post_attention_norm", "feed_forward": "mlp"},
	"LLamaAttention":   {"flash_attention": "core_attention_flash", "wo": "dense"},
	"LlamaFeedForward": {"w2": "dense_4h_to_h"},
	"FlashAttention":   {"flash_attention_score": "npu_fusion_attention"},
}}

// MindSpore (MindFormers cells, bf16, [b, s, h]) against PyTorch (Megatron
// modules, fp32, [s, b, h]) of the same network, a forward fault planted in
// A: with the built-in map (Megatron-core and legacy names on B) and with a
// layer-mapping file, the start layer, the direction and the operator are
// the planted ones; the split wq/wk/wv and w1/w3 records are unaligned with
// their reason. Without any map (an empty mapping file) no record inside
// the layers aligns and nothing is found: the old behaviour.
func TestAlignMindSporeVsPyTorch(t *testing.T) {
	t.Parallel()
	type tc struct {
		name string
		fb   synth.TraceFlavour
		lm   *model.LayerMapping
		role string
	}
	cases := []tc{
		{"builtin/legacy/fc2", synth.TraceLegacy, nil, "fc2"},
		{"builtin/legacy/attn", synth.TraceLegacy, nil, "attn"},
		{"builtin/mcore/fc2", synth.TraceMcore, nil, "fc2"},
		{"builtin/mcore/proj", synth.TraceMcore, nil, "proj"},
		{"file/legacy/fc2", synth.TraceLegacy, msLayerMapping, "fc2"},
		{"file/legacy/attn", synth.TraceLegacy, msLayerMapping, "attn"},
	}
	for _, c := range cases {
		for _, seed := range []uint64{1, 2} {
			name := fmt.Sprintf("%s/s%d", c.name, seed)
			fault := synth.TraceFwdFault(5, c.role, 1.4)
			a, b, cc, d := synth.TraceCrossQuad(12, c.fb, seed, fault)
			r, fwd := msRun(a, b, cc, d, c.lm)
			s := r.DivergenceSummary
			if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 5 || !fwd.P0 {
				t.Errorf("%s: forward start %s (P0 %v, flagged %v, unaligned %v), want L5", name, fmtIntPtr(s.EarliestFwdDivergence), fwd.P0, fwd.Flagged, fwd.Unaligned)
				continue
			}
			want := synth.TraceKeysOf(a)[fmt.Sprintf("5/0/forward/%s", c.role)]
			if s.Drilldown == nil || s.Drilldown.Operator != want {
				t.Errorf("%s: drill-down %s, want %s", name, teDrill(s.Drilldown), want)
			}
			if len(s.UncomparedLayers.Fwd) > 0 {
				t.Errorf("%s: uncompared forward layers %v", name, s.UncomparedLayers.Fwd)
			}
			// the anchors are the layer's parts in B's names, and the
			// layer outputs are among them
			for _, an := range []string{"self_attention", "mlp", layerAnchor} {
				if !slices.Contains(r.AnchorsUsed, an) {
					t.Errorf("%s: anchors %v lack %s", name, r.AnchorsUsed, an)
				}
			}
			if c.lm == nil {
				for _, op := range s.Drilldown.Ops {
					switch {
					case strings.Contains(op.Key, ".attention.wq.Linear.forward"):
						if op.Aligned || !strings.Contains(op.Why, "wq is one of the split projections where B has the fused") {
							t.Errorf("%s: %s aligned %v why %q", name, op.Key, op.Aligned, op.Why)
						}
					case strings.Contains(op.Key, ".feed_forward.w1.Linear.forward"):
						if op.Aligned || !strings.Contains(op.Why, "w1 is one of the split projections") {
							t.Errorf("%s: %s aligned %v why %q", name, op.Key, op.Aligned, op.Why)
						}
					case strings.Contains(op.Key, ".feed_forward.w2.Linear.forward"):
						if !op.Aligned {
							t.Errorf("%s: %s not aligned: %s", name, op.Key, op.Why)
						}
					}
				}
			}
		}
	}
	// PyTorch as A (the fault there), MindSpore as B: the built-in map
	// translates A's names into B's; the mapping file names MindSpore's
	// classes, so it translates B's into A's.
	for _, lm := range []*model.LayerMapping{nil, msLayerMapping} {
		a, b, c, d := synth.TraceCrossQuadFlav(12, synth.TraceLegacy, synth.TraceMindFormers, 3, synth.TraceFwdFault(7, "fc2", 1.4))
		r, fwd := msRun(a, b, c, d, lm)
		s := r.DivergenceSummary
		want := synth.TraceKeysOf(a)["7/0/forward/fc2"]
		if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 7 || !fwd.P0 || s.Drilldown == nil || s.Drilldown.Operator != want {
			t.Errorf("PyTorch A (file %v): start %s, drill-down %s, want L7 %s", lm != nil, fmtIntPtr(s.EarliestFwdDivergence), teDrill(s.Drilldown), want)
		}
	}
	// An empty mapping file: no name is translated. Only the records whose
	// names agree align (the layer modules, the residual adds): the layer
	// is still found through the layer outputs, the operator is not, and
	// the anchor warning says the verdict may be incomplete.
	a, b, c, d := synth.TraceCrossQuad(12, synth.TraceLegacy, 1, synth.TraceFwdFault(5, "fc2", 1.4))
	r, _ := msRun(a, b, c, d, &model.LayerMapping{Path: "empty.yaml"})
	s := r.DivergenceSummary
	planted := synth.TraceKeysOf(a)["5/0/forward/fc2"]
	if s.Drilldown != nil && s.Drilldown.Operator == planted || r.AnchorWarning == nil {
		t.Errorf("empty mapping: drill-down %s, anchors %v, warning %v", teDrill(s.Drilldown), r.AnchorsUsed, r.AnchorWarning)
	}
	t.Logf("empty mapping: start %s, anchors %v, drill-down %s", fmtIntPtr(s.EarliestFwdDivergence), r.AnchorsUsed, teDrill(s.Drilldown))
}

// Noise only across frameworks (bf16 against fp32): nothing is flagged.
func TestAlignMindSporeVsPyTorchNull(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 6; seed++ {
		for _, fb := range []synth.TraceFlavour{synth.TraceLegacy, synth.TraceMcore} {
			a, b, c, d := synth.TraceCrossQuad(12, fb, seed, synth.TraceFault{})
			r, _ := msRun(a, b, c, d, nil)
			for _, v := range r.DivergenceSummary.Directions {
				if len(v.Flagged) > 0 || len(v.Unaligned) > 0 {
					t.Errorf("seed %d %v: %s flagged %v unaligned %v", seed, fb, v.Direction, v.Flagged, v.Unaligned)
				}
			}
		}
	}
}

// The alignment count of the synthetic pair: every record aligns but the
// split projections (q, k, v, gate, up: 5 modules + 5 APIs per layer and
// pass), the silu × mul against the fused swiglu (2 forward, 2 backward)
// and what lies outside the layers in other names.
func TestAlignDumpsCount(t *testing.T) {
	a, b, _, _ := synth.TraceCrossQuad(4, synth.TraceLegacy, 1, synth.TraceFault{})
	s := AlignDumps(a, b, nil)
	if _, builtin := s.NoteReason.(model.P3NameMapBuiltin); s.Records != len(a.Ops) || !builtin {
		t.Fatalf("summary %+v", s)
	}
	perLayer := 2*(5+5) + 2*2 // per layer, both passes
	inLayers := 4 * (len(synth.TraceFwdMF) + len(synth.TraceBwdMF))
	if got, want := s.Aligned, inLayers-4*perLayer; got < want || got > want+len(a.Ops)-inLayers {
		t.Errorf("aligned %d of %d, want %d in the layers (+ up to %d outside): %+v", got, s.Records, want, len(a.Ops)-inLayers, s.Reasons)
	}
	none := AlignDumps(a, b, &model.LayerMapping{Path: "empty.yaml"})
	if none.Aligned >= s.Aligned/4 {
		t.Errorf("without a map %d aligned (with the built-in map %d)", none.Aligned, s.Aligned)
	}
}

// The msprobe layer-mapping rules as msprobe applies them: by the class of
// the module at each level, a key over several levels, the longest key
// first, a value's "(…)" tail dropped, the root as TopLayer (or Cell).
func TestAlignFileRules(t *testing.T) {
	lm := &model.LayerMapping{Rules: map[string]map[string]string{
		"Cell":         {"network_with_loss": "module"},
		"GPTModel":     {"language_model.encoder": "decoder", "language_model": "lm"},
		"ParallelMLP":  {"dense_h_to_4h": "linear_fc1(x)"},
		"TransformerX": {"mlp": "never"}, // another class: not applied
	}}
	m := &nameMapper{translate: true, rules: compileRules(lm), cache: map[string]string{}, classAt: map[string]string{
		"network_with_loss.module":                                     "GPTModel",
		"network_with_loss.module.language_model.encoder.layers.0":     "ParallelTransformerLayer",
		"network_with_loss.module.language_model.encoder.layers.0.mlp": "ParallelMLP",
	}}
	for in, want := range map[string]string{
		"network_with_loss.module.language_model.encoder.layers.0.mlp.dense_h_to_4h": "module.module.decoder.layers.0.mlp.linear_fc1",
		"network_with_loss.module.language_model.embedding":                          "module.module.lm.embedding",
		"other.module": "other.module",
	} {
		if got := m.modulePath(in); got != want {
			t.Errorf("%s → %s, want %s", in, got, want)
		}
	}
}

// Fault sites across the layer, mix and L0 dumps, Megatron-core and legacy
// names on B: the operator is the planted one when B computes it alike,
// (the generator propagates faults along Megatron-core's tensor roles, so
// sites only MindFormers has, the split wq or w1, are not planted).
func TestAlignMindSporeSites(t *testing.T) {
	defer func() { synth.TraceCrossLevel = "" }()
	sites := []string{"ln1", "attn", "proj", "hmid", "ln2", "fc2", "hout"}
	for _, level := range []string{"", "L0"} {
		synth.TraceCrossLevel = level
		for k, role := range sites {
			fb := []synth.TraceFlavour{synth.TraceLegacy, synth.TraceMcore}[k%2]
			layer := 3 + k%6
			a, b, c, d := synth.TraceCrossQuad(12, fb, uint64(10+k), synth.TraceFwdFault(layer, role, 1.4))
			if level == "L0" && role == "hmid" {
				continue // the residual add is no module
			}
			r, fwd := msRun(a, b, c, d, nil)
			s := r.DivergenceSummary
			name := fmt.Sprintf("%s/%s@%d/%v", level, role, layer, fb)
			if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != layer || !fwd.P0 {
				t.Errorf("%s: start %s flagged %v", name, fmtIntPtr(s.EarliestFwdDivergence), fwd.Flagged)
				continue
			}
			want := synth.TraceKeysOf(a)[fmt.Sprintf("%d/0/forward/%s", layer, role)]
			if s.Drilldown == nil || s.Drilldown.Operator != want {
				t.Errorf("%s: drill-down %s, want %s", name, teDrill(s.Drilldown), want)
			}
		}
	}
}

// One framework, two Megatron families (legacy names on A:
// language_model.encoder, input_norm, query_key_value, dense_h_to_4h;
// Megatron-core on B: decoder, input_layernorm, linear_qkv, linear_fc1):
// the built-in map aligns them; the fault's layer and operator are found.
// Runs that name alike are not touched by the map (the sweep's other
// cases).
func TestAlignLegacyVsMcore(t *testing.T) {
	t.Parallel()
	for k, role := range []string{"fc1", "attn", "ln2", "swi", "hout"} {
		q := synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: uint64(20 + k), FlavA: synth.TraceLegacy, FlavB: synth.TraceMcore, Fault: synth.TraceFwdFault(4+k, role, 1.4)}
		a, b, c, d := q.Build()
		r, fwd := msRun(a, b, c, d, nil)
		s := r.DivergenceSummary
		if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 4+k || !fwd.P0 {
			t.Errorf("%s: start %s flagged %v", role, fmtIntPtr(s.EarliestFwdDivergence), fwd.Flagged)
			continue
		}
		if want := synth.TracePlantedKey(a, q); s.Drilldown == nil || s.Drilldown.Operator != want {
			t.Errorf("%s: drill-down %s, want %s", role, teDrill(s.Drilldown), want)
		}
		if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.Contains(w, "built-in map of the Megatron families") }) {
			t.Errorf("%s: warnings %v", role, r.Warnings)
		}
	}
	// alike names: no map
	q := synth.TraceQuad{Layers: 6, Noise: 0.005, Bias: 1, Seed: 1}
	a, b, _, _ := q.Build()
	if maps, note := nameMaps(nil, "layers", []*model.Dump{a, b}); maps != nil || note != nil {
		t.Errorf("alike names mapped: %v", note)
	}
}

// MindSpore with fused projections (attention.w_qkv, a fused swiglu)
// against Megatron-core: every op of the layer has its counterpart, and
// the planted operator is found at any site.
func TestAlignMindSporeFusedVsMcore(t *testing.T) {
	t.Parallel()
	for k, role := range []string{"qkv", "attn", "swi", "fc1", "fc2", "ln1"} {
		q := synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: uint64(30 + k), FlavA: synth.TraceMS, FlavB: synth.TraceMcore, BF16: true, Fault: synth.TraceFwdFault(2+k, role, 1.4)}
		a, b, c, d := q.Build()
		r, fwd := msRun(a, b, c, d, nil)
		s := r.DivergenceSummary
		if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 2+k || !fwd.P0 {
			t.Errorf("%s: start %s flagged %v", role, fmtIntPtr(s.EarliestFwdDivergence), fwd.Flagged)
			continue
		}
		if want := synth.TracePlantedKey(a, q); s.Drilldown == nil || s.Drilldown.Operator != want {
			t.Errorf("%s: drill-down %s, want %s", role, teDrill(s.Drilldown), want)
		}
		for _, op := range s.Drilldown.Ops {
			if !op.Aligned {
				t.Errorf("%s: %s unaligned: %s", role, op.Key, op.Why)
			}
		}
	}
}
