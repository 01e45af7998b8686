package analysis

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// Degraded comparison (no C/D) on faults that span most layers (issue 9
// item 5): a 9× fault in layer fl's mlp.linear_fc1 whose effect rides the
// residual stream (the layer outputs and residual adds of every deeper
// layer carry it). Before, the layer-output anchor's own band was centred
// on the fault (most of its layers carry it), layer 0 looked divergent and
// the drill-down ended with "no op of this layer leaves the band". Now the
// start is fl and the operator its linear_fc1.
func TestPhase3_DegradedWideFault(t *testing.T) {
	t.Parallel()
	kfc1 := tFind(tFwd, "mlp.linear_fc1", "ColumnParallelLinear")
	kadd := tFind(tFwd, "", "Tensor.__add__")
	for _, layers := range []int{12, 24} {
		for _, fl := range []int{1, 2, layers / 2, layers - 2} {
			for _, carry := range []float64{9, 3, 1.5} {
				name := fmt.Sprintf("%d layers, fault L%d, carried %.1fx", layers, fl, carry)
				noise := tNoise(3)
				mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
					n := noise(dir, layer, k, s)
					switch {
					case dir != model.Forward:
						return n
					case layer == fl && k >= kfc1:
						return 9 * n
					case layer > fl && (k == kadd || k >= len(tFwd)-2):
						return carry * n
					}
					return n
				}
				a := buildDump("A", tSpec{Layers: layers, Mul: mul})
				b := buildDump("B", tSpec{Layers: layers})
				r := runP3(a, b, nil, nil)
				s := r.DivergenceSummary
				want := fmt.Sprintf("Module.module.module.decoder.layers.%d.mlp.linear_fc1.ColumnParallelLinear.forward.0", fl)
				if intp(s.EarliestFwdDivergence) != fl || s.Drilldown == nil || s.Drilldown.Operator != want {
					dd := "nil"
					if s.Drilldown != nil {
						dd = s.Drilldown.Operator + " (" + s.Drilldown.Note + ")"
					}
					t.Errorf("%s: start L%d, drill-down %s", name, intp(s.EarliestFwdDivergence), dd)
				}
			}
		}
	}
}

// The drill-down's degraded band is learned from the other layers' aligned
// ops, the flagged layers left out: a fault in every op of layers 5–7 neither
// moves its median nor widens it, and the note says where it came from.
func TestPhase3_DegradedOpBand(t *testing.T) {
	noise := tNoise(4)
	mul := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if dir == model.Forward && layer >= 5 && layer <= 7 {
			return 1.4 * noise(dir, layer, k, s)
		}
		return noise(dir, layer, k, s)
	}
	a := buildDump("A", tSpec{Layers: 12, Mul: mul})
	b := buildDump("B", tSpec{Layers: 12})
	tr := newTracerT(Phase3Input{A: a, B: b}, DefaultPhase3Options())
	s := tr.Result().DivergenceSummary
	if intp(s.EarliestFwdDivergence) != 5 {
		t.Fatalf("start L%d", intp(s.EarliestFwdDivergence))
	}
	bands := tr.p.cachedDrillBands(5, "fwd", s.Thresholds)
	bd := bands["Norm"]["fwd"]
	if !bd.Usable || math.Abs(float64(bd.Median)-1) > 0.02 || float64(bd.Upper) > 1.2 || !slices.Contains(bd.NoteReasons, model.Reason(model.P3BandOps{Samples: bd.Samples, Unflagged: true, Layer: 5})) && !slices.Contains(bd.NoteReasons, model.Reason(model.P3BandOps{Samples: bd.Samples, Layer: 5})) || bd.RuleReason != bandRuleDegradedOps {
		t.Errorf("op band %+v", bd)
	}
	flagged := 0
	for _, op := range tr.OpsForLayer("", 5, "fwd") {
		if op.Flagged {
			flagged++
		}
	}
	if flagged == 0 {
		t.Error("no op of the faulty layer leaves the op band")
	}
	// a clean layer's ops stay inside
	for _, op := range tr.OpsForLayer("", 2, "fwd") {
		if op.Flagged {
			t.Errorf("clean layer op %s flagged", op.Key)
		}
	}
}

// robustLogBand: 40% of the ratios far off move neither the median nor the
// spread (the IQR-based band of the same ratios is unusable or wide).
func TestRobustLogBand(t *testing.T) {
	var rs []float64
	for i := 0; i < 60; i++ {
		rs = append(rs, math.Exp(0.005*math.Sin(float64(i))))
	}
	for i := 0; i < 40; i++ {
		rs = append(rs, 9*math.Exp(0.005*math.Cos(float64(i))))
	}
	b := robustLogBand(rs, 3, 0.03, 100)
	if !b.Usable || math.Abs(float64(b.Median)-1) > 0.01 || float64(b.Upper) > 1.1 {
		t.Errorf("robust band %+v", b)
	}
	if l := logBand(rs, 3, 0.03, 100, 1); l.Usable && float64(l.Upper) < 2 {
		t.Errorf("the IQR band was expected to be wide here: %+v", l)
	}
	if b := robustLogBand([]float64{1, -1, 1}, 3, 0.03, 1); b.Usable {
		t.Errorf("sign change usable: %+v", b)
	}
}

// Noise only, no control group (A/B only, or C standing in for B): the
// robust bands flag nothing. A few of synth.TraceDegradedNull (all of them,
// over seeds, layer counts, noise levels, device bias, bf16 extremes and
// micro-batches: sweeps' TestSweep3_DegradedNull).
func TestSweep3_DegradedNullQuick(t *testing.T) {
	t.Parallel()
	quick := []string{"12 layers noise 0.010 seed 1", "12 layers noise 0.030 seed 2", "24 layers noise 0.001 seed 3", "24 layers noise 0.010 seed 4"}
	n := 0
	for _, c := range synth.TraceDegradedNull() {
		if !slices.Contains(quick, c.Name) {
			continue
		}
		n++
		if why := s3Check(c); why != "" {
			t.Errorf("%s: %s", c.Name, why)
		}
	}
	if n != len(quick) {
		t.Fatalf("%d of the %d quick cases are in synth.TraceDegradedNull", n, len(quick))
	}
}
