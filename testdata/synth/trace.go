package synth

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strings"
	"sync"

	"spikescope/model"
)

// The Phase 3 generator: four-group dumps (A, B, C, D) as model.Dump values
// for the trace tests (analysis in memory, sweeps on disk): random (seeded) device noise per tensor, data that
// differs between the A/B and the C/D samples, a uniform device bias, a
// fault that propagates the way activations do (fully through the rest of
// its block, diluted by the residual stream, mostly removed by the next
// norm), several naming flavours per device (Megatron-core on NPU, TE on
// GPU, legacy Megatron, MoE, MindSpore), dump levels L0/L1/mix, micro-batches
// and recompute records.

// traceOp is one record of a layer's pass: a module (class != "") or an API
// whose parent module is parent. role names the tensor it outputs (module
// and API of the same computation share it).
type traceOp struct {
	sub    string
	Class  string // "" for an API record
	api    string
	parent string
	role   string
}

// TraceFlavour names the ops of one device.
type TraceFlavour int

const (
	TraceMcore    TraceFlavour = iota // Megatron-core on NPU
	TraceTE                           // Megatron-core with TransformerEngine on GPU
	TraceLegacy                       // legacy Megatron (language_model.encoder)
	TraceMoE                          // Megatron-core MoE on NPU
	TraceMS                           // MindSpore Cell keys
	TraceGPULocal                     // Megatron-core local modules on GPU: other kernels (Triton, torch)
)

var TraceFwdMcore = []traceOp{
	{api: "NPU.npu_rms_norm", parent: "input_layernorm", role: "ln1"},
	{sub: "input_layernorm", Class: "RMSNorm", role: "ln1"},
	{api: "Functional.linear", parent: "self_attention.linear_qkv", role: "qkv"},
	{sub: "self_attention.linear_qkv", Class: "ColumnParallelLinear", role: "qkv"},
	{api: "NPU.npu_fusion_attention", parent: "self_attention.core_attention", role: "attn"},
	{sub: "self_attention.core_attention", Class: "DotProductAttention", role: "attn"},
	{api: "Functional.linear", parent: "self_attention.linear_proj", role: "proj"},
	{sub: "self_attention.linear_proj", Class: "RowParallelLinear", role: "proj"},
	{sub: "self_attention", Class: "SelfAttention", role: "proj"},
	{api: "Tensor.__add__", parent: "", role: "hmid"},
	{api: "NPU.npu_rms_norm", parent: "pre_mlp_layernorm", role: "ln2"},
	{sub: "pre_mlp_layernorm", Class: "RMSNorm", role: "ln2"},
	{api: "Functional.linear", parent: "mlp.linear_fc1", role: "fc1"},
	{sub: "mlp.linear_fc1", Class: "ColumnParallelLinear", role: "fc1"},
	{api: "NPU.npu_swiglu", parent: "mlp", role: "swi"},
	{api: "Functional.linear", parent: "mlp.linear_fc2", role: "fc2"},
	{sub: "mlp.linear_fc2", Class: "RowParallelLinear", role: "fc2"},
	{sub: "mlp", Class: "MLP", role: "fc2"},
	{api: "Tensor.__add__", parent: "", role: "hout"},
	{sub: "", Class: "TransformerLayer", role: "hout"},
}

var traceBwdMcore = []traceOp{
	{api: "Tensor.__add__", parent: "", role: "g_hout"},
	{api: "Functional.linear", parent: "mlp.linear_fc2", role: "g_fc2"},
	{sub: "mlp.linear_fc2", Class: "RowParallelLinear", role: "g_fc2"},
	{api: "NPU.npu_swiglu", parent: "mlp", role: "g_swi"},
	{api: "Functional.linear", parent: "mlp.linear_fc1", role: "g_fc1"},
	{sub: "mlp.linear_fc1", Class: "ColumnParallelLinear", role: "g_fc1"},
	{sub: "mlp", Class: "MLP", role: "g_fc1"},
	{api: "NPU.npu_rms_norm", parent: "pre_mlp_layernorm", role: "g_ln2"},
	{sub: "pre_mlp_layernorm", Class: "RMSNorm", role: "g_ln2"},
	{api: "Tensor.__add__", parent: "", role: "g_hmid"},
	{api: "Functional.linear", parent: "self_attention.linear_proj", role: "g_proj"},
	{sub: "self_attention.linear_proj", Class: "RowParallelLinear", role: "g_proj"},
	{api: "NPU.npu_fusion_attention", parent: "self_attention.core_attention", role: "g_attn"},
	{sub: "self_attention.core_attention", Class: "DotProductAttention", role: "g_attn"},
	{api: "Functional.linear", parent: "self_attention.linear_qkv", role: "g_qkv"},
	{sub: "self_attention.linear_qkv", Class: "ColumnParallelLinear", role: "g_qkv"},
	{sub: "self_attention", Class: "SelfAttention", role: "g_qkv"},
	{api: "NPU.npu_rms_norm", parent: "input_layernorm", role: "g_ln1"},
	{sub: "input_layernorm", Class: "RMSNorm", role: "g_ln1"},
	{sub: "", Class: "TransformerLayer", role: "g_hin"},
}

