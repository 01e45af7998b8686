package sweeps

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/testdata/synth"
)

// plantedLeaves are planted leaves per flavour (forward and backward).
func plantedLeaves(f synth.TraceFlavour) []string {
	switch f {
	case synth.TraceTE: // TE has no separate norms; swiglu is silu × mul
		return []string{"qkv", "attn", "proj", "hmid", "fc1", "swi", "fc2", "hout", "g_fc2", "g_swi", "g_attn"}
	case synth.TraceMoE:
		return []string{"ln1", "attn", "hmid", "fc1#1", "swi#1", "fc2#2", "hout", "g_swi#1", "g_fc1#0", "g_attn"}
	}
	return []string{"ln1", "qkv", "attn", "proj", "hmid", "ln2", "fc1", "swi", "fc2", "hout", "g_fc2", "g_swi", "g_fc1", "g_ln2", "g_attn", "g_ln1"}
}

func TestSweep3_OperatorEveryNamingAndOrder(t *testing.T) {
	t.Parallel()
	flavours := []synth.TraceFlavour{synth.TraceMcore, synth.TraceLegacy, synth.TraceTE, synth.TraceMoE, synth.TraceMS, synth.TraceGPULocal}
	var cases []synth.TraceCase
	for _, fl := range flavours {
		for _, pre := range []bool{false, true} {
			for _, noParents := range []bool{false, true} {
				for ri, role := range plantedLeaves(fl) {
					bwd := strings.HasPrefix(role, "g_")
					q := synth.TraceQuad{Layers: 16, Noise: 0.005, Bias: 1, Seed: uint64(7 + ri), FlavA: fl, FlavB: fl,
						PreOrder: pre, NoParents: noParents,
						Fault: synth.TraceFault{On: true, Bwd: bwd, Layer: 1 + 3*ri%14, Role: role, F: 1.5, Call: -1}}
					name := fmt.Sprintf("%v/pre=%v/noconstruct=%v/%s", fl, pre, noParents, role)
					cases = append(cases, synth.TraceCase{Name: name, Quad: q, MustFind: true})
				}
			}
		}
	}
	fails := synth.RunTraceCases(t, cases, phase3)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// The anomalous device's activations in bfloat16 (Max/Min are elements,
// rounded to 8 significant bits) against a float32 baseline: noise only
// flags nothing, in either record order and naming style; a 1.5× fault in
// the same setting is named at its layer and operator.
func TestSweep3_BF16VsFP32(t *testing.T) {
	t.Parallel()
	for fi, fl := range []synth.TraceFlavour{synth.TraceMcore, synth.TraceMoE, synth.TraceMS} {
		for _, pre := range []bool{false, true} {
			for seed := uint64(1); seed <= 4; seed++ {
				q := synth.TraceQuad{Layers: 24, Noise: 0.01, Bias: 1, Seed: 300 + seed, FlavA: fl, FlavB: fl, PreOrder: pre, BF16VsFP32: true}
				if why := (synth.TraceCase{Quad: q}).Check(phase3); why != "" {
					t.Errorf("%v pre=%v seed %d null: %s", fl, pre, seed, why)
				}
			}
			q := synth.TraceQuad{Layers: 24, Noise: 0.005, Bias: 1, Seed: uint64(400 + fi), FlavA: fl, FlavB: fl, PreOrder: pre, BF16VsFP32: true,
				Fault: synth.TraceFwdFault(9, map[bool]string{false: "swi", true: "swi#1"}[fl == synth.TraceMoE], 1.5)}
			if why := (synth.TraceCase{Quad: q, MustFind: true}).Check(phase3); why != "" {
				t.Errorf("%v pre=%v fault: %s", fl, pre, why)
			}
		}
	}
}
