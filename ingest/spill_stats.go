package ingest

// Min, max and mean leave the heap after a large load: the analysis reads
// them only at its candidates' rows (and the TUI along one series at a
// time), so they wait in a spill file mapped back into memory (package
// spill), read from disk by the kernel on demand. What needs every row of
// them — the summary's non-finite counts — is counted first and kept
// (model.Rows.Counted); which statistics a load lacks was decided before.

import (
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"strings"

	"spikescope/model"
	"spikescope/spill"
)

// SpillStatsMinRows is the row count from which LoadMonitor moves min,
// max and mean out of the heap. Below 1M rows the three columns hold at
// most 12 MB, less than the process's own base (memlimit.BaseBytes), and
// writing them out would cost more than it saves; from there on every
// million rows frees 12 MB. Tests set it to 0 to spill every load.
var SpillStatsMinRows = 1 << 20

// spillFree is spill.Free (a test replaces it to see a full folder).
var spillFree = spill.Free

// SpillHeadroom is the free space a spill leaves in its folder beyond what
// it writes: it does not fill the disk for everyone else.
const SpillHeadroom = 64 << 20

// holdLess makes a large load (SpillStatsMinRows) hold less memory: min,
// max and mean go to a spill file (SpillStats) and the columns left lose
// the slack of their growth. Rows whose columns are mapped already (min,
// max and mean streamed out as read) are only collected after.
func holdLess(input string, d *model.MonitorData) {
	if d.Rows.Len() == 0 || d.Rows.Len() < SpillStatsMinRows {
		return
	}
	// min, max and mean went to the spill file as they were read
	// (statStream), or go now
	spilled := d.Rows.Mapped || SpillStats(input, d)
	if spilled || d.Rows.Slack() {
		// collect first: the trimmed columns, and the analysis after the
		// load, then take the room of what the sort and the spill left
		// behind (the key columns, the sort's scratch, the heap
		// min/max/mean unless streamed) instead of adding to the peak. Without it the
		// collector (GOGC=100) next runs only when the heap doubles the
		// live rows of the load's last collection, and Phase 1's scratch
		// was laid on top of that garbage (trend.db: no slack to trim).
		runtime.GC()
	}
	if d.Rows.Slack() {
		d.Rows.Trim()
		// and again: the untrimmed columns (16 bytes a row and their
		// slack) are garbage now, and the collector would next run only
		// at twice the live rows, so Phase 1's scratch (12 bytes a row)
		// was laid on top of them (CSV: a heap of 40 bytes a row in Phase
		// 1, as high as the load's own peak)
		runtime.GC()
	}
}

// SpillStats moves the stored min, max and mean columns of d's rows (read
// from input, "" for rows built in memory) into a spill file, after
// counting their non-finite values, whatever the row count (LoadMonitor
// does it from SpillStatsMinRows rows); it reports whether they moved.
// When the spill folder lacks room, is inside the input, or the file
// cannot be written or mapped, the columns stay in memory — the results
// are the same, so that is only a debug note.
func SpillStats(input string, d *model.MonitorData) bool {
	r := &d.Rows
	n := r.Len()
	if r.Mapped || n == 0 {
		return false
	}
	var cols []model.Stat
	for s := model.StatMin; s < model.NumStats; s++ {
		if !r.Lacks[s] && len(r.Stats[s]) == n {
			cols = append(cols, s)
		}
	}
	if len(cols) == 0 {
		return false
	}
	counts := r.CountStats()
	if err := spillColumns(input, r, cols); err != nil {
		slog.Debug("min, max and mean kept in memory", "input", input, "rows", n, "why", err)
		return false
	}
	r.Counted = counts
	return true
}

// spillColumns writes columns cols of r to a new spill file and points r
// at their mapping; on an error r is unchanged.
func spillColumns(input string, r *model.Rows, cols []model.Stat) error {
	dir := SpillDirFor(input)
	if dir == "" {
		return fmt.Errorf("every spill folder (%s) is the input's folder or inside it", strings.Join(spill.Candidates(), ", "))
	}
	page := int64(os.Getpagesize())
	need := int64(len(cols)) * (int64(r.Len())*4 + page)
	free, ok := spillFree(dir)
	switch {
	case !ok:
		return fmt.Errorf("free space of %s unknown", dir)
	case free < need+SpillHeadroom:
		return fmt.Errorf("%s has %d bytes free, %d needed", dir, free, need+SpillHeadroom)
	}
	f, err := spill.Create(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	refs := make([]spill.Ref, len(cols))
	for k, s := range cols {
		if refs[k], err = f.Float32s(r.Stats[s]); err != nil {
			return err
		}
	}
	m, err := f.Map()
	if err != nil {
		return err
	}
	for k, s := range cols {
		// the heap column becomes garbage; the mapped one is not resident
		// until read (len = cap: an append copies it back to the heap)
		r.Stats[s] = m.Float32s(refs[k])
		m.Release(refs[k])
	}
	r.Mapped = true
	return nil
}