// TE on GPU: the norms are fused into the following linear
// (TELayerNormColumnParallelLinear), attention runs in a FlashAttention
// child, swiglu is silu × mul, linears call no torch API.
var traceFwdTE = []traceOp{
	{sub: "self_attention.linear_qkv", Class: "TELayerNormColumnParallelLinear", role: "qkv"},
	{sub: "self_attention.core_attention.flash_attention", Class: "FlashAttention", role: "attn"},
	{sub: "self_attention.core_attention", Class: "TEDotProductAttention", role: "attn"},
	{sub: "self_attention.linear_proj", Class: "TERowParallelLinear", role: "proj"},
	{sub: "self_attention", Class: "SelfAttention", role: "proj"},
	{api: "Tensor.__add__", parent: "", role: "hmid"},
	{sub: "mlp.linear_fc1", Class: "TELayerNormColumnParallelLinear", role: "fc1"},
	{api: "Functional.silu", parent: "mlp", role: "silu"},
	{api: "Tensor.__mul__", parent: "mlp", role: "swi"},
	{sub: "mlp.linear_fc2", Class: "TERowParallelLinear", role: "fc2"},
	{sub: "mlp", Class: "MLP", role: "fc2"},
	{api: "Tensor.__add__", parent: "", role: "hout"},
	{sub: "", Class: "TransformerLayer", role: "hout"},
}

var traceBwdTE = []traceOp{
	{api: "Tensor.__add__", parent: "", role: "g_hout"},
	{sub: "mlp.linear_fc2", Class: "TERowParallelLinear", role: "g_fc2"},
	{api: "Tensor.__mul__", parent: "mlp", role: "g_swi"},
	{api: "Functional.silu", parent: "mlp", role: "g_silu"},
	{sub: "mlp.linear_fc1", Class: "TELayerNormColumnParallelLinear", role: "g_ln2"},
	{sub: "mlp", Class: "MLP", role: "g_ln2"},
	{api: "Tensor.__add__", parent: "", role: "g_hmid"},
	{sub: "self_attention.linear_proj", Class: "TERowParallelLinear", role: "g_proj"},
	{sub: "self_attention.core_attention.flash_attention", Class: "FlashAttention", role: "g_attn"},
	{sub: "self_attention.core_attention", Class: "TEDotProductAttention", role: "g_attn"},
	{sub: "self_attention.linear_qkv", Class: "TELayerNormColumnParallelLinear", role: "g_ln1"},
	{sub: "self_attention", Class: "SelfAttention", role: "g_ln1"},
	{sub: "", Class: "TransformerLayer", role: "g_hin"},
}

// renames of the Megatron-core module paths and classes for the legacy and
// MindSpore flavours.
var traceLegacySub = map[string]string{
	"input_layernorm": "input_norm", "self_attention.linear_qkv": "self_attention.query_key_value",
	"self_attention.core_attention": "self_attention.core_attention_flash", "self_attention.linear_proj": "self_attention.dense",
	"pre_mlp_layernorm": "post_attention_norm", "mlp.linear_fc1": "mlp.dense_h_to_4h", "mlp.linear_fc2": "mlp.dense_4h_to_h",
}
var traceLegacyClass = map[string]string{
	"DotProductAttention": "FlashSelfAttention", "SelfAttention": "ParallelAttention", "MLP": "ParallelMLP",
	"TransformerLayer": "ParallelTransformerLayer",
}
var traceMSSub = map[string]string{
	"input_layernorm": "attention_norm", "self_attention": "attention", "self_attention.linear_qkv": "attention.w_qkv",
	"self_attention.core_attention": "attention.flash_attention", "self_attention.linear_proj": "attention.wo",
	"pre_mlp_layernorm": "ffn_norm", "mlp": "feed_forward", "mlp.linear_fc1": "feed_forward.w1", "mlp.linear_fc2": "feed_forward.w2",
}
var traceMSClass = map[string]string{
	"RMSNorm": "LlamaRMSNorm", "ColumnParallelLinear": "Linear", "RowParallelLinear": "Linear",
	"DotProductAttention": "FlashAttention", "SelfAttention": "LLamaAttention", "MLP": "LlamaFeedForward",
	"TransformerLayer": "LLamaDecodeLayer",
}
var traceMSAPI = map[string]string{
	"NPU.npu_rms_norm": "Primitive.RmsNorm", "Functional.linear": "Mint.matmul",
	"NPU.npu_fusion_attention": "Functional.flash_attention_score", "NPU.npu_swiglu": "Functional.swiglu",
	"Tensor.__add__": "Tensor.add",
}

// TraceMoE replaces the dense MLP by a router and moeExperts local experts.
const traceMoEExperts = 3

