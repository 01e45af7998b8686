package analysis

import (
	"fmt"
	"math"
	"strings"

	"spikescope/model"
)

// A small builder of Megatron-style dumps for the Phase 3 tests: every
// layer runs the same sequence of modules and APIs (post-hook record order,
// as msprobe writes them), with construct.json parents, statistics from a
// value function, and per-test renaming (TE classes, call indices, API
// counters) and mutations.

const (
	tPrefix = "module.module.decoder.layers."
	tHidden = 64
)

// tOp is one op of the per-layer sequence.
type tOp struct {
	sub    string // module path below the layer ("" = the layer module); API: parent module's sub
	class  string // module class; "" for an API
	api    string // API name ("NPU.npu_swiglu")
	pclass string // API parent's class
}

// tFwd is the forward record order of one layer (a module's record follows
// its children's).
var tFwd = []tOp{
	{sub: "input_layernorm", class: "RMSNorm"},
	{sub: "self_attention.linear_qkv", class: "ColumnParallelLinear"},
	{sub: "self_attention.core_attention", api: "NPU.npu_fusion_attention", pclass: "DotProductAttention"},
	{sub: "self_attention.core_attention", class: "DotProductAttention"},
	{sub: "self_attention.linear_proj", class: "RowParallelLinear"},
	{sub: "self_attention", class: "SelfAttention"},
	{sub: "", api: "Tensor.__add__", pclass: "TransformerLayer"},
	{sub: "pre_mlp_layernorm", class: "RMSNorm"},
	{sub: "mlp.linear_fc1", class: "ColumnParallelLinear"},
	{sub: "mlp", api: "NPU.npu_swiglu", pclass: "MLP"},
	{sub: "mlp.linear_fc2", class: "RowParallelLinear"},
	{sub: "mlp", class: "MLP"},
	{sub: "", api: "Tensor.__add__", pclass: "TransformerLayer"},
	{sub: "", class: "TransformerLayer"},
}

// tBwd is the backward record order of one layer (gradients run from the
// layer output to its input; a module's record follows its children's).
var tBwd = []tOp{
	{sub: "", api: "Tensor.__add__", pclass: "TransformerLayer"},
	{sub: "mlp.linear_fc2", class: "RowParallelLinear"},
	{sub: "mlp", api: "NPU.npu_swiglu", pclass: "MLP"},
	{sub: "mlp.linear_fc1", class: "ColumnParallelLinear"},
	{sub: "mlp", class: "MLP"},
	{sub: "pre_mlp_layernorm", class: "RMSNorm"},
	{sub: "", api: "Tensor.__add__", pclass: "TransformerLayer"},
	{sub: "self_attention.linear_proj", class: "RowParallelLinear"},
	{sub: "self_attention.core_attention", api: "NPU.npu_fusion_attention", pclass: "DotProductAttention"},
	{sub: "self_attention.core_attention", class: "DotProductAttention"},
	{sub: "self_attention.linear_qkv", class: "ColumnParallelLinear"},
	{sub: "self_attention", class: "SelfAttention"},
	{sub: "input_layernorm", class: "RMSNorm"},
	{sub: "", class: "TransformerLayer"},
}

// tSpec describes one synthetic dump.
type tSpec struct {
	Layers int
	Calls  int // micro-batches (module call indices 0..Calls-1)
	Seq    int // sequence length of the activations
	// Norm is the Norm of op k of a layer in a pass; default tBase.
	Norm func(dir model.Direction, layer, k int) float64
	// Mul scales statistic s of an op (the fault); default 1.
	Mul func(dir model.Direction, layer, k int, s model.Stat) float64
	// MulCall limits Mul to the calls (micro-batches) it accepts; nil = all.
	MulCall func(call int) bool
	// Class renames a module class (TE prefixes...).
	Class func(class string) string
	// CallBase is added to module call indices (re-indexed keys).
	CallBase int
	// APIBase is added to API counters (a device that ran other APIs first).
	APIBase int
	// NoConstruct drops construct.json parents.
	NoConstruct bool
	Step, Rank  int
}

// tBase is the default Norm: distinct per layer, op and pass.
func tBase(dir model.Direction, layer, k int) float64 {
	b := 10 + float64(layer) + 0.5*float64(k)
	if dir == model.Backward {
		return b / 100
	}
	return b
}

func tTensor(name string, seq int, norm float64, mul func(model.Stat) float64) model.TensorStat {
	t := model.TensorStat{Name: name, Dtype: "torch.bfloat16", Shape: []int64{int64(seq), 1, tHidden}, Elements: int64(seq) * tHidden}
	t.Stat[model.StatNorm] = norm * mul(model.StatNorm)
	t.Stat[model.StatMax] = norm / 10 * mul(model.StatMax)
	t.Stat[model.StatMin] = -norm / 10 * mul(model.StatMin)
	t.Stat[model.StatMean] = norm / 100 * mul(model.StatMean) // |mean| ≈ 0.3·rms: not centred
	t.Has = [model.NumStats]bool{true, true, true, true}
	return t
}

