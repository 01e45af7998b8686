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

// The Phase 3 sweep: dumps unlike the demo (fault site, layer, amplitude,
// noise, bias, layer count, naming, dump level, micro-batches, control
// group), each checked against the planted truth.

// s3Case is a Phase 3 scenario of the generator and what must be found.
type s3Case = synth.TraceCase

// s3Phase3 is the trace under test: Phase 3 with the default options.
func s3Phase3(a, b, c, d *model.Dump) *model.Phase3Result {
	return phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
}

// s3Check evaluates one case; "" = pass.
func s3Check(c s3Case) string { return c.Check(s3Phase3) }

// s3Matrix is the sweep.
func s3Matrix() []s3Case {
	base := synth.TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: 1}
	with := func(mod func(q *synth.TraceQuad)) synth.TraceQuad {
		q := base
		mod(&q)
		return q
	}
	var cs []s3Case
	// fault sites (forward), middle layer
	for _, role := range []string{"ln1", "qkv", "attn", "proj", "hmid", "ln2", "fc1", "swi", "fc2", "hout"} {
		cs = append(cs, s3Case{Name: "site/" + role, Quad: with(func(q *synth.TraceQuad) { q.Fault = synth.TraceFwdFault(11, role, 1.5) }), MustFind: true})
	}
	// layer position
	for _, l := range []int{0, 23} {
		cs = append(cs, s3Case{Name: fmt.Sprintf("layer/%d", l), Quad: with(func(q *synth.TraceQuad) { q.Fault = synth.TraceFwdFault(l, "swi", 1.5) }), MustFind: true})
	}
	// backward-only faults
	for _, role := range []string{"g_swi", "g_fc1", "g_attn", "g_hmid"} {
		cs = append(cs, s3Case{Name: "bwd/" + role, Quad: with(func(q *synth.TraceQuad) {
			q.Fault = synth.TraceFault{On: true, Bwd: true, Layer: 9, Role: role, F: 1.6, Call: -1}
		}), MustFind: true})
	}
	// NaN
	cs = append(cs, s3Case{Name: "nan/fwd-swi", Quad: with(func(q *synth.TraceQuad) { q.Fault = synth.TraceFwdFault(7, "swi", math.NaN()) })})
	cs = append(cs, s3Case{Name: "nan/bwd-fc1", Quad: with(func(q *synth.TraceQuad) {
		q.Fault = synth.TraceFault{On: true, Bwd: true, Layer: 7, Role: "g_fc1", F: math.NaN(), Call: -1}
	})})
	// amplitude × noise (the fault must be found when it is well above the
	// expected band; otherwise it may be missed but never misplaced)
	for _, amp := range []float64{1.05, 1.1, 1.2, 1.5, 3, 0.8} {
		for _, noise := range []float64{0.001, 0.003, 0.01, 0.03} {
			must := math.Abs(math.Log(amp)) > 2*s3ExpectedSpread(noise)
			for seed := uint64(1); seed <= 3; seed++ {
				cs = append(cs, s3Case{Name: fmt.Sprintf("amp/%.2fx@%.1f%%/s%d", amp, noise*100, seed),
					Quad: with(func(q *synth.TraceQuad) { q.Noise, q.Seed, q.Fault = noise, seed, synth.TraceFwdFault(5, "fc1", amp) }), MustFind: must})
			}
		}
	}
	// noise / bias only: nothing may be flagged
	for _, noise := range []float64{0.001, 0.01, 0.03} {
		for _, bias := range []float64{0.8, 1, 1.25} {
			for seed := uint64(1); seed <= 3; seed++ {
				cs = append(cs, s3Case{Name: fmt.Sprintf("null/%.1f%%/bias%.2f/s%d", noise*100, bias, seed),
					Quad: with(func(q *synth.TraceQuad) { q.Noise, q.Bias, q.Seed = noise, bias, seed })})
			}
		}
	}
	// layer counts
	for _, n := range []int{2, 48, 96} {
		cs = append(cs, s3Case{Name: fmt.Sprintf("layers/%d", n), Quad: with(func(q *synth.TraceQuad) { q.Layers = n; q.Fault = synth.TraceFwdFault(n/2, "fc2", 1.3) }), MustFind: true})
		cs = append(cs, s3Case{Name: fmt.Sprintf("layers/%d-null-1%%", n), Quad: with(func(q *synth.TraceQuad) { q.Layers, q.Noise = n, 0.01 })})
	}
	// naming
	cs = append(cs, s3Case{Name: "gpu-te/swi", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = synth.TraceTE, 7, synth.TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.mlp.linear_fc2.RowParallelLinear.forward.0"}) // npu_swiglu has no GPU counterpart: first alignable op after it
	cs = append(cs, s3Case{Name: "gpu-te/attn", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = synth.TraceTE, 7, synth.TraceFwdFault(11, "attn", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.self_attention.core_attention.DotProductAttention.forward.0"})
	cs = append(cs, s3Case{Name: "gpu-te/ln1", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = synth.TraceTE, 7, synth.TraceFwdFault(11, "ln1", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.self_attention.linear_qkv.ColumnParallelLinear.forward.0"})
	cs = append(cs, s3Case{Name: "gpu-te/null", Quad: with(func(q *synth.TraceQuad) { q.FlavB, q.APIShift, q.Noise = synth.TraceTE, 7, 0.01 })})
	// GPU with local modules: other kernels below the same modules
	cs = append(cs, s3Case{Name: "gpu-local/ln1", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = synth.TraceGPULocal, 3, synth.TraceFwdFault(11, "ln1", 1.4)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "gpu-local/attn", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = synth.TraceGPULocal, 3, synth.TraceFwdFault(5, "attn", 1.4)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "gpu-local/swi", Quad: with(func(q *synth.TraceQuad) { q.FlavB, q.Fault = synth.TraceGPULocal, synth.TraceFwdFault(8, "swi", 1.4) }), MustFind: true,
		DrillRole: "fc2"}) // fused swiglu vs silu × mul: not paired; the first alignable op after it (fc2's linear)
	cs = append(cs, s3Case{Name: "gpu-local/bwd-g_attn", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.Fault = synth.TraceGPULocal, synth.TraceFault{On: true, Bwd: true, Layer: 14, Role: "g_attn", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "gpu-local/null", Quad: with(func(q *synth.TraceQuad) { q.FlavB, q.Noise = synth.TraceGPULocal, 0.01 })})
	cs = append(cs, s3Case{Name: "legacy/swi", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = synth.TraceLegacy, synth.TraceLegacy, synth.TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "legacy/attn", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = synth.TraceLegacy, synth.TraceLegacy, synth.TraceFwdFault(3, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "moe/swi#1", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = synth.TraceMoE, synth.TraceMoE, synth.TraceFwdFault(11, "swi#1", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "moe/null", Quad: with(func(q *synth.TraceQuad) { q.FlavA, q.FlavB, q.Noise = synth.TraceMoE, synth.TraceMoE, 0.01 })})
	cs = append(cs, s3Case{Name: "mindspore/swi", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = synth.TraceMS, synth.TraceMS, synth.TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "mindspore/ln1", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = synth.TraceMS, synth.TraceMS, synth.TraceFwdFault(0, "ln1", 1.5)
	}), MustFind: true})
	// dump levels
	cs = append(cs, s3Case{Name: "L0/swi", Quad: with(func(q *synth.TraceQuad) { q.Level, q.Fault = "L0", synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true,
		Drill: ".layers.11.mlp.linear_fc2.RowParallelLinear.forward.0"}) // swiglu is no module: first module after it
	cs = append(cs, s3Case{Name: "L0/fc1", Quad: with(func(q *synth.TraceQuad) { q.Level, q.Fault = "L0", synth.TraceFwdFault(11, "fc1", 1.5) }), MustFind: true})
	cs = append(cs, s3Case{Name: "mix-noconstruct/swi", Quad: with(func(q *synth.TraceQuad) { q.NoParents, q.Fault = true, synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, s3Case{Name: "mix-noconstruct/attn", Quad: with(func(q *synth.TraceQuad) {
		q.NoParents, q.APIShift, q.Fault = true, 5, synth.TraceFwdFault(4, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "L1/swi", Quad: with(func(q *synth.TraceQuad) { q.Level, q.Fault = "L1", synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, s3Case{Name: "L1/null", Quad: with(func(q *synth.TraceQuad) { q.Level, q.Noise = "L1", 0.01 })})
	cs = append(cs, s3Case{Name: "L1/calls4-mb2", Quad: with(func(q *synth.TraceQuad) {
		q.Level, q.Calls, q.Fault = "L1", 4, synth.TraceFault{On: true, Layer: 11, Role: "fc1", F: 1.5, Call: 2}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "L1-gpu/swi", Quad: with(func(q *synth.TraceQuad) {
		q.Level, q.FlavB, q.Fault = "L1", synth.TraceTE, synth.TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true,
		NoDrill: true}) // npu_swiglu has no GPU API counterpart
	cs = append(cs, s3Case{Name: "L1-noconstruct/attn", Quad: with(func(q *synth.TraceQuad) {
		q.Level, q.NoParents, q.Fault = "L1", true, synth.TraceFwdFault(0, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, s3ConstCases(base)...)
	// alignment trouble
	cs = append(cs, s3Case{Name: "extraAPI-B/swi", Quad: with(func(q *synth.TraceQuad) { q.ExtraAPIsB, q.Fault = true, synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, s3Case{Name: "extraAPI-B/null", Quad: with(func(q *synth.TraceQuad) { q.ExtraAPIsB, q.Noise = true, 0.01 })})
	cs = append(cs, s3Case{Name: "dropB-L5/fault7", Quad: with(func(q *synth.TraceQuad) { q.DropB, q.Fault = 6, synth.TraceFwdFault(7, "fc2", 1.5) }), MustFind: true, Uncompared: []int{5}})
	cs = append(cs, s3Case{Name: "dropB-L5/null", Quad: with(func(q *synth.TraceQuad) { q.DropB = 6 }), Uncompared: []int{5}})
	cs = append(cs, s3Case{Name: "moe-expert-elems/null", Quad: with(func(q *synth.TraceQuad) { q.FlavA, q.FlavB, q.ExpertB = synth.TraceMoE, synth.TraceMoE, true })})
	cs = append(cs, s3Case{Name: "moe-expert-elems/swi#1", Quad: with(func(q *synth.TraceQuad) {
		q.FlavA, q.FlavB, q.ExpertB, q.Fault = synth.TraceMoE, synth.TraceMoE, true, synth.TraceFwdFault(9, "swi#1", 1.5)
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "recompute-noflag/swi", Quad: with(func(q *synth.TraceQuad) {
		q.Recompute, q.RecNoFlag, q.Fault = true, true, synth.TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	// drift and per-statistic bias
	// A drift of 0.3%/layer (A/B off by ~2% at the last layer while C/D is not)
	// is indistinguishable from a slowly growing real divergence: not swept.
	cs = append(cs, s3Case{Name: "walk0.1%/null", Quad: with(func(q *synth.TraceQuad) { q.Walk = 0.001 })})
	cs = append(cs, s3Case{Name: "walk0.3%/fc1", Quad: with(func(q *synth.TraceQuad) { q.Walk, q.Fault = 0.003, synth.TraceFwdFault(15, "fc1", 1.3) }), MustFind: true})
	cs = append(cs, s3Case{Name: "maxbias0.9/null", Quad: with(func(q *synth.TraceQuad) { q.Bias, q.MaxBias, q.Noise = 1.1, 0.9, 0.01 })})
	cs = append(cs, s3Case{Name: "bias0.8/fault", Quad: with(func(q *synth.TraceQuad) { q.Bias, q.Fault = 0.8, synth.TraceFwdFault(3, "attn", 1.2) }), MustFind: true})
	cs = append(cs, s3Case{Name: "bias1.25/shrink", Quad: with(func(q *synth.TraceQuad) { q.Bias, q.Fault = 1.25, synth.TraceFwdFault(17, "qkv", 0.8) }), MustFind: true})
	// first/last layer, backward at the ends
	cs = append(cs, s3Case{Name: "first-op/ln1-L0", Quad: with(func(q *synth.TraceQuad) { q.Fault = synth.TraceFwdFault(0, "ln1", 1.3) }), MustFind: true})
	cs = append(cs, s3Case{Name: "last/hout-L23", Quad: with(func(q *synth.TraceQuad) { q.Fault = synth.TraceFwdFault(23, "hout", 1.3) }), MustFind: true})
	cs = append(cs, s3Case{Name: "bwd/g_hout-L23", Quad: with(func(q *synth.TraceQuad) {
		q.Fault = synth.TraceFault{On: true, Bwd: true, Layer: 23, Role: "g_hout", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "bwd/g_ln1-L0", Quad: with(func(q *synth.TraceQuad) {
		q.Fault = synth.TraceFault{On: true, Bwd: true, Layer: 0, Role: "g_ln1", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "bwd-gpu/g_fc2", Quad: with(func(q *synth.TraceQuad) {
		q.FlavB, q.Fault = synth.TraceTE, synth.TraceFault{On: true, Bwd: true, Layer: 12, Role: "g_fc2", F: 1.5, Call: -1}
	}), MustFind: true, NoDrill: true})
	// micro-batches, recompute
	cs = append(cs, s3Case{Name: "calls4/fault-mb2", Quad: with(func(q *synth.TraceQuad) {
		q.Calls, q.Fault = 4, synth.TraceFault{On: true, Layer: 11, Role: "swi", F: 1.5, Call: 2}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "calls4/weak-mb2", Quad: with(func(q *synth.TraceQuad) {
		q.Calls, q.Noise, q.Fault = 4, 0.003, synth.TraceFault{On: true, Layer: 11, Role: "swi", F: 1.1, Call: 2}
	}), MustFind: true})
	cs = append(cs, s3Case{Name: "calls4/null", Quad: with(func(q *synth.TraceQuad) { q.Calls, q.Noise = 4, 0.01 })})
	cs = append(cs, s3Case{Name: "recompute/swi", Quad: with(func(q *synth.TraceQuad) { q.Recompute, q.Fault = true, synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	// control group
	cs = append(cs, s3Case{Name: "noCD/swi", Quad: with(func(q *synth.TraceQuad) { q.NoCD, q.Fault = true, synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, s3Case{Name: "noCD/null-bias0.8", Quad: with(func(q *synth.TraceQuad) { q.NoCD, q.Bias, q.Noise = true, 0.8, 0.005 })})
	cs = append(cs, s3Case{Name: "noD/swi", Quad: with(func(q *synth.TraceQuad) { q.NoD, q.Fault = true, synth.TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	// record order: every naming style, dump level, construct.json and
	// micro-batch case again with each module's record before its
	// children's; the same layer and operator are expected
	for _, c := range cs {
		for _, p := range []string{"site/", "bwd/", "gpu-", "legacy/", "moe", "mindspore/", "L0/", "mix-noconstruct/", "calls4/", "recompute", "first-op/", "last/", "extraAPI-B/", "dropB-"} {
			if strings.HasPrefix(c.Name, p) {
				c.Name = "pre/" + c.Name
				c.Quad.PreOrder = true
				cs = append(cs, c)
				break
			}
		}
	}
	return cs
}

// s3ConstCases: statistics fixed by construction (a softmax's Max, Min
// and Mean, a finite mask's Min, norms' output Norm) at mix and L1 with
// two and four layers, where the band is learned from every aligned op of
// the layers: noise alone flags nothing, and a fault in the last layer is
// found at its layer and operator.
func s3ConstCases(base synth.TraceQuad) []s3Case {
	var cs []s3Case
	for _, lv := range []string{"mix", "L1"} {
		for _, n := range []int{2, 4} {
			for seed := uint64(1); seed <= 10; seed++ {
				q := base
				q.Level, q.Layers, q.Noise, q.Seed, q.ConstStats = lv, n, 0.01, seed, true
				cs = append(cs, s3Case{Name: fmt.Sprintf("const/%s/%dL/null/s%d", lv, n, seed), Quad: q})
			}
			for _, role := range []string{"qkv", "fc1", "swi"} {
				q := base
				q.Level, q.Layers, q.ConstStats, q.Fault = lv, n, true, synth.TraceFwdFault(n-1, role, 1.5)
				cs = append(cs, s3Case{Name: fmt.Sprintf("const/%s/%dL/%s", lv, n, role), Quad: q, MustFind: true})
			}
		}
	}
	return cs
}

// TestSweep3_ConstStats runs s3ConstCases on their own (they are part of
// the matrix too).
func TestSweep3_ConstStats(t *testing.T) {
	cases := s3ConstCases(synth.TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: 1})
	fails := synth.RunTraceCases(t, cases, s3Phase3)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// s3ExpectedSpread is the band half-width (relative, log scale) expected on
// the anomaly degree for a per-tensor device noise sigma on the Norm.
func s3ExpectedSpread(sigma float64) float64 {
	cd := math.Sqrt2 * sigma // C/D
	return math.Max(degreeSpreadFactor*bandIQRMult*1.349*cd, bandSpreadFloor)
}

func TestSweep3_Matrix(t *testing.T) {
	t.Parallel()
	cases := s3Matrix()
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
