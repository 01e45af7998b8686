package ui

import (
	"sync"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// The Phase 2 screens of real analyses (the goldens of golden_test.go):
// the demo run with its baseline (events, device verdicts, measured
// growth), the same pinned at a later candidate (what the automatic choice
// was), and a step-level fp16 run whose shared overflows come before a
// device-specific spike.
func init() {
	scenarios = append(scenarios,
		scenario{name: "phase2_baseline", backend: phase2Backend(false), ready: "candidate 1 of", steps: keys("2")},
		scenario{name: "phase2_pinned", backend: phase2Backend(true), ready: "candidate 1 of", steps: keys("2")},
		scenario{name: "phase2_events", backend: fp16Backend, ready: "candidate 1 of", steps: keys("2")},
	)
}

var (
	demoOnce  sync.Once
	demoP1    [2]*model.Phase1Result // anomalous, baseline
	demoMon   [2]*model.MonitorData
	fp16Once  sync.Once
	fp16Built *Data
)

// demoRun analyses the demo configuration's two devices once.
func demoRun() {
	demoOnce.Do(func() {
		r := synth.Generate(synth.DefaultConfig())
		for i, dev := range []synth.Device{synth.Anomalous, synth.Baseline} {
			demoMon[i] = r.Monitor(dev)
			demoP1[i] = analysis.Phase1(demoMon[i], analysis.DefaultPhase1Options())
		}
	})
}

// phase2Backend serves the demo run's Phase 2, pinned at the first
// candidate of the step after the root when pinned.
func phase2Backend(pinned bool) func() *fakeBackend {
	return func() *fakeBackend {
		demoRun()
		var pin *model.Coord
		d := &Data{Monitor: demoMon[0], BaselineMonitor: demoMon[1], P1: demoP1[0], P1Baseline: demoP1[1]}
		if pinned {
			for i := range demoP1[0].Anomalies {
				if a := &demoP1[0].Anomalies[i]; a.OptStep() == 6 {
					pin = &model.Coord{OptStep: model.IntPtr(6), MicroStep: a.MicroStep, Rank: model.IntPtr(a.Rank), Param: a.TargetName}
					d.Pin = pin
					break
				}
			}
		}
		p2, err := phase2Said(analysis.Phase2(demoP1[0], demoP1[1], pin, analysis.DefaultPhase2Options()))
		if err != nil {
			panic(err)
		}
		d.P2 = p2
		p2.Verdict = analysis.Verdict(analysis.VerdictInput{P1: d.P1, P1Baseline: d.P1Baseline, P2: p2})
		return &fakeBackend{data: d}
	}
}

// fp16Backend serves the step-level fp16 run of phase2_events_test.go.
func fp16Backend() *fakeBackend {
	fp16Once.Do(func() {
		c := synth.DefaultConfig()
		c.Window, c.OptSteps, c.NoFault = 1, 16, true
		for _, k := range []int{2, 6, 10, 14} {
			c.Spikes = append(c.Spikes, synth.Spike{OptStep: k, Overflow: true, Shared: true,
				Names: []string{"output_layer.weight", "embedding.word_embeddings.weight"}})
		}
		c.Spikes = append(c.Spikes, synth.Spike{OptStep: 9, Ranks: []int{4}, Kernel: true, Layer: 1, Scale: 5})
		r := synth.Generate(c)
		d := &Data{Monitor: r.Monitor(synth.Anomalous), BaselineMonitor: r.Monitor(synth.Baseline)}
		d.P1 = analysis.Phase1(d.Monitor, analysis.DefaultPhase1Options())
		d.P1Baseline = analysis.Phase1(d.BaselineMonitor, analysis.DefaultPhase1Options())
		p2, err := phase2Said(analysis.Phase2(d.P1, d.P1Baseline, nil, analysis.DefaultPhase2Options()))
		if err != nil {
			panic(err)
		}
		d.P2 = p2
		p2.Verdict = analysis.Verdict(analysis.VerdictInput{P1: d.P1, P1Baseline: d.P1Baseline, P2: p2})
		fp16Built = d
	})
	return &fakeBackend{data: fp16Built}
}
