package ingest

import (
	"slices"
	"sync"

	"spikescope/model"
)

// csvRowBufs recycles the row arrays one file is parsed into. A tree's files
// are parsed into their own rows and then copied into the merged rows; with
// new arrays per file the copied ones were garbage as large as the merged
// rows by the end, and the collector (GOGC=100) let the heap grow to about
// twice the rows before reclaiming them: the CSV path's peak. Reused, the
// per-file arrays stay as many as files in flight, each as large as the
// largest file. A nil *csvRowBufs hands out new arrays (one file parsed on
// its own, the --follow path).
//
// A file's target list is recycled the same way: it is only read by the
// merge, which maps it to the tree's targets (the parser keeps its own
// copy for guessing the next file's, csvParser.parse).
type csvRowBufs struct {
	mu      sync.Mutex
	free    []model.Rows
	targets [][]model.Target
}

// get returns empty rows, with the room of a returned buffer when there is
// one.
func (b *csvRowBufs) get() model.Rows {
	if b == nil {
		return model.Rows{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(b.free)
	if n == 0 {
		return model.Rows{}
	}
	r := b.free[n-1]
	b.free[n-1] = model.Rows{}
	b.free = b.free[:n-1]
	return r
}

// getTargets returns an empty target list with room for at least n
// (nil when b is nil: a list of its own, grown by append).
func (b *csvRowBufs) getTargets(n int) []model.Target {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	var t []model.Target
	if k := len(b.targets); k > 0 {
		t = b.targets[k-1]
		b.targets[k-1] = nil
		b.targets = b.targets[:k-1]
	}
	b.mu.Unlock()
	return slices.Grow(t[:0], n)
}

// put hands a merged file's rows and target list back; their arrays are
// overwritten by a later get.
func (b *csvRowBufs) put(r *csvResult) {
	if b == nil {
		return
	}
	rows, targets := r.rows, r.targets
	r.rows, r.targets = model.Rows{}, nil
	b.mu.Lock()
	defer b.mu.Unlock()
	if rows.Table == nil && rows.Rank != nil {
		// a micro-step column made by a file with micro steps is kept for
		// the next (a new one per file was garbage of 4 bytes a row of the
		// largest file, per file: +22 MB of heap at the 4M-row tree's
		// merge); a file without micro steps parsed into it holds NoMicro
		// in it, which the merged rows hold anyway once a file had some
		rows.Truncate(0)
		rows.Lacks = [model.NumStats]bool{}
		b.free = append(b.free, rows)
	}
	if cap(targets) > 0 {
		clear(targets) // no name kept alive by a spare list
		b.targets = append(b.targets, targets[:0])
	}
}
