package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// The Phase 3 sweep (synth.TraceMatrix: dumps unlike the demo, each
// checked against the planted truth) runs in full in sweeps; here a few of
// its cases, and the tests that need analysis' internals.

// s3Case is a Phase 3 scenario of the generator and what must be found.
type s3Case = synth.TraceCase

// s3Phase3 is the trace under test: Phase 3 with the default options.
func s3Phase3(a, b, c, d *model.Dump) *model.Phase3Result {
	return phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
}

// s3Check evaluates one case; "" = pass.
func s3Check(c s3Case) string { return c.Check(s3Phase3) }

// TestSweep3_ConstStats runs synth.TraceConstCases on their own (they are
// part of the matrix too).
func TestSweep3_ConstStats(t *testing.T) {
	t.Parallel()
	cases := synth.TraceConstCases(synth.TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: 1})
	fails := synth.RunTraceCases(t, cases, s3Phase3)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// sweep3Quick are a few cases of each kind of the Phase 3 sweep
// (synth.TraceMatrix, all of it in sweeps' TestSweep3_Matrix): a rule that
// breaks one kind fails here already.
var sweep3Quick = []string{
	"site/swi", "layer/0", "bwd/g_fc1", "nan/fwd-swi", "amp/1.50x@1.0%/s1", "amp/1.05x@0.1%/s2", "null/1.0%/bias1.25/s1",
	"layers/2", "gpu-te/swi", "gpu-local/swi", "moe/swi#1", "mindspore/ln1", "L0/swi", "L1/calls4-mb2",
	"dropB-L5/fault7", "walk0.3%/fc1", "calls4/fault-mb2", "noCD/swi", "pre/gpu-te/swi", "pre/L0/swi",
}

