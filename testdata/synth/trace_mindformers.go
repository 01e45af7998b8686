package synth

import (
	"spikescope/model"
)

// A MindFormers flavour for the Phase 3 generator (trace.go): a
// MindSpore Llama run whose cells are named as MindFormers names them
// (Cell.network.model.layers.L.attention.wq/wk/wv, attention.wo,
// attention.flash_attention, feed_forward.w1/w3/w2, attention_norm,
// ffn_norm), with split q/k/v and gate/up projections where Megatron fuses
// them (query_key_value, dense_h_to_4h), and MindSpore API names
// (Mint.matmul, Functional.flash_attention_score, Tensor.add).

// TraceMindFormers is the flavour (outside trace.go's list).
const TraceMindFormers TraceFlavour = 100

var TraceFwdMF = []traceOp{
	{api: "Primitive.RmsNorm", parent: "attention_norm", role: "ln1"},
	{sub: "attention_norm", Class: "LlamaRMSNorm", role: "ln1"},
	{api: "Mint.matmul", parent: "attention.wq", role: "q"},
	{sub: "attention.wq", Class: "Linear", role: "q"},
	{api: "Mint.matmul", parent: "attention.wk", role: "k"},
	{sub: "attention.wk", Class: "Linear", role: "k"},
	{api: "Mint.matmul", parent: "attention.wv", role: "v"},
	{sub: "attention.wv", Class: "Linear", role: "v"},
	{api: "Functional.flash_attention_score", parent: "attention.flash_attention", role: "attn"},
	{sub: "attention.flash_attention", Class: "FlashAttention", role: "attn"},
	{api: "Mint.matmul", parent: "attention.wo", role: "proj"},
	{sub: "attention.wo", Class: "Linear", role: "proj"},
	{sub: "attention", Class: "LLamaAttention", role: "proj"},
	{api: "Tensor.add", parent: "", role: "hmid"},
	{api: "Primitive.RmsNorm", parent: "ffn_norm", role: "ln2"},
	{sub: "ffn_norm", Class: "LlamaRMSNorm", role: "ln2"},
	{api: "Mint.matmul", parent: "feed_forward.w1", role: "gate"},
	{sub: "feed_forward.w1", Class: "Linear", role: "gate"},
	{api: "Mint.matmul", parent: "feed_forward.w3", role: "up"},
	{sub: "feed_forward.w3", Class: "Linear", role: "up"},
	{api: "Functional.silu", parent: "feed_forward", role: "silu"},
	{api: "Tensor.mul", parent: "feed_forward", role: "swi"},
	{api: "Mint.matmul", parent: "feed_forward.w2", role: "fc2"},
	{sub: "feed_forward.w2", Class: "Linear", role: "fc2"},
	{sub: "feed_forward", Class: "LlamaFeedForward", role: "fc2"},
	{api: "Tensor.add", parent: "", role: "hout"},
	{sub: "", Class: "LLamaDecodeLayer", role: "hout"},
}

var TraceBwdMF = []traceOp{
	{api: "Tensor.add", parent: "", role: "g_hout"},
	{api: "Mint.matmul", parent: "feed_forward.w2", role: "g_fc2"},
	{sub: "feed_forward.w2", Class: "Linear", role: "g_fc2"},
	{api: "Tensor.mul", parent: "feed_forward", role: "g_swi"},
	{api: "Functional.silu", parent: "feed_forward", role: "g_silu"},
	{api: "Mint.matmul", parent: "feed_forward.w3", role: "g_up"},
	{sub: "feed_forward.w3", Class: "Linear", role: "g_up"},
	{api: "Mint.matmul", parent: "feed_forward.w1", role: "g_gate"},
	{sub: "feed_forward.w1", Class: "Linear", role: "g_gate"},
	{sub: "feed_forward", Class: "LlamaFeedForward", role: "g_fc1"},
	{api: "Primitive.RmsNorm", parent: "ffn_norm", role: "g_ln2"},
	{sub: "ffn_norm", Class: "LlamaRMSNorm", role: "g_ln2"},
	{api: "Tensor.add", parent: "", role: "g_hmid"},
	{api: "Mint.matmul", parent: "attention.wo", role: "g_proj"},
	{sub: "attention.wo", Class: "Linear", role: "g_proj"},
	{api: "Functional.flash_attention_score", parent: "attention.flash_attention", role: "g_attn"},
	{sub: "attention.flash_attention", Class: "FlashAttention", role: "g_attn"},
	{api: "Mint.matmul", parent: "attention.wv", role: "g_v"},
	{sub: "attention.wv", Class: "Linear", role: "g_v"},
	{api: "Mint.matmul", parent: "attention.wk", role: "g_k"},
	{sub: "attention.wk", Class: "Linear", role: "g_k"},
	{api: "Mint.matmul", parent: "attention.wq", role: "g_q"},
	{sub: "attention.wq", Class: "Linear", role: "g_q"},
	{sub: "attention", Class: "LLamaAttention", role: "g_qkv"},
	{api: "Primitive.RmsNorm", parent: "attention_norm", role: "g_ln1"},
	{sub: "attention_norm", Class: "LlamaRMSNorm", role: "g_ln1"},
	{sub: "", Class: "LLamaDecodeLayer", role: "g_hin"},
}

