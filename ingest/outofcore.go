package ingest

import (
	"context"
	"os"

	"spikescope/model"
	"spikescope/spill"
)

// OutOfCore makes LoadMonitorOutOfCore keep a monitor's rows out of the
// heap: the reader hands its rows in chunks to a sink that appends them to
// a spill file (package spill) while it counts the rows of every series;
// an external distribution sort then puts them in series order bucket by
// bucket (each bucket a range of series that fits HeapBytes) into a second
// spill file, which the returned rows map. The rows, warnings and results
// are those of LoadMonitor; the heap holds one bucket and the chunk
// buffers, the page cache the rest.
type OutOfCore struct {
	// Dir is the spill folder ("" = spill.Dir()); never an input's.
	Dir string
	// HeapBytes bounds the heap of one bucket (its rows, at most
	// OutOfCoreBucketBytesPerRow, and its series' cursors: bucketFits); 0
	// or less: one bucket of all rows.
	HeapBytes int64
	// BucketRows and ChunkRows override the bucket size derived from
	// HeapBytes and the rows a spilled chunk holds (tests: a few rows, so
	// that every series crosses chunks and buckets).
	BucketRows, ChunkRows int

	// sinks are the readers' sinks of one load (LoadMonitorOutOfCore), so
	// that a load that fails or is cancelled before the sort closes their
	// spill files: an unlinked file's disk is free only once closed.
	sinks *[]*rowSink
}

const (
	// defaultChunkRows is the most rows one spilled chunk holds: a chunk's
	// columns are read back whole in every bucket pass that needs one of
	// its rows, so chunks stay small beside a bucket.
	defaultChunkRows = 1 << 16
	// OutOfCoreBucketBytesPerRow is the most heap one row of a bucket
	// takes: step, micro step, norm, min, max and mean (28 bytes), its input
	// position (8, for the duplicate rule) or run folder (2), and slack.
	OutOfCoreBucketBytesPerRow = 40
	// OutOfCoreDiskBytesPerRow is the disk a row needs in the spill folder:
	// the spilled chunks' series id, step, micro step, norm, min, max and
	// mean (32 bytes) and the result's columns (28), both held until the
	// sort is done.
	OutOfCoreDiskBytesPerRow = 60
)

// LoadMonitorOutOfCore is LoadMonitor with the rows read through spill
// files as o says (see OutOfCore). A dump tree is read in memory: its
// gradients are few.
func LoadMonitorOutOfCore(ctx context.Context, path string, f model.Format, p model.ProgressFunc, o OutOfCore) (*model.MonitorData, error) {
	dir := o.Dir
	if dir == "" {
		if dir = SpillDirFor(path); dir == "" {
			dir = spill.Dir()
		}
		o.Dir = dir
	}
	if _, err := os.Stat(path); err == nil && SpillInputWithin(dir, path) != "" {
		// (a path not there is the reader's to word)
		return nil, inputErr(path, nil, "not read through a temporary file: the temporary folder %s is within the input (set SPIKESCOPE_SPILL_DIR to a folder outside it)", dir)
	}
	var sinks []*rowSink
	o.sinks = &sinks
	defer func() {
		for _, s := range sinks {
			s.close()
		}
	}()
	return loadMonitorWith(ctx, path, f, p, &o)
}
