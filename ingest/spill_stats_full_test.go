package ingest

import (
	"syscall"
	"testing"
)

// A spill folder that fails the write part way (the file size limit,
// RLIMIT_FSIZE, fails writes as a full disk does, past the free-space
// check) keeps min, max and mean in memory, with the same summary, and
// holds no spill file open or mapped.
func TestSpillStatsWriteFailsKeptInMemory(t *testing.T) {
	if !inFileSizeChild(t) {
		return
	}
	db := spillCaseDB(t, false)
	want := mustJSON(t, SummariseMonitor(loadSpilled(t, db, false), nil))
	dir := t.TempDir()
	t.Setenv("SPIKESCOPE_SPILL_DIR", dir)
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Skip("no RLIMIT_FSIZE here")
	}
	lim := old
	lim.Cur = 4096 // the first column's first page, no more
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
		t.Skip("cannot lower RLIMIT_FSIZE")
	}
	d := loadSpilled(t, db, true)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len()*4 <= 4096 {
		t.Fatalf("%d rows: a column fits the limit", d.Rows.Len())
	}
	if d.Rows.Mapped || d.Rows.Counted != nil {
		t.Error("spilled though the write failed")
	}
	if got := mustJSON(t, SummariseMonitor(d, nil)); got != want {
		t.Errorf("summary differs:\n%s\n%s", got, want)
	}
	if fds, maps := spillHandles(t, dir); fds != 0 || maps != 0 {
		t.Errorf("%d spill files open, %d mapped after the failed spill", fds, maps)
	}
}
