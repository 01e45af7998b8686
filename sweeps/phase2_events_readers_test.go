package sweeps

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// evLoad writes the device's run as a trend.db or CSV tree (step-level
// runs without a micro_step column) and reads it back through ingest.
func evLoad(t *testing.T, r *synth.Run, dev synth.Device, csv bool) *model.MonitorData {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "run.trend.db")
	var err error
	switch {
	case csv && r.Cfg.Window == 1: // a monitor without per-micro-batch gradients
		path = dir
		err = r.WriteStepCSVTreeFor(dir, dev)
	case csv:
		path = dir
		err = r.WriteCSVTreeFor(dir, dev)
	default:
		err = r.WriteTrendDBFor(path, dev)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := ingest.LoadMonitor(context.Background(), path, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// evPhases are Phase 1 and 2 on the device's data and, with b, the
// baseline's, each Phase 1 read back from JSON as spikescope select reads it.
func evPhases(t *testing.T, a, b *model.MonitorData) (*model.Phase1Result, *model.Phase2Result) {
	t.Helper()
	p1, err := viaJSON(analysis.Phase1(a, analysis.DefaultPhase1Options()))
	if err != nil {
		t.Fatal(err)
	}
	var pb *model.Phase1Result
	if b != nil {
		if pb, err = viaJSON(analysis.Phase1(b, analysis.DefaultPhase1Options())); err != nil {
			t.Fatal(err)
		}
	}
	p2, err := phase2Said(analysis.Phase2(p1, pb, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		t.Fatal(err)
	}
	return p1, p2
}

// inputSteps are the "step" numbers of coordinates: the input's own
// numbering (a CSV's optimizer step, a trend.db's global micro-step index),
// different by format by design.
var inputSteps = regexp.MustCompile(`("step":)-?\d+`)

// negZero is a -0 statistic: a CSV keeps pandas' "-0.0", memory has 0.
var negZero = regexp.MustCompile(`:-0([,}\]])`)

// asCompared is v's JSON without the differences by design.
func asCompared(t *testing.T, v any) string {
	return negZero.ReplaceAllString(inputSteps.ReplaceAllString(mustJSON(t, v), "${1}_"), ":0$1")
}

// The event runs of analysis' phase2_events_test.go (checked there in
// memory) written as trend.db and CSV trees: Phase 2 through the readers
// is the in-memory Phase 2, root, events and verdict alike, so every
// assertion made there holds through the readers too.
func TestEventsThroughReaders(t *testing.T) {
	type evCase struct {
		name     string
		run      *synth.Run
		baseline bool
		srcs     []string
	}
	both := []string{"trend.db", "csv"}
	cases := []evCase{{"two-spikes-W1", synth.TwoSpikes(1), false, both}}
	for _, w := range []int{1, 4} {
		cases = append(cases,
			evCase{"fp16-spike-W" + itoaW(w), synth.FP16Overflows(w, true), true, both},
			evCase{"fp16-shared-W" + itoaW(w), synth.FP16Overflows(w, false), true, []string{"trend.db"}})
	}
	for _, c := range cases {
		for _, src := range c.srcs {
			t.Run(c.name+"/"+src, func(t *testing.T) {
				t.Parallel()
				var mb, db *model.MonitorData
				if c.baseline {
					mb, db = c.run.Monitor(synth.Baseline), evLoad(t, c.run, synth.Baseline, src == "csv")
				}
				w1, w2 := evPhases(t, c.run.Monitor(synth.Anomalous), mb)
				g1, g2 := evPhases(t, evLoad(t, c.run, synth.Anomalous, src == "csv"), db)
				if g1.DataKind != w1.DataKind {
					t.Errorf("data kind %s through the %s reader, %s in memory", g1.DataKind, src, w1.DataKind)
				}
				for what, pair := range map[string][2]any{"Phase 1 candidates": {w1.Anomalies, g1.Anomalies}, "Phase 2": {w2, g2}} {
					w, g := asCompared(t, pair[0]), asCompared(t, pair[1])
					if w != g {
						t.Errorf("%s through the %s reader differ from memory:\n got %s\nwant %s", what, src, g, w)
					}
				}
			})
		}
	}
}

func itoaW(w int) string { return string(rune('0' + w)) }

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
