package sweeps

import (
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// The Phase 2 event sweeps in memory (analysis runs a few of their cases).

// evSweepPhases is Phase 2 of a sweep case: Phase 1 read back from JSON,
// then Phase 2 with its texts said, as spikescope select does.
func evSweepPhases(t *testing.T, a, b *model.MonitorData) *model.Phase2Result {
	_, p2 := evPhases(t, a, b)
	return p2
}

// Two spikes: ranks, window, kernel-spike size, order and distance of the
// two spikes, seeds (synth.EventsTwoSpikesCases). Always two events with
// their extents; on step-level data the root is the earlier spike,
// whichever kind it is.
func TestEventsSweepTwoSpikes(t *testing.T) {
	t.Parallel()
	cases := synth.EventsTwoSpikesCases()
	fails := synth.RunEventCases(t, cases, evSweepPhases)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}

// fp16 runs with a baseline (synth.EventsFP16Cases): overflow period,
// which gradients overflow, window, ranks, and a kernel or data spike
// before, between, right after or on an overflow step. The root is the
// spike; every overflow step not holding the spike is a shared event.
// Without the spike the root is the first overflow, every event shared.
func TestEventsSweepFp16(t *testing.T) {
	t.Parallel()
	cases := synth.EventsFP16Cases()
	fails := synth.RunEventCases(t, cases, evSweepPhases)
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}