func TestSweep3_MatrixQuick(t *testing.T) {
	t.Parallel()
	var cases []s3Case
	for _, c := range synth.TraceMatrix(DegreeBandSpread) {
		if slices.Contains(sweep3Quick, c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(sweep3Quick) {
		t.Fatalf("%d of the %d quick cases are in the matrix", len(cases), len(sweep3Quick))
	}
	fails := synth.RunTraceCases(t, cases, s3Phase3)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// The band of the degree: √2 × the control's 3·IQR on the log scale (the
// IQR's one-standard-error upper bound), the multiplier widened for the
// comparisons of a pass, the 3% floor as is.
func TestDegreeBand(t *testing.T) {
	if f := familyFactor(3, 1); f != 1 {
		t.Errorf("one comparison: %v", f)
	}
	// 3·IQR = 4.047σ → α = 5.19e-5; N = 480 → z(α/480) = 5.33σ.
	if f := familyFactor(3, 480); math.Abs(f-5.33/4.047) > 0.01 {
		t.Errorf("factor 480: %v", f)
	}
	// Control ratios e^{±0.01}, e^{±0.02}…: IQR(ln) known exactly.
	rs := []float64{math.Exp(-0.02), math.Exp(-0.01), 1, math.Exp(0.01), math.Exp(0.02)}
	b := degreeBand(rs, 3, 0.03, 1)
	want := math.Exp(math.Sqrt2 * 3 * 0.02 * (1 + iqrLogSE/math.Sqrt(5))) // IQR(ln) = 0.02, its 1-SE upper bound
	if !b.Usable || math.Abs(float64(b.Upper)-want) > 1e-9 || math.Abs(float64(b.Lower)-1/want) > 1e-9 {
		t.Errorf("band %+v, want upper %v", b, want)
	}
	// A quiet control: the seed's 3% floor.
	b = degreeBand([]float64{1, 1.0001, 0.9999, 1}, 3, 0.03, 480)
	if math.Abs(float64(b.Upper)-1.03) > 1e-9 || math.Abs(float64(b.Lower)-1/1.03) > 1e-9 {
		t.Errorf("floor band %+v", b)
	}
}

// A fault in the layer's last residual add shows in the layer module's own
// output (the "(layer)" anchor): the start is that layer, not the next one.
func TestSweep3_LayerOutputFault(t *testing.T) {
	c := s3Case{Quad: synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: 3, Fault: synth.TraceFwdFault(6, "hout", 1.5)}, MustFind: true}
	if why := s3Check(c); why != "" {
		t.Fatal(why)
	}
}

// Few layers: an anchor's own two to four control ratios give no usable
// IQR; the band is learned from the control ratios of every aligned op of
// the layers (and says so). Its spread is still estimated from only 20–40
// distinct ratios: noise alone flags a layer in a few percent of runs
// (measured 3/40 at two layers, 0/40 at four; before, every run), never in
// more than one of 20 seeds here; a fault in the last layer is found.
func TestSweep3_TwoLayers(t *testing.T) {
	t.Parallel()
	for _, layers := range []int{2, 4} {
		bad := 0
		for seed := uint64(1); seed <= 20; seed++ {
			if why := s3Check(s3Case{Quad: synth.TraceQuad{Layers: layers, Noise: 0.01, Bias: 1, Seed: seed}}); why != "" {
				bad++
				t.Logf("%d layers seed %d: %s", layers, seed, why)
			}
		}
		if bad > 1 {
			t.Errorf("%d layers: %d/20 noise-only runs flagged", layers, bad)
		}
	}
	q := synth.TraceQuad{Layers: 2, Noise: 0.005, Bias: 1, Seed: 1, Fault: synth.TraceFwdFault(1, "swi", 1.3)}
	if why := s3Check(s3Case{Quad: q, MustFind: true}); why != "" {
		t.Error(why)
	}
	a, b, c, d := q.Build()
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	bd := r.Anchors[0].Thresholds["Norm"]["fwd"]
	if bd.Samples != 2*10 || !strings.Contains(bd.Note, "every aligned op") { // 10 distinct tensors per layer
		t.Errorf("band %+v", bd)
	}
}

// Pipeline parallel: 8 ranks, 2 stages × 4 data-parallel ranks (rank/4 is
// the stage), layers numbered locally in each stage. A is rank 4 (stage 1);
// ranks 3 (stage 0) and 5 (stage 1) are equally near and hold the same
// module paths: the control must come from A's own stage.
func TestSweep3_ControlSameStage(t *testing.T) {
	for _, weights := range []bool{false, true} {
		tree := &model.DumpTree{Path: "pp"}
		btree := &model.DumpTree{Path: "ppb"}
		for r := 0; r < 8; r++ {
			c := synth.TraceCfg{Name: fmt.Sprintf("pp/rank%d", r), Layers: 4, Stage: r / 4, Rank: r, Data: uint64(r + 1), Device: 1,
				Noise: 0.005, GradScale: 1 + 0.01*float64(r), Weights: weights}
			if r == 4 {
				c.GradScale = 30
			}
			tree.Dumps = append(tree.Dumps, synth.TraceBuildDump(c))
			c.Name, c.Device, c.GradScale = fmt.Sprintf("ppb/rank%d", r), 2, 1
			btree.Dumps = append(btree.Dumps, synth.TraceBuildDump(c))
		}
		a := tree.Find(0, 4)
		ch := chooseControlT(tree, a, btree, nil)
		if ch.C == nil || ch.C.Rank/4 != 1 || ch.D == nil || ch.D.Rank != ch.C.Rank {
			t.Fatalf("weights %v: choice %+v", weights, ch)
		}
	}
}

// Recompute records without is_recompute (older msprobe): each layer's
// forward shows once more, interleaved with the backward, as
// "forward.<n+calls>". They repeat the original statistics exactly and are
// recognised as recomputes: micro-batch numbering and pairing with a device
// that did not recompute stay right, and the fault in micro-batch 1 of 3 is
// found at its layer and operator.
func TestSweep3_RecomputeUnflagged(t *testing.T) {
	t.Parallel()
	q := synth.TraceQuad{Layers: 12, Calls: 3, Noise: 0.005, Bias: 1, Seed: 9, Recompute: true, RecNoFlag: true,
		Fault: synth.TraceFault{On: true, Layer: 6, Role: "fc1", F: 1.4, Call: 1}}
	if why := s3Check(s3Case{Quad: q, MustFind: true}); why != "" {
		t.Fatal(why)
	}
	a, _, _, _ := q.Build()
	x := indexDump(a, learnLayerScheme(a))
	rec, recKeys := 0, 0
	for i := range a.Ops {
		if x.info[i].Recomp {
			rec++
			if strings.Contains(a.Ops[i].Key, ".forward.3") || strings.Contains(a.Ops[i].Key, ".forward.4") || strings.Contains(a.Ops[i].Key, ".forward.5") {
				recKeys++
			}
		}
	}
	// every recompute record: modules (call indices 3..5) and their APIs
	mods := 0
	for _, o := range synth.TraceFwdMcore {
		if o.Class != "" {
			mods++
		}
	}
	if rec != 3*12*len(synth.TraceFwdMcore) || recKeys != 3*12*mods {
		t.Errorf("recompute records %d (module keys %d)", rec, recKeys)
	}
}

// A 1.05× fault with 0.1% device noise: the band is the seed's 3% floor
// and the fault is found at its layer and operator, at any site.
func TestSweep3_Amp105(t *testing.T) {
	t.Parallel()
	for i, role := range []string{"ln1", "attn", "fc1", "swi", "hout"} {
		q := synth.TraceQuad{Layers: 24, Noise: 0.001, Bias: 1, Seed: uint64(200 + i), Fault: synth.TraceFwdFault(3+4*i, role, 1.05)}
		if why := s3Check(s3Case{Quad: q, MustFind: true}); why != "" {
			t.Errorf("%s: %s", role, why)
		}
	}
}

// The repeating block of an API-only pass: prologue + block × L +
// epilogue gives the block and L (not a multiple of the block), starting at
// the layer's input norm although the prologue's last op and the
// epilogue's first two also repeat the block; a sequence that never repeats
// a full block gives nothing.
func TestFindAPIStack(t *testing.T) {
	block := []string{"NPU.npu_rms_norm", "linear", "fa", "linear", "add", "NPU.npu_rms_norm", "linear", "swiglu", "linear", "add"}
	seq := []string{"embedding", "add"} // the prologue ends like a layer (add)
	for l := 0; l < 7; l++ {
		seq = append(seq, block...)
	}
	seq = append(seq, "NPU.npu_rms_norm", "linear", "cross_entropy") // final norm + output layer
	st := findAPIStack(seq, false)
	if st == nil || st.layers != 7 || !slices.Equal(st.block, block) {
		t.Fatalf("stack %+v", st)
	}
	// backward: the final norm's gradient comes first and equals the
	// block's last op (the input norm's gradient)
	bblock := []string{"add", "linear", "swiglu", "linear", "NPU.npu_rms_norm", "add", "linear", "fa", "linear", "NPU.npu_rms_norm"}
	bseq := []string{"NPU.npu_rms_norm"}
	for l := 0; l < 5; l++ {
		bseq = append(bseq, bblock...)
	}
	bseq = append(bseq, "embedding")
	if st := findAPIStack(bseq, true); st == nil || st.layers != 5 || !slices.Equal(st.block, bblock) {
		t.Fatalf("backward stack %+v", st)
	}
	if subs := blockSubs([]string{"NPU.npu_rms_norm", "Functional.linear", "Functional.linear"}); !slices.Equal(subs, []string{"npu_rms_norm#0", "linear#0", "linear#1"}) {
		t.Errorf("subs %v", subs)
	}
	if st := findAPIStack([]string{"a", "b", "c", "a", "b", "d"}, false); st != nil {
		t.Errorf("no full repetition: %+v", st)
	}
	// L1 dump: the warning says the layers are inferred, not named.
	q := synth.TraceQuad{Layers: 6, Noise: 0.005, Bias: 1, Seed: 1, Level: "L1"}
	a, b, c, d := q.Build()
	r := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	if r.LayerPrefix != inferredLayerPrefix || len(r.Warnings) == 0 || !strings.Contains(r.Warnings[0], "6 layers inferred from the repeating API sequence (10 APIs per layer") {
		t.Errorf("prefix %q warnings %v", r.LayerPrefix, r.Warnings)
	}
}

// Pipeline stages hold different parameters: 4 stages × 2 data-parallel
// ranks (stage = rank/2); stage 0 also holds the embedding, whose gradient
// dominates the total norm. A = rank 1 spikes. Totals would put its
// stage twin (rank 0) above the tree's P75 ("spiking") and take C from
// another stage; norms over the parameters every rank holds keep rank 0
// normal, and C comes from A's stage.
func TestSweep3_ControlStageWithEmbedding(t *testing.T) {
	tree := &model.DumpTree{Path: "pp"}
	btree := &model.DumpTree{Path: "ppb"}
	for r := 0; r < 8; r++ {
		c := synth.TraceCfg{Name: fmt.Sprintf("pp/rank%d", r), Layers: 4, Stage: r / 2, Rank: r, Data: uint64(r + 1), Device: 1,
			Noise: 0.005, GradScale: 1 + 0.01*float64(r)}
		if r == 1 {
			c.GradScale = 30
		}
		d := synth.TraceBuildDump(c)
		if r < 2 { // the embedding's gradient (stage 0 only), 20× a layer's
			g := model.TensorStat{Name: "weight", Dtype: "torch.float32", Elements: 4096, Shape: []int64{4096}}
			g.Stat[model.StatNorm], g.Has[model.StatNorm] = 20*float64(d.Ops[0].Outputs[0].Stat[model.StatNorm]), true
			d.Ops = append(d.Ops, model.Op{Key: "Module.module.module.embedding.word_embeddings.VocabParallelEmbedding.parameters_grad",
				Kind: model.KindModule, ModulePath: "module.module.embedding.word_embeddings", Class: "VocabParallelEmbedding",
				Direction: model.ParamGrad, Layer: -1, Params: []model.TensorStat{g}, Order: len(d.Ops)})
			d.Index[d.Ops[len(d.Ops)-1].Key] = len(d.Ops) - 1
		}
		tree.Dumps = append(tree.Dumps, d)
		c.Name, c.Device, c.GradScale = fmt.Sprintf("ppb/rank%d", r), 2, 1
		btree.Dumps = append(btree.Dumps, synth.TraceBuildDump(c))
	}
	ch := chooseControlT(tree, tree.Find(0, 1), btree, nil)
	if ch.C == nil || ch.C.Rank != 0 {
		t.Fatalf("choice %+v", ch)
	}
}
