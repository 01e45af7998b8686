package sweeps

import (
	"context"
	"os"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
)

// TestPhase12OutOfCoreIdenticalResults: every case and fixture read out of
// core — chunks of 16 rows, buckets of 256, so that every series
// crosses chunks and the series are cut into many buckets — gives the
// golden's results, the in-memory path's, field for field; the spill folder
// is left empty.
func TestPhase12OutOfCoreIdenticalResults(t *testing.T) {
	if testing.Short() {
		t.Skip("writes every format of a sweep subset")
	}
	if *updateIdentity {
		t.Skip("the golden is written by the in-memory test")
	}
	dir := t.TempDir()
	loadMonitor = func(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
		return ingest.LoadMonitorOutOfCore(ctx, path, f, p, ingest.OutOfCore{Dir: dir, ChunkRows: 16, BucketRows: 256})
	}
	defer func() { loadMonitor = ingest.LoadMonitor }()
	checkIdentity(t, identityInputs(t))
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", dir, ents)
	}
}
