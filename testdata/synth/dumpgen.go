package synth

import (
	"fmt"
	"math"
)

// tracer builds the call tree of the micro batches of one dump (one device,
// optimizer step and rank).
type tracer struct {
	r       *Run
	dev     Device
	step    int // absolute optimizer step
	rank    int
	mb      int // current micro batch
	nmb     int
	session int  // index of the step among the dumped steps
	faulty  bool // the current micro batch carries the planted operator fault
	g       *statGen
	w       *statGen // weights: the same on every DP rank
	// counters are the per-API call counters of the step.
	counters map[string]int
	// weights caches weight statistics: one value per step.
	weights map[string]tensor
	// paramOf maps a module path to its weight's index in Run.Params.
	paramOf map[string]int
}

// Relative device noise of weights compared to activations (replicas start
// from the same checkpoint; only the recent updates differ).
const weightNoiseShare = 0.1

func (r *Run) newTracer(dev Device, step, rank, session int) *tracer {
	c := r.Cfg
	t := &tracer{
		r: r, dev: dev, step: step, rank: rank, nmb: c.DumpMicroBatches, session: session,
		g: &statGen{
			data:     seeded(c.Seed, "act", step, rank),
			noise:    seeded(c.Seed, "actnoise", step, rank, int(dev)),
			devNoise: c.DumpNoise,
		},
		w: &statGen{
			data:     seeded(c.Seed, "weight", step),
			noise:    seeded(c.Seed, "weightnoise", step, int(dev)),
			devNoise: c.DumpNoise * weightNoiseShare,
		},
		counters: map[string]int{},
		paramOf:  map[string]int{},
		weights:  map[string]tensor{},
	}
	for i, p := range r.Params {
		t.paramOf[p.Module] = i
	}
	return t
}

// weight returns the cached statistics of a weight, drawing them once.
func (t *tracer) weight(name string, draw func() tensor) tensor {
	if w, ok := t.weights[name]; ok {
		return w
	}
	w := draw()
	t.weights[name] = w
	return w
}

// faultMicroBatch is the dumped micro batch that carries the planted
// operator fault: the fault's micro step when the dump holds it, else the
// first dumped micro batch (a one-micro-batch dump replays the faulty one).
func (c Config) faultMicroBatch() int {
	return max(0, c.Fault.MicroStep-(c.Window-c.DumpMicroBatches))
}

func (t *tracer) mod(path, class, site string) *node {
	return &node{module: true, prefix: "Module", path: path, class: class, idx: t.mb, mb: t.mb, site: site}
}

func (t *tracer) api(prefix, name, site string) *node {
	k := prefix + "." + name
	n := &node{prefix: prefix, api: name, idx: t.counters[k], mb: t.mb, site: site}
	t.counters[k]++
	return n
}

// withGrad attaches the module's parameters_grad entry: the accumulated
// main_grad that the monitor recorded at the matching micro step.
func (t *tracer) withGrad(n *node) *node {
	p, ok := t.paramOf[n.path]
	if !ok {
		return n
	}
	c := t.r.Cfg
	micro := c.Window - t.nmb + t.mb
	gs := t.r.Grad(t.dev, t.rank, t.step, micro, p)
	n.pgrad = []kv{{"weight", fromGrad(t.r.Params[p].Shape, gs)}}
	n.pgradN = t.session*t.nmb + t.mb
	return n
}

// Deviation model of the planted operator fault (anomalous device, fault
// rank and step, faulty micro batch). F is the planted operator's factor.

// hdev is the deviation of the residual stream entering layer j.
func (t *tracer) hdev(j int) float64 {
	L, F := t.r.Cfg.Fault.Layer, t.r.Cfg.Fault.OpScale
	if !t.faulty || j <= L {
		return 1
	}
	return 1 + 0.35*(F-1)*math.Pow(0.75, float64(j-L-1))
}