func traceMoESeq(seq []traceOp, bwd bool) []traceOp {
	var out []traceOp
	for _, o := range seq {
		isMLP := strings.HasPrefix(o.sub, "mlp") || strings.HasPrefix(o.parent, "mlp")
		if !isMLP {
			out = append(out, o)
			continue
		}
		if o.sub == "mlp" { // the MoE layer closes the MLP
			if !bwd {
				out = append(out, traceOp{sub: "mlp.router", Class: "TopKRouter", role: "router"})
			}
			for e := 0; e < traceMoEExperts; e++ {
				ex := fmt.Sprintf("mlp.experts.local_experts.%d", e)
				r := func(s string) string { return fmt.Sprintf("%s#%d", s, e) }
				if !bwd {
					out = append(out,
						traceOp{api: "Functional.linear", parent: ex + ".linear_fc1", role: r("fc1")},
						traceOp{sub: ex + ".linear_fc1", Class: "ColumnParallelLinear", role: r("fc1")},
						traceOp{api: "NPU.npu_swiglu", parent: ex, role: r("swi")},
						traceOp{api: "Functional.linear", parent: ex + ".linear_fc2", role: r("fc2")},
						traceOp{sub: ex + ".linear_fc2", Class: "RowParallelLinear", role: r("fc2")},
						traceOp{sub: ex, Class: "MLP", role: r("fc2")})
				} else {
					out = append(out,
						traceOp{sub: ex + ".linear_fc2", Class: "RowParallelLinear", role: r("g_fc2")},
						traceOp{api: "NPU.npu_swiglu", parent: ex, role: r("g_swi")},
						traceOp{sub: ex + ".linear_fc1", Class: "ColumnParallelLinear", role: r("g_fc1")},
						traceOp{sub: ex, Class: "MLP", role: r("g_fc1")})
				}
			}
			role := "fc2"
			if bwd {
				role = "g_fc1"
			}
			out = append(out, traceOp{sub: "mlp.experts", Class: "SequentialMLP", role: role}, traceOp{sub: "mlp", Class: "MoELayer", role: role})
		}
	}
	return out
}

func traceRename(seq []traceOp, subs, classes, apis map[string]string) []traceOp {
	out := make([]traceOp, len(seq))
	for i, o := range seq {
		if v, ok := subs[o.sub]; ok {
			o.sub = v
		}
		if v, ok := subs[o.parent]; ok {
			o.parent = v
		}
		if v, ok := classes[o.Class]; ok {
			o.Class = v
		}
		if v, ok := apis[o.api]; ok {
			o.api = v
		}
		out[i] = o
	}
	return out
}

// traceGPUAPI are the GPU kernels of the NPU APIs (one for one).
var traceGPUAPI = map[string]string{"NPU.npu_rms_norm": "Triton.rms_norm", "NPU.npu_fusion_attention": "Functional.scaled_dot_product_attention"}

// traceSplitSwiglu replaces the fused swiglu by silu × mul (two APIs).
func traceSplitSwiglu(seq []traceOp, bwd bool) []traceOp {
	var out []traceOp
	for _, o := range seq {
		if o.api != "NPU.npu_swiglu" {
			out = append(out, o)
			continue
		}
		silu := traceOp{api: "Functional.silu", parent: o.parent, role: "silu"}
		mul := traceOp{api: "Tensor.__mul__", parent: o.parent, role: "swi"}
		if bwd {
			silu.role, mul.role = "g_silu", "g_swi"
			out = append(out, mul, silu)
		} else {
			out = append(out, silu, mul)
		}
	}
	return out
}

func traceSeqs(f TraceFlavour) (fwd, bwd []traceOp) {
	switch f {
	case TraceGPULocal:
		return traceSplitSwiglu(traceRename(TraceFwdMcore, nil, nil, traceGPUAPI), false), traceSplitSwiglu(traceRename(traceBwdMcore, nil, nil, traceGPUAPI), true)
	case TraceTE:
		return traceFwdTE, traceBwdTE
	case TraceLegacy:
		return traceRename(TraceFwdMcore, traceLegacySub, traceLegacyClass, nil), traceRename(traceBwdMcore, traceLegacySub, traceLegacyClass, nil)
	case TraceMoE:
		return traceMoESeq(TraceFwdMcore, false), traceMoESeq(traceBwdMcore, true)
	case TraceMS:
		return traceRename(TraceFwdMcore, traceMSSub, traceMSClass, traceMSAPI), traceRename(traceBwdMcore, traceMSSub, traceMSClass, traceMSAPI)
	case TraceMindFormers:
		return traceMFSeqs() // trace_mindformers.go
	}
	return TraceFwdMcore, traceBwdMcore
}

func traceLayerPath(f TraceFlavour, l int) (prefix, path string) {
	switch f {
	case TraceLegacy:
		return "Module", fmt.Sprintf("module.module.language_model.encoder.layers.%d", l)
	case TraceMS:
		return "Cell", fmt.Sprintf("network_with_loss.model.layers.%d", l)
	case TraceMindFormers:
		return "Cell", fmt.Sprintf("network.model.layers.%d", l)
	}
	return "Module", fmt.Sprintf("module.module.decoder.layers.%d", l)
}

// TraceFault is the planted fault.
type TraceFault struct {
	On    bool
	Bwd   bool    // a backward-only fault (in the backward pass)
	Layer int     // local layer number
	Role  string  // tensor role ("swi", "attn", "g_swi", ...)
	F     float64 // factor; NaN plants a NaN
	Call  int     // micro-batch with the fault; -1 = every micro-batch
}

// traceDev is the deviation model of a planted fault.
var (
	traceBlockF = map[string]int{"ln1": 1, "qkv": 1, "attn": 1, "proj": 1, "ln2": 2, "fc1": 2, "swi": 2, "fc2": 2, "silu": 2, "router": 2}
	traceBlockB = map[string]int{"g_fc2": 2, "g_swi": 2, "g_fc1": 2, "g_ln2": 2, "g_silu": 2, "g_proj": 1, "g_attn": 1, "g_qkv": 1, "g_ln1": 1}
	traceResid  = map[string]bool{"hmid": true, "hout": true, "g_hout": true, "g_hmid": true, "g_hin": true}
)

