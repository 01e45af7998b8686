package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// With several micro-batches in the dump, the operator screen says which
// call its operators were compared at (the drill-down's, the layer
// table's); with one call it says nothing about calls.
func TestDrillSaysWhichCall(t *testing.T) {
	d := fixture()
	d.P3.DivergenceSummary.Drilldown.Call, d.P3.DivergenceSummary.Drilldown.Calls = model.IntPtr(2), 4
	m := loaded(t, fixtureBackend(), d, 160, 48, true)
	press(m, "3", "enter")
	if txt := screenText(m); m.screen != screenDrill || !strings.Contains(txt, "micro-batch 3 of 4") {
		t.Fatalf("operator screen does not name the call:\n%s", txt)
	}
	d = fixture()
	d.P3.DivergenceSummary.Drilldown.Call, d.P3.DivergenceSummary.Drilldown.Calls = model.IntPtr(0), 1
	m = loaded(t, fixtureBackend(), d, 160, 48, true)
	press(m, "3", "enter")
	if txt := screenText(m); strings.Contains(txt, "micro-batch 1 of") {
		t.Fatalf("one call: the screen names it:\n%s", txt)
	}
}
