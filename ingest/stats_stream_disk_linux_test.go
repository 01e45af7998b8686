//go:build linux

package ingest

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"spikescope/model"
)

// TestStreamFileDiskAfterSort: once a CSV tree's streamed columns are
// mapped in series order, the stream's file holds on disk no more than
// those columns — the row-order columns it held past them (a CSV tree's
// file has room for several times the estimated rows) give their disk
// back, as the parked steps do. The file is deleted and closed; its disk
// is read through the mapping (/proc/self/map_files).
func TestStreamFileDiskAfterSort(t *testing.T) {
	defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
	SpillStatsMinRows = 0
	root := t.TempDir()
	WriteMonitorCSVTree(t, root, BenchShape{Ranks: 2, Targets: 40, Metrics: 2, Steps: 120})
	st := &statStream{want: true, input: root}
	d, err := loadMonitorStream(context.Background(), root, model.FormatAuto, nil, nil, st)
	if err != nil {
		t.Fatal(err)
	}
	n := d.Rows.Len()
	if !d.Rows.Mapped || st.mapped != n {
		t.Fatalf("not streamed: mapped %v, %d of %d rows", d.Rows.Mapped, st.mapped, n)
	}
	kept := 0
	var at uintptr
	for s := model.StatMin; s < model.NumStats; s++ {
		if !d.Rows.Lacks[s] {
			kept++
			at = uintptr(unsafe.Pointer(&d.Rows.Stats[s][0]))
		}
	}
	if kept == 0 {
		t.Fatal("no statistic streamed")
	}
	// each series-order column lies where its row-order column was, so
	// the sort's writes took no disk the row-order columns did not hold
	// (the room begin asked for); the tree has every statistic, streamed
	// in Stat order
	if kept != int(model.NumStats-model.StatMin) {
		t.Fatalf("%d statistics streamed, want all %d", kept, model.NumStats-model.StatMin)
	}
	first := uintptr(unsafe.Pointer(&d.Rows.Stats[model.StatMin][0]))
	for s := model.StatMin + 1; s < model.NumStats; s++ {
		p := uintptr(unsafe.Pointer(&d.Rows.Stats[s][0]))
		if got, want := int64(p-first), int64(s-model.StatMin)*int64(st.stride)*4; got != want {
			t.Fatalf("%v lies %d bytes after the first column, not over its row-order column (%d)", s, got, want)
		}
	}
	path := mappingFile(t, at)
	var fs syscall.Stat_t
	if err := syscall.Stat(path, &fs); err != nil {
		t.Skipf("the mapping's file cannot be read here: %v", err)
	}
	page := int64(os.Getpagesize())
	col := (int64(n)*4 + page - 1) / page * page
	if disk := fs.Blocks * 512; disk > int64(kept)*col+page {
		t.Fatalf("the stream's file holds %d bytes of disk after the sort; its %d mapped columns of %d rows take %d", disk, kept, n, int64(kept)*col)
	}
}

// mappingFile is the /proc/self/map_files entry of the mapping holding at.
func mappingFile(t *testing.T, at uintptr) string {
	t.Helper()
	f, err := os.Open("/proc/self/maps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rng, _, _ := strings.Cut(sc.Text(), " ")
		var lo, hi uintptr
		if _, err := fmt.Sscanf(rng, "%x-%x", &lo, &hi); err == nil && lo <= at && at < hi {
			return filepath.Join("/proc/self/map_files", rng)
		}
	}
	t.Fatalf("no mapping holds %#x", at)
	return ""
}
