package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// The Phase 1 screen shows micro steps as the input numbers them: the
// window line gives a monitor v2 run's 1..W, the ms column the file's
// number of each candidate.
func TestPhase1ShowsMicroStepsAsWritten(t *testing.T) {
	d := fixture()
	sa := &d.P1.Sharding
	sa.HasMicroStep, sa.ExplicitMicroStep, sa.AccumulationWindow = true, true, 4
	sa.MicroStepRange, sa.MicroStepBase = []int{1, 2, 3, 4}, 1
	for i := range d.P1.Anomalies {
		a := &d.P1.Anomalies[i]
		a.OptimizerStep, a.MicroStep, a.MicroIndex = model.IntPtr(a.Step), model.IntPtr(3), model.IntPtr(2)
	}
	m := loaded(t, fixtureBackend(), d, 160, 48, true)
	txt := screenText(m)
	if !strings.Contains(txt, "4 micro steps per step (as the input numbers them, 1..4)") {
		t.Fatalf("window line:\n%s", txt)
	}
	// p pins the selected candidate with the file's number, as --pin reads it
	run(t, m, press(m, "p"))
	if !strings.Contains(m.data.Pin.String(), ",ms=3,") {
		t.Fatalf("pin %q, want the file's ms=3", m.data.Pin)
	}
}
