package analysis

import (
	"fmt"
	"math"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// The Phase 3 sweep's non-finite faults: NaN and +Inf planted forward or
// backward only, in every naming style (Megatron-core, legacy, MoE experts,
// MindSpore, A on NPU against TransformerEngine or local modules on GPU),
// at dump levels mix and L0, with and without construct.json, in both
// record orders, with and without a control group. The start layer, the
// direction, the P0 and the drill-down operator (the planted record, also
// when the baseline has no counterpart of it) are checked.

// s3PoisonInputs makes the inputs of a post-order dump's records follow
// its outputs: in each pass, every record after the first non-finite
// output, except that record's ancestors (their inputs came before it),
// takes non-finite inputs (the generator writes finite inputs only).
func s3PoisonInputs(d *model.Dump) {
	for _, dir := range []model.Direction{model.Forward, model.Backward} {
		first := -1
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Direction != dir {
				continue
			}
			if first < 0 {
				if floatOutputs(op) < 0 {
					first = i
				}
				continue
			}
			if contains(d, op, &d.Ops[first]) {
				continue
			}
			for k := range op.Inputs {
				tSetStats(&op.Inputs[k], math.NaN())
			}
		}
	}
}

type s3nfCase struct {
	name string
	q    synth.TraceQuad
	pre  bool // records rewritten in pre-order
}

func s3NonFiniteCases() []s3nfCase {
	var cs []s3nfCase
	flav := []struct {
		name string
		a, b synth.TraceFlavour
	}{{"mcore", synth.TraceMcore, synth.TraceMcore}, {"legacy", synth.TraceLegacy, synth.TraceLegacy}, {"moe", synth.TraceMoE, synth.TraceMoE}, {"mindspore", synth.TraceMS, synth.TraceMS},
		{"npu-vs-te", synth.TraceMcore, synth.TraceTE}, {"npu-vs-gpulocal", synth.TraceMcore, synth.TraceGPULocal}}
	for _, f := range flav {
		for _, level := range []string{"mix", "L0"} {
			fwd := []string{"swi", "attn", "fc1", "ln1"}
			bwd := []string{"g_swi", "g_fc1", "g_attn"}
			if level == "L0" {
				fwd, bwd = []string{"attn", "fc1"}, []string{"g_fc1", "g_attn"}
			}
			var faults []synth.TraceFault
			for i, r := range fwd {
				if f.a == synth.TraceMoE && (r == "swi" || r == "fc1") {
					r += "#1"
				}
				v := math.NaN()
				if i%2 == 1 {
					v = math.Inf(1)
				}
				faults = append(faults, synth.TraceFault{On: true, Layer: 3 + 2*i, Role: r, F: v, Call: -1})
			}
			for i, r := range bwd {
				if f.a == synth.TraceMoE && (r == "g_swi" || r == "g_fc1") {
					r += "#1"
				}
				v := math.Inf(1)
				if i%2 == 1 {
					v = math.NaN()
				}
				faults = append(faults, synth.TraceFault{On: true, Bwd: true, Layer: 9 - 2*i, Role: r, F: v, Call: -1})
			}
			for k, ft := range faults {
				for _, pre := range []bool{false, true} {
					q := synth.TraceQuad{Layers: 12, Noise: 0.005, Bias: 1, Seed: uint64(50 + k), FlavA: f.a, FlavB: f.b, Level: level, Fault: ft,
						NoParents: k%3 == 2 && !pre, NoCD: k%4 == 3}
					cs = append(cs, s3nfCase{name: fmt.Sprintf("%s/%s/%s@L%d×%v/pre=%v/noCD=%v/noConstruct=%v", f.name, level, ft.Role, ft.Layer, ft.F, pre, q.NoCD, q.NoParents), q: q, pre: pre})
				}
			}
		}
	}
	return cs
}

func TestSweep3_NonFinite(t *testing.T) {
	t.Parallel()
	cs := s3NonFiniteCases()
	fails := synth.RunCases(t, cs, func(c s3nfCase) string { return c.name }, func(t *testing.T, c s3nfCase) string {
		a, b, cc, d := c.q.Build()
		want := synth.TracePlantedKey(a, c.q)
		if want == "" {
			t.Fatalf("%s: no planted record", c.name)
		}
		s3PoisonInputs(a)
		if c.pre {
			for _, x := range []*model.Dump{a, b, cc, d} {
				if x != nil {
					tPreOrder(x, false)
				}
			}
		}
		r := phase3T(Phase3Input{A: a, B: b, C: cc, D: d}, DefaultPhase3Options())
		f := nfFault{dir: model.Forward, layer: c.q.Fault.Layer}
		if c.q.Fault.Bwd {
			f.dir = model.Backward
		}
		return nfCheck(r, f, want)
	})
	t.Logf("%d/%d non-finite cases pass", len(cs)-fails, len(cs))
}
