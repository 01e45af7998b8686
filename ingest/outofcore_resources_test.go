package ingest

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"spikescope/model"
)

// spillHandles counts the spill files of dir the process still holds: open
// descriptors, and files mapped (by inode). Linux only (/proc/self).
func spillHandles(t *testing.T, dir string) (fds, maps int) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	for _, e := range ents {
		if l, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); err == nil && strings.HasPrefix(l, dir+"/") {
			fds++
		}
	}
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps here")
	}
	inodes := map[string]bool{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && strings.HasPrefix(f[5], dir+"/") {
			inodes[f[4]] = true
		}
	}
	return fds, len(inodes)
}

// After an out-of-core load the process holds no spill file open and maps
// only the files of the rows' columns (step, micro step, norm and each
// statistic stored): the spilled chunks, read back by the sort, are given
// up with their disk.
func TestOutOfCoreHoldsOnlyTheResult(t *testing.T) {
	for _, p := range []string{"../testdata/demo/npu/trend.db", "../testdata/demo/npu/monitor_output"} {
		dir := t.TempDir()
		d, err := LoadMonitorOutOfCore(context.Background(), p, model.FormatAuto, nil, OutOfCore{Dir: dir, ChunkRows: 1000, BucketRows: 3000})
		if err != nil {
			t.Fatal(err)
		}
		want := 3
		for st := model.StatMin; st < model.NumStats; st++ {
			if !d.Rows.Lacks[st] {
				want++
			}
		}
		if fds, maps := spillHandles(t, dir); fds != 0 || maps != want {
			t.Errorf("%s: %d spill files open, %d mapped; want 0 and %d (the result's columns)", p, fds, maps, want)
		}
	}
}

// A sort that stops (cancelled) leaves no spill file open or mapped.
func TestOutOfCoreStoppedSortHoldsNothing(t *testing.T) {
	dir := t.TempDir()
	r := randomRows(rand.New(rand.NewPCG(7, 8)), 100)
	s := newRowSink("test", OutOfCore{Dir: dir, ChunkRows: 10, BucketRows: 10}, nil)
	if err := s.add(0, &r, nil, nil, -1); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.build(ctx, &model.MonitorData{HasStat: [model.NumStats]bool{true, true, false, true}}); err != context.Canceled {
		t.Fatalf("build of a cancelled load: %v", err)
	}
	if fds, maps := spillHandles(t, dir); fds != 0 || maps != 0 {
		t.Errorf("%d spill files open, %d mapped after the sort stopped", fds, maps)
	}
}

// A spill folder that runs out of room while the rows are read (here the
// file size limit, RLIMIT_FSIZE, which fails writes as a full disk does)
// stops the load with one line naming the input and the folder, without
// the spill's internals, and leaves no spill file open or mapped; so does
// a load cancelled while it reads.
func TestOutOfCoreFullSpillFolder(t *testing.T) {
	if !inFileSizeChild(t) {
		return
	}
	for _, p := range []string{"../testdata/demo/npu/trend.db", "../testdata/demo/npu/monitor_output"} {
		dir := t.TempDir()
		var old syscall.Rlimit
		if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Skip("no RLIMIT_FSIZE here")
		}
		lim := old
		lim.Cur = 64 << 10
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &lim); err != nil {
			t.Skip("cannot lower RLIMIT_FSIZE")
		}
		_, err := LoadMonitorOutOfCore(context.Background(), p, model.FormatAuto, nil, OutOfCore{Dir: dir, ChunkRows: 500, BucketRows: 3000})
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("%s on a full spill folder: %v (%T), not an input error", p, err, err)
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, p+": ") || strings.Contains(msg, "\n") || !strings.Contains(msg, dir) {
			t.Errorf("%s: %q is not one line naming the input and the folder", p, msg)
		}
		for _, w := range []string{"spill:", ".cols"} {
			if strings.Contains(msg, w) {
				t.Errorf("%s: %q says %q", p, msg, w)
			}
		}
		if fds, maps := spillHandles(t, dir); fds != 0 || maps != 0 {
			t.Errorf("%s: %d spill files open, %d mapped after the failed load", p, fds, maps)
		}

		ctx, cancel := context.WithCancel(context.Background())
		progress := func(pr model.Progress) {
			if pr.Done > 0 {
				cancel()
			}
		}
		if _, err := LoadMonitorOutOfCore(ctx, p, model.FormatAuto, progress, OutOfCore{Dir: dir, ChunkRows: 500, BucketRows: 3000}); err == nil {
			t.Fatalf("%s: a cancelled load succeeded", p)
		}
		cancel()
		if fds, maps := spillHandles(t, dir); fds != 0 || maps != 0 {
			t.Errorf("%s: %d spill files open, %d mapped after the cancelled load", p, fds, maps)
		}
	}
}

// spillDisk is the disk the spill files of dir held open take (their
// allocated blocks: holes between columns take none).
func spillDisk(t *testing.T, dir string) int64 {
	t.Helper()
	dir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd here")
	}
	var n int64
	for _, e := range ents {
		fd := filepath.Join("/proc/self/fd", e.Name())
		if l, err := os.Readlink(fd); err == nil && strings.HasPrefix(l, dir+"/") {
			if st, err := os.Stat(fd); err == nil {
				n += st.Sys().(*syscall.Stat_t).Blocks * 512
			}
		}
	}
	return n
}

// The rows of many small files (the demo's CSV tree: 160 files of about
// 100 rows) share spilled chunks: the disk the spilled rows take, when the
// sort starts, is about their 32 bytes a row (OutOfCoreDiskBytesPerRow),
// not a page per column per file (294 bytes a row).
func TestOutOfCoreSmallFilesShareChunks(t *testing.T) {
	for _, p := range []string{"../testdata/demo/npu/monitor_output", "../testdata/demo/npu/trend.db"} {
		dir := t.TempDir()
		var disk int64 = -1
		progress := func(pr model.Progress) {
			if pr.Stage == model.StageSorting && disk < 0 {
				disk = spillDisk(t, dir) // the result's files are empty yet
			}
		}
		d, err := LoadMonitorOutOfCore(context.Background(), p, model.FormatAuto, progress, OutOfCore{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		n := int64(d.Rows.Len())
		if limit := n*32 + 8*8192; disk < 0 || disk > limit {
			t.Errorf("%s: %d rows spilled into %d bytes of disk (%.0f a row), want at most %d", p, n, disk, float64(disk)/float64(n), limit)
		}
	}
}
