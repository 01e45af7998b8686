package pipeline

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"spikescope/analysis"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// The tests below play a training job: a writer goroutine puts a synthetic
// run's files into a temp folder the way msprobe does (step files appear,
// rows are appended in pieces that cut lines in half, a rank folder appears
// late, a trend.db is rewritten and renamed over), while the test polls.
// "Within two intervals" is counted in polls: the candidate must come out
// of the first or second poll after its row landed.

// csvSource writes the demo-sized run's CSV tree into a temp source folder.
func csvSource(t testing.TB) (run *synth.Run, src string) {
	t.Helper()
	run = synth.Generate(synth.DefaultConfig())
	src = t.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		t.Fatal(err)
	}
	return run, src
}

// stepFiles are one rank's files of one optimizer step, unreduced first.
func stepFiles(run *synth.Run, src string, rank, step int) []string {
	dir := filepath.Join(src, run.RankDir(synth.Anomalous, rank))
	return []string{
		filepath.Join(dir, fmt.Sprintf("%s_%d-%d.csv", synth.MetricUnreduced, step, step)),
		filepath.Join(dir, fmt.Sprintf("%s_%d-%d.csv", synth.MetricReduced, step, step)),
	}
}

// writer copies source files into the followed folder.
type writer struct {
	t        testing.TB
	src, dst string
	polls    *atomic.Int64 // polls done by the test
}

func (w *writer) target(file string) string {
	rel, err := filepath.Rel(w.src, file)
	if err != nil {
		w.t.Error(err)
	}
	return filepath.Join(w.dst, rel)
}

// copyWhole writes a file at once.
func (w *writer) copyWhole(file string) {
	b, err := os.ReadFile(file)
	if err == nil {
		err = os.MkdirAll(filepath.Dir(w.target(file)), 0o755)
	}
	if err == nil {
		err = os.WriteFile(w.target(file), b, 0o644)
	}
	if err != nil {
		w.t.Error(err)
	}
}

// appendInPieces appends a file's bytes in three pieces cut inside lines,
// letting a poll see each partial state; complete (if not nil) runs once
// the last byte is written, before that poll.
func (w *writer) appendInPieces(file string, complete func()) {
	b, err := os.ReadFile(file)
	if err != nil {
		w.t.Error(err)
		return
	}
	os.MkdirAll(filepath.Dir(w.target(file)), 0o755)
	f, err := os.OpenFile(w.target(file), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		w.t.Error(err)
		return
	}
	defer f.Close()
	cuts := []int{0, len(b) / 3, 2*len(b)/3 + 7, len(b)}
	for i := 1; i < len(cuts); i++ {
		if _, err := f.Write(b[cuts[i-1]:cuts[i]]); err != nil {
			w.t.Error(err)
		}
		if i == len(cuts)-1 && complete != nil {
			complete()
		}
		w.waitPoll()
	}
}