// traceRoleOrder is the order of the roles in a pass (the Megatron-core
// sequence; other flavours' roles map onto it).
func traceRoleOrder(seq []traceOp) map[string]int {
	m := map[string]int{}
	for i, o := range seq {
		if _, ok := m[o.role]; !ok {
			m[o.role] = i
		}
	}
	return m
}

func traceExpert(role string) int {
	if i := strings.IndexByte(role, '#'); i >= 0 {
		var e int
		fmt.Sscan(role[i+1:], &e)
		return e
	}
	return -1
}

// traceKeys records, per built dump, the first key computing each tensor
// ("layer/call/dir/role" → key): the planted operator of a fault. Parallel
// cases build dumps at once: traceKeysMu guards the map (each inner map is
// written by its builder only).
var (
	traceKeys   = map[*model.Dump]map[string]string{}
	traceKeysMu sync.Mutex
)

// TraceKeysOf is the planted-operator keys of a built dump.
func TraceKeysOf(d *model.Dump) map[string]string {
	traceKeysMu.Lock()
	defer traceKeysMu.Unlock()
	return traceKeys[d]
}

func traceBase(role string) string {
	if i := strings.IndexByte(role, '#'); i >= 0 {
		return role[:i]
	}
	return role
}

// dev returns the fault's deviation of a tensor (role) of layer l in a pass.
func (f TraceFault) dev(bwd bool, l int, role string, call int) float64 {
	if !f.On || (f.Call >= 0 && call != f.Call) {
		return 1
	}
	F := f.F
	if math.IsNaN(F) {
		switch {
		case bwd && !f.Bwd: // a forward NaN poisons the whole backward
			return math.NaN()
		case bwd != f.Bwd:
			return 1
		case traceAfter(bwd, l, role, f.Layer, f.Role):
			if e, fe := traceExpert(role), traceExpert(f.Role); l == f.Layer && e >= 0 && fe >= 0 && e != fe {
				return 1 // another expert: computed in parallel, not downstream
			}
			return math.NaN()
		}
		return 1
	}
	part := func(s float64) float64 { return 1 + s*(F-1) }
	if f.Bwd != bwd {
		if f.Bwd { // backward fault: forward clean
			return 1
		}
		// forward fault seen in the backward
		if l >= f.Layer {
			return part(0.5)
		}
		return part(0.8)
	}
	if !traceAfter(bwd, l, role, f.Layer, f.Role) {
		return 1
	}
	base, fb := traceBase(role), traceBase(f.Role)
	block := traceBlockF
	if bwd {
		block = traceBlockB
	}
	if l == f.Layer {
		if e, fe := traceExpert(role), traceExpert(f.Role); e >= 0 && fe >= 0 && e != fe {
			return 1 // another expert: computed in parallel, not downstream
		}
		switch {
		case role == f.Role || base == fb && !strings.Contains(role, "#"):
			return F
		case traceResid[fb]:
			// a residual fault: the next residual add carries most of it,
			// norms remove the scale
			if traceResid[base] {
				return part(0.9)
			}
			return part(0.1)
		case block[base] != 0 && block[base] == block[fb] && !strings.Contains(role, "#"):
			return F // rest of the block: linear
		case traceResid[base]:
			return part(0.3)
		}
		return part(0.1)
	}
	k := float64(f.Layer - l)
	if !bwd {
		k = float64(l - f.Layer)
	}
	if traceResid[base] {
		return part(0.3 * math.Pow(0.9, k-1))
	}
	return part(0.1 * math.Pow(0.9, k-1))
}

// traceWithConstOps inserts a masked fill and a softmax (roles "mask"
// and "probs") before the attention kernel of a forward sequence.
func traceWithConstOps(seq []traceOp) []traceOp {
	var out []traceOp
	for _, o := range seq {
		if o.Class == "" && traceBase(o.role) == "attn" {
			out = append(out,
				traceOp{api: "Tensor.masked_fill", parent: "self_attention.core_attention", role: "mask"},
				traceOp{api: "Tensor.softmax", parent: "self_attention.core_attention", role: "probs"})
		}
		out = append(out, o)
	}
	return out
}

// traceConstStats fixes the statistics of a forward output that real
// models fix by construction: the softmax's Max, Min and Mean, the finite
// mask's Min (and its Mean and Norm, dominated by the mask), a norm's
// output Norm (√n with weights at 1; planted: a fault at the norm itself
// still shows). v is the tensor's varying part (data, device, fault).
func traceConstStats(t *model.TensorStat, role string, elems int64, seq int, planted bool, v func(model.Stat) float64) {
	const mask, masked = -1e4, 0.5 // the mask value and the share of masked elements
	n := float64(elems)
	switch traceBase(role) {
	case "probs":
		t.Stat[model.StatMax], t.Stat[model.StatMin], t.Stat[model.StatMean] = 1, 0, 1/float64(seq)
	case "mask":
		t.Stat[model.StatMin] = mask
		t.Stat[model.StatMean] = mask*masked + (1-masked)*t.Stat[model.StatMean]
		t.Stat[model.StatNorm] = math.Sqrt(mask*mask*masked*n + t.Stat[model.StatNorm]*t.Stat[model.StatNorm])
	case "ln1", "ln2":
		t.Stat[model.StatNorm] = math.Sqrt(n)
		if planted {
			t.Stat[model.StatNorm] *= v(model.StatNorm)
		}
	}
}

