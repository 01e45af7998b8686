package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// On a pipeline stage, a candidate's stage-local layer has the model's
// layer beside it on the Phase 1 table, under it and in titles.
func TestGlobalLayerBesideStageLocalName(t *testing.T) {
	d := fixture()
	a := &d.P1.Anomalies[0]
	a.TargetName, a.GlobalLayer = "pp1:vpp1:layers.0.mlp.dense_4h_to_h.weight", model.IntPtr(3)
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	txt := screenText(m)
	if !strings.Contains(txt, "L0 (L3) mlp.dense_4h_to_h") {
		t.Fatalf("Phase 1 table lacks the model layer:\n%s", txt)
	}
	if !strings.Contains(txt, "· model layer 3") {
		t.Fatalf("the selected row's full name lacks the model layer:\n%s", txt)
	}
	if got := namesOf(m.data).title(a, 200); !strings.Contains(got, "(L3 of the model)") {
		t.Fatalf("title %q", got)
	}
	// the model's own numbering needs no second number
	a.TargetName = "layers.3.mlp.dense_4h_to_h.weight"
	if g := globalMark(a); g != "" {
		t.Fatalf("global mark %q on a name that already is the model's layer", g)
	}
}
