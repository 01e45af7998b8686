package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/testdata/synth"
)

// fp16Run is an fp16 run whose loss scaling overflows on both devices
// every 4 steps (+Inf output-layer and embedding gradients on every rank),
// with, when spike, a device-specific kernel spike at step 9 on rank 4
// (micro step 2 of a window of 4).
func fp16Run(window int, spike bool) *synth.Run {
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = window, 16, true
	for _, k := range []int{2, 6, 10, 14} {
		c.Spikes = append(c.Spikes, synth.Spike{OptStep: k, MicroStep: min(1, window-1), Overflow: true, Shared: true,
			Names: []string{"output_layer.weight", "embedding.word_embeddings.weight"}})
	}
	if spike {
		c.Spikes = append(c.Spikes, synth.Spike{OptStep: 9, MicroStep: min(2, window-1), Ranks: []int{4}, Kernel: true, Layer: 1, Scale: 5})
	}
	return synth.Generate(c)
}

// detectFile runs `spikescope detect PATH -o OUT` and returns OUT.
func detectFile(t *testing.T, path, name string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+".json")
	var so, se bytes.Buffer
	if code := run([]string{"detect", path, "-o", out}, &so, &se); code != 0 {
		t.Fatalf("detect %s: exit %d %s", path, code, se.String())
	}
	return out
}

// End to end through the real readers and both subcommands: the monitor
// CSV trees (W=4, explicit micro_step) and the trend.db files (W=1) of an
// fp16 run and its baseline, `detect` on each, then `select --phase1 P1
// --baseline P1B`: every overflow is a shared event, the device-specific
// spike is the root; without the spike the root is the earliest overflow,
// labelled shared.
func TestSelectBaselineSharedOverflowEvents(t *testing.T) {
	for _, tc := range []struct {
		name   string
		window int
		csv    bool
	}{{"csv-W4", 4, true}, {"trenddb-W1", 1, false}} {
		for _, spike := range []bool{true, false} {
			r := fp16Run(tc.window, spike)
			paths := [2]string{}
			for d, dev := range []synth.Device{synth.Anomalous, synth.Baseline} {
				dir := t.TempDir()
				var err error
				if tc.csv {
					paths[d], err = dir, r.WriteCSVTreeFor(dir, dev)
				} else {
					paths[d] = filepath.Join(dir, "run.trend.db")
					err = r.WriteTrendDBFor(paths[d], dev)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			p1, p1b := detectFile(t, paths[0], "npu"), detectFile(t, paths[1], "gpu")
			res, code, se := selectRun(t, "--phase1", p1, "--baseline", p1b)
			what := tc.name
			if !spike {
				what += "-no-spike"
			}
			if code != 0 {
				t.Fatalf("%s: exit %d %s", what, code, se)
			}
			co := res.RootCauseCoordinate
			if co == nil || co.OptimizerStep == nil {
				t.Fatalf("%s: no coordinate: %+v", what, res)
			}
			var labels []string
			for _, e := range res.Events {
				l := e.Baseline
				if e.Root {
					l += "*"
				}
				labels = append(labels, l)
			}
			got := strings.Join(labels, ",")
			if spike {
				wantMs := 2
				if tc.window == 1 {
					wantMs = -1
				}
				ms := -1
				if co.MicroStep != nil {
					ms = *co.MicroStep
				}
				if *co.OptimizerStep != 9 || ms != wantMs || co.Rank != 4 || co.TargetName != "layers.1.mlp.linear_fc2.weight" ||
					res.RootOptStep == nil || *res.RootOptStep != 9 {
					t.Fatalf("%s: root %+v (step %v), want opt 9 ms %d rank 4 layers.1.mlp.linear_fc2.weight", what, co, res.RootOptStep, wantMs)
				}
				if got != "shared,shared,device-specific*,shared,shared" {
					t.Fatalf("%s: event labels %s", what, got)
				}
			} else {
				if *co.OptimizerStep != 2 || !strings.Contains(res.CrossDeviceVerification, "双端共有") {
					t.Fatalf("%s: root %+v, verification %q; want the first overflow at 2, shared", what, co, res.CrossDeviceVerification)
				}
				if got != "shared*,shared,shared,shared" {
					t.Fatalf("%s: event labels %s", what, got)
				}
			}
		}
	}
}

// Issue 9 item 6 end to end on a step-level CSV tree (no micro_step
// column): the earlier kernel spike is the root, the later data spike the
// second event.
func TestSelectTwoIndependentSpikesStepLevelCSV(t *testing.T) {
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = 1, 16, true
	c.Spikes = []synth.Spike{{OptStep: 5, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 4},
		{OptStep: 11, Ranks: []int{6}, All: true, Scale: 30}}
	dir := t.TempDir()
	if err := synth.Generate(c).WriteStepCSVTreeFor(dir, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	res, code, se := selectRun(t, "--phase1", detectFile(t, dir, "p1"))
	if code != 0 {
		t.Fatalf("exit %d %s", code, se)
	}
	co := res.RootCauseCoordinate
	if co == nil || co.OptimizerStep == nil || *co.OptimizerStep != 5 || co.MicroStep != nil || co.Rank != 2 || co.TargetName != "layers.3.mlp.linear_fc2.weight" {
		t.Fatalf("root %+v", co)
	}
	if len(res.Events) != 2 || !res.Events[0].Root || res.Events[0].Extent != "one-rank-few" ||
		res.Events[1].RootStep != 11 || res.Events[1].Extent != "few-ranks-all" || res.Events[1].Root {
		t.Fatalf("events %+v", res.Events)
	}
}
