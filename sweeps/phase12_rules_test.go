package sweeps

import (
	"strconv"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/testdata/synth"
)

// Pipeline stages reuse layer names at other scales: the series' own
// scale keeps a weak one-rank fault visible (without it, 7 of 20 seeds).
// Weak is 3.5×: a 2.5× fault (2.2× its median on some seeds) is within
// what real gradient noise reaches (weakLimit).
func TestSeriesScalesStages(t *testing.T) {
	for seed := uint64(1); seed <= 10; seed++ {
		c := synth.SweepWith("pp4", func(c *synth.Sweep) {
			c.W, c.Ranks, c.PP, c.Fault.Scale, c.Fault.Micro, c.Seed = 1, 16, 4, 3.5, 0, seed
		})
		r := synth.GenerateSweep(c)
		if msg, _, _ := swOutcome(r, r.Monitor(0), nil, false, false); msg != "" {
			t.Errorf("seed %d: %s", seed, msg)
		}
	}
}

// A run of one or two ranks: the cross-step rule judges a pair on all the
// ranks it has (not "fewer than 3 common ranks: not judged"), so the fault
// step k, not the larger explosion at k+1, is the root.
func TestCrossStepFewRanks(t *testing.T) {
	for _, c := range []synth.Sweep{
		synth.SweepWith("ranks1", func(c *synth.Sweep) { c.Ranks, c.Fault.Rank = 1, 0 }),
		synth.SweepWith("ranks2-W1", func(c *synth.Sweep) { c.Ranks, c.Fault.Rank, c.W, c.Fault.Micro = 2, 1, 1, 0 }),
	} {
		r := synth.GenerateSweep(c)
		msg, _, p2 := swOutcome(r, r.Monitor(0), nil, false, false)
		if msg != "" {
			t.Errorf("%s: %s", c.Name, msg)
		}
		if len(p2.CrossStep) == 0 || !p2.CrossStep[0].Qualifies || p2.CrossStep[0].From != 5 {
			t.Errorf("%s: cross-step rows %+v, want 5 → 6 qualifying first", c.Name, p2.CrossStep)
		}
	}
}

// A monitor with a step interval records every N-th optimizer step: the
// cross-step rule compares a step with the next RECORDED one (k+1 does
// not exist), so the fault step, not the explosion after it, is the root.
func TestCrossStepStepInterval(t *testing.T) {
	c := synth.SweepWith("interval5-W1", func(c *synth.Sweep) { c.Interval, c.W, c.Fault.Micro = 5, 1, 0 })
	r := synth.GenerateSweep(c)
	msg, _, p2 := swOutcome(r, swLoad(t, r, 2, 0), nil, true, false) // CSV v1 tree
	if msg != "" {
		t.Fatal(msg)
	}
	if len(p2.CrossStep) == 0 || p2.CrossStep[0].From != 25 || p2.CrossStep[0].To != 30 || !p2.CrossStep[0].Qualifies {
		t.Errorf("cross-step rows %+v, want 25 → 30 qualifying first", p2.CrossStep)
	}
}

// A dump tree whose parameters_grad were recorded at every micro step
// (ingest: one row per call plus the step's last call without micro step):
// with several steps the calls are accumulated micro steps (the fault's
// micro step is found); with one step only the per-step rows count (the
// last call is not counted twice, partial sums never join the ranking).
func TestDumpPerCallMicroSteps(t *testing.T) {
	r := synth.GenerateSweep(synth.SweepBase())
	d := swLoad(t, r, 5, 0) // dump-micro
	msg, p1, _ := swOutcome(r, d, nil, true, false)
	if msg != "" {
		t.Fatal(msg)
	}
	if p1.DataKind != "micro_step" || p1.Sharding.AccumulationWindow != 4 {
		t.Errorf("kind %s window %d, want micro_step 4", p1.DataKind, p1.Sharding.AccumulationWindow)
	}
	one := synth.GenerateSweep(synth.SweepWith("one", func(c *synth.Sweep) { c.Steps, c.Fault.T, c.Explode = 1, 0, 0 }))
	p1 = analysis.Phase1(swLoad(t, one, 5, 0), analysis.DefaultPhase1Options())
	if p1.DataKind != "dump" || p1.Summary.TotalRows == 0 {
		t.Fatalf("kind %s", p1.DataKind)
	}
	seen := map[string]bool{}
	for _, a := range p1.Anomalies {
		k := a.TargetName + "/" + strconv.Itoa(a.Rank)
		if seen[k] || a.MicroStep != nil && *a.MicroStep >= 0 {
			t.Fatalf("candidate %s listed twice or with micro step %d", k, intOr(a.MicroStep))
		}
		seen[k] = true
	}
	if len(p1.Anomalies) != analysis.DefaultDumpTopN || !strings.Contains(p1.Anomalies[0].TargetName, "output_layer") {
		t.Errorf("%d candidates, first %s; want the top %d, the output layer's gradient first", len(p1.Anomalies), p1.Anomalies[0].TargetName, analysis.DefaultDumpTopN)
	}
}

// Common spikes (an explosion on most ranks) are judged but never join the
// baseline of other values: in a 3-step run where the explosion is a third
// of every pool, the fault one step earlier is still the first candidate.
func TestCommonSpikesLeftOutOfBaseline(t *testing.T) {
	r := synth.GenerateSweep(synth.SweepWith("steps3", func(c *synth.Sweep) { c.Steps, c.Fault.T = 3, 1 }))
	msg, p1, _ := swOutcome(r, r.Monitor(0), nil, false, false)
	if msg != "" {
		t.Fatal(msg)
	}
	exploded := 0
	for _, a := range p1.Anomalies {
		if a.OptStep() == 2 {
			exploded++
		}
	}
	if exploded < 100 {
		t.Errorf("%d candidates at the explosion step, want the explosion judged too", exploded)
	}
}
