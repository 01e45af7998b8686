package analysis

import (
	"slices"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// The Phase 2 event sweeps (synth.EventsTwoSpikesCases, EventsFP16Cases)
// run in full in sweeps; here a few cases of each.

// evSweepPhases are the sweeps' Phase 1 and 2 (Phase 1 read back from JSON).
func evSweepPhases(t *testing.T, a, b *model.MonitorData) *model.Phase2Result {
	_, p2 := evPhases(t, a, b)
	return p2
}

// evQuick are the cases of cs named in quick; every name must be there.
func evQuick(t *testing.T, cs []synth.EventCase, quick []string) []synth.EventCase {
	var out []synth.EventCase
	for _, c := range cs {
		if slices.Contains(quick, c.Name) {
			out = append(out, c)
		}
	}
	if len(out) != len(quick) {
		t.Fatalf("%d of the %d quick cases are in the sweep", len(out), len(quick))
	}
	return out
}

// Two spikes, one a kernel spike on one rank, the other a data spike on
// all of a rank's parameters: two events with their extents, the root the
// earlier one on step-level data.
func TestEventsSweepTwoSpikesQuick(t *testing.T) {
	t.Parallel()
	synth.RunEventCases(t, evQuick(t, synth.EventsTwoSpikesCases(), []string{
		"ranks 4 W 1 kernel 4× at 3, data at 9", "ranks 8 W 1 kernel 4× at 10, data at 4",
		"ranks 16 W 4 kernel 6× at 5, data at 6", "ranks 4 W 4 kernel 4× at 1, data at 12",
	}), evSweepPhases)
}

// fp16 runs with a baseline: the root is the spike, the overflows shared
// events; without a spike the first overflow is the root.
func TestEventsSweepFp16Quick(t *testing.T) {
	t.Parallel()
	synth.RunEventCases(t, evQuick(t, synth.EventsFP16Cases(), []string{
		"ranks 4 W 1 period 3 names 0 spike -1", "ranks 4 W 4 period 5 names 1 spike 8",
		"ranks 4 W 1 period 5 names 1 spike 7", "ranks 4 W 4 period 3 names 0 spike 0",
		"ranks 16 W 1 period 3 names 1 spike 8",
	}), evSweepPhases)
}
