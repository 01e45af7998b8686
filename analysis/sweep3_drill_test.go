package analysis

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// The drill-down's operator across naming styles, record orders and
// construct.json: for every flavour (Megatron-core, legacy, TE, MoE,
// MindSpore), msprobe's post-order and a pre-order file, with and without
// construct.json, a fault planted in a leaf (a module's kernel API, an API
// run by a container itself, an expert's linear) must be named at its layer,
// direction and key: never the layer, mlp, self_attention or MoELayer that
// contain it, never a record of another call.

// A container is never the operator, whatever the record order: in a
// pre-order file the layer module's record comes first in the layer and
// mlp's before its linears, all flagged (they carry the fault's tensor);
// the drill-down still names the swiglu API inside mlp, lists no container
// upstream of it, and reports the same answer as the post-order file.
func TestDrilldown_ContainersNeverTheOperator(t *testing.T) {
	t.Parallel()
	for _, noParents := range []bool{false, true} {
		var ops [2]string
		for oi, pre := range []bool{false, true} {
			q := synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: 3, PreOrder: pre, NoParents: noParents, Fault: synth.TraceFwdFault(6, "swi", 1.5)}
			a, b, c, d := q.Build()
			if pre { // the file really is pre-order: the layer's record opens its forward
				first := ""
				for i := range a.Ops {
					if strings.Contains(a.Ops[i].Key, ".layers.6.") && a.Ops[i].Direction == model.Forward {
						first = a.Ops[i].Key
						break
					}
				}
				if !strings.HasSuffix(first, ".layers.6.TransformerLayer.forward.0") {
					t.Fatalf("pre-order build: first record of L6 %q", first)
				}
			}
			r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
			dd := r.DivergenceSummary.Drilldown
			if dd == nil || dd.Layer == nil || *dd.Layer != 6 || dd.Direction != "fwd" {
				t.Fatalf("noconstruct=%v pre=%v: drill-down %+v", noParents, pre, dd)
			}
			if dd.Operator != synth.TracePlantedKey(a, q) || !strings.HasPrefix(dd.Operator, "NPU.npu_swiglu.") {
				t.Errorf("noconstruct=%v pre=%v: operator %q (%s)", noParents, pre, dd.Operator, dd.Note)
			}
			containers := 0
			for _, o := range dd.Ops {
				for _, cls := range []string{".TransformerLayer.", ".MLP.", ".SelfAttention."} {
					if strings.Contains(o.Key, cls) && o.Flagged {
						containers++
					}
				}
			}
			if containers < 2 { // the layer and mlp carry the fault too: the rule is what keeps them out
				t.Errorf("noconstruct=%v pre=%v: only %d flagged containers: the case tests nothing", noParents, pre, containers)
			}
			for _, k := range dd.Chain[1:] {
				if strings.Contains(k, ".MLP.") || strings.Contains(k, ".TransformerLayer.") {
					t.Errorf("noconstruct=%v pre=%v: ancestor %s listed upstream", noParents, pre, k)
				}
			}
			if dd.Largest == "" || strings.Contains(dd.Largest, ".MLP.") || strings.Contains(dd.Largest, ".TransformerLayer.") {
				t.Errorf("noconstruct=%v pre=%v: largest %q", noParents, pre, dd.Largest)
			}
			ops[oi] = strings.SplitN(dd.Operator, ".", 3)[1]
		}
		if ops[0] != ops[1] {
			t.Errorf("noconstruct=%v: post-order %s, pre-order %s", noParents, ops[0], ops[1])
		}
	}
}

// The old rule, first flagged record in file order, is what a pre-order
// file defeats: there the layer module's record is the first flagged one.
// (Negative case: the sweep above would fail with it.)
func TestDrilldown_PreOrderFirstInFileIsTheLayer(t *testing.T) {
	q := synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: 3, PreOrder: true, Fault: synth.TraceFwdFault(6, "swi", 1.5)}
	a, b, c, d := q.Build()
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	dd := r.DivergenceSummary.Drilldown
	firstInFile := ""
	order := -1
	for _, o := range dd.Ops {
		if o.Flagged && (order < 0 || o.Order < order) {
			firstInFile, order = o.Key, o.Order
		}
	}
	if !strings.Contains(firstInFile, ".layers.6.TransformerLayer.forward.0") {
		t.Errorf("first flagged in file order %q: the layer record should open the layer", firstInFile)
	}
	if dd.Operator == firstInFile {
		t.Errorf("operator is the layer itself")
	}
}

// An expert's linear at module level (L0, no APIs): the expert's
// linear_fc1 is the operator, not the expert MLP, the SequentialMLP or the
// MoELayer around it, in either record order.
func TestDrilldown_MoEExpertLinearL0(t *testing.T) {
	for _, pre := range []bool{false, true} {
		q := synth.TraceQuad{Layers: 8, Noise: 0.005, Bias: 1, Seed: 5, FlavA: synth.TraceMoE, FlavB: synth.TraceMoE, Level: "L0", PreOrder: pre,
			Fault: synth.TraceFwdFault(3, "fc1#1", 1.5)}
		a, b, c, d := q.Build()
		r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
		dd := r.DivergenceSummary.Drilldown
		want := ".layers.3.mlp.experts.local_experts.1.linear_fc1.ColumnParallelLinear.forward.0"
		if dd == nil || dd.Layer == nil || *dd.Layer != 3 || dd.Direction != "fwd" || !strings.HasSuffix(dd.Operator, want) {
			t.Errorf("pre=%v: drill-down %v", pre, dd)
		}
	}
}

