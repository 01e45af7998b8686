package sweeps

import (
	"sync/atomic"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
)

// TestPhase12IdenticalResultsSpilled is TestPhase12IdenticalResults with
// min, max and mean moved out of the heap into a spill file for every
// case (LoadMonitor spills every load; monitors built in memory and dump
// gradients are spilled before Phase 1): the same golden.
func TestPhase12IdenticalResultsSpilled(t *testing.T) {
	if testing.Short() {
		t.Skip("writes every format of a sweep subset")
	}
	if *updateIdentity {
		t.Skip("the golden is written by TestPhase12IdenticalResults")
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", t.TempDir())
	defer func(v int) { ingest.SpillStatsMinRows = v }(ingest.SpillStatsMinRows)
	ingest.SpillStatsMinRows = 0
	var stored, mapped atomic.Int64
	idPrepare = func(d *model.MonitorData) {
		ingest.SpillStats("", d)
		for s := model.StatMin; s < model.NumStats; s++ {
			if !d.Rows.Lacks[s] && d.Rows.Len() > 0 {
				stored.Add(1)
				if d.Rows.Mapped {
					mapped.Add(1)
				}
				break
			}
		}
	}
	defer func() { idPrepare = nil }()
	checkIdentity(t, identityInputs(t))
	if stored.Load() == 0 || mapped.Load() != stored.Load() {
		t.Fatalf("%d of %d monitors holding min/max/mean were spilled", mapped.Load(), stored.Load())
	}
	t.Logf("%d monitors spilled", mapped.Load())
}