// traceAfter: is (l, role) at or after (fl, frole) in the pass's propagation?
func traceAfter(bwd bool, l int, role string, fl int, frole string) bool {
	if l != fl {
		if bwd {
			return l < fl
		}
		return l > fl
	}
	seq := TraceFwdMcore
	if bwd {
		seq = traceBwdMcore
	}
	ord := traceRoleOrder(seq)
	ri, ok1 := ord[traceBase(role)]
	fi, ok2 := ord[traceBase(frole)]
	if !ok1 || !ok2 {
		return traceBase(role) == traceBase(frole)
	}
	return ri >= fi
}

// TraceCfg is one synthetic dump.
type TraceCfg struct {
	Name      string
	Flavour   TraceFlavour
	Layers    int
	Stage     int // pipeline stage: layers are numbered locally, values follow the global layer
	Calls     int
	Level     string // "mix" (default), "L0" (modules only), "L1" (APIs only)
	NoParents bool   // no construct.json
	// PreOrder writes each module's record before its children's (msprobe
	// writes it after them); the planted operator (traceKeys) stays the
	// innermost record of the tensor.
	PreOrder  bool
	Recompute bool   // a recompute forward (forward.<Calls+c>, is_recompute) before each backward
	RecFlag   bool   // recompute records carry is_recompute
	Data      uint64 // data sample (A,B share one; C,D another)
	Device    uint64 // device noise stream
	Noise     float64
	Bias      float64 // multiplies every value (a device bias); 0 = 1
	APIBase   int
	Fault     TraceFault
	Seq       int
	// Walk adds a device drift that accumulates over the layers (rounding
	// differences carried by the residual stream), relative per layer.
	Walk float64
	// ExtraAPI: this device runs one more API per layer (a cast after the
	// first norm) that the other does not.
	ExtraAPI bool
	// ExpertElems: expert 2's tensors hold other element counts (routing
	// differs on this device).
	ExpertElems bool
	// StatBias scales one statistic only (Max) besides Bias.
	MaxBias float64
	// BF16 rounds Max and Min to bfloat16 (they are elements of the tensor).
	BF16 bool
	// FP32: the activations are float32 (a baseline run in full precision).
	FP32 bool
	// Outliers: ~1% of Max/Min values carry an extra log-normal jump of
	// this size (heavy tails of extreme-value statistics).
	Outliers float64
	// ConstStats adds the statistics real models fix by construction
	// (Megatron-core flavour, forward): a masked fill with a finite mask
	// (−1e4: its Min is the mask, its Mean and Norm dominated by it) and a
	// softmax (Max 1, Min 0, Mean 1/n) before the attention kernel, and
	// norms whose output Norm is √n (weights at 1) in every group.
	ConstStats bool
	Weights    bool // forward module records carry their weight statistics
	GradScale  float64
	Step       int
	Rank       int
}

// traceGauss is a deterministic standard normal for the given parts.
func traceGauss(parts ...any) float64 {
	h := fnv.New64a()
	fmt.Fprint(h, parts...)
	r := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
	return r.NormFloat64()
}

// traceRoleScale is the Norm of a role's tensor at layer 0.
func traceRoleScale(role string) float64 {
	b := traceBase(role)
	bwd := strings.HasPrefix(b, "g_")
	b = strings.TrimPrefix(b, "g_")
	s := map[string]float64{"ln1": 30, "qkv": 45, "attn": 9, "proj": 15, "hmid": 60, "ln2": 32, "fc1": 80, "swi": 20, "fc2": 14, "hout": 64, "silu": 25, "router": 4, "hin": 70}[b]
	if s == 0 {
		s = 10
	}
	if strings.Contains(role, "#") {
		s *= 0.6
	}
	if bwd {
		s *= 1e-3
	}
	return s
}