// Containment without construct.json, from module paths and the
// neighbouring module records: a leaf module's kernel belongs to it (it
// writes the kernel's result as its own output), an API between two
// modules to the innermost module containing both (swiglu between mlp's
// linears → mlp; the residual add → the layer), an expert's swiglu to its
// expert; the same in both record orders.
func TestDrillScope_ContainmentWithoutConstruct(t *testing.T) {
	for _, fl := range []synth.TraceFlavour{synth.TraceMcore, synth.TraceMoE} {
		for _, pre := range []bool{false, true} {
			q := synth.TraceQuad{Layers: 4, Noise: 0.005, Bias: 1, Seed: 1, FlavA: fl, FlavB: fl, PreOrder: pre, NoParents: true}
			a, _, _, _ := q.Build()
			x := indexDump(a, learnLayerScheme(a))
			sc := newDrillScope(x, 2, model.Forward, 0)
			got := map[string]string{} // API name (first occurrence) → its container's path below the layer
			seenAPI := map[string]int{}
			for k, i := range sc.ops {
				op := &a.Ops[i]
				if op.Kind != model.KindAPI {
					continue
				}
				name := apiBase(op.Key)
				n := seenAPI[name]
				seenAPI[name] = n + 1
				c := "<none>"
				if p := sc.parent[k]; p >= 0 {
					c = x.info[sc.ops[p]].Sub
				}
				got[fmt.Sprintf("%s#%d", name, n)] = c
			}
			want := map[string]string{"NPU.npu_rms_norm#0": "input_layernorm", "Functional.linear#0": "self_attention.linear_qkv",
				"NPU.npu_fusion_attention#0": "self_attention.core_attention", "Tensor.__add__#0": "", "NPU.npu_rms_norm#1": "pre_mlp_layernorm",
				"Tensor.__add__#1": ""}
			if fl == synth.TraceMcore {
				want["NPU.npu_swiglu#0"], want["Functional.linear#3"] = "mlp", "mlp.linear_fc2"
			} else {
				want["NPU.npu_swiglu#1"], want["Functional.linear#4"] = "mlp.experts.local_experts.1", "mlp.experts.local_experts.1.linear_fc1"
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%v pre=%v: %s in %q, want %q", fl, pre, k, got[k], w)
				}
			}
			if sc.order != map[bool]recordOrder{false: orderPost, true: orderPre}[pre] {
				t.Errorf("%v pre=%v: record order %v", fl, pre, sc.order)
			}
		}
	}
}

// The operators of one anchor (the TUI's layer table → enter) include the
// APIs the anchor module ran, also without construct.json, and only those.
func TestOpsForLayer_AnchorKeepsItsAPIs(t *testing.T) {
	for _, noParents := range []bool{false, true} {
		q := synth.TraceQuad{Layers: 6, Noise: 0.005, Bias: 1, Seed: 2, NoParents: noParents, Fault: synth.TraceFwdFault(3, "swi", 1.5)}
		a, b, c, d := q.Build()
		tr := newTracerT(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
		var keys []string
		for _, o := range tr.OpsForLayer("mlp", 3, "fwd") {
			keys = append(keys, o.Key)
		}
		swi, add := false, false
		for _, k := range keys {
			swi = swi || strings.HasPrefix(k, "NPU.npu_swiglu.")
			add = add || strings.HasPrefix(k, "Tensor.__add__.") || strings.HasPrefix(k, "NPU.npu_rms_norm.")
		}
		if !swi || add || len(keys) != 6 { // fc1 (linear + module), swiglu, fc2 (linear + module), mlp
			t.Errorf("noconstruct=%v: mlp's operators %v", noParents, keys)
		}
	}
}

// The seed's pick (the op with the largest difference) and the first
// divergent op disagree when the divergence grows inside the layer: both
// are reported, with why.
func TestDrilldown_LargestDisagreesSaysWhy(t *testing.T) {
	kfc1 := tFind(tFwd, "mlp.linear_fc1", "ColumnParallelLinear")
	a, b, c, d := tQuad(12, func(dir model.Direction, layer, k int, s model.Stat) float64 {
		switch {
		case dir != model.Forward || layer < 5 || layer == 5 && k < kfc1:
			return 1
		case layer == 5 && k == kfc1:
			return 1.3
		case layer == 5:
			return 2.5
		}
		return 1.3
	})
	dd := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options()).DivergenceSummary.Drilldown
	if dd == nil || dd.Layer == nil || *dd.Layer != 5 || dd.Direction != "fwd" ||
		dd.Operator != "Module."+tPrefix+"5.mlp.linear_fc1.ColumnParallelLinear.forward.0" {
		t.Fatalf("drill-down %s", ddSummary(dd))
	}
	// a ×2.5 leaf after fc1 (swiglu, fc2, the residual add), never mlp or the layer
	if dd.Largest == "" || dd.Largest == dd.Operator || strings.Contains(dd.Largest, ".MLP.") || strings.Contains(dd.Largest, ".TransformerLayer.") ||
		!strings.Contains(dd.Note, "the largest difference ("+dd.Largest) {
		t.Errorf("largest %q, note %q", dd.Largest, dd.Note)
	}
}
