package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"spikescope/model"
)

const followHeader = "vpp_stage,name,step,micro_step,min,max,mean,norm\n"

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

func poll(t *testing.T, f MonitorFollower) FollowPoll {
	t.Helper()
	p, err := f.Poll(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// norms lists the norm column of the rows, in row order.
func norms(d *model.MonitorData) []float64 { return d.Rows.Norm }

// A half-written last line waits for the next poll; appended rows are read
// once; a bad line of an appended chunk is named by its line in the file.
func TestFollowCSVAppendsAndHalfLines(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rank_0")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "grad_unreduced_0-9.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n0,w,1,0,0,0,0,2\n0,w,2,0,0,0,0,")
	f, err := FollowMonitor(context.Background(), filepath.Dir(dir), model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := norms(f.Data()); len(got) != 2 || got[1] != 2 {
		t.Fatalf("first read: norms %v, want [1 2] (the half line left out)", got)
	}
	first := f.Data()
	if p := poll(t, f); p.Changed {
		t.Fatalf("a poll with no new complete line changed the data: %+v", p)
	}
	appendFile(t, file, "3\n0,w,3,0,0,0,0,x\n0,w,4,0,0,0,0,5\n")
	p := poll(t, f)
	if !p.Changed || p.NewRows != 2 {
		t.Fatalf("poll after the line was finished: %+v, want 2 new rows", p)
	}
	if got := norms(f.Data()); len(got) != 4 || got[2] != 3 || got[3] != 5 {
		t.Fatalf("norms %v, want [1 2 3 5]", got)
	}
	if len(norms(first)) != 2 {
		t.Fatalf("an earlier view changed: %v", norms(first))
	}
	if len(said(p.Warnings)) != 1 || !strings.Contains(said(p.Warnings)[0], "line 5,") || !strings.Contains(said(p.Warnings)[0], file) {
		t.Fatalf("warnings %q, want one naming %s line 5 (the bad cell)", said(p.Warnings), file)
	}
	if p := poll(t, f); p.Changed {
		t.Fatalf("the same rows were read twice: %+v", p)
	}
}

// New step files, _part_N files and rank folders are found by the next
// poll; a file created empty is read once it has lines.
func TestFollowCSVNewFilesAndRanks(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	appendFile(t, filepath.Join(r0, "grad_unreduced_0-0.csv"), followHeader+"0,w,0,0,0,0,0,1\n")
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, filepath.Join(r0, "grad_unreduced_0-0_part_1.csv"), "")
	if p := poll(t, f); p.Changed || len(said(p.Warnings)) > 0 {
		t.Fatalf("an empty new file: %+v, want nothing", p)
	}
	appendFile(t, filepath.Join(r0, "grad_unreduced_0-0_part_1.csv"), followHeader)
	if p := poll(t, f); p.Changed || len(said(p.Warnings)) > 0 {
		t.Fatalf("a new file with its header only: %+v, want nothing", p)
	}
	appendFile(t, filepath.Join(r0, "grad_unreduced_0-0_part_1.csv"), "0,v,0,0,0,0,0,7\n")
	r3 := filepath.Join(root, "rank_3")
	os.MkdirAll(r3, 0o755)
	appendFile(t, filepath.Join(r3, "grad_unreduced_1-1.csv"), followHeader+"0,w,1,0,0,0,0,9\n")
	if p := poll(t, f); p.NewRows != 2 {
		t.Fatalf("new part file and rank folder: %+v, want 2 rows", p)
	}
	d := f.Data()
	ranks := map[int32]bool{}
	for run := range d.Rows.Runs() {
		ranks[run.Rank] = true
	}
	if !ranks[3] || len(d.Targets) != 2 {
		t.Fatalf("ranks %v targets %v: want rank 3 and targets w, v", ranks, d.Targets)
	}
}

// A file that shrinks or is replaced is read again from the start, with a
// warning; its rows are not counted twice.
func TestFollowCSVShrunkOrReplaced(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	file := filepath.Join(r0, "grad_unreduced_0-0.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n0,w,1,0,0,0,0,2\n")
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(followHeader+"0,w,0,0,0,0,0,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := poll(t, f)
	if !p.Reread || len(said(p.Warnings)) == 0 || !strings.Contains(said(p.Warnings)[0], "shrank") {
		t.Fatalf("shrunk file: %+v, want a re-read with a warning", p)
	}
	if got := norms(f.Data()); len(got) != 1 || got[0] != 4 {
		t.Fatalf("after the re-read: %v, want [4]", got)
	}
	tmp := filepath.Join(root, "new.tmp")
	os.WriteFile(tmp, []byte(followHeader+"0,w,0,0,0,0,0,5\n0,w,1,0,0,0,0,6\n"), 0o644)
	if err := os.Rename(tmp, file); err != nil {
		t.Fatal(err)
	}
	p = poll(t, f)
	if !p.Reread || len(said(p.Warnings)) == 0 || !strings.Contains(said(p.Warnings)[0], "replaced") {
		t.Fatalf("replaced file: %+v, want a re-read with a warning", p)
	}
	if got := norms(f.Data()); len(got) != 2 || got[0] != 5 || got[1] != 6 {
		t.Fatalf("after the re-read: %v, want [5 6]", got)
	}
}

// A view from Data stays the same while later polls append rows (the TUI
// draws one view while the next poll reads): run with -race.
func TestFollowCSVViewStableWhilePolling(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	file := filepath.Join(r0, "grad_unreduced_0-999.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n0,v,0,0,0,0,0,2\n")
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	view := f.Data()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for s := 1; s <= 200; s++ {
			appendFile(t, file, "0,w,"+strconv.Itoa(s)+",0,0,0,0,1\n0,u"+strconv.Itoa(s)+","+strconv.Itoa(s)+",0,0,0,0,3\n")
			if _, err := f.Poll(context.Background()); err != nil {
				t.Error(err)
			}
		}
	}()
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		if n, got := view.Rows.Len(), norms(view); n != 2 || got[0] != 1 || got[1] != 2 || len(view.Targets) != 2 || view.Targets[1].Name != "v" {
			t.Fatalf("the view changed: %d rows %v, targets %v", n, got, view.Targets)
		}
	}
	if d := f.Data(); d.Rows.Len() != 402 || len(d.Targets) != 202 {
		t.Fatalf("after 200 polls: %d rows, %d targets; want 402, 202", d.Rows.Len(), len(d.Targets))
	}
}

// LastWrite is the newest modification time of the followed files: what
// "last data N s ago" reports, also for a job that stopped long ago.
func TestFollowLastWrite(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	file := filepath.Join(r0, "grad_unreduced_0-0.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n")
	old := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(file, old, old)
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := f.LastWrite(); !got.Equal(old) {
		t.Fatalf("LastWrite %v, want the file's time %v", got, old)
	}
	other := filepath.Join(r0, "grad_unreduced_1-1.csv")
	appendFile(t, other, followHeader)
	later := old.Add(time.Hour)
	os.Chtimes(other, later, later)
	poll(t, f)
	if got := f.LastWrite(); !got.Equal(later) {
		t.Fatalf("after a new file: LastWrite %v, want %v", got, later)
	}
}

// A file written anew in place past its old end (truncate, then refill)
// is not taken as appended: the tree is read again.
func TestFollowCSVRewrittenInPlace(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	file := filepath.Join(r0, "grad_unreduced_0-0.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n")
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the same inode, longer, and the old end now falls inside a line
	if err := os.WriteFile(file, []byte(followHeader+"0,weight,0,0,0,0,0,7\n0,weight,1,0,0,0,0,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := poll(t, f)
	if !p.Reread || len(said(p.Warnings)) == 0 || !strings.Contains(said(p.Warnings)[0], "written anew") {
		t.Fatalf("poll %+v: want a re-read with a warning", p)
	}
	if got := norms(f.Data()); len(got) != 2 || got[0] != 7 || got[1] != 8 {
		t.Fatalf("after the re-read: %v, want [7 8]", got)
	}
}
