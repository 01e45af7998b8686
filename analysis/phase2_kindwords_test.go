package analysis

import (
	"strings"
	"testing"

	"spikescope/model"
)

// The first decision names the data kind: micro steps of a window of 1
// accumulate nothing (each gradient is the whole step's), so the sentence
// says so instead of "cumulative gradients per micro step".
func TestPhase2KindSentenceWindowOne(t *testing.T) {
	for _, c := range []struct {
		window    int
		want, not string
	}{
		{1, "window 1: no accumulation", "cumulative"},
		{4, "micro-step data (cumulative gradients per micro step)", "no accumulation"},
	} {
		p1 := &model.Phase1Result{DataKind: "micro_step", Sharding: model.ShardingAnalysis{HasMicroStep: true, AccumulationWindow: c.window},
			Anomalies: []model.Anomaly{microAnomaly(0, 1, 0, fc1, 5, 4, 6, 4)}}
		p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		if d := p2.Decisions[0]; !strings.Contains(d, c.want) || strings.Contains(d, c.not) {
			t.Errorf("window %d: %q", c.window, d)
		}
	}
}
