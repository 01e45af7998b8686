package pipeline

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"spikescope/model"
)

// --follow on a CSV tree: every truncation of a file — emptied to 0 bytes,
// cut shorter, replaced — gives the "read again" warning, and the state
// after the poll (rows and candidates) is a fresh detect's of the tree as
// it now is. The file cut is the planted spike's, so the candidates do
// change.
func TestFollowCSVTruncationsEqualAFreshDetect(t *testing.T) {
	run, src := csvSource(t)
	tr := run.Truth()
	dst := t.TempDir()
	w := &writer{t: t, src: src, dst: dst}
	for r := 0; r < run.Cfg.Ranks; r++ {
		for s := 0; s < run.Cfg.OptSteps; s++ {
			for _, f := range stepFiles(run, src, r, s) {
				w.copyWhole(f)
			}
		}
	}
	f, _, err := StartFollow(context.Background(), dst, model.FormatAuto, FollowOptions{Interval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srcFile := stepFiles(run, src, tr.FaultRank, tr.FaultOptStep)[0]
	file := w.target(srcFile)
	whole, err := os.ReadFile(srcFile)
	if err != nil {
		t.Fatal(err)
	}
	other, err := os.ReadFile(stepFiles(run, src, (tr.FaultRank+1)%run.Cfg.Ranks, tr.FaultOptStep)[0])
	if err != nil {
		t.Fatal(err)
	}
	hasFault := func() bool {
		for i := range f.P1.Anomalies {
			if isFault(&f.P1.Anomalies[i], tr) {
				return true
			}
		}
		return false
	}
	if !hasFault() {
		t.Fatal("the planted spike is not a candidate at the start")
	}
	restore := func() {
		if err := os.WriteFile(file, whole, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := f.Poll(context.Background()); err != nil {
			t.Fatal(err)
		}
		if !hasFault() {
			t.Fatal("the planted spike is not a candidate after the file was written back")
		}
	}
	for _, c := range []struct {
		name  string
		apply func()
		want  string
		fault bool // the spike's row is still there
	}{
		{"emptied to 0 bytes", func() { os.Truncate(file, 0) }, " shrank (", false},
		// at a line end: a last line without its newline is one being
		// written, which a follower reads when it is complete
		{"cut to the line end before byte 463", func() { os.Truncate(file, int64(bytes.LastIndexByte(whole[:463], '\n')+1)) }, " shrank (", false},
		{"replaced by another rank's file", func() {
			tmp := file + ".new"
			os.WriteFile(tmp, other, 0o644)
			os.Rename(tmp, file)
		}, " was replaced (", false},
	} {
		c.apply()
		evs, err := f.Poll(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, e := range evs {
			if e.Event == EventWarning && strings.Contains(e.Message, file+c.want) && strings.Contains(e.Message, "read again") {
				warned = true
			}
		}
		if !warned {
			t.Errorf("%s: no warning naming the file among %+v", c.name, evs)
		}
		if hasFault() != c.fault {
			t.Errorf("%s: the planted spike is a candidate: %v, want %v", c.name, hasFault(), c.fault)
		}
		live := map[model.CandidateID]bool{}
		for i := range f.P1.Anomalies {
			live[model.IDOf(&f.P1.Anomalies[i])] = true
		}
		checkSameAsFullRead(t, f, live, dst)
		restore()
	}
}
