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
// rows or more) and its analysis: the memory the load's sort and scratch
// left behind goes back to the system at once (the runtime returns it
// only slowly: Phase 1 ran on the load's high-water mark, and the spill
// file's pages it reads came on top), and while the analysis runs the
// collector keeps the Go memory within the live rows and phase1Room of
// them instead of letting garbage grow to GOGC's double of the rows. The
// limit is soft (never an error; the collector only runs more often) and
// never raises one already set (--mem-limit, GOMEMLIMIT). The returned
// function restores the limit before.
func roomForAnalysis(rows int) (restore func()) {
	if rows < ingest.SpillStatsMinRows || rows == 0 || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	limit := int64(ms.Sys-ms.HeapReleased) + int64(phase1Room*float64(ms.HeapAlloc))
	prev := debug.SetMemoryLimit(-1)
	if prev <= limit {
		return func() {}
	}
	debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}
