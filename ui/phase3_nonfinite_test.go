package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

func paneText(p *phase3Pane, w, h int) string {
	p.SetSize(w, h)
	return ansi.Strip(strings.Join(p.View(), "\n"))
}

// A non-finite divergence shows as F!∞ in the layer table and the
// drill-down line names the non-finite origin.
func TestPhase3ShowsNonFinite(t *testing.T) {
	d := fixture()
	l := *d.P3.DivergenceSummary.EarliestFwdDivergence
	for ai := range d.P3.Anchors {
		for li := range d.P3.Anchors[ai].Layers {
			if d.P3.Anchors[ai].Layers[li].Layer != l {
				continue
			}
			r := d.P3.Anchors[ai].Layers[li].Metrics["Norm"]
			r.FAnomaly, r.FFlag, r.FNonFinite = nil, true, true
			d.P3.Anchors[ai].Layers[li].Metrics["Norm"] = r
		}
	}
	d.P3.DivergenceSummary.Drilldown.NonFinite = true
	txt := paneText(newPhase3Pane(testCommon(d)), 200, 60)
	if !strings.Contains(txt, "F!∞") || !strings.Contains(txt, "non-finite origin") {
		t.Fatalf("screen:\n%s", txt)
	}
}

// C standing in for a missing B: the baseline column is titled C (F_C,
// F_A/C), no column says F_B, the empty control columns are not shown,
// and the headline says the divergence may be a data difference.
func TestPhase3NamesCInBsPlace(t *testing.T) {
	d := fixture()
	d.P3.BaselineGroup = "C"
	d.P3.Degraded = true
	txt := paneText(newPhase3Pane(testCommon(d)), 200, 60)
	for _, want := range []string{"F_C", "F_A/C", "B_A/C", "A vs C"} {
		if !strings.Contains(txt, want) {
			t.Errorf("no %q on screen:\n%s", want, txt)
		}
	}
	for _, bad := range []string{"F_B", "F_A/B", "F_D", "F_C/D"} {
		if strings.Contains(txt, bad) {
			t.Errorf("%q on screen:\n%s", bad, txt)
		}
	}
	// the drill-down's operator table too
	dd := d.P3.DivergenceSummary.Drilldown
	dp := newDrillPane(testCommon(d), "", *dd.Layer, dd.Direction, 0)
	dp.SetSize(200, 40)
	dt := ansi.Strip(strings.Join(dp.View(), "\n"))
	if !strings.Contains(dt, "F_C") || strings.Contains(dt, "F_B") {
		t.Errorf("drill-down screen:\n%s", dt)
	}
	// with a real B nothing changes
	d.P3.BaselineGroup = ""
	if txt := paneText(newPhase3Pane(testCommon(d)), 200, 60); !strings.Contains(txt, "F_B") {
		t.Errorf("B missing:\n%s", txt)
	}
}

// The text summary (stdout not a terminal) says the operator is where A
// turns NaN/Inf, and that A was compared with C when C stands in for B.
func TestSummaryNonFiniteAndCInBsPlace(t *testing.T) {
	d := fixture()
	d.P3.DivergenceSummary.Drilldown.NonFinite = true
	d.P3.BaselineGroup = "C"
	s := Summary(d)
	for _, want := range []string{"earliest divergence (A vs C: no baseline dump, may be a data difference): forward layer 3",
		"first operator to turn NaN/Inf: Module.layers.3.mlp.linear_fc1.forward.0"} {
		if !strings.Contains(s, want) {
			t.Errorf("summary lacks %q:\n%s", want, s)
		}
	}
}