func TraceBuildDump(c TraceCfg) *model.Dump {
	if c.Calls == 0 {
		c.Calls = 1
	}
	if c.Seq == 0 {
		c.Seq = 16
	}
	if c.Bias == 0 {
		c.Bias = 1
	}
	if c.Level == "" {
		c.Level = "mix"
	}
	d := &model.Dump{Path: c.Name, Step: c.Step, Rank: c.Rank, Index: map[string]int{}, HasConstruct: !c.NoParents && c.Level != "L1"}
	fwd, bwd := traceSeqs(c.Flavour)
	if c.ConstStats && c.Flavour == TraceMcore {
		fwd = traceWithConstOps(fwd)
	}
	apiN := map[string]int{}
	keys := map[string]string{}
	traceKeysMu.Lock()
	traceKeys[d] = keys
	traceKeysMu.Unlock()
	add := func(op model.Op) {
		op.Order = len(d.Ops)
		d.Index[op.Key] = len(d.Ops)
		d.Ops = append(d.Ops, op)
	}
	tensor := func(name string, role string, gl int, v func(model.Stat) float64, elems int64) model.TensorStat {
		t := model.TensorStat{Name: name, Dtype: "torch.bfloat16", Shape: []int64{elems}, Elements: elems}
		if c.FP32 {
			t.Dtype = "torch.float32"
		}
		n := traceRoleScale(role) * (1 + 0.05*float64(gl))
		t.Stat[model.StatNorm] = n * v(model.StatNorm)
		t.Stat[model.StatMax] = 0.09 * n * v(model.StatMax)
		t.Stat[model.StatMin] = -0.08 * n * v(model.StatMin)
		mean := 0.004 * n
		if traceBase(role) == "attn" || traceBase(role) == "g_attn" {
			mean = 1e-5 * n // centred
		}
		t.Stat[model.StatMean] = mean * v(model.StatMean)
		if c.BF16 {
			t.Stat[model.StatMax] = traceBF16(t.Stat[model.StatMax])
			t.Stat[model.StatMin] = traceBF16(t.Stat[model.StatMin])
		}
		t.Has = [model.NumStats]bool{true, true, true, true}
		return t
	}
	prefix, _ := traceLayerPath(c.Flavour, 0)
	modKey := func(l int, sub, class, dir string, call int) (string, string) {
		_, p := traceLayerPath(c.Flavour, l)
		if sub != "" {
			p += "." + sub
		}
		return fmt.Sprintf("%s.%s.%s.%s.%d", prefix, p, class, dir, call), p
	}
	classOfSub := map[string]string{}
	for _, o := range fwd {
		if o.Class != "" {
			classOfSub[o.sub] = o.Class
		}
	}
	pass := func(bwdPass bool, l, call, keyCall int, seq []traceOp, rec bool) {
		dname := "forward"
		dir := model.Forward
		if bwdPass {
			dname, dir = "backward", model.Backward
		}
		gl := c.Stage*c.Layers + l
		var ents []traceEntry
		var grads []model.Op // parameters_grad records: written just before their module's backward record
		defer func() {
			if c.PreOrder {
				ents = tracePreOrder(ents)
			}
			for _, e := range ents {
				for _, g := range e.grads {
					add(g)
				}
				add(e.op)
			}
		}()
		for _, o := range seq {
			if o.Class != "" && c.Level == "L1" || o.Class == "" && c.Level == "L0" {
				continue
			}
			role := o.role
			elems := int64(c.Seq) * 64
			if strings.Contains(role, "#") {
				elems = int64(c.Seq) * 16 // tokens routed to the expert
				if c.ExpertElems && strings.HasSuffix(role, "#2") {
					elems += 64
				}
			}
			v := func(s model.Stat) float64 {
				sig := c.Noise
				if s == model.StatMax || s == model.StatMin {
					sig *= 2
				}
				// a recompute reproduces the forward exactly
				data := math.Exp(0.05 * traceGauss("data", c.Data, call, gl, role, s))
				dev := math.Exp(sig * traceGauss("dev", c.Device, call, gl, role, s))
				if c.Walk > 0 {
					w := 0.0
					for j := 0; j <= gl; j++ {
						w += traceGauss("walk", c.Device, c.Data, call, j, bwdPass)
					}
					dev *= math.Exp(c.Walk * w)
				}
				if c.Outliers > 0 && (s == model.StatMax || s == model.StatMin) && math.Abs(traceGauss("out", c.Device, call, gl, role, s)) > 2.576 {
					// ~1% of the extremes jump (another element is the max)
					dev *= math.Exp(c.Outliers * traceGauss("outv", c.Device, call, gl, role, s))
				}
				if s == model.StatMax && c.MaxBias > 0 {
					dev *= c.MaxBias
				}
				return data * dev * c.Bias * c.Fault.dev(bwdPass, l, role, call)
			}
			out := tensor("output.0", role, gl, v, elems)
			if c.ConstStats && !bwdPass {
				traceConstStats(&out, role, elems, c.Seq, c.Fault.On && role == c.Fault.Role && l == c.Fault.Layer && !c.Fault.Bwd, v)
			}
			in := tensor("input.0", role, gl, func(model.Stat) float64 { return 1 }, elems)
			if o.Class != "" {
				key, path := modKey(l, o.sub, o.Class, dname, keyCall)
				op := model.Op{Key: key, Kind: model.KindModule, Prefix: prefix, ModulePath: path, Class: o.Class,
					Direction: dir, CallIndex: keyCall, Layer: l, Inputs: []model.TensorStat{in}, Outputs: []model.TensorStat{out},
					Recompute: rec && c.RecFlag}
				if !c.NoParents && o.sub != "" {
					ps := ""
					if i := strings.LastIndexByte(o.sub, '.'); i >= 0 {
						ps = o.sub[:i]
					}
					pc := classOfSub[ps]
					if ps == "" {
						pc = classOfSub[""]
					}
					op.Parent, _ = modKey(l, ps, pc, dname, keyCall)
				}
				if k := fmt.Sprintf("%d/%d/%s/%s", l, call, dname, role); keys[k] == "" && !rec {
					keys[k] = key
				}
				if c.Weights && !bwdPass {
					w := tensor("weight", "w", gl, func(model.Stat) float64 { return 1 + 0.01*traceGauss("w", gl, o.sub) }, 4096)
					op.Params = []model.TensorStat{w}
				}
				if bwdPass && strings.Contains(o.Class, "Linear") && c.GradScale > 0 {
					gk, gp := modKey(l, o.sub, o.Class, "parameters_grad", keyCall)
					g := tensor("weight", "g_w", gl, func(model.Stat) float64 { return c.GradScale }, 4096)
					grads = append(grads, model.Op{Key: gk, Kind: model.KindModule, Prefix: prefix, ModulePath: gp, Class: o.Class,
						Direction: model.ParamGrad, CallIndex: keyCall, Layer: l, Params: []model.TensorStat{g}})
				}
				ents = append(ents, traceEntry{op: op, src: o, grads: grads})
				grads = nil
				continue
			}
			n := apiN[o.api]
			apiN[o.api] = n + 1
			key := fmt.Sprintf("%s.%d.%s", o.api, n+c.APIBase, dname)
			dot := strings.IndexByte(o.api, '.')
			op := model.Op{Key: key, Kind: model.KindAPI, Prefix: o.api[:dot], ModulePath: o.api[dot+1:],
				Direction: dir, CallIndex: n + c.APIBase, Layer: -1, Inputs: []model.TensorStat{in}, Outputs: []model.TensorStat{out},
				Recompute: rec && c.RecFlag}
			if !c.NoParents && c.Level != "L1" {
				op.Parent, _ = modKey(l, o.parent, classOfSub[o.parent], dname, keyCall)
			}
			if k := fmt.Sprintf("%d/%d/%s/%s", l, call, dname, role); keys[k] == "" && !rec {
				keys[k] = key
			}
			ents = append(ents, traceEntry{op: op, src: o})
		}
	}
	if c.ExtraAPI {
		var f2 []traceOp
		for _, o := range fwd {
			f2 = append(f2, o)
			if o.Class != "" && o.role == "ln1" {
				f2 = append(f2, traceOp{api: "Tensor.to", parent: "", role: "cast"})
			}
		}
		fwd = f2
	}
	// outside the layers: embedding before, final norm, output layer and
	// loss after (their APIs resemble a layer's: norm, linear, add)
	outside := func(dir model.Direction, call int, ops []traceOp) {
		dname := "forward"
		if dir == model.Backward {
			dname = "backward"
		}
		_, lp := traceLayerPath(c.Flavour, 0)
		root := lp[:strings.LastIndex(lp, ".layers.")]
		for _, o := range ops {
			if o.Class != "" && c.Level == "L1" || o.Class == "" && c.Level == "L0" {
				continue
			}
			v := func(st model.Stat) float64 {
				return math.Exp(0.05*traceGauss("data", c.Data, call, o.role, st) + c.Noise*traceGauss("dev", c.Device, call, o.role, st))
			}
			out := tensor("output.0", o.role, 0, v, int64(c.Seq)*64)
			if o.Class != "" {
				key := fmt.Sprintf("%s.%s.%s.%s.%d", prefix, root+"."+o.sub, o.Class, dname, call)
				add(model.Op{Key: key, Kind: model.KindModule, Prefix: prefix, ModulePath: root + "." + o.sub, Class: o.Class,
					Direction: dir, CallIndex: call, Layer: -1, Outputs: []model.TensorStat{out}})
				continue
			}
			n := apiN[o.api]
			apiN[o.api] = n + 1
			dot := strings.IndexByte(o.api, '.')
			op := model.Op{Key: fmt.Sprintf("%s.%d.%s", o.api, n+c.APIBase, dname), Kind: model.KindAPI, Prefix: o.api[:dot],
				ModulePath: o.api[dot+1:], Direction: dir, CallIndex: n + c.APIBase, Layer: -1, Outputs: []model.TensorStat{out}}
			if !c.NoParents && c.Level != "L1" {
				op.Parent = fmt.Sprintf("%s.%s.%s.%s.%d", prefix, root+"."+o.parent, classOfOutside[o.parent], dname, call)
			}
			add(op)
		}
	}
	rms := "NPU.npu_rms_norm"
	if c.Flavour == TraceMS {
		rms = swMSAPIName(rms)
	}
	pro := []traceOp{{api: "Functional.embedding", parent: "embedding", role: "emb"}, {sub: "embedding", Class: "LanguageModelEmbedding", role: "emb"}}
	epi := []traceOp{{api: rms, parent: "final_layernorm", role: "fln"}, {sub: "final_layernorm", Class: "RMSNorm", role: "fln"},
		{api: "Functional.linear", parent: "output_layer", role: "logits"}, {sub: "output_layer", Class: "ColumnParallelLinear", role: "logits"},
		{api: "Functional.cross_entropy", parent: "", role: "loss"}}
	for call := 0; call < c.Calls; call++ {
		outside(model.Forward, call, pro)
		for l := 0; l < c.Layers; l++ {
			pass(false, l, call, call, fwd, false)
		}
		outside(model.Forward, call, epi)
		outside(model.Backward, call, []traceOp{{sub: "output_layer", Class: "ColumnParallelLinear", role: "g_logits"}, {api: rms, parent: "final_layernorm", role: "g_fln"}})
		for l := c.Layers - 1; l >= 0; l-- {
			if c.Recompute {
				pass(false, l, call, c.Calls+call, fwd, true)
			}
			pass(true, l, call, call, bwd, false)
		}
		outside(model.Backward, call, []traceOp{{api: "Functional.embedding", parent: "embedding", role: "g_emb"}})
	}
	return d
}