func traceMFSeqs() (fwd, bwd []traceOp) { return TraceFwdMF, TraceBwdMF }

// TraceCrossQuad is a MindSpore (MindFormers, bf16 activations, [b, s, h]
// layout) A and C against a PyTorch Megatron B and D (flavour fb, fp32,
// [s, b, h]) of the same network.
func TraceCrossQuad(layers int, fb TraceFlavour, seed uint64, fault TraceFault) (a, b, c, d *model.Dump) {
	return TraceCrossQuadFlav(layers, TraceMindFormers, fb, seed, fault)
}

// TraceCrossLevel is the dump level of TraceCrossQuadFlav's dumps ("" = mix).
var TraceCrossLevel = ""

// TraceCrossQuadFlav is TraceCrossQuad with A/C in flavour fa (the MindSpore
// side is whichever of fa, fb is TraceMindFormers).
func TraceCrossQuadFlav(layers int, fa, fb TraceFlavour, seed uint64, fault TraceFault) (a, b, c, d *model.Dump) {
	base := TraceCfg{Layers: layers, Noise: 0.005, Level: TraceCrossLevel}
	ca, cb, cc, cd := base, base, base, base
	ca.Name, cb.Name, cc.Name, cd.Name = "A", "B", "C", "D"
	ca.Flavour, cc.Flavour, cb.Flavour, cd.Flavour = fa, fa, fb, fb
	ca.Data, cb.Data, cc.Data, cd.Data = seed*4+1, seed*4+1, seed*4+2, seed*4+2
	ca.Device, cb.Device, cc.Device, cd.Device = seed*8+1, seed*8+2, seed*8+3, seed*8+4
	ms := []*TraceCfg{&ca, &cc}
	if fa != TraceMindFormers {
		ms = []*TraceCfg{&cb, &cd}
	}
	for _, x := range ms {
		x.BF16 = true
	}
	ca.Fault = fault
	a, b, c, d = TraceBuildDump(ca), TraceBuildDump(cb), TraceBuildDump(cc), TraceBuildDump(cd)
	msd, ptd := []*model.Dump{a, c}, []*model.Dump{b, d}
	if fa != TraceMindFormers {
		msd, ptd = ptd, msd
	}
	for _, x := range msd {
		x.Framework = "mindspore"
		traceLayout(x, "BFloat16", true)
	}
	for _, x := range ptd {
		x.Framework = "pytorch"
		traceLayout(x, "torch.float32", false)
	}
	return
}

// traceLayout sets every tensor's dtype and its shape: [b, s, h] (b = 1) or
// [s, b, h], h = 64, the element count unchanged.
func traceLayout(d *model.Dump, dtype string, bsh bool) {
	set := func(ts []model.TensorStat) {
		for i := range ts {
			t := &ts[i]
			t.Dtype = dtype
			if t.Elements%64 == 0 && t.Elements > 0 {
				if bsh {
					t.Shape = []int64{1, t.Elements / 64, 64}
				} else {
					t.Shape = []int64{t.Elements / 64, 1, 64}
				}
			}
		}
	}
	for i := range d.Ops {
		set(d.Ops[i].Inputs)
		set(d.Ops[i].Outputs)
	}
}