// waitPoll returns once the test polled again.
func (w *writer) waitPoll() {
	n := w.polls.Load()
	for deadline := time.Now().Add(10 * time.Second); w.polls.Load() <= n; {
		if time.Now().After(deadline) {
			w.t.Error("the test stopped polling")
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// polledEvent is an event and the poll that gave it (0 = the first pass).
type polledEvent struct {
	FollowEvent
	poll int64
}

// followUntil polls f until done is closed, then once more; it returns
// every event with its poll number.
func followUntil(t *testing.T, f *Follower, first []FollowEvent, polls *atomic.Int64, done <-chan struct{}) []polledEvent {
	t.Helper()
	var out []polledEvent
	for _, e := range first {
		out = append(out, polledEvent{e, 0})
	}
	for finished := false; ; {
		select {
		case <-done:
			finished = true
		default:
		}
		evs, err := f.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n := polls.Add(1)
		for _, e := range evs {
			out = append(out, polledEvent{e, n})
		}
		if finished {
			return out
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// checkOnce fails when a candidate identity was reported twice, and
// returns the candidates live at the end (reported, restored, not
// withdrawn since).
func checkOnce(t *testing.T, evs []polledEvent) map[model.CandidateID]bool {
	t.Helper()
	live := map[model.CandidateID]bool{}
	reported := map[model.CandidateID]bool{}
	for _, e := range evs {
		switch e.Event {
		case EventCandidate:
			k := model.IDOf(e.Anomaly)
			if reported[k] {
				t.Errorf("poll %d reports %+v a second time", e.poll, k)
			}
			reported[k], live[k] = true, true
		case EventRevised:
			k := model.IDOf(e.Was)
			if !reported[k] {
				t.Errorf("poll %d revises %+v, never reported", e.poll, k)
			}
			live[k] = e.Change != ChangeWithdrawn
		}
	}
	return live
}

// checkSameAsFullRead compares the follower's final candidates with a full
// read of the final files: following must end where detect starts.
func checkSameAsFullRead(t *testing.T, f *Follower, live map[model.CandidateID]bool, path string) {
	t.Helper()
	full, err := Detect(context.Background(), path, model.FormatAuto, analysis.DefaultPhase1Options(), false, memlimit.Budget{}, Default)
	if err != nil {
		t.Fatal(err)
	}
	if f.Data.Rows.Len() != full.Summary.TotalRows {
		t.Errorf("followed %d rows, a full read has %d", f.Data.Rows.Len(), full.Summary.TotalRows)
	}
	want := map[model.CandidateID]bool{}
	for i := range full.Anomalies {
		want[model.IDOf(&full.Anomalies[i])] = true
	}
	n := 0 // live holds false for a candidate withdrawn since
	for k, ok := range live {
		if ok {
			n++
		} else if want[k] {
			t.Errorf("following withdrew %+v, a full read finds it", k)
		}
	}
	if len(want) != n {
		t.Errorf("%d candidates live after following, a full read finds %d", n, len(want))
	}
	for k := range want {
		if !live[k] {
			t.Errorf("a full read finds %+v, following does not have it", k)
		}
	}
}

// isFault reports whether an anomaly is the planted root coordinate.
func isFault(a *model.Anomaly, tr synth.Truth) bool {
	return a.Rank == tr.FaultRank && a.OptStep() == tr.FaultOptStep && a.Micro() == tr.FaultMicroStep && a.TargetName == tr.Parameter
}

func TestFollowCSVTreeWriter(t *testing.T) {
	run, src := csvSource(t)
	tr := run.Truth()
	dst := t.TempDir()
	polls := &atomic.Int64{}
	w := &writer{t: t, src: src, dst: dst, polls: polls}
	const lastRankAtStart = 6 // rank 7's folder appears later
	for r := 0; r <= lastRankAtStart; r++ {
		for s := 0; s < 4; s++ {
			for _, f := range stepFiles(run, src, r, s) {
				w.copyWhole(f)
			}
		}
	}
	f, first, err := StartFollow(context.Background(), dst, model.FormatAuto, FollowOptions{Interval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var landed atomic.Int64
	landed.Store(-1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := 0; s < 4; s++ { // a new rank folder
			for _, f := range stepFiles(run, src, 7, s) {
				w.copyWhole(f)
			}
		}
		w.waitPoll()
		for s := 4; s < run.Cfg.OptSteps; s++ {
			order := []int{0, 1, 2, 4, 5, 6, 7, 3} // the faulty rank last
			for _, r := range order {
				for i, f := range stepFiles(run, src, r, s) {
					var complete func()
					if s == tr.FaultOptStep && r == tr.FaultRank && i == 0 {
						complete = func() { landed.Store(polls.Load()) } // the fault's rows are in
					}
					if r == tr.FaultRank || r == 0 {
						w.appendInPieces(f, complete) // new file, appended in pieces, half lines
					} else {
						w.copyWhole(f)
					}
				}
			}
			w.waitPoll()
		}
	}()
	evs := followUntil(t, f, first, polls, done)
	live := checkOnce(t, evs)
	at := int64(-1)
	for _, e := range evs {
		if e.Event == EventCandidate && isFault(e.Anomaly, tr) {
			at = e.poll
			break
		}
	}
	if at < 0 {
		t.Fatalf("the planted spike (step %d micro %d rank %d %s) was never reported", tr.FaultOptStep, tr.FaultMicroStep, tr.FaultRank, tr.Parameter)
	}
	if l := landed.Load(); at > l+2 {
		t.Errorf("the spike was reported at poll %d, its rows landed by poll %d: more than two intervals", at, l)
	}
	root := false
	for _, e := range evs {
		if e.Event == EventRoot && e.Root != nil && e.Root.Rank == tr.FaultRank && e.Root.TargetName == tr.Parameter && *e.Root.OptimizerStep == tr.FaultOptStep {
			root = true
		}
	}
	if !root {
		t.Errorf("no root line names the planted coordinate")
	}
	kinds := map[string]int{}
	for _, e := range evs {
		kinds[e.Event]++
	}
	t.Logf("%d polls, lines: %v; the spike at poll %d, landed after poll %d", polls.Load(), kinds, at, landed.Load())
	checkSameAsFullRead(t, f, live, dst)
}

// data2db rewrites the trend.db whole: a new file renamed over the old one
// is read again and only the candidates it adds are reported.
func TestFollowTrendDBRewritten(t *testing.T) {
	cfg := synth.DefaultConfig()
	healthy := cfg
	healthy.NoFault = true
	dir := t.TempDir()
	db := filepath.Join(dir, "monitor.trend.db")
	if err := synth.Generate(healthy).WriteTrendDB(db); err != nil {
		t.Fatal(err)
	}
	f, first, err := StartFollow(context.Background(), db, model.FormatAuto, FollowOptions{Interval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	run := synth.Generate(cfg)
	tr := run.Truth()
	polls := &atomic.Int64{}
	var landed atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		w := &writer{t: t, polls: polls}
		w.waitPoll()
		tmp := filepath.Join(dir, ".monitor.trend.db.tmp")
		if err := run.WriteTrendDB(tmp); err != nil {
			t.Error(err)
		}
		if err := os.Rename(tmp, db); err != nil {
			t.Error(err)
		}
		landed.Store(polls.Load())
		w.waitPoll()
		w.waitPoll()
	}()
	evs := followUntil(t, f, first, polls, done)
	live := checkOnce(t, evs)
	at := int64(-1)
	for _, e := range evs {
		if e.Event == EventCandidate && e.Anomaly.Rank == tr.FaultRank && e.Anomaly.OptStep() == tr.FaultOptStep && e.Anomaly.TargetName == tr.Parameter {
			at = e.poll
			break
		}
	}
	if at < 0 {
		t.Fatalf("the planted spike was never reported after the rewrite")
	}
	if l := landed.Load(); at > l+2 {
		t.Errorf("reported at poll %d, the new file landed by poll %d", at, l)
	}
	checkSameAsFullRead(t, f, live, db)
}

// Polls that find nothing new keep no memory: 1,000 of them on a tree of
// 8 ranks × 20 files leave the heap within a generous bound.
func TestFollowPollsKeepMemoryFlat(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 polls")
	}
	_, src := csvSource(t)
	f, _, err := StartFollow(context.Background(), src, model.FormatCSV, FollowOptions{Interval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	heap := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	for range 10 { // warm up: maps and buffers at their size
		f.Poll(context.Background())
	}
	before := heap()
	for i := range 1000 {
		evs, err := f.Poll(context.Background())
		if err != nil || len(evs) > 0 {
			t.Fatalf("poll %d with no new data: %v %v", i, evs, err)
		}
	}
	after := heap()
	const bound = 1 << 20
	if after > before+bound {
		t.Errorf("the heap grew from %d to %d bytes over 1,000 idle polls (bound %d)", before, after, bound)
	}
}
