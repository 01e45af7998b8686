package sweeps

import (
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// TestSweepInMemory runs the sweep matrix on trend.db-shaped data (global
// micro-step index) built in memory.
func TestSweepInMemory(t *testing.T) {
	for _, c := range swCases() {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			r := synth.GenerateSweep(c)
			var b *model.MonitorData
			if r.C.Baseline > 0 {
				b = r.Monitor(1)
			}
			msg, p1, _ := swOutcome(r, r.Monitor(0), b, false, false)
			status := "pass"
			switch {
			case msg != "" && c.Limit != "":
				status = "known limit (" + c.Limit + "): " + msg
			case msg != "":
				status = "FAIL " + msg
				t.Errorf("%s: %s (window %d detected %d; %d candidates)", c.Name, msg, r.C.W, p1.Sharding.AccumulationWindow, len(p1.Anomalies))
			}
			t.Logf("%-40s %s", c.Name, status)
		})
	}
}