// fdev is the forward deviation of a tensor role in layer l: none upstream
// of the planted op, F at its output, a smaller propagated one downstream.
func (t *tracer) fdev(l int, role string) float64 {
	L, F := t.r.Cfg.Fault.Layer, t.r.Cfg.Fault.OpScale
	if !t.faulty || l < L {
		return 1
	}
	if l == L {
		switch role {
		case "swi":
			return F
		case "fc2":
			return 1 + 0.85*(F-1)
		case "hout":
			return t.hdev(L + 1)
		}
		return 1
	}
	switch role {
	case "hout":
		return t.hdev(l + 1)
	case "hmid":
		return (t.hdev(l) + t.hdev(l+1)) / 2
	}
	return 1 + 0.3*(t.hdev(l)-1)
}

// bdev is the backward deviation in layer l: none above the fault layer, in
// the fault layer from the planted op's backward on ("big" in the MLP,
// "mid" on the attention side), amplified in the layers below.
func (t *tracer) bdev(l int, role string) float64 {
	L, F := t.r.Cfg.Fault.Layer, t.r.Cfg.Fault.OpScale
	if !t.faulty || l > L {
		return 1
	}
	if l == L {
		switch role {
		case "big":
			return 1 + 0.9*(F-1)
		case "mid":
			return 1 + 0.5*(F-1)
		}
		return 1
	}
	return 1 + 0.6*(F-1)*math.Pow(1.1, float64(L-1-l))
}

// gresDev is the deviation of the gradient w.r.t. layer j's input.
func (t *tracer) gresDev(j int) float64 {
	L := t.r.Cfg.Fault.Layer
	switch {
	case j > L:
		return 1
	case j == L:
		return t.bdev(L, "mid")
	}
	return t.bdev(j, "")
}

// Activation scales (rms) of the synthetic model.
func hiddenSigma(l int) float64 { return 0.25 * (1 + 0.18*float64(l)) }
func gradSigma(l, layers int) float64 {
	return 3e-6 * (1 + 0.08*float64(layers-l))
}

// shared tensors of one micro batch
type mbInputs struct {
	tokens, posIDs, mask, freqs, cos, sin tensor
}

const layersPath = "module.module.decoder.layers"

