package pipeline

import (
	"math"
	"runtime/debug"
	"testing"

	"spikescope/ingest"
)

// TestRoomForAnalysis: a large load's analysis runs under a soft limit
// near the live heap, restored after; a tighter limit already set (a
// budget) is never raised, and a small load is left alone.
func TestRoomForAnalysis(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	large := ingest.SpillStatsMinRows

	restore := roomForAnalysis(large)
	during := debug.SetMemoryLimit(-1)
	restore()
	if during == math.MaxInt64 || during <= 0 {
		t.Errorf("no limit during the analysis of %d rows: %d", large, during)
	}
	if after := debug.SetMemoryLimit(-1); after != math.MaxInt64 {
		t.Errorf("limit after %d, want it restored", after)
	}

	debug.SetMemoryLimit(1 << 20) // tighter than any heap: a budget set before
	restore = roomForAnalysis(large)
	if got := debug.SetMemoryLimit(-1); got != 1<<20 {
		t.Errorf("a tighter limit was raised to %d", got)
	}
	restore()
	debug.SetMemoryLimit(math.MaxInt64)

	restore = roomForAnalysis(large - 1)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a small load got a limit: %d", got)
	}
	restore()
}
