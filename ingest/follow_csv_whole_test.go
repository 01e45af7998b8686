package ingest

import (
	"context"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"spikescope/model"
)

// A tree read whole (a rank with several run folders) counts each file as
// read up to where it was when the read began: a line the job appends
// while the tree is being read is read by the next poll, not skipped as if
// it had been read.
func TestFollowWholeTreeKeepsLinesWrittenDuringTheRead(t *testing.T) {
	root := t.TempDir()
	row := func(step, norm int) string {
		return "0,w," + strconv.Itoa(step) + ",0,1,2,3," + strconv.Itoa(norm) + ",[2],torch.float32\n"
	}
	writeMonFile(t, filepath.Join(root, "Mar30_23-10-00-rank0-aaaa", "grad_unreduced_0-0.csv"), v1Head+row(0, 10))
	live := filepath.Join(root, "Apr01_08-00-00-rank0-bbbb", "grad_unreduced_1-9.csv")
	writeMonFile(t, live, v1Head+row(1, 11))
	var once sync.Once
	progress := func(p model.Progress) {
		if p.Total > 0 && p.Done == p.Total { // the read is done: the job writes on
			once.Do(func() { appendFile(t, live, row(2, 12)) })
		}
	}
	f, err := newCSVFollower(context.Background(), root, progress)
	if err != nil {
		t.Fatal(err)
	}
	if !f.wholeTree {
		t.Fatal("two run folders of rank 0 are not read as a whole tree")
	}
	poll(t, f)
	got := norms(f.Data())
	if len(got) != 3 || !slices.Contains(got, 12) {
		t.Fatalf("norms %v after a poll: want 10, 11 and 12, the line written during the first read included", got)
	}
}
