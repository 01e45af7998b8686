package sweeps

import (
	"fmt"
	"math/rand/v2"
	"spikescope/words"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// The long Phase 3 matrices on generated four-group dumps (analysis runs a
// few cases of each: sweep3_test.go).

// phase3 is the trace under test: Phase 3 with the default options.
func phase3(a, b, c, d *model.Dump) *model.Phase3Result {
	res := analysis.Phase3(analysis.Phase3Input{A: a, B: b, C: c, D: d}, analysis.DefaultPhase3Options())
	words.Phase3(res, words.English)
	return res
}

// The Phase 3 sweep: dumps unlike the demo (fault site, layer, amplitude,
// noise, bias, layer count, naming, dump level, micro-batches, control
// group, statistics fixed by construction, alignment trouble, drift, record
// order), each checked against the planted truth; a fault well above the
// band (analysis.DegreeBandSpread) must be found.
func TestSweep3_Matrix(t *testing.T) {
	t.Parallel()
	cases := synth.TraceMatrix(analysis.DegreeBandSpread)
	fails := synth.RunTraceCases(t, cases, phase3)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// Noise only, no control group (A/B only, or C standing in for B): the
// robust bands flag nothing over seeds, layer counts, noise levels, device
// bias, bf16 extremes and micro-batches. (Heavy-tailed Max/Min jumps flag
// layers without a control group, before and after the robust bands: only
// a control pair shows that such jumps are the devices' normal noise.)
func TestSweep3_DegradedNull(t *testing.T) {
	t.Parallel()
	bad := 0
	cases := synth.TraceDegradedNull()
	for _, c := range cases {
		if why := c.Check(phase3); why != "" {
			bad++
			t.Logf("%s: %s", c.Name, why)
		}
	}
	// The 4-layer runs learn their bands from a dozen ratios: allow one.
	if bad > 1 {
		t.Errorf("%d/%d noise-only degraded runs flagged", bad, len(cases))
	}
}

// Noise alone (1% per tensor, Max/Min 2%) never flags a layer, over many
// seeds, layer counts and micro-batch counts: the degree's band is √2 × the
// control's spread and keeps the seed's false-flag rate for the whole pass.
func TestSweep3_NoiseOnlyManySeeds(t *testing.T) {
	t.Parallel()
	for _, cfg := range []struct{ layers, calls, seeds int }{{24, 1, 30}, {48, 1, 10}, {24, 4, 6}} {
		for seed := uint64(100); seed < uint64(100+cfg.seeds); seed++ {
			c := synth.TraceCase{Quad: synth.TraceQuad{Layers: cfg.layers, Calls: cfg.calls, Noise: 0.01, Bias: 1, Seed: seed}}
			if why := c.Check(phase3); why != "" {
				t.Errorf("%d layers %d calls seed %d: %s", cfg.layers, cfg.calls, seed, why)
			}
		}
	}
}

// A 1.1× fault at 0.3% device noise is found at its layer and operator
// (the band is the seed's 3% floor there).
func TestSweep3_WeakFaultFound(t *testing.T) {
	t.Parallel()
	for seed := uint64(100); seed < 110; seed++ {
		c := synth.TraceCase{Quad: synth.TraceQuad{Layers: 24, Noise: 0.003, Bias: 1, Seed: seed, Fault: synth.TraceFwdFault(7, "fc1", 1.1)}, MustFind: true}
		if why := c.Check(phase3); why != "" {
			t.Errorf("seed %d: %s", seed, why)
		}
	}
}

// s3Combos crosses the sweep's dimensions at random (deterministically):
// flavour pair, dump level, construct.json, micro-batches and the faulty
// one, recompute, API counter shift, layer count, fault site, layer,
// direction and amplitude, device bias, statistics fixed by construction.
func s3Combos(n int) []synth.TraceCase {
	r := rand.New(rand.NewPCG(42, 7))
	flavours := [][2]synth.TraceFlavour{{synth.TraceMcore, synth.TraceMcore}, {synth.TraceMcore, synth.TraceTE}, {synth.TraceLegacy, synth.TraceLegacy}, {synth.TraceMoE, synth.TraceMoE}, {synth.TraceMS, synth.TraceMS}, {synth.TraceMcore, synth.TraceGPULocal}}
	fwdRoles := []string{"ln1", "qkv", "attn", "proj", "hmid", "ln2", "fc1", "swi", "fc2", "hout"}
	bwdRoles := []string{"g_hout", "g_fc2", "g_swi", "g_fc1", "g_ln2", "g_hmid", "g_proj", "g_attn", "g_qkv", "g_ln1"}
	var cs []synth.TraceCase
	for k := 0; k < n; k++ {
		fl := flavours[r.IntN(len(flavours))]
		q := synth.TraceQuad{Layers: []int{4, 12, 24, 48}[r.IntN(4)], Noise: []float64{0.001, 0.005, 0.01}[r.IntN(3)],
			Bias: []float64{0.8, 1, 1.25}[r.IntN(3)], FlavA: fl[0], FlavB: fl[1], Seed: uint64(1000 + k),
			Calls: []int{1, 1, 2, 4}[r.IntN(4)], APIShift: r.IntN(3) * 5}
		q.Level = []string{"mix", "mix", "L0", "L1"}[r.IntN(4)]
		q.NoParents = q.Level != "L0" && r.IntN(3) == 0
		q.Recompute = q.Level != "L1" && r.IntN(4) == 0
		q.PreOrder = k%2 == 1 // every other combo writes module records before their children's (no draw: the other dimensions stay)
		// every third combo at mix or L1 holds statistics fixed by
		// construction (softmax, finite mask, norms; no draw either)
		q.ConstStats = k%3 == 0 && q.Level != "L0"
		bwd := r.IntN(3) == 0
		role := fwdRoles[r.IntN(len(fwdRoles))]
		if bwd {
			role = bwdRoles[r.IntN(len(bwdRoles))]
		}
		amp := []float64{1.3, 1.5, 2, 0.7}[r.IntN(4)]
		call := -1
		if q.Calls > 1 {
			call = r.IntN(q.Calls)
		}
		q.Fault = synth.TraceFault{On: r.IntN(6) != 0, Bwd: bwd, Layer: r.IntN(q.Layers), Role: role, F: amp, Call: call}
		if q.FlavA == synth.TraceMoE && (role == "swi" || role == "fc1" || role == "fc2" || role == "g_swi" || role == "g_fc1" || role == "g_fc2") {
			q.Fault.Role = role + "#1"
		}
		// The planted op must exist at this level, and its tensor on both
		// devices (TE has no separate norms), or the drill-down cannot name
		// it: then only the layer is checked.
		noDrill := fl[0] != fl[1] || q.Level == "L0" || q.Level == "L1" && fl[0] == synth.TraceMoE
		if fl[1] == synth.TraceTE && (strings.HasPrefix(strings.TrimPrefix(role, "g_"), "ln") || role == "swi" || role == "g_swi") {
			q.Fault.Role = map[bool]string{false: "fc1", true: "g_fc1"}[bwd]
		}
		name := fmt.Sprintf("combo%02d/%v-%v/%s/c%d/L%d/%s@%d×%.1f", k, fl[0], fl[1], q.Level, q.Calls, q.Layers, q.Fault.Role, q.Fault.Layer, amp)
		if !q.Fault.On {
			name = fmt.Sprintf("combo%02d/%v-%v/%s/c%d/L%d/null", k, fl[0], fl[1], q.Level, q.Calls, q.Layers)
		}
		if q.PreOrder {
			name += "/pre"
		}
		if q.ConstStats {
			name += "/const"
		}
		cs = append(cs, synth.TraceCase{Name: name, Quad: q, MustFind: true, NoDrill: noDrill})
	}
	return cs
}

func TestSweep3_Combos(t *testing.T) {
	t.Parallel()
	cases := s3Combos(80)
	fails := synth.RunTraceCases(t, cases, phase3)
	t.Logf("%d/%d combos pass", len(cases)-fails, len(cases))
}

// Degraded mode (no C/D, or C without D): the band is learned from A/B
// across layers on the same log scale with the same family and IQR rules
// (no √2: it judges the ratio it was learned from). A device bias (0.9) and
// 1% noise flag nothing; a 1.3× fault is found at its layer.
func TestSweep3_DegradedNoiseAndFault(t *testing.T) {
	t.Parallel()
	for _, noD := range []bool{false, true} {
		for seed := uint64(100); seed < 115; seed++ {
			q := synth.TraceQuad{Layers: 24, Noise: 0.01, Bias: 0.9, Seed: seed, NoCD: !noD, NoD: noD}
			if why := (synth.TraceCase{Quad: q}).Check(phase3); why != "" {
				t.Errorf("noD=%v null seed %d: %s", noD, seed, why)
			}
			q.Noise, q.Fault = 0.005, synth.TraceFwdFault(int(seed%20)+1, "fc2", 1.3)
			if why := (synth.TraceCase{Quad: q, MustFind: true}).Check(phase3); why != "" {
				t.Errorf("noD=%v fault seed %d: %s", noD, seed, why)
			}
		}
	}
}

// Sensitivity at 1% device noise: a 1.15× fault is found at its layer in
// every run; a 1.1× fault (about the band's width) is found or missed, never
// placed at another layer.
func TestSweep3_SensitivityAt1Percent(t *testing.T) {
	t.Parallel()
	for seed := uint64(100); seed < 115; seed++ {
		if why := (synth.TraceCase{Quad: synth.TraceQuad{Layers: 24, Noise: 0.01, Bias: 1, Seed: seed, Fault: synth.TraceFwdFault(7, "fc1", 1.15)}, MustFind: true}).Check(phase3); why != "" {
			t.Errorf("1.15x seed %d: %s", seed, why)
		}
		if why := (synth.TraceCase{Quad: synth.TraceQuad{Layers: 24, Noise: 0.01, Bias: 1, Seed: seed, Fault: synth.TraceFwdFault(7, "fc1", 1.1)}}).Check(phase3); why != "" {
			t.Errorf("1.1x seed %d: %s", seed, why)
		}
	}
}
