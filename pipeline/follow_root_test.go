package pipeline

import (
	"context"
	"strings"
	"testing"
	"time"

	"spikescope/ingest"
	"spikescope/model"
)

// Every change of the root-cause coordinate is one root line, its going
// away included: a reader who keeps the latest root line's coordinate
// always holds the current one, and a root that comes back is not a
// surprise "new" root whose previous_root is wrong.
func TestFollowRootLinesTrackTheRoot(t *testing.T) {
	step := 3
	a := model.Anomaly{Rank: 1, Step: step, TargetName: "layers.0.w", Metric: "grad_unreduced", Trigger: "iqr"}
	c := &model.Coordinate{Step: &step, Rank: 1, TargetName: "layers.0.w"}
	f := &Follower{seen: map[model.CandidateID]*seenCand{}, now: time.Now}
	var held *model.Coordinate // what a reader of the root lines holds
	roots := 0
	for i, withRoot := range []bool{true, false, true, true} {
		f.P1, f.P2 = &model.Phase1Result{}, &model.Phase2Result{}
		if withRoot {
			f.P1.Anomalies = []model.Anomaly{a}
			f.P2.RootCauseCoordinate = c
		}
		for _, e := range f.diff() {
			if e.Event != EventRoot {
				continue
			}
			roots++
			if !sameCoordinate(e.PreviousRoot, held) {
				t.Errorf("analysis %d: the root line gives previous_root %+v, the lines before said %+v", i, e.PreviousRoot, held)
			}
			held = e.Root
		}
		if !sameCoordinate(held, f.P2.RootCauseCoordinate) {
			t.Errorf("analysis %d: the root lines leave %+v, the root is %+v", i, held, f.P2.RootCauseCoordinate)
		}
	}
	if roots != 3 {
		t.Errorf("%d root lines for three changes (found, gone, back)", roots)
	}
}

// Two model chunks (VPP) may hold a parameter of one name: they are two
// candidates, each reported once, and analysing the same data again says
// nothing.
func TestFollowChunksAreTwoCandidates(t *testing.T) {
	a := model.Anomaly{Rank: 1, Step: 3, TargetName: "layers.0.w", Metric: "grad_unreduced", Trigger: "iqr"}
	b := a
	b.VPPStage, b.Trigger = 1, "mad"
	f := &Follower{seen: map[model.CandidateID]*seenCand{}, now: time.Now}
	f.P1, f.P2 = &model.Phase1Result{Anomalies: []model.Anomaly{a, b}}, &model.Phase2Result{}
	kinds := map[string]int{}
	for _, e := range f.diff() {
		kinds[e.Event]++
	}
	if kinds[EventCandidate] != 2 || len(kinds) != 1 {
		t.Errorf("first analysis: %v, want 2 candidate lines only", kinds)
	}
	if evs := f.diff(); len(evs) != 0 {
		t.Errorf("the same result again gives %d line(s), the first: %s %s", len(evs), evs[0].Event, evs[0].Message)
	}
}

// When the ranks read since make the pipeline stages known, the names of
// earlier candidates gain their "pp<N>:" prefix: the same candidates, said
// once as a revision each, not reported again as new ones.
func TestFollowStagePrefixIsARenameNotANewCandidate(t *testing.T) {
	a := model.Anomaly{Rank: 4, Step: 3, TargetName: "layers.0.w", Metric: "grad_unreduced", Trigger: "iqr"}
	staged := a
	staged.TargetName, staged.PPStage = model.StageName(1, a.TargetName), model.IntPtr(1)
	f := &Follower{seen: map[model.CandidateID]*seenCand{}, now: time.Now}
	var lines []FollowEvent
	for _, x := range []model.Anomaly{a, staged, staged} {
		f.P1, f.P2 = &model.Phase1Result{Anomalies: []model.Anomaly{x}}, &model.Phase2Result{}
		lines = append(lines, f.diff()...)
	}
	if len(lines) != 2 || lines[0].Event != EventCandidate || lines[1].Event != EventRevised || lines[1].Change != ChangeChanged ||
		lines[1].Now == nil || lines[1].Now.TargetName != staged.TargetName {
		for _, e := range lines {
			t.Logf("%s %s %s", e.Event, e.Change, e.Message)
		}
		t.Fatalf("%d lines: want the candidate, then one revision naming it %s", len(lines), staged.TargetName)
	}
}

// The start and stop lines count in words a user reads: "1 row", not
// "1 rows" or "candidate(s)".
func TestFollowStopLineCounts(t *testing.T) {
	f := &Follower{path: "/data/run", mon: idleMonitor{}, now: time.Now, polls: 1, P1: &model.Phase1Result{Anomalies: make([]model.Anomaly, 2)}, Data: &model.MonitorData{}}
	msg := f.Stop().Message
	if want := "stopped following /data/run after 1 poll: 0 rows, 2 candidates"; msg != want {
		t.Errorf("stop line %q, want %q", msg, want)
	}
}

// idleMonitor is a monitor nobody writes.
type idleMonitor struct{}

func (idleMonitor) Data() *model.MonitorData { return &model.MonitorData{} }
func (idleMonitor) Poll(context.Context) (ingest.FollowPoll, error) {
	return ingest.FollowPoll{}, nil
}
func (idleMonitor) LastWrite() time.Time { return time.Time{} }

// A withdrawal says why in words true of the poll: after new rows only,
// the later steps' baseline; after the data was read again (a replaced
// file, a new trend.db), only that it was read again.
func TestFollowWithdrawalSaysWhy(t *testing.T) {
	a := model.Anomaly{Rank: 1, Step: 3, TargetName: "w", Metric: "grad_unreduced", Trigger: "iqr"}
	for _, c := range []struct {
		reread bool
		want   string
	}{{false, "baseline of later steps"}, {true, "read again"}} {
		f := &Follower{seen: map[model.CandidateID]*seenCand{}, now: time.Now}
		f.P1, f.P2 = &model.Phase1Result{Anomalies: []model.Anomaly{a}}, &model.Phase2Result{}
		f.diff()
		f.P1, f.reread = &model.Phase1Result{}, c.reread
		evs := f.diff()
		if len(evs) != 1 || evs[0].Change != ChangeWithdrawn || !strings.Contains(evs[0].Message, c.want) {
			t.Errorf("reread %v: %+v, want one withdrawal saying %q", c.reread, evs, c.want)
		}
	}
}