var classOfOutside = map[string]string{"embedding": "LanguageModelEmbedding", "final_layernorm": "RMSNorm", "output_layer": "ColumnParallelLinear", "": "GPTModel"}

func swMSAPIName(api string) string {
	if v, ok := traceMSAPI[api]; ok {
		return v
	}
	return api
}

// TraceQuad is a four-group scenario.
type TraceQuad struct {
	Layers     int
	Calls      int
	Noise      float64
	Bias       float64 // device bias of B and D
	FlavA      TraceFlavour
	FlavB      TraceFlavour
	Level      string
	NoParents  bool
	PreOrder   bool // every dump writes module records before their children's
	Recompute  bool // on A only (B did not recompute)
	Fault      TraceFault
	NoCD       bool
	NoD        bool
	APIShift   int // B and D API counters shifted
	Seed       uint64
	ExtraAPIsB bool
	RecNoFlag  bool    // recompute records without is_recompute
	DropB      int     // B lacks layer DropB-1's forward records (0: none)
	Walk       float64 // device drift per layer (all dumps)
	ExpertB    bool    // B's expert 2 has other element counts
	MaxBias    float64 // B and D: Max scaled besides Bias
	BF16       bool    // Max/Min rounded to bfloat16
	BF16VsFP32 bool    // A and C in bfloat16 (Max/Min rounded), B and D float32
	Outliers   float64 // heavy-tailed Max/Min jumps (all dumps)
	ConstStats bool    // statistics fixed by construction (TraceCfg.ConstStats, all dumps)
}

