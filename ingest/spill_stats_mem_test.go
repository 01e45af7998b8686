package ingest

import (
	"bufio"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
)

// heldBase is what a load may hold besides 16 bytes a row: the series
// table (24 bytes a series: 8,000 here, 192 KB), the targets' names and the
// maps of a load, all independent of the row count.
const heldBase = 2 << 20

// heldAfterLoad loads path and returns the heap it holds afterwards (live
// heap after a collection, minus before) and the process's anonymous
// resident memory grown meanwhile (/proc/self/status RssAnon, after the
// runtime returned what it freed; -1 where unknown).
func heldAfterLoad(t *testing.T, path string, spill bool) (d *model.MonitorData, heap, anon int64) {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	debug.FreeOSMemory()
	a0 := rssAnon()
	runtime.ReadMemStats(&before)
	d = loadSpilled(t, path, spill)
	runtime.GC()
	debug.FreeOSMemory()
	runtime.ReadMemStats(&after)
	anon = -1
	if a0 >= 0 {
		anon = rssAnon() - a0
	}
	return d, int64(after.HeapAlloc) - int64(before.HeapAlloc), anon
}

// rssAnon is RssAnon of /proc/self/status in bytes; -1 where there is none.
func rssAnon() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssAnon:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				return -1
			}
			return kb << 10
		}
	}
	return -1
}

// TestLoadHoldsAtMost16BytesARow: after a 2M-row trend.db or a 2.7M-row v1
// CSV tree is loaded, the heap holds step, micro step and norm (16 bytes a
// row), at most 1/8 of that as room kept from the merge (2 bytes a row),
// and a fixed base — min, max and mean are in a spill file — while with
// the spill disabled it holds more than that (28 bytes a row).
func TestLoadHoldsAtMost16BytesARow(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("writes and loads 2M-row inputs")
	}
	dir := t.TempDir()
	t.Setenv("SPIKESCOPE_SPILL_DIR", t.TempDir()) // not the inputs' folder
	db := filepath.Join(dir, "2m.trend.db")
	WriteTrendDB(t, db, BenchShape{Ranks: 8, Targets: 500, Metrics: 2, Steps: 250})
	csv := filepath.Join(dir, "csv")
	WriteMonitorCSVTree(t, csv, BenchShape{Ranks: 8, Targets: 500, Metrics: 2, Steps: 340})
	for _, path := range []string{db, csv} {
		name := filepath.Base(path)
		for _, spill := range []bool{true, false} {
			d, heap, anon := heldAfterLoad(t, path, spill)
			n := int64(d.Rows.Len())
			if n < 2_000_000 || d.Rows.Mapped != spill {
				t.Fatalf("%s: %d rows, mapped %v (spill %v)", name, n, d.Rows.Mapped, spill)
			}
			t.Logf("%s, spill %v: %d rows, heap held %.2f B/row, RssAnon grew %.2f B/row", name, spill, n, float64(heap)/float64(n), float64(anon)/float64(n))
			// and the room a merge kept (model.Rows.Trim copies only room
			// beyond 1/8 of the rows: a CSV tree's 5% over its estimate stays)
			limit := 16*n + 16*n/8 + heldBase
			switch {
			case spill && heap > limit:
				t.Errorf("%s: the heap holds %d bytes after the load, %.2f a row: more than 18 a row and %d", name, heap, float64(heap)/float64(n), heldBase)
			case !spill && heap <= limit:
				t.Errorf("%s: without the spill the heap holds %d bytes, within 18 a row and %d: the bound proves nothing", name, heap, heldBase)
			}
			runtime.KeepAlive(d)
		}
	}
}
