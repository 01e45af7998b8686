package ui

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/testdata/synth"
)

// followLoadFake is followFake that can load through its follower: it
// counts both kinds of load.
type followLoadFake struct {
	*followFake
	loads, followLoads int
}

func (f *followLoadFake) Load(ctx context.Context, p model.ProgressFunc) (*Data, error) {
	f.loads++
	return f.followFake.Load(ctx, p)
}

func (f *followLoadFake) LoadFollowing(ctx context.Context, interval time.Duration, p model.ProgressFunc) (*Data, int, error) {
	f.followLoads++
	d, err := f.followFake.Load(ctx, p)
	return d, 7, err
}

// With --follow the UI loads through the follower, once, and its first
// poll says it shows that version: the backend builds no Data again.
func TestFollowFromStartLoadsOnce(t *testing.T) {
	fb := &followLoadFake{followFake: &followFake{fakeBackend: fixtureBackend(), replies: []followReply{{nil, FollowNews{Version: 7}}}}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir(), Follow: true, FollowInterval: time.Millisecond})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	deliver(t, m, m.startLoad())
	if fb.loads != 0 || fb.followLoads != 1 {
		t.Fatalf("%d plain loads, %d loads through the follower; want one through the follower", fb.loads, fb.followLoads)
	}
	if len(fb.seen) != 1 || fb.seen[0] != 7 {
		t.Fatalf("the polls said they show versions %v, want [7] (the loaded one)", fb.seen)
	}
	if m.status != followingStatus || !m.follow.on {
		t.Errorf("status %q (following %v), want %q", m.status, m.follow.on, followingStatus)
	}
}

// F on an input loaded without --follow needs a first read of the
// follower: the status says so while it runs, and stops saying it once
// the first poll replied.
func TestFollowLaterSaysItReadsAgain(t *testing.T) {
	fb := &followLoadFake{followFake: &followFake{fakeBackend: fixtureBackend(), replies: []followReply{{nil, FollowNews{Version: 1}}}}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir(), FollowInterval: time.Millisecond})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	deliver(t, m, m.startLoad())
	if fb.loads != 1 || fb.followLoads != 0 || fb.calls != 0 {
		t.Fatalf("without --follow: %d plain loads, %d through the follower, %d polls", fb.loads, fb.followLoads, fb.calls)
	}
	poll := press(m, "F")
	if m.status != followReadingStatus {
		t.Fatalf("status while the first read runs: %q", m.status)
	}
	deliver(t, m, poll)
	if m.status != followingStatus {
		t.Errorf("status after the first read: %q, want %q", m.status, followingStatus)
	}
}

// The real backend with --follow reads each file once: a file changed
// after the load without a trace in its size or time (what a second
// full read would see) is never read again, yet the step the job writes
// next comes out of the next poll with the planted root.
func TestPipelineBackendFollowFromStartReadsEachFileOnce(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	tr := run.Truth()
	src, dst := t.TempDir(), t.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		t.Fatal(err)
	}
	copySteps(t, src, dst, 0, tr.FaultOptStep)
	ctx := context.Background()
	b := &PipelineBackend{In: pipeline.Inputs{Path: dst}}
	progressed := 0
	d, version, err := b.LoadFollowing(ctx, time.Second, func(model.Progress) { progressed++ })
	if err != nil || version != 1 || progressed == 0 {
		t.Fatalf("LoadFollowing: %v, version %d, %d progress reports", err, version, progressed)
	}
	rows := d.Monitor.Rows.Len()

	// blank every data line of the first step's files, keeping sizes
	// and times: a read of them finds no rows
	files, _ := filepath.Glob(filepath.Join(dst, "*", "*_1-1.csv"))
	if len(files) == 0 {
		t.Fatal("no file of step 1 in the tree")
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		old, _ := os.ReadFile(f)
		lines := bytes.SplitAfter(old, []byte("\n"))
		for i := 1; i < len(lines); i++ {
			lines[i] = append(bytes.Repeat([]byte(" "), len(bytes.TrimRight(lines[i], "\n"))), lines[i][len(bytes.TrimRight(lines[i], "\n")):]...)
		}
		if err := os.WriteFile(f, bytes.Join(lines, nil), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(f, st.ModTime(), st.ModTime()); err != nil {
			t.Fatal(err)
		}
	}
	if again, err := pipeline.Load(ctx, pipeline.Inputs{Path: dst}, nil); err == nil && again.Monitor.Rows.Len() == rows {
		t.Fatalf("a second read of the tree reads %d rows as before: the probe cannot tell a second read", rows)
	}

	d1, news, err := b.Follow(ctx, d, time.Second, version)
	if err != nil || d1 != nil || len(news.Warnings) != 0 || news.Version != version {
		t.Fatalf("the first poll: %v, data %v, warnings %q, version %d; want nothing read", err, d1 != nil, news.Warnings, news.Version)
	}
	copySteps(t, src, dst, tr.FaultOptStep, tr.FaultOptStep+1)
	d2, news2, err := b.Follow(ctx, d, time.Second, news.Version)
	if err != nil || d2 == nil {
		t.Fatalf("after the fault step: %v, data %v", err, d2 != nil)
	}
	// the rows loaded, as loaded, and the fault step's: nothing re-read
	step := t.TempDir()
	copySteps(t, src, step, tr.FaultOptStep, tr.FaultOptStep+1)
	sd, err := pipeline.Load(ctx, pipeline.Inputs{Path: step}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d2.Monitor.Rows.Len(), rows+sd.Monitor.Rows.Len(); got != want {
		t.Errorf("rows after the fault step %d, want the %d loaded and the step's %d", got, rows, sd.Monitor.Rows.Len())
	}
	if c := d2.P2.RootCauseCoordinate; !news2.NewRoot || c == nil || c.Rank != tr.FaultRank || !strings.HasSuffix(c.TargetName, tr.Parameter) {
		t.Errorf("root %+v (new %v), want rank %d %s", c, news2.NewRoot, tr.FaultRank, tr.Parameter)
	}
}