func (q TraceQuad) Build() (a, b, c, d *model.Dump) {
	base := TraceCfg{Layers: q.Layers, Calls: q.Calls, Noise: q.Noise, Level: q.Level, NoParents: q.NoParents, PreOrder: q.PreOrder}
	ca, cb, cc, cd := base, base, base, base
	ca.Name, cb.Name, cc.Name, cd.Name = "A", "B", "C", "D"
	ca.Flavour, cc.Flavour = q.FlavA, q.FlavA
	cb.Flavour, cd.Flavour = q.FlavB, q.FlavB
	ca.Data, cb.Data = q.Seed*4+1, q.Seed*4+1
	cc.Data, cd.Data = q.Seed*4+2, q.Seed*4+2
	ca.Device, cb.Device, cc.Device, cd.Device = q.Seed*8+1, q.Seed*8+2, q.Seed*8+3, q.Seed*8+4
	cb.Bias, cd.Bias = q.Bias, q.Bias
	cb.APIBase, cd.APIBase = q.APIShift, q.APIShift
	ca.Recompute, ca.RecFlag = q.Recompute, !q.RecNoFlag
	cc.Recompute, cc.RecFlag = q.Recompute, !q.RecNoFlag
	cb.ExtraAPI, cd.ExtraAPI = q.ExtraAPIsB, q.ExtraAPIsB
	ca.Walk, cb.Walk, cc.Walk, cd.Walk = q.Walk, q.Walk, q.Walk, q.Walk
	cb.ExpertElems, cd.ExpertElems = q.ExpertB, q.ExpertB
	cb.MaxBias, cd.MaxBias = q.MaxBias, q.MaxBias
	ca.BF16, cb.BF16, cc.BF16, cd.BF16 = q.BF16, q.BF16, q.BF16, q.BF16
	if q.BF16VsFP32 {
		ca.BF16, cc.BF16 = true, true
		cb.FP32, cd.FP32 = true, true
	}
	ca.Outliers, cb.Outliers, cc.Outliers, cd.Outliers = q.Outliers, q.Outliers, q.Outliers, q.Outliers
	ca.ConstStats, cb.ConstStats, cc.ConstStats, cd.ConstStats = q.ConstStats, q.ConstStats, q.ConstStats, q.ConstStats
	ca.Fault = q.Fault
	a, b = TraceBuildDump(ca), TraceBuildDump(cb)
	if q.DropB > 0 {
		tag := fmt.Sprintf(".layers.%d.", q.DropB-1)
		DropOps(b, func(op *model.Op) bool {
			return op.Direction == model.Forward && (strings.Contains(op.Key, tag) || strings.Contains(op.Parent, tag))
		})
	}
	if !q.NoCD {
		c = TraceBuildDump(cc)
		if !q.NoD {
			d = TraceBuildDump(cd)
		}
	}
	return
}

// TracePlantedKey is the key in A of the first op computing the planted
// tensor at the fault layer and call (the planted operator).
func TracePlantedKey(a *model.Dump, q TraceQuad) string {
	dir := "forward"
	if q.Fault.Bwd {
		dir = "backward"
	}
	return TraceKeysOf(a)[fmt.Sprintf("%d/%d/%s/%s", q.Fault.Layer, max(q.Fault.Call, 0), dir, q.Fault.Role)]
}

// traceBF16 rounds to the nearest bfloat16 (8 significant bits).
func traceBF16(v float64) float64 {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	f := math.Float32bits(float32(v))
	f += 0x7fff + (f>>16)&1
	return float64(math.Float32frombits(f &^ 0xffff))
}

// traceEntry is one record of a layer's pass before it is written.
type traceEntry struct {
	op    model.Op
	src   traceOp
	grads []model.Op
}

// contains: module record e contains record f (same layer and pass).
func (e traceEntry) contains(f traceEntry) bool {
	if e.src.Class == "" {
		return false
	}
	m := e.src.sub
	in := func(p string) bool { return m == "" || p == m || strings.HasPrefix(p, m+".") }
	if f.src.Class != "" {
		return f.src.sub != m && in(f.src.sub)
	}
	return in(f.src.parent)
}

// tracePreOrder turns a post-order record list (each module after its
// contents) into pre-order (each module before them).
func tracePreOrder(es []traceEntry) []traceEntry {
	var trees [][]traceEntry
	for i := len(es) - 1; i >= 0; {
		root, s := es[i], i
		for s > 0 && root.contains(es[s-1]) {
			s--
		}
		trees = append(trees, append([]traceEntry{root}, tracePreOrder(es[s:i])...))
		i = s - 1
	}
	var out []traceEntry
	for k := len(trees) - 1; k >= 0; k-- {
		out = append(out, trees[k]...)
	}
	return out
}
