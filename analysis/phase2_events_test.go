package analysis

import (
	"math"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// evPhases runs Phase 1 on the device data (and the baseline's), through a
// JSON round trip as `spikescope select` reads them, then Phase 2.
func evPhases(t *testing.T, a, b *model.MonitorData) (*model.Phase1Result, *model.Phase2Result) {
	t.Helper()
	p1, err := jsonRoundTrip(Phase1(a, DefaultPhase1Options()))
	if err != nil {
		t.Fatal(err)
	}
	var pb *model.Phase1Result
	if b != nil {
		if pb, err = jsonRoundTrip(Phase1(b, DefaultPhase1Options())); err != nil {
			t.Fatal(err)
		}
	}
	p2, err := phase2Said(p1, pb, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	return p1, p2
}

func wantCoord(t *testing.T, what string, co *model.Coordinate, opt, ms, rank int, target string) {
	t.Helper()
	if co == nil {
		t.Fatalf("%s: no coordinate", what)
	}
	gotMs := pv(co.MicroStep)
	if ms < 0 && co.MicroStep == nil {
		gotMs = ms
	}
	if pv(co.OptimizerStep) != opt || gotMs != ms || co.Rank != rank || co.TargetName != target {
		t.Fatalf("%s: coordinate opt %d ms %d rank %d %s; want opt %d ms %d rank %d %s", what,
			pv(co.OptimizerStep), gotMs, co.Rank, co.TargetName, opt, ms, rank, target)
	}
}

// Issue 9 item 6 on step-level data (W=1), in memory (the sweeps package
// checks the readers give the same): two independent events, the root is the
// earlier kernel spike; the later data spike stays listed. The negative:
// the seed's "largest deviation" fallback, applied to the same
// candidates, picks the later, larger one.
func TestEventsTwoIndependentSpikesStepLevel(t *testing.T) {
	r := synth.TwoSpikes(1)
	kernel := r.ParamName(3, "mlp.linear_fc2.weight")
	for _, src := range []string{"memory"} { // the readers: sweeps.TestEventsThroughReaders
		p1, p2 := evPhases(t, r.Monitor(synth.Anomalous), nil)
		if p1.DataKind != kindStep {
			t.Fatalf("%s: data kind %s, want step", src, p1.DataKind)
		}
		wantCoord(t, src, p2.RootCauseCoordinate, 5, -1, 2, kernel)
		if pv(p2.RootOptStep) != 5 || len(p2.Events) != 2 {
			t.Fatalf("%s: root step %d, %d events: %s", src, pv(p2.RootOptStep), len(p2.Events), jsn(p2.Events))
		}
		e1, e2 := p2.Events[0], p2.Events[1]
		if !e1.Root || e1.RootStep != 5 || e1.Extent != extentKernel || e1.Parameters != 1 || len(e1.Ranks) != 1 || e1.Ranks[0] != 2 || e1.Conducts {
			t.Fatalf("%s: event 1 = %s", src, jsn(e1))
		}
		if e2.Root || e2.RootStep != 11 || e2.Extent != extentData || e2.Parameters != e2.ParametersPerRank || len(e2.Ranks) != 1 || e2.Ranks[0] != 6 {
			t.Fatalf("%s: event 2 = %s", src, jsn(e2))
		}
		if e2.Coordinate == nil || pv(e2.Coordinate.OptimizerStep) != 11 || e2.Coordinate.Rank != 6 || !(e2.MaxDeviation > 3*e1.MaxDeviation) {
			t.Fatalf("%s: event 2 is not the larger spike: %s vs %s", src, jsn(e2), jsn(e1))
		}
		if e1.Baseline != "" || e2.Baseline != "" {
			t.Fatalf("%s: labels without a baseline: %q %q", src, e1.Baseline, e2.Baseline)
		}
		// negative: the seed's fallback on the same candidates takes the larger
		old := seedFallback(p1.Anomalies)
		if pv(old) != 11 {
			t.Fatalf("%s: the seed's fallback picks %d; the test needs it to pick the later, larger spike (11)", src, pv(old))
		}
	}
}

// Micro-step data (W=4) with the same two spikes still follows the seed's
// Step 2.2: no adjacent pair qualifies, so the step of the largest
// deviation is the root; both events are listed, earliest first.
func TestEventsMicroStepFollowsSeed(t *testing.T) {
	r := synth.TwoSpikes(4)
	p1, p2 := evPhases(t, r.Monitor(synth.Anomalous), nil)
	if p1.DataKind != kindMicro {
		t.Fatalf("data kind %s", p1.DataKind)
	}
	if pv(p2.RootOptStep) != 11 || p2.RootCauseCoordinate == nil || p2.RootCauseCoordinate.Rank != 6 {
		t.Fatalf("root %d %s, want the seed's largest deviation at 11", pv(p2.RootOptStep), jsn(p2.RootCauseCoordinate))
	}
	if len(p2.Events) != 2 || p2.Events[0].RootStep != 5 || p2.Events[0].Root || !p2.Events[1].Root || p2.Events[1].RootStep != 11 {
		t.Fatalf("events = %s", jsn(p2.Events))
	}
	if p2.Events[0].Extent != extentKernel || p2.Events[1].Extent != extentData {
		t.Fatalf("extents %s, %s", p2.Events[0].Extent, p2.Events[1].Extent)
	}
}

// Issue 17 item 2: with a baseline, every periodic fp16 overflow (+Inf on
// both devices at the same coordinate) is a shared event, listed; the
// device-specific kernel spike is the root — also though it comes after
// two overflows and right before a third one. Step-level and micro-step
// data, in memory (and the same through the readers: the sweeps package).
func TestEventsSharedOverflowsDeviceSpecificSpike(t *testing.T) {
	for _, w := range []int{1, 4} {
		r := synth.FP16Overflows(w, true)
		kernel := r.ParamName(1, "mlp.linear_fc2.weight")
		for _, src := range []string{"memory"} { // the readers: sweeps.TestEventsThroughReaders
			a, b := r.Monitor(synth.Anomalous), r.Monitor(synth.Baseline)
			what := src + " W=" + itoa12(w)
			p1, p2 := evPhases(t, a, b)
			// negative: the rules before events root at the first overflow
			if old := seedFallback(p1.Anomalies); pv(old) != 2 {
				t.Fatalf("%s: the seed's fallback picks %d; the test needs the first overflow (2)", what, pv(old))
			}
			ms := -1
			if w > 1 {
				ms = 2
			}
			wantCoord(t, what, p2.RootCauseCoordinate, 9, ms, 4, kernel)
			if pv(p2.RootOptStep) != 9 || !strings.Contains(p2.CrossDeviceVerification, "NPU") {
				t.Fatalf("%s: root %d, verification %q", what, pv(p2.RootOptStep), p2.CrossDeviceVerification)
			}
			var steps []int
			for _, e := range p2.Events {
				steps = append(steps, e.RootStep)
				want := eventShared
				if e.RootStep == 9 {
					want = eventSpecific
				}
				if e.Baseline != want || e.Root != (e.RootStep == 9) || e.BaselineReason == "" {
					t.Fatalf("%s: event at %d labelled %q root %v, want %q: %s", what, e.RootStep, e.Baseline, e.Root, want, jsn(e))
				}
				if e.RootStep != 9 && (!e.NonFinite || e.Extent != extentRunWide || len(e.Steps) != 1) {
					t.Fatalf("%s: overflow event %s", what, jsn(e))
				}
			}
			if jsn(steps) != "[2,6,9,10,14]" {
				t.Fatalf("%s: event steps %v, want [2 6 9 10 14]: %s", what, steps, jsn(p2.Events))
			}
		}
	}
}

// The same fp16 run without the device-specific spike: every event is
// shared, the root is the earliest overflow, labelled shared.
func TestEventsAllSharedOverflows(t *testing.T) {
	for _, w := range []int{1, 4} {
		r := synth.FP16Overflows(w, false)
		for _, src := range []string{"memory"} { // the readers: sweeps.TestEventsThroughReaders
			a, b := r.Monitor(synth.Anomalous), r.Monitor(synth.Baseline)
			what := src + " W=" + itoa12(w)
			_, p2 := evPhases(t, a, b)
			co := p2.RootCauseCoordinate
			if pv(p2.RootOptStep) != 2 || co == nil || pv(co.OptimizerStep) != 2 || !strings.Contains(co.TargetName, "output_layer") && !strings.Contains(co.TargetName, "embedding") {
				t.Fatalf("%s: root %d %s, want the first overflow at 2", what, pv(p2.RootOptStep), jsn(co))
			}
			if w > 1 && pv(co.MicroStep) != 1 {
				t.Fatalf("%s: micro step %d, want 1", what, pv(co.MicroStep))
			}
			if !strings.Contains(p2.CrossDeviceVerification, "双端共有") {
				t.Fatalf("%s: verification %q", what, p2.CrossDeviceVerification)
			}
			if len(p2.Events) != 4 {
				t.Fatalf("%s: %d events: %s", what, len(p2.Events), jsn(p2.Events))
			}
			for i, e := range p2.Events {
				if e.Baseline != eventShared || e.Root != (i == 0) || e.RootStep != 2+4*i {
					t.Fatalf("%s: event %d = %s", what, i, jsn(e))
				}
			}
		}
		// without the baseline the first overflow is the root too (earliest
		// non-finite), and nothing is labelled
		_, p2 := evPhases(t, r.Monitor(synth.Anomalous), nil)
		if pv(p2.RootOptStep) != 2 || len(p2.Events) != 4 || p2.Events[0].Baseline != "" {
			t.Fatalf("W=%d no baseline: root %d events %s", w, pv(p2.RootOptStep), jsn(p2.Events))
		}
	}
}

// seedFallback is the seed's fallback root (the step of the largest
// deviation, as Phase 2 applied it to step-level data before events).
func seedFallback(as []model.Anomaly) *int {
	root, _ := fallbackRoot(as)
	return root
}

func stepAnomaly(rank, step int, name string, norm, dev float64) model.Anomaly {
	return model.Anomaly{Rank: rank, Step: step, TargetName: name, Norm: fl(norm), DeviationRatio: fl(dev), Trigger: "iqr"}
}

// conductedRun: step-level data on 8 ranks, a kernel spike at step 4 on
// rank 1, most ranks (7 of 8) elevated at step 5 (conduction), an
// independent spike at step 9 on rank 3.
func conductedRun() *model.Phase1Result {
	p1 := &model.Phase1Result{DataKind: kindStep, Summary: model.Phase1Summary{Ranks: []int{0, 1, 2, 3, 4, 5, 6, 7},
		Steps: []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}}, Targets: []string{fc1, qkv, "a", "b", "c", "d", "e", "f"}}
	p1.Anomalies = append(p1.Anomalies, stepAnomaly(1, 4, fc1, 5, 5))
	for r := 0; r < 7; r++ {
		p1.Anomalies = append(p1.Anomalies, stepAnomaly(r, 5, qkv, 40, 30))
	}
	p1.Anomalies = append(p1.Anomalies, stepAnomaly(3, 9, qkv, 8, 6))
	return p1
}

// On step-level data a step where most ranks stay elevated belongs to the
// event before it (it conducts); a later spike on one rank is an event of
// its own; the root is the earliest event's root step.
func TestEventsConductionStepLevel(t *testing.T) {
	p2, err := phase2Said(conductedRun(), nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Events) != 2 {
		t.Fatalf("events %s", jsn(p2.Events))
	}
	e1, e2 := p2.Events[0], p2.Events[1]
	if jsn(e1.Steps) != "[4,5]" || !e1.Conducts || jsn(e1.ConductsInto) != "[5]" || e1.Extent != extentKernel || !e1.Root || e1.Candidates != 8 {
		t.Fatalf("event 1 %s", jsn(e1))
	}
	if jsn(e2.Steps) != "[9]" || e2.Conducts || e2.Root || e2.Extent != extentKernel {
		t.Fatalf("event 2 %s", jsn(e2))
	}
	wantCoord(t, "root", p2.RootCauseCoordinate, 4, -1, 1, fc1)
}

// With a baseline the root step never moves inside one conducted event:
// the baseline has the step-4 spike (shared) but not the step-5
// elevation; the root stays at 4, labelled shared, when no other event is
// device-specific — and moves to the later device-specific event (9), not
// to step 5, when there is one.
func TestEventsBaselineNeverMovesRootInsideEvent(t *testing.T) {
	p1 := conductedRun()
	base := &model.Phase1Result{DataKind: kindStep, Anomalies: []model.Anomaly{
		stepAnomaly(1, 4, fc1, 5, 5), // the step-4 spike: shared
		stepAnomaly(3, 9, qkv, 8, 6), // the step-9 spike: shared too
	}}
	p2, _ := phase2Said(p1, base, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 4 || len(p2.Events) != 2 || p2.Events[0].Baseline != eventShared || !p2.Events[0].Root ||
		p2.Events[1].Baseline != eventShared || !strings.Contains(p2.CrossDeviceVerification, "双端共有") {
		t.Fatalf("all shared: root %d events %s verification %q", pv(p2.RootOptStep), jsn(p2.Events), p2.CrossDeviceVerification)
	}
	wantCoord(t, "all shared", p2.RootCauseCoordinate, 4, -1, 1, fc1)
	base.Anomalies = base.Anomalies[:1] // the step-9 spike is device-specific now
	p2, _ = phase2Said(p1, base, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 9 || p2.Events[0].Root || !p2.Events[1].Root || p2.Events[1].Baseline != eventSpecific {
		t.Fatalf("device-specific later: root %d events %s", pv(p2.RootOptStep), jsn(p2.Events))
	}
	wantCoord(t, "device-specific later", p2.RootCauseCoordinate, 9, -1, 3, qkv)
}

// A NaN/Inf matches a baseline candidate only at the same optimizer step:
// the baseline's overflow at step 2 on the same parameter does not make
// the anomalous side's finite spike at step 7, or its own overflow at step
// 5, shared.
func TestEventsNonFiniteMatchesSameStepOnly(t *testing.T) {
	inf := stepAnomaly(0, 5, fc1, math.Inf(1), math.Inf(1))
	inf.NonFinite, inf.Trigger = true, "nonfinite"
	p1 := &model.Phase1Result{DataKind: kindStep, Summary: model.Phase1Summary{Ranks: []int{0, 1, 2, 3}},
		Anomalies: []model.Anomaly{inf, stepAnomaly(2, 7, fc1, 9, 8)}}
	binf := inf
	binf.Step = 2
	p2, _ := phase2Said(p1, &model.Phase1Result{DataKind: kindStep, Anomalies: []model.Anomaly{binf}}, nil, DefaultPhase2Options())
	if len(p2.Events) != 2 || p2.Events[0].Baseline != eventSpecific || p2.Events[1].Baseline != eventSpecific || pv(p2.RootOptStep) != 5 {
		t.Fatalf("events %s root %d", jsn(p2.Events), pv(p2.RootOptStep))
	}
	binf.Step = 5 // now the same coordinate: shared; the spike at 7 is the root
	p2, _ = phase2Said(p1, &model.Phase1Result{DataKind: kindStep, Anomalies: []model.Anomaly{binf}}, nil, DefaultPhase2Options())
	if p2.Events[0].Baseline != eventShared || p2.Events[1].Baseline != eventSpecific || pv(p2.RootOptStep) != 7 {
		t.Fatalf("events %s root %d", jsn(p2.Events), pv(p2.RootOptStep))
	}
}

// A pinned coordinate keeps the events listed and marks the pinned step's
// event; no candidate gives an empty list (never null).
func TestEventsPinnedAndEmpty(t *testing.T) {
	p1 := conductedRun()
	pin, _ := model.ParseCoord("step=9,rank=3,param=" + qkv)
	p2, err := phase2Said(p1, nil, pin, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if !p2.Pinned || len(p2.Events) != 2 || p2.Events[0].Root || !p2.Events[1].Root {
		t.Fatalf("pinned: %s", jsn(p2.Events))
	}
	p2, _ = phase2Said(&model.Phase1Result{Anomalies: []model.Anomaly{}}, nil, nil, DefaultPhase2Options())
	if !strings.Contains(jsn(p2), `"events":[]`) {
		t.Fatalf("empty: %s", jsn(p2))
	}
}
