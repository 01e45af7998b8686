package synth

import (
	"fmt"
	"math"
	"strings"
)

// TraceMatrix is the Phase 3 sweep: dumps unlike the demo (fault site,
// layer, amplitude, noise, bias, layer count, naming, dump level,
// micro-batches, control group), each with its planted truth. spread(σ) is
// the trace's band half-width (relative, log scale) on the anomaly degree
// for a per-tensor device noise σ on the Norm: an amplitude well above it
// (|ln amp| > 2·spread) must be found, a weaker one may be missed but never
// misplaced. sweeps runs it all (TestSweep3_Matrix), analysis a few cases.
func TraceMatrix(spread func(sigma float64) float64) []TraceCase {
	base := TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: 1}
	with := func(mod func(q *TraceQuad)) TraceQuad {
		q := base
		mod(&q)
		return q
	}
	var cs []TraceCase
	// fault sites (forward), middle layer
	for _, role := range []string{"ln1", "qkv", "attn", "proj", "hmid", "ln2", "fc1", "swi", "fc2", "hout"} {
		cs = append(cs, TraceCase{Name: "site/" + role, Quad: with(func(q *TraceQuad) { q.Fault = TraceFwdFault(11, role, 1.5) }), MustFind: true})
	}
	// layer position
	for _, l := range []int{0, 23} {
		cs = append(cs, TraceCase{Name: fmt.Sprintf("layer/%d", l), Quad: with(func(q *TraceQuad) { q.Fault = TraceFwdFault(l, "swi", 1.5) }), MustFind: true})
	}
	// backward-only faults
	for _, role := range []string{"g_swi", "g_fc1", "g_attn", "g_hmid"} {
		cs = append(cs, TraceCase{Name: "bwd/" + role, Quad: with(func(q *TraceQuad) {
			q.Fault = TraceFault{On: true, Bwd: true, Layer: 9, Role: role, F: 1.6, Call: -1}
		}), MustFind: true})
	}
	// NaN
	cs = append(cs, TraceCase{Name: "nan/fwd-swi", Quad: with(func(q *TraceQuad) { q.Fault = TraceFwdFault(7, "swi", math.NaN()) })})
	cs = append(cs, TraceCase{Name: "nan/bwd-fc1", Quad: with(func(q *TraceQuad) {
		q.Fault = TraceFault{On: true, Bwd: true, Layer: 7, Role: "g_fc1", F: math.NaN(), Call: -1}
	})})
	// amplitude × noise (the fault must be found when it is well above the
	// expected band; otherwise it may be missed but never misplaced)
	for _, amp := range []float64{1.05, 1.1, 1.2, 1.5, 3, 0.8} {
		for _, noise := range []float64{0.001, 0.003, 0.01, 0.03} {
			must := math.Abs(math.Log(amp)) > 2*spread(noise)
			for seed := uint64(1); seed <= 3; seed++ {
				cs = append(cs, TraceCase{Name: fmt.Sprintf("amp/%.2fx@%.1f%%/s%d", amp, noise*100, seed),
					Quad: with(func(q *TraceQuad) { q.Noise, q.Seed, q.Fault = noise, seed, TraceFwdFault(5, "fc1", amp) }), MustFind: must})
			}
		}
	}
	// noise / bias only: nothing may be flagged
	for _, noise := range []float64{0.001, 0.01, 0.03} {
		for _, bias := range []float64{0.8, 1, 1.25} {
			for seed := uint64(1); seed <= 3; seed++ {
				cs = append(cs, TraceCase{Name: fmt.Sprintf("null/%.1f%%/bias%.2f/s%d", noise*100, bias, seed),
					Quad: with(func(q *TraceQuad) { q.Noise, q.Bias, q.Seed = noise, bias, seed })})
			}
		}
	}
	// layer counts
	for _, n := range []int{2, 48, 96} {
		cs = append(cs, TraceCase{Name: fmt.Sprintf("layers/%d", n), Quad: with(func(q *TraceQuad) { q.Layers = n; q.Fault = TraceFwdFault(n/2, "fc2", 1.3) }), MustFind: true})
		cs = append(cs, TraceCase{Name: fmt.Sprintf("layers/%d-null-1%%", n), Quad: with(func(q *TraceQuad) { q.Layers, q.Noise = n, 0.01 })})
	}
	// naming
	cs = append(cs, TraceCase{Name: "gpu-te/swi", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = TraceTE, 7, TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.mlp.linear_fc2.RowParallelLinear.forward.0"}) // npu_swiglu has no GPU counterpart: first alignable op after it
	cs = append(cs, TraceCase{Name: "gpu-te/attn", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = TraceTE, 7, TraceFwdFault(11, "attn", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.self_attention.core_attention.DotProductAttention.forward.0"})
	cs = append(cs, TraceCase{Name: "gpu-te/ln1", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = TraceTE, 7, TraceFwdFault(11, "ln1", 1.5)
	}), MustFind: true,
		Drill: ".layers.11.self_attention.linear_qkv.ColumnParallelLinear.forward.0"})
	cs = append(cs, TraceCase{Name: "gpu-te/null", Quad: with(func(q *TraceQuad) { q.FlavB, q.APIShift, q.Noise = TraceTE, 7, 0.01 })})
	// GPU with local modules: other kernels below the same modules
	cs = append(cs, TraceCase{Name: "gpu-local/ln1", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = TraceGPULocal, 3, TraceFwdFault(11, "ln1", 1.4)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "gpu-local/attn", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.APIShift, q.Fault = TraceGPULocal, 3, TraceFwdFault(5, "attn", 1.4)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "gpu-local/swi", Quad: with(func(q *TraceQuad) { q.FlavB, q.Fault = TraceGPULocal, TraceFwdFault(8, "swi", 1.4) }), MustFind: true,
		DrillRole: "fc2"}) // fused swiglu vs silu × mul: not paired; the first alignable op after it (fc2's linear)
	cs = append(cs, TraceCase{Name: "gpu-local/bwd-g_attn", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.Fault = TraceGPULocal, TraceFault{On: true, Bwd: true, Layer: 14, Role: "g_attn", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "gpu-local/null", Quad: with(func(q *TraceQuad) { q.FlavB, q.Noise = TraceGPULocal, 0.01 })})
	cs = append(cs, TraceCase{Name: "legacy/swi", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = TraceLegacy, TraceLegacy, TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "legacy/attn", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = TraceLegacy, TraceLegacy, TraceFwdFault(3, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "moe/swi#1", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = TraceMoE, TraceMoE, TraceFwdFault(11, "swi#1", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "moe/null", Quad: with(func(q *TraceQuad) { q.FlavA, q.FlavB, q.Noise = TraceMoE, TraceMoE, 0.01 })})
	cs = append(cs, TraceCase{Name: "mindspore/swi", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = TraceMS, TraceMS, TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "mindspore/ln1", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.Fault = TraceMS, TraceMS, TraceFwdFault(0, "ln1", 1.5)
	}), MustFind: true})
	// dump levels
	cs = append(cs, TraceCase{Name: "L0/swi", Quad: with(func(q *TraceQuad) { q.Level, q.Fault = "L0", TraceFwdFault(11, "swi", 1.5) }), MustFind: true,
		Drill: ".layers.11.mlp.linear_fc2.RowParallelLinear.forward.0"}) // swiglu is no module: first module after it
	cs = append(cs, TraceCase{Name: "L0/fc1", Quad: with(func(q *TraceQuad) { q.Level, q.Fault = "L0", TraceFwdFault(11, "fc1", 1.5) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "mix-noconstruct/swi", Quad: with(func(q *TraceQuad) { q.NoParents, q.Fault = true, TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "mix-noconstruct/attn", Quad: with(func(q *TraceQuad) {
		q.NoParents, q.APIShift, q.Fault = true, 5, TraceFwdFault(4, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "L1/swi", Quad: with(func(q *TraceQuad) { q.Level, q.Fault = "L1", TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "L1/null", Quad: with(func(q *TraceQuad) { q.Level, q.Noise = "L1", 0.01 })})
	cs = append(cs, TraceCase{Name: "L1/calls4-mb2", Quad: with(func(q *TraceQuad) {
		q.Level, q.Calls, q.Fault = "L1", 4, TraceFault{On: true, Layer: 11, Role: "fc1", F: 1.5, Call: 2}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "L1-gpu/swi", Quad: with(func(q *TraceQuad) {
		q.Level, q.FlavB, q.Fault = "L1", TraceTE, TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true,
		NoDrill: true}) // npu_swiglu has no GPU API counterpart
	cs = append(cs, TraceCase{Name: "L1-noconstruct/attn", Quad: with(func(q *TraceQuad) {
		q.Level, q.NoParents, q.Fault = "L1", true, TraceFwdFault(0, "attn", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceConstCases(base)...)
	// alignment trouble
	cs = append(cs, TraceCase{Name: "extraAPI-B/swi", Quad: with(func(q *TraceQuad) { q.ExtraAPIsB, q.Fault = true, TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "extraAPI-B/null", Quad: with(func(q *TraceQuad) { q.ExtraAPIsB, q.Noise = true, 0.01 })})
	cs = append(cs, TraceCase{Name: "dropB-L5/fault7", Quad: with(func(q *TraceQuad) { q.DropB, q.Fault = 6, TraceFwdFault(7, "fc2", 1.5) }), MustFind: true, Uncompared: []int{5}})
	cs = append(cs, TraceCase{Name: "dropB-L5/null", Quad: with(func(q *TraceQuad) { q.DropB = 6 }), Uncompared: []int{5}})
	cs = append(cs, TraceCase{Name: "moe-expert-elems/null", Quad: with(func(q *TraceQuad) { q.FlavA, q.FlavB, q.ExpertB = TraceMoE, TraceMoE, true })})
	cs = append(cs, TraceCase{Name: "moe-expert-elems/swi#1", Quad: with(func(q *TraceQuad) {
		q.FlavA, q.FlavB, q.ExpertB, q.Fault = TraceMoE, TraceMoE, true, TraceFwdFault(9, "swi#1", 1.5)
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "recompute-noflag/swi", Quad: with(func(q *TraceQuad) {
		q.Recompute, q.RecNoFlag, q.Fault = true, true, TraceFwdFault(11, "swi", 1.5)
	}), MustFind: true})
	// drift and per-statistic bias
	// A drift of 0.3%/layer (A/B off by ~2% at the last layer while C/D is not)
	// is indistinguishable from a slowly growing real divergence: not swept.
	cs = append(cs, TraceCase{Name: "walk0.1%/null", Quad: with(func(q *TraceQuad) { q.Walk = 0.001 })})
	cs = append(cs, TraceCase{Name: "walk0.3%/fc1", Quad: with(func(q *TraceQuad) { q.Walk, q.Fault = 0.003, TraceFwdFault(15, "fc1", 1.3) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "maxbias0.9/null", Quad: with(func(q *TraceQuad) { q.Bias, q.MaxBias, q.Noise = 1.1, 0.9, 0.01 })})
	cs = append(cs, TraceCase{Name: "bias0.8/fault", Quad: with(func(q *TraceQuad) { q.Bias, q.Fault = 0.8, TraceFwdFault(3, "attn", 1.2) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "bias1.25/shrink", Quad: with(func(q *TraceQuad) { q.Bias, q.Fault = 1.25, TraceFwdFault(17, "qkv", 0.8) }), MustFind: true})
	// first/last layer, backward at the ends
	cs = append(cs, TraceCase{Name: "first-op/ln1-L0", Quad: with(func(q *TraceQuad) { q.Fault = TraceFwdFault(0, "ln1", 1.3) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "last/hout-L23", Quad: with(func(q *TraceQuad) { q.Fault = TraceFwdFault(23, "hout", 1.3) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "bwd/g_hout-L23", Quad: with(func(q *TraceQuad) {
		q.Fault = TraceFault{On: true, Bwd: true, Layer: 23, Role: "g_hout", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "bwd/g_ln1-L0", Quad: with(func(q *TraceQuad) {
		q.Fault = TraceFault{On: true, Bwd: true, Layer: 0, Role: "g_ln1", F: 1.4, Call: -1}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "bwd-gpu/g_fc2", Quad: with(func(q *TraceQuad) {
		q.FlavB, q.Fault = TraceTE, TraceFault{On: true, Bwd: true, Layer: 12, Role: "g_fc2", F: 1.5, Call: -1}
	}), MustFind: true, NoDrill: true})
	// micro-batches, recompute
	cs = append(cs, TraceCase{Name: "calls4/fault-mb2", Quad: with(func(q *TraceQuad) {
		q.Calls, q.Fault = 4, TraceFault{On: true, Layer: 11, Role: "swi", F: 1.5, Call: 2}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "calls4/weak-mb2", Quad: with(func(q *TraceQuad) {
		q.Calls, q.Noise, q.Fault = 4, 0.003, TraceFault{On: true, Layer: 11, Role: "swi", F: 1.1, Call: 2}
	}), MustFind: true})
	cs = append(cs, TraceCase{Name: "calls4/null", Quad: with(func(q *TraceQuad) { q.Calls, q.Noise = 4, 0.01 })})
	cs = append(cs, TraceCase{Name: "recompute/swi", Quad: with(func(q *TraceQuad) { q.Recompute, q.Fault = true, TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	// control group
	cs = append(cs, TraceCase{Name: "noCD/swi", Quad: with(func(q *TraceQuad) { q.NoCD, q.Fault = true, TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
	cs = append(cs, TraceCase{Name: "noCD/null-bias0.8", Quad: with(func(q *TraceQuad) { q.NoCD, q.Bias, q.Noise = true, 0.8, 0.005 })})
	cs = append(cs, TraceCase{Name: "noD/swi", Quad: with(func(q *TraceQuad) { q.NoD, q.Fault = true, TraceFwdFault(11, "swi", 1.5) }), MustFind: true})
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

// TraceConstCases: statistics fixed by construction (a softmax's Max, Min
// and Mean, a finite mask's Min, norms' output Norm) at mix and L1 with
// two and four layers, where the band is learned from every aligned op of
// the layers: noise alone flags nothing, and a fault in the last layer is
// found at its layer and operator.
func TraceConstCases(base TraceQuad) []TraceCase {
	var cs []TraceCase
	for _, lv := range []string{"mix", "L1"} {
		for _, n := range []int{2, 4} {
			for seed := uint64(1); seed <= 10; seed++ {
				q := base
				q.Level, q.Layers, q.Noise, q.Seed, q.ConstStats = lv, n, 0.01, seed, true
				cs = append(cs, TraceCase{Name: fmt.Sprintf("const/%s/%dL/null/s%d", lv, n, seed), Quad: q})
			}
			for _, role := range []string{"qkv", "fc1", "swi"} {
				q := base
				q.Level, q.Layers, q.ConstStats, q.Fault = lv, n, true, TraceFwdFault(n-1, role, 1.5)
				cs = append(cs, TraceCase{Name: fmt.Sprintf("const/%s/%dL/%s", lv, n, role), Quad: q, MustFind: true})
			}
		}
	}
	return cs
}

// TraceDegradedNull are noise-only runs without a control group (A/B
// only): layer counts, noise levels, device bias, bf16 extremes and
// micro-batches. Nothing may be flagged, except that the 4-layer runs learn
// their bands from a dozen ratios: one flagged run in the lot is allowed.
func TraceDegradedNull() []TraceCase {
	var cs []TraceCase
	for _, layers := range []int{4, 12, 24, 48} {
		for _, noise := range []float64{0.001, 0.01, 0.03} {
			for seed := uint64(1); seed <= 4; seed++ {
				q := TraceQuad{Layers: layers, Noise: noise, Bias: []float64{0.8, 1, 1.25}[seed%3], Seed: 300 + seed, NoCD: true,
					BF16: seed%2 == 0, Calls: 1 + int(seed%2)}
				cs = append(cs, TraceCase{Name: fmt.Sprintf("%d layers noise %.3f seed %d", layers, noise, seed), Quad: q})
			}
		}
	}
	return cs
}