// layer builds transformer layer l; hIn is its input, gOut/gIn the
// gradients w.r.t. its output and input. It returns the layer node and its
// output.
func (t *tracer) layer(l int, in mbInputs, hIn, gOut, gIn tensor) (*node, tensor) {
	g, w := t.g, t.w
	S, H := int64(seqLen), int64(hidden)
	ls := 1 + 0.04*float64(l)
	p := fmt.Sprintf("%s.%d", layersPath, l)
	act := func(shape []int64, sigma float64, role string) tensor {
		return g.act(shape, bf16, sigma*ls, t.fdev(l, role), true)
	}
	gsig := gradSigma(l, t.r.Cfg.Layers)
	grad := func(shape []int64, rel float64, role string) tensor {
		return g.act(shape, bf16, gsig*rel, t.bdev(l, role), false)
	}
	hid := shp(S, 1, H)
	lnWeight := func(name string) tensor {
		return t.weight(p+name, func() tensor { return w.pos(shp(H), bf16, 1.25+0.02*float64(l), 0.71, 1.0, 1.0, 1, true) })
	}
	linWeight := func(name string, shape []int64) tensor {
		return t.weight(p+name, func() tensor { return w.act(shape, bf16, 0.02*(1+0.02*float64(l)), 1, true) })
	}
	rstd := func(x tensor) tensor {
		rms := x.st[3] / math.Sqrt(float64(elements(x.shape)))
		return g.pos(shp(S, 1, 1), f32, 1.3/rms, 0.78/rms, 1.0/rms, 1.01/rms, 1, false)
	}

	// forward tensors
	gamma1, gamma2 := lnWeight(".input_layernorm"), lnWeight(".pre_mlp_layernorm")
	wQKV, wProj := linWeight(".qkv", shp(qkvOut, H)), linWeight(".proj", shp(H, attnLocal))
	wFC1, wFC2 := linWeight(".fc1", shp(ffnHidden, H)), linWeight(".fc2", shp(H, ffnHidden/tpSize))
	ln1 := act(hid, 0.42, "")
	rstd1 := rstd(hIn)
	qkv := act(shp(S, 1, qkvOut), 0.55, "")
	qIn := act(shp(S, 1, localHeads, headDim), 0.55, "")
	qOut := act(shp(S, 1, localHeads, headDim), 0.55, "")
	kIn := act(shp(S, 1, kvLocal/headDim, headDim), 0.7, "")
	kOut := act(shp(S, 1, kvLocal/headDim, headDim), 0.7, "")
	v := act(shp(S, 1, kvLocal), 0.35, "")
	q2, k2 := qOut, kOut
	q2.shape, k2.shape = shp(S, 1, attnLocal), shp(S, 1, kvLocal)
	attn := act(shp(S, 1, attnLocal), 0.06, "")
	softMax := g.pos(shp(1, localHeads, S, 8), f32, 13.4, 0.02, 6.87, 7.3, 1, false)
	softSum := g.pos(shp(1, localHeads, S, 8), f32, 546, 1.0, 132.6, 188, 1, false)
	projPart := act(hid, 0.085, "")
	proj := act(hid, 0.12, "")
	hMid := g.act(hid, bf16, (hiddenSigma(l)+hiddenSigma(l+1))/2, t.fdev(l, "hmid"), true)
	ln2 := act(hid, 0.45, "")
	rstd2 := rstd(hMid)
	fc1 := act(shp(S, 1, ffnHidden), 0.8, "")
	swi := act(shp(S, 1, ffnHidden/tpSize), 0.22, "swi")
	fc2Part := act(hid, 0.1, "fc2")
	fc2 := act(hid, 0.14, "fc2")
	hOut := g.act(hid, bf16, hiddenSigma(l+1), t.fdev(l, "hout"), true)

	// backward tensors (gradients)
	gSwi := grad(shp(S, 1, ffnHidden/tpSize), 1.1, "")
	gFC1 := grad(shp(S, 1, ffnHidden), 0.6, "big")
	gLn2 := grad(hid, 0.9, "big")
	gLn2In := grad(hid, 0.7, "mid")
	gGamma2 := grad(shp(H), 40, "big")
	gMid := grad(hid, 1.0, "mid")
	gAttn := grad(shp(S, 1, attnLocal), 1.2, "mid")
	gq := grad(shp(S, 1, attnLocal), 0.9, "mid")
	gk := grad(shp(S, 1, kvLocal), 1.1, "mid")
	gv := grad(shp(S, 1, kvLocal), 0.8, "mid")
	gqR, gkR := gq, gk
	gqR.shape, gkR.shape = qIn.shape, kIn.shape
	gqIn := grad(qIn.shape, 0.9, "mid")
	gkIn := grad(kIn.shape, 1.1, "mid")
	gQKV := grad(shp(S, 1, qkvOut), 0.5, "mid")
	gLn1 := grad(hid, 0.8, "mid")
	gLn1In := grad(hid, 0.7, "mid")
	gGamma1 := grad(shp(H), 40, "mid")

	site := func(s string) string { return "layer." + s }
	layerKw := []kv{{"attention_mask", in.mask}, {"context", null()}, {"context_mask", null()},
		{"rotary_pos_emb", in.freqs}, {"inference_params", null()}, {"packed_seq_params", null()}}

	// input_layernorm
	rms1 := t.api("NPU", "npu_rms_norm", site("rms1"))
	rms1.in, rms1.kw, rms1.out = []tensor{hIn, gamma1}, []kv{{"epsilon", floatArg(1e-05)}}, []tensor{ln1, rstd1}
	rms1.bin, rms1.bout = []tensor{gLn1, null()}, []tensor{gLn1In, gGamma1}
	ln1m := t.withGrad(t.mod(p+".input_layernorm", "RMSNorm", site("ln1")))
	ln1m.in, ln1m.out, ln1m.params = []tensor{hIn}, []tensor{ln1}, []kv{{"weight", gamma1}}
	ln1m.bin, ln1m.bout = []tensor{gLn1}, []tensor{gLn1In}
	ln1m.add(rms1)

	// self attention
	linQKV := t.api("Functional", "linear", site("linear_qkv"))
	linQKV.in, linQKV.out = []tensor{ln1, wQKV}, []tensor{qkv}
	linQKV.bin, linQKV.bout = []tensor{gQKV}, []tensor{gLn1, null()}
	qkvm := t.withGrad(t.mod(p+".self_attention.linear_qkv", "ColumnParallelLinear", site("qkv")))
	qkvm.in, qkvm.out, qkvm.params = []tensor{ln1}, []tensor{qkv, null()}, []kv{{"weight", wQKV}}
	qkvm.bin, qkvm.bout = []tensor{gQKV, null()}, []tensor{gLn1}
	qkvm.add(linQKV)
	rotQ := t.api("NPU", "npu_rotary_mul", site("rot_q"))
	rotQ.in, rotQ.out = []tensor{qIn, in.cos, in.sin}, []tensor{qOut}
	rotQ.bin, rotQ.bout = []tensor{gqR}, []tensor{gqIn, null(), null()}
	rotK := t.api("NPU", "npu_rotary_mul", site("rot_k"))
	rotK.in, rotK.out = []tensor{kIn, in.cos, in.sin}, []tensor{kOut}
	rotK.bin, rotK.bout = []tensor{gkR}, []tensor{gkIn, null(), null()}
	fa := t.api("NPU", "npu_fusion_attention", site("fa"))
	fa.in = []tensor{q2, k2, v, intArg(localHeads), strArg("SBH")}
	fa.kw = []kv{{"pse", null()}, {"padding_mask", null()}, {"atten_mask", boolMask(shp(2048, 2048))},
		{"scale", floatArg(0.08838834764831845)}, {"pre_tockens", intArg(65536)}, {"next_tockens", intArg(0)},
		{"keep_prob", floatArg(1.0)}, {"inner_precise", intArg(0)}, {"sparse_mode", intArg(2)}}
	fa.out = []tensor{attn, softMax, softSum, empty(bf16), intArg(187651464146080 + int64(l)*4096), intArg(281472727719936), intArg(201326592)}
	fa.bin, fa.bout = []tensor{gAttn, null(), null(), null()}, []tensor{gq, gk, gv, null()}
	core := t.mod(p+".self_attention.core_attention", "DotProductAttention", site("core"))
	core.in, core.kw, core.out = []tensor{q2, k2, v, in.mask}, []kv{{"attn_mask_type", null()}, {"packed_seq_params", null()}}, []tensor{attn}
	core.bin, core.bout = []tensor{gAttn}, []tensor{gq, gk, gv, null()}
	core.add(fa)
	linProj := t.api("Functional", "linear", site("linear_proj"))
	linProj.in, linProj.out = []tensor{attn, wProj}, []tensor{projPart}
	linProj.bin, linProj.bout = []tensor{gMid}, []tensor{gAttn, null()}
	arProj := t.api("Distributed", "all_reduce", site("ar_proj"))
	arProj.in, arProj.kw, arProj.out, arProj.noBwd = []tensor{projPart}, []kv{{"group", null()}}, []tensor{proj, null()}, true
	projm := t.withGrad(t.mod(p+".self_attention.linear_proj", "RowParallelLinear", site("proj")))
	projm.in, projm.out, projm.params = []tensor{attn}, []tensor{proj, null()}, []kv{{"weight", wProj}}
	projm.bin, projm.bout = []tensor{gMid, null()}, []tensor{gAttn}
	projm.add(linProj, arProj)
	sa := t.mod(p+".self_attention", "SelfAttention", site("sa"))
	sa.in = []tensor{ln1}
	sa.kw = []kv{{"attention_mask", in.mask}, {"key_value_states", null()}, {"inference_params", null()},
		{"rotary_pos_emb", in.freqs}, {"packed_seq_params", null()}}
	sa.out, sa.bin, sa.bout = []tensor{proj, null()}, []tensor{gMid, null()}, []tensor{gLn1}
	sa.add(qkvm, rotQ, rotK, core, projm)
	add1 := t.api("Tensor", "__add__", site("add_attn"))
	add1.in, add1.out = []tensor{proj, hIn}, []tensor{hMid}
	add1.bin, add1.bout = []tensor{gMid}, []tensor{gMid, gMid}

	// pre_mlp_layernorm + MLP
	rms2 := t.api("NPU", "npu_rms_norm", site("rms2"))
	rms2.in, rms2.kw, rms2.out = []tensor{hMid, gamma2}, []kv{{"epsilon", floatArg(1e-05)}}, []tensor{ln2, rstd2}
	rms2.bin, rms2.bout = []tensor{gLn2, null()}, []tensor{gLn2In, gGamma2}
	ln2m := t.withGrad(t.mod(p+".pre_mlp_layernorm", "RMSNorm", site("ln2")))
	ln2m.in, ln2m.out, ln2m.params = []tensor{hMid}, []tensor{ln2}, []kv{{"weight", gamma2}}
	ln2m.bin, ln2m.bout = []tensor{gLn2}, []tensor{gLn2In}
	ln2m.add(rms2)
	linFC1 := t.api("Functional", "linear", site("linear_fc1"))
	linFC1.in, linFC1.out = []tensor{ln2, wFC1}, []tensor{fc1}
	linFC1.bin, linFC1.bout = []tensor{gFC1}, []tensor{gLn2, null()}
	fc1m := t.withGrad(t.mod(p+".mlp.linear_fc1", "ColumnParallelLinear", site("fc1")))
	fc1m.in, fc1m.out, fc1m.params = []tensor{ln2}, []tensor{fc1, null()}, []kv{{"weight", wFC1}}
	fc1m.bin, fc1m.bout = []tensor{gFC1, null()}, []tensor{gLn2}
	fc1m.add(linFC1)
	swiglu := t.api("NPU", "npu_swiglu", site("swiglu"))
	swiglu.in, swiglu.kw, swiglu.out = []tensor{fc1}, []kv{{"dim", intArg(-1)}}, []tensor{swi}
	swiglu.bin, swiglu.bout = []tensor{gSwi}, []tensor{gFC1}
	linFC2 := t.api("Functional", "linear", site("linear_fc2"))
	linFC2.in, linFC2.out = []tensor{swi, wFC2}, []tensor{fc2Part}
	linFC2.bin, linFC2.bout = []tensor{gOut}, []tensor{gSwi, null()}
	arFC2 := t.api("Distributed", "all_reduce", site("ar_fc2"))
	arFC2.in, arFC2.kw, arFC2.out, arFC2.noBwd = []tensor{fc2Part}, []kv{{"group", null()}}, []tensor{fc2, null()}, true
	fc2m := t.withGrad(t.mod(p+".mlp.linear_fc2", "RowParallelLinear", site("fc2")))
	fc2m.in, fc2m.out, fc2m.params = []tensor{swi}, []tensor{fc2, null()}, []kv{{"weight", wFC2}}
	fc2m.bin, fc2m.bout = []tensor{gOut, null()}, []tensor{gSwi}
	fc2m.add(linFC2, arFC2)
	mlp := t.mod(p+".mlp", "MLP", site("mlp"))
	mlp.in, mlp.out, mlp.bin, mlp.bout = []tensor{ln2}, []tensor{fc2, null()}, []tensor{gOut, null()}, []tensor{gLn2}
	mlp.add(fc1m, swiglu, fc2m)
	add2 := t.api("Tensor", "__add__", site("add_mlp"))
	add2.in, add2.out = []tensor{fc2, hMid}, []tensor{hOut}
	add2.bin, add2.bout = []tensor{gOut}, []tensor{gOut, gOut}

	tl := t.mod(p, "TransformerLayer", site("layer"))
	tl.in, tl.kw, tl.out = []tensor{hIn}, layerKw, []tensor{hOut, null()}
	tl.bin, tl.bout = []tensor{gOut, null()}, []tensor{gIn}
	tl.add(ln1m, sa, add1, ln2m, mlp, add2)
	return tl, hOut
}

// rmsOf is the rms of a tensor from its Norm.
func rmsOf(x tensor) float64 { return x.st[3] / math.Sqrt(float64(elements(x.shape))) }