// buildDump builds the dump described by s.
func buildDump(path string, s tSpec) *model.Dump {
	if s.Calls == 0 {
		s.Calls = 1
	}
	if s.Seq == 0 {
		s.Seq = 16
	}
	if s.Norm == nil {
		s.Norm = tBase
	}
	d := &model.Dump{Path: path, Step: s.Step, Rank: s.Rank, Index: map[string]int{}, HasConstruct: !s.NoConstruct}
	apiN := map[string]int{}
	add := func(op model.Op) {
		op.Order = len(d.Ops)
		d.Index[op.Key] = len(d.Ops)
		d.Ops = append(d.Ops, op)
	}
	cls := func(c string) string {
		if s.Class != nil {
			return s.Class(c)
		}
		return c
	}
	modKey := func(layer int, sub, class, dir string, call int) (string, string) {
		p := tPrefix + fmt.Sprint(layer)
		if sub != "" {
			p += "." + sub
		}
		return fmt.Sprintf("Module.%s.%s.%s.%d", p, cls(class), dir, call+s.CallBase), p
	}
	emb := func(call int) {
		k := fmt.Sprintf("Module.module.module.embedding.LanguageModelEmbedding.forward.%d", call+s.CallBase)
		in := tTensor("input.0", s.Seq, 5, func(model.Stat) float64 { return 1 })
		add(model.Op{Key: k, Kind: model.KindModule, Prefix: "Module", ModulePath: "module.module.embedding", Class: "LanguageModelEmbedding",
			Direction: model.Forward, CallIndex: call, Layer: -1, Inputs: []model.TensorStat{in},
			Outputs: []model.TensorStat{tTensor("output.0", s.Seq, 5, func(model.Stat) float64 { return 1 })}})
	}
	pass := func(dir model.Direction, layer, call int, seq []tOp) {
		dname := "forward"
		if dir == model.Backward {
			dname = "backward"
		}
		for k, o := range seq {
			norm := s.Norm(dir, layer, k)
			mul := func(st model.Stat) float64 {
				if s.Mul == nil || s.MulCall != nil && !s.MulCall(call) {
					return 1
				}
				return s.Mul(dir, layer, k, st)
			}
			out := tTensor("output.0", s.Seq, norm, mul)
			in := tTensor("input.0", s.Seq, norm*0.9, func(model.Stat) float64 { return 1 })
			if o.class != "" {
				key, path := modKey(layer, o.sub, o.class, dname, call)
				op := model.Op{Key: key, Kind: model.KindModule, Prefix: "Module", ModulePath: path, Class: cls(o.class),
					Direction: dir, CallIndex: call + s.CallBase, Layer: layer,
					Inputs: []model.TensorStat{in}, Outputs: []model.TensorStat{out}}
				if !s.NoConstruct && o.sub != "" {
					parentSub := ""
					if i := strings.LastIndexByte(o.sub, '.'); i >= 0 {
						parentSub = o.sub[:i]
					}
					pc := "TransformerLayer"
					switch parentSub {
					case "self_attention":
						pc = "SelfAttention"
					case "mlp":
						pc = "MLP"
					}
					op.Parent, _ = modKey(layer, parentSub, pc, dname, call)
				}
				if dir == model.Backward && strings.Contains(o.class, "Linear") {
					gk, gp := modKey(layer, o.sub, o.class, "parameters_grad", call)
					g := tTensor("weight", 1, 0.5+0.1*float64(layer), func(model.Stat) float64 { return 1 })
					g.Shape, g.Elements = []int64{tHidden, tHidden}, tHidden*tHidden
					add(model.Op{Key: gk, Kind: model.KindModule, Prefix: "Module", ModulePath: gp, Class: cls(o.class),
						Direction: model.ParamGrad, CallIndex: call, Layer: layer, Params: []model.TensorStat{g}})
				}
				add(op)
				continue
			}
			n := apiN[o.api]
			apiN[o.api] = n + 1
			key := fmt.Sprintf("%s.%d.%s", o.api, n+s.APIBase, dname)
			op := model.Op{Key: key, Kind: model.KindAPI, Prefix: o.api[:strings.IndexByte(o.api, '.')], ModulePath: o.api[strings.IndexByte(o.api, '.')+1:],
				Direction: dir, CallIndex: n + s.APIBase, Layer: -1,
				Inputs: []model.TensorStat{in}, Outputs: []model.TensorStat{out}}
			if !s.NoConstruct {
				op.Parent, _ = modKey(layer, o.sub, o.pclass, dname, call)
			}
			add(op)
		}
	}
	for call := 0; call < s.Calls; call++ {
		emb(call)
		for l := 0; l < s.Layers; l++ {
			pass(model.Forward, l, call, tFwd)
		}
		for l := s.Layers - 1; l >= 0; l-- {
			pass(model.Backward, l, call, tBwd)
		}
	}
	return d
}

// tFind returns the index in tFwd/tBwd of the first op with this sub and
// class (or API).
func tFind(seq []tOp, sub, classOrAPI string) int {
	for k, o := range seq {
		if o.sub == sub && (o.class == classOrAPI || o.api == classOrAPI) {
			return k
		}
	}
	panic("no op " + sub + " " + classOrAPI)
}

// tNoise is a small deterministic per-op disturbance (±1%) for control
// dumps, so that bands have some width.
func tNoise(seed int) func(dir model.Direction, layer, k int, s model.Stat) float64 {
	return func(dir model.Direction, layer, k int, s model.Stat) float64 {
		x := math.Sin(float64(seed*7919+layer*131+k*17+int(dir)*3+int(s)) * 12.9898)
		return 1 + 0.01*x
	}
}

// tQuad builds A, B, C, D: B = D = the clean run, C = the clean run with
// noise, A = the clean run with the fault mulA.
func tQuad(layers int, mulA func(dir model.Direction, layer, k int, s model.Stat) float64) (a, b, c, d *model.Dump) {
	a = buildDump("A", tSpec{Layers: layers, Mul: mulA})
	b = buildDump("B", tSpec{Layers: layers})
	c = buildDump("C", tSpec{Layers: layers, Mul: tNoise(1)})
	d = buildDump("D", tSpec{Layers: layers})
	return
}
