package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/testdata/synth"
)

// copySteps copies the CSV files of optimizer steps [from, to) of every
// rank folder of src into dst.
func copySteps(t *testing.T, src, dst string, from, to int) {
	t.Helper()
	dirs, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		os.MkdirAll(filepath.Join(dst, d.Name()), 0o755)
		for s := from; s < to; s++ {
			for _, m := range []string{synth.MetricUnreduced, synth.MetricReduced} {
				name := fmt.Sprintf("%s_%d-%d.csv", m, s, s)
				b, err := os.ReadFile(filepath.Join(src, d.Name(), name))
				if err == nil {
					err = os.WriteFile(filepath.Join(dst, d.Name(), name), b, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
}

// The real backend's Follow on a CSV tree the test grows: the first call
// starts following, a poll with nothing new gives no Data, the fault
// step's files give Data with the planted spike, the last step and a new
// root.
func TestPipelineBackendFollow(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	tr := run.Truth()
	src, dst := t.TempDir(), t.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		t.Fatal(err)
	}
	copySteps(t, src, dst, 0, tr.FaultOptStep)
	ctx := context.Background()
	b := &PipelineBackend{In: pipeline.Inputs{Path: dst}}
	d, err := b.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d1, news, err := b.Follow(ctx, d, time.Second, 0)
	if err != nil || d1 == nil || news.Version != 1 {
		t.Fatalf("first Follow: %v, data %v, news %+v; want the data as read now (version 1)", err, d1 != nil, news)
	}
	if d2, _, err := b.Follow(ctx, d1, time.Second, news.Version); err != nil || d2 != nil {
		t.Fatalf("a poll with nothing new: %v, data %v; want none", err, d2 != nil)
	}
	copySteps(t, src, dst, tr.FaultOptStep, tr.FaultOptStep+1)
	d3, news3, err := b.Follow(ctx, d1, time.Second, news.Version)
	if err != nil || d3 == nil {
		t.Fatalf("after the fault step: %v, data %v", err, d3 != nil)
	}
	if !news3.NewRoot || !news3.HasStep || news3.LastStep != tr.FaultOptStep {
		t.Errorf("news %+v: want a new root at last step %d", news3, tr.FaultOptStep)
	}
	if c := d3.P2.RootCauseCoordinate; c == nil || c.Rank != tr.FaultRank || c.TargetName != tr.Parameter {
		t.Errorf("root %+v, want rank %d %s", c, tr.FaultRank, tr.Parameter)
	}
	if d3.Monitor.Rows.Len() <= d1.Monitor.Rows.Len() || d1.Monitor.Rows.Len() != d.Monitor.Rows.Len() {
		t.Errorf("rows: loaded %d, first follow %d, after the step %d", d.Monitor.Rows.Len(), d1.Monitor.Rows.Len(), d3.Monitor.Rows.Len())
	}
}

// The bell follows the root the screen shows: with a pin the root stays
// the pinned coordinate, so a spike the automatic choice now points at
// rings nothing (it shows as a new candidate, marked +).
func TestPipelineBackendFollowNewRootIsTheShownRoot(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	tr := run.Truth()
	src, dst := t.TempDir(), t.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		t.Fatal(err)
	}
	copySteps(t, src, dst, 0, tr.FaultOptStep)
	ctx := context.Background()
	b := &PipelineBackend{In: pipeline.Inputs{Path: dst}}
	d, err := b.Load(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a healthy coordinate before the fault: the user's own choice
	a := model.Anomaly{Rank: 0, Step: 1, OptimizerStep: model.IntPtr(1), TargetName: tr.Parameter}
	pinned, err := b.Pin(ctx, d, &a)
	if err != nil {
		t.Fatal(err)
	}
	d1, news, err := b.Follow(ctx, pinned, time.Second, 0)
	if err != nil || d1 == nil {
		t.Fatalf("first Follow: %v", err)
	}
	copySteps(t, src, dst, tr.FaultOptStep, tr.FaultOptStep+1)
	d2, news2, err := b.Follow(ctx, d1, time.Second, news.Version)
	if err != nil || d2 == nil {
		t.Fatalf("after the fault step: %v, data %v", err, d2 != nil)
	}
	if !sameCoordinate(d2.P2.RootCauseCoordinate, pinned.P2.RootCauseCoordinate) {
		t.Fatalf("the pinned root moved: %+v, was %+v", d2.P2.RootCauseCoordinate, pinned.P2.RootCauseCoordinate)
	}
	if news2.NewRoot {
		t.Errorf("a new root (the bell) while the pinned root stays %+v", d2.P2.RootCauseCoordinate)
	}
}
