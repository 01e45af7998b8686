package synth

// microBatch builds the whole call tree of the tracer's current micro batch,
// rooted at the Float16Module wrapper.
func (t *tracer) microBatch() *node {
	c := t.r.Cfg
	g, w := t.g, t.w
	x := &statGen{data: g.data, noise: seeded(c.Seed, "exact"), devNoise: 0} // identical on both devices
	t.faulty = t.dev == Anomalous && t.step == c.Fault.OptStep && t.rank == c.Fault.Rank && t.mb == c.faultMicroBatch()
	S, H := int64(seqLen), int64(hidden)
	hid := shp(S, 1, H)
	L := c.Layers
	in := mbInputs{
		tokens: x.pos(shp(1, S), i64, 63871, 3, 31500, 36400, 1, false),
		posIDs: x.pos(shp(1, S), i64, 4095, 0, 2047.5, 2364.5, 1, false),
		mask:   boolMask(shp(1, 1, S, S)),
		freqs:  x.pos(shp(S, 1, 1, headDim), f32, 4095, 0, 238.66, 591, 1, false),
		cos:    x.pos(shp(S, 1, 1, headDim), bf16, 1, -1, 0.29, 0.72, 1, false),
		sin:    x.pos(shp(S, 1, 1, headDim), bf16, 1, -1, 0.11, 0.69, 1, false),
	}
	F := c.Fault.OpScale
	finalDev := 1 + 0.3*(t.hdev(L)-1)
	lossDev := 1.0
	if t.faulty {
		lossDev = 1 + 0.05*(F-1)
	}
	// gradients of the residual stream entering each layer (and the final norm)
	gRes := make([]tensor, L+1)
	for j := 0; j <= L; j++ {
		gRes[j] = g.act(hid, bf16, gradSigma(j, L), t.gresDev(j), false)
	}
	gLoss := tensor{kind: tTensor, dtype: f32, shape: shp(1, S), st: [4]float64{1.0 / 4096, 1.0 / 4096, 1.0 / 4096, 1.0 / 64}}
	gLogits := g.act(shp(S, 1, vocabLocal), bf16, 4e-7, 1, false)
	gHFinal := g.act(hid, bf16, gradSigma(L, L)*1.2, 1, false)

	site := func(s string) string { return "top." + s }
	// embedding
	wEmb := t.weight("emb", func() tensor { return w.act(shp(vocabLocal, H), bf16, 0.02, 1, true) })
	embPart := g.act(shp(1, S, H), bf16, 0.18, 1, true)
	embRaw := g.act(shp(1, S, H), bf16, hiddenSigma(0), 1, true)
	emb0 := embRaw
	emb0.shape = hid
	gEmbRaw := gRes[0]
	gEmbRaw.shape = shp(1, S, H)
	femb := t.api("Functional", "embedding", site("embedding"))
	femb.in, femb.out = []tensor{in.tokens, wEmb}, []tensor{embPart}
	femb.bin, femb.bout = []tensor{gEmbRaw}, []tensor{null(), null()}
	arEmb := t.api("Distributed", "all_reduce", site("ar_emb"))
	arEmb.in, arEmb.kw, arEmb.out, arEmb.noBwd = []tensor{embPart}, []kv{{"group", null()}}, []tensor{embRaw, null()}, true
	vpe := t.withGrad(t.mod("module.module.embedding.word_embeddings", "VocabParallelEmbedding", site("vpe")))
	vpe.in, vpe.out, vpe.params = []tensor{in.tokens}, []tensor{embRaw}, []kv{{"weight", wEmb}}
	vpe.bin, vpe.bout = []tensor{gEmbRaw}, []tensor{null()}
	vpe.add(femb, arEmb)
	tr := t.api("Tensor", "transpose", site("transpose"))
	tr.in, tr.out = []tensor{embRaw, intArg(0), intArg(1)}, []tensor{emb0}
	tr.bin, tr.bout = []tensor{gRes[0]}, []tensor{gEmbRaw, null(), null()}
	lme := t.mod("module.module.embedding", "LanguageModelEmbedding", site("lme"))
	lme.in, lme.out = []tensor{in.tokens, in.posIDs}, []tensor{emb0}
	lme.bin, lme.bout = []tensor{gRes[0]}, []tensor{null(), null()}
	lme.add(vpe, tr)
	rot := t.mod("module.module.rotary_pos_emb", "RotaryEmbedding", site("rotary"))
	rot.in, rot.out, rot.noBwd = []tensor{intArg(S)}, []tensor{in.freqs}, true

	// decoder
	block := t.mod("module.module.decoder", "TransformerBlock", site("block"))
	block.in = []tensor{emb0, in.mask}
	block.kw = []kv{{"context", null()}, {"context_mask", null()}, {"rotary_pos_emb", in.freqs},
		{"inference_params", null()}, {"packed_seq_params", null()}}
	h := emb0
	for l := 0; l < L; l++ {
		var ln *node
		ln, h = t.layer(l, in, h, gRes[l+1], gRes[l])
		block.add(ln)
	}
	gammaF := t.weight("final_ln", func() tensor { return w.pos(shp(H), bf16, 1.9, 0.42, 1.1, 1.12, 1, true) })
	hFinal := g.act(hid, bf16, 0.9, finalDev, true)
	rstdF := g.pos(shp(S, 1, 1), f32, 1.3/rmsOf(h), 0.78/rmsOf(h), 1/rmsOf(h), 1.01/rmsOf(h), 1, false)
	rmsF := t.api("NPU", "npu_rms_norm", site("rms_final"))
	rmsF.in, rmsF.kw, rmsF.out = []tensor{h, gammaF}, []kv{{"epsilon", floatArg(1e-05)}}, []tensor{hFinal, rstdF}
	rmsF.bin, rmsF.bout = []tensor{gHFinal, null()}, []tensor{gRes[L], g.act(shp(H), bf16, gradSigma(L, L)*40, 1, false)}
	fln := t.withGrad(t.mod("module.module.decoder.final_layernorm", "RMSNorm", site("final_ln")))
	fln.in, fln.out, fln.params = []tensor{h}, []tensor{hFinal}, []kv{{"weight", gammaF}}
	fln.bin, fln.bout = []tensor{gHFinal}, []tensor{gRes[L]}
	fln.add(rmsF)
	block.add(fln)
	block.out, block.bin, block.bout = []tensor{hFinal}, []tensor{gHFinal}, []tensor{gRes[0], null()}

	// output layer and loss
	wOut := t.weight("output", func() tensor { return w.act(shp(vocabLocal, H), bf16, 0.021, 1, true) })
	logits := g.act(shp(S, 1, vocabLocal), bf16, 2.1, finalDev, true)
	linOut := t.api("Functional", "linear", site("linear_out"))
	linOut.in, linOut.out = []tensor{hFinal, wOut}, []tensor{logits}
	linOut.bin, linOut.bout = []tensor{gLogits}, []tensor{gHFinal, null()}
	outm := t.withGrad(t.mod("module.module.output_layer", "ColumnParallelLinear", site("output")))
	outm.in, outm.out, outm.params = []tensor{hFinal}, []tensor{logits, null()}, []kv{{"weight", wOut}}
	outm.bin, outm.bout = []tensor{gLogits, null()}, []tensor{gHFinal}
	outm.add(linOut)
	loss := g.pos(shp(1, S), f32, 11.9, 0.21, 2.43, 2.9, lossDev, true)

	gptIn := []tensor{in.tokens, in.posIDs, in.mask}
	gptKw := []kv{{"decoder_input", null()}, {"labels", in.tokens}, {"inference_params", null()},
		{"packed_seq_params", null()}, {"extra_block_kwargs", null()}}
	gpt := t.mod("module.module", "GPTModel", site("gpt"))
	gpt.in, gpt.kw, gpt.out = gptIn, gptKw, []tensor{loss}
	gpt.bin, gpt.bout = []tensor{gLoss}, []tensor{null(), null(), null()}
	gpt.add(lme, rot, block, outm)
	f16 := t.mod("module", "Float16Module", site("f16"))
	f16.in, f16.kw, f16.out = gptIn, gptKw, []tensor{loss}
	f16.bin, f16.bout = []tensor{gLoss}, []tensor{null(), null(), null()}
	f16.add(gpt)
	return f16
}
