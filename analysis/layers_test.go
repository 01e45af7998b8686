package analysis

import (
	"fmt"
	"testing"

	"spikescope/model"
)

func modOp(key, path, class string, dir model.Direction) model.Op {
	return model.Op{Key: key, Kind: model.KindModule, Prefix: "Module", ModulePath: path, Class: class, Direction: dir, Layer: -1}
}

func dumpOf(ops ...model.Op) *model.Dump {
	d := &model.Dump{Index: map[string]int{}}
	for i := range ops {
		ops[i].Order = i
		d.Index[ops[i].Key] = i
	}
	d.Ops = ops
	return d
}

// MoE expert lists, model-list indices and API names never out-vote the
// transformer layer container (reference bug 18).
func TestLearnLayerWord(t *testing.T) {
	var ops []model.Op
	for l := 0; l < 2; l++ {
		p := fmt.Sprintf("0.module.decoder.layers.%d", l)
		ops = append(ops, modOp("Module."+p+".TransformerLayer.forward.0", p, "TransformerLayer", model.Forward))
		for e := 0; e < 8; e++ {
			ep := fmt.Sprintf("%s.mlp.experts.local_experts.%d.linear_fc1", p, e)
			ops = append(ops, modOp("Module."+ep+".ColumnParallelLinear.forward.0", ep, "ColumnParallelLinear", model.Forward))
		}
	}
	for n := 0; n < 30; n++ {
		ops = append(ops, model.Op{Key: fmt.Sprintf("Functional.relu.%d.forward", n), Kind: model.KindAPI, ModulePath: "relu", Layer: -1})
	}
	d := dumpOf(ops...)
	if w := learnLayerWord(d); w != "layers" {
		t.Fatalf("word %q", w)
	}
	s := learnLayerScheme(d)
	x := indexDump(d, s)
	// expert linear of layer 1 belongs to layer 1, anchor mlp
	in := x.info[len(ops)-31]
	if in.Layer != 1 || in.Anchor != "mlp" {
		t.Fatalf("info %+v", in)
	}
}

// encoder and decoder layers with the same numbers stay apart; encoder
// first.
func TestLayerSchemeEncoderDecoder(t *testing.T) {
	var ops []model.Op
	for _, stack := range []string{"encoder", "decoder"} {
		for l := 0; l < 3; l++ {
			p := fmt.Sprintf("module.language_model.%s.layers.%d.mlp", stack, l)
			ops = append(ops, modOp("Module."+p+".MLP.forward.0", p, "MLP", model.Forward))
		}
	}
	d := dumpOf(ops...)
	s := learnLayerScheme(d)
	x := indexDump(d, s)
	got := []int{}
	for i := range ops {
		got = append(got, x.info[i].Layer)
	}
	if fmt.Sprint(got) != "[0 1 2 3 4 5]" {
		t.Fatalf("ids %v", got)
	}
	if s.label(4) != "decoder.layers.1" || s.label(0) != "encoder.layers.0" {
		t.Errorf("labels %q %q", s.label(4), s.label(0))
	}
}

// Without construct.json an API takes the layer of the next module record
// of its pass; with construct.json, its nearest ancestor's layer (even when
// that ancestor is not in dump.json).
func TestAPILayer(t *testing.T) {
	api := func(k string) model.Op { return model.Op{Key: k, Kind: model.KindAPI, ModulePath: "x", Layer: -1} }
	d := dumpOf(
		api("NPU.npu_rms_norm.0.forward"),
		modOp("Module.m.layers.0.input_layernorm.RMSNorm.forward.0", "m.layers.0.input_layernorm", "RMSNorm", model.Forward),
		api("NPU.npu_swiglu.0.forward"),
		modOp("Module.m.layers.1.mlp.MLP.forward.0", "m.layers.1.mlp", "MLP", model.Forward),
		api("Functional.linear.0.forward"),
		modOp("Module.m.final_layernorm.RMSNorm.forward.0", "m.final_layernorm", "RMSNorm", model.Forward),
	)
	x := indexDump(d, learnLayerScheme(d))
	if x.info[0].Layer != 0 || x.info[2].Layer != 1 || x.info[4].Layer != -1 {
		t.Fatalf("heuristic layers %d %d %d", x.info[0].Layer, x.info[2].Layer, x.info[4].Layer)
	}
	d.Ops[2].Parent = "Module.m.layers.5.mlp.MLP.forward.0" // not in dump.json
	d.Ops[0].Parent = "Functional.linear.0.forward"         // an API whose parent is unknown
	x = indexDump(d, learnLayerScheme(d))
	if x.info[2].Layer != 5 || x.info[2].Anchor != "mlp" || x.info[0].Layer != -1 {
		t.Fatalf("construct layers %+v %+v", x.info[2], x.info[0])
	}
}

func TestDataFeatureCheck(t *testing.T) {
	s := learnLayerScheme()
	idx := func(seq int) *dumpIndex {
		d := buildDump("x", tSpec{Layers: 2, Seq: seq})
		if s == nil || len(s.Stacks) == 0 {
			s = learnLayerScheme(d)
		}
		return indexDump(d, s)
	}
	a, c := idx(4096), idx(2048)
	if r := dataFeatureCheck(a, idx(4096), c, idx(2048)); !r.Differs || r.Verdict != "data not the cause" || r.Baseline != "same difference" {
		t.Errorf("same difference: %+v", r)
	}
	if r := dataFeatureCheck(a, nil, c, nil); !r.Differs || r.Verdict != "to verify" || r.Baseline != "unknown" {
		t.Errorf("unknown: %+v", r)
	}
	if r := dataFeatureCheck(a, idx(4096), idx(4096), idx(4096)); r.Differs || r.Verdict != "consistent" {
		t.Errorf("none: %+v", r)
	}
	if r := dataFeatureCheck(a, idx(4096), c, idx(4096)); !r.Differs || r.Verdict != "to verify" {
		t.Errorf("baseline differs otherwise: %+v", r)
	}
}
