package pipeline

import (
	"os"
	"runtime"
	"runtime/debug"

	"spikescope/ingest"
)

// phase1Room is the heap Phase 1 may add to a large load's live rows
// before the collector runs, as a share of them: its scratch (the
// noise floor's changes before the first held value, the series' micro
// curves) measured 15 MB on 46 MB of rows (4M trend.db rows), and a
// share leaves the collector room in proportion to the rows.
const phase1Room = 0.75

// roomForAnalysis is called between a large load (ingest.SpillStatsMinRows
// rows or more) and its analysis: the load's sort and scratch become
// garbage at once (a collection), and while the analysis runs the
// collector keeps the Go memory — in use and kept free alike — within the
// memory in use after the load and phase1Room of its live heap, instead of
// letting garbage grow to GOGC's double of the rows (Phase 1 ran on the
// load's high-water mark, and the spill file's pages it reads came on
// top). The free memory above the limit goes back to the system (the
// runtime's scavenger); the free memory within it is kept for Phase 1's
// scratch, which would otherwise touch freshly mapped pages again (each
// page's first touch is a page fault: 0.1–0.2 s CPU on 4M rows here, when
// all of it was returned first). The limit is soft (never an error; the
// collector only runs more often) and never raises one already set
// (--mem-limit, GOMEMLIMIT). The returned function restores the limit
// before.
func roomForAnalysis(rows int) (restore func()) {
	if rows < ingest.SpillStatsMinRows || rows == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// the memory in use (what debug.FreeOSMemory would leave mapped) and
	// the room
	limit := int64(ms.Sys-ms.HeapIdle) + int64(phase1Room*float64(ms.HeapAlloc))
	prev := debug.SetMemoryLimit(-1)
	if prev <= limit {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}
