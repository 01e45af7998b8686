package report

import (
	"strings"
	"testing"
)

// C standing in for B: the report's four-group tables title the baseline
// column C (F_C, F_A/C), have no F_B and no empty control columns; a
// non-finite divergence is `F!∞` in the layer table.
func TestReportNamesCAndNonFinite(t *testing.T) {
	in := noControlInput()
	in.P3.BaselineGroup = "C"
	a := &in.P3.Anchors[0]
	m := a.Layers[0].Metrics["Norm"]
	m.FAnomaly, m.FFlag, m.FNonFinite = nil, true, true
	a.Layers[0].Metrics["Norm"] = m
	for _, lang := range []string{"en", "zh"} {
		out := Render(in, lang)
		for _, want := range []string{"| F_C |", "F_A/C", "B_A/C", "`F!∞`"} {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q", lang, want)
			}
		}
		for _, bad := range []string{"| F_B |", "F_A/B", "F_C/D", "| F_D |"} {
			if strings.Contains(out, bad) {
				t.Errorf("%s: %q in the report", lang, bad)
			}
		}
	}
	// the conclusion names the origin of the P0 direction and hedges A vs C
	for i := range in.P3.DivergenceSummary.Directions {
		if d := &in.P3.DivergenceSummary.Directions[i]; d.P0 {
			d.FirstNonFinite = "L1 NPU.npu_swiglu.1.forward"
		}
	}
	out := Render(in, "en")
	for _, want := range []string{"first turns NaN/Inf at `L1 NPU.npu_swiglu.1.forward`", "C in B's place"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q", want)
		}
	}
	in.P3.BaselineGroup = ""
	if out := Render(in, "en"); !strings.Contains(out, "| F_B |") || strings.Contains(out, "C in B's place") {
		t.Error("real B: no F_B column, or hedged")
	}
}
