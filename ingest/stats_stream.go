package ingest

// Min, max and mean of a large trend.db load never enter the heap: the
// reader writes each block's three columns to a file in the spill folder
// as it places the block (row order), and the series sort then reads them
// back a piece at a time, puts them in series order in the sort's scratch
// column and writes them over the file's row-order columns, then maps the
// file for the analysis (as SpillStats maps the columns it moves after the
// load). The load's peak loses their 12 bytes a row (all rows' min, max
// and mean were held until the spill, on top of the sort); what they cost
// instead is disk their size (and the parked steps') for the time of the
// load, and a pass over them.

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"unsafe"

	"spikescope/model"
	"spikescope/spill"
)

// statStream holds the streamed columns of one load; a nil *statStream
// streams nothing. want is set by the caller that allows streaming
// (LoadMonitor: never the followed or out-of-core loads); the reader
// starts it (begin) once it knows the row count.
type statStream struct {
	want  bool
	input string

	f      *os.File     // row order: column k at byte k·stride·4
	n      int          // rows (a CSV tree's: known once merged, setRows)
	stride int          // rows a column has room for in the file
	cols   []model.Stat // the streamed statistics
	mu     sync.Mutex
	number [model.NumStats]bool // some row has a number
	// written is the blocks in the file; after a write fails (a full
	// disk, a file size limit) the blocks go to heap instead, where back
	// puts the written ones too: the load goes on in memory, as
	// SpillStats keeps the columns when it cannot write them
	written []span
	heap    [model.NumStats][]float32
	failed  bool
	// mapped is the rows whose streamed columns sortRows mapped, parked
	// the rows whose steps the sort parked (in the file, or as runs in
	// memory: parkedInRuns) (tests)
	mapped, parked, parkedInRuns int
}

// streamChunk is how many values a column is read back at a time.
const streamChunk = 1 << 18

// begin starts streaming the statistics rows does not lack, for n rows
// (an estimate when stride is larger: the file's columns have room for
// stride rows, its holes take no disk): it reports false (nothing
// streamed) below SpillStatsMinRows rows, when the spill folder lacks
// room for the file (the series-order columns are written over it:
// sortRows), or when a file cannot be made. It marks them lacking in rows.
func (st *statStream) begin(rows *model.Rows, n, stride int) bool {
	if st == nil || !st.want {
		return false
	}
	st.close()
	if n < SpillStatsMinRows || n == 0 {
		return false
	}
	var cols []model.Stat
	for s := model.StatMin; s < model.NumStats; s++ {
		if !rows.Lacks[s] {
			cols = append(cols, s)
		}
	}
	if len(cols) == 0 {
		return false
	}
	dir := SpillDirFor(st.input)
	if dir == "" {
		return false
	}
	page := int64(os.Getpagesize())
	need := int64(len(cols)) * (int64(n)*4 + page) // the series-order columns are written over it
	if free, ok := spillFree(dir); !ok || free < need+SpillHeadroom {
		return false
	}
	f, err := os.CreateTemp(dir, "spikescope-*.rows")
	if err != nil {
		return false
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return false
	}
	// a column's room is whole pages: sortRows writes the series-order
	// columns over the row-order ones, each page aligned
	rows4 := int(spill.PageSize() / 4)
	stride = (max(stride, n) + rows4 - 1) / rows4 * rows4
	st.f, st.n, st.stride, st.cols, st.number = f, n, stride, cols, [model.NumStats]bool{}
	for _, s := range cols {
		rows.Lack(s)
	}
	return true
}

// setRows sets the row count once known (a CSV tree's, after the merge).
func (st *statStream) setRows(n int) {
	if st.active() {
		st.n = n
	}
}

// active reports whether columns are being streamed.
func (st *statStream) active() bool { return st != nil && st.f != nil }

// span is rows off..off+n-1.
type span struct{ off, n int }

// put writes the streamed columns of block, rows off.. of the load; it
// is called from several readers at once (disjoint rows).
func (st *statStream) put(off int, block *model.Rows) {
	if !st.active() {
		return
	}
	k := block.Len()
	st.mu.Lock()
	failed := st.failed
	st.mu.Unlock()
	if !failed && off+k <= st.stride && st.write(off, block) {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.failed = true
	for _, s := range st.cols {
		if h := st.heap[s]; len(h) < off+k {
			st.heap[s] = append(h, make([]float32, off+k-len(h))...)
		}
		copy(st.heap[s][off:off+k], statOf(block, s))
	}
}

// statOf is block's column s, NaN when the block lacks it.
func statOf(block *model.Rows, s model.Stat) []float32 {
	if !block.Lacks[s] {
		return block.Stats[s][:block.Len()]
	}
	v := make([]float32, block.Len())
	for i := range v {
		v[i] = float32(math.NaN())
	}
	return v
}

// write writes block's streamed columns to the file, reporting false when
// a write fails.
func (st *statStream) write(off int, block *model.Rows) bool {
	k := block.Len()
	for c, s := range st.cols {
		v := statOf(block, s)
		if !st.hasNumber(s) {
			for _, x := range v {
				if x == x {
					st.mu.Lock()
					st.number[s] = true
					st.mu.Unlock()
					break
				}
			}
		}
		if _, err := st.f.WriteAt(spill.Bytes(v), (int64(c)*int64(st.stride)+int64(off))*4); err != nil {
			return false
		}
	}
	st.mu.Lock()
	st.written = append(st.written, span{off, k})
	st.mu.Unlock()
	return true
}

func (st *statStream) hasNumber(s model.Stat) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.number[s]
}

// close drops the file (nothing streamed any more).
func (st *statStream) close() {
	if st == nil || st.f == nil {
		return
	}
	st.f.Close()
	st.f, st.cols, st.written, st.heap, st.failed = nil, nil, nil, [model.NumStats][]float32{}, false
}

// back puts the streamed columns into rows' heap again (a step that moves
// or drops rows — duplicates, broken rows — works on heap columns) and
// ends the stream.
func (st *statStream) back(rows *model.Rows) error {
	if !st.active() {
		return nil
	}
	defer st.close()
	for c, s := range st.cols {
		v := st.heap[s]
		if len(v) < st.n {
			v = append(v, make([]float32, st.n-len(v))...)
		}
		v = v[:st.n:st.n]
		for _, w := range st.written {
			if _, err := st.f.ReadAt(spill.Bytes(v[w.off:w.off+w.n]), (int64(c)*int64(st.stride)+int64(w.off))*4); err != nil {
				return fmt.Errorf("spill: reading min, max and mean back: %w", err)
			}
		}
		rows.Stats[s], rows.Lacks[s] = v, false
	}
	return nil
}

// sortRows is rows.SortSeries with the streamed columns put in series
// order too and mapped from a spill file (SpillStats' place), their
// non-finite values counted on the way (model.Rows.Counted). Columns
// without a number in any row stay lacking, as the load's check leaves
// them. When the spill file cannot be made the columns come back into the
// heap first (the results are the same); an error while they are written
// fails the load, as any read error does.
func (st *statStream) sortRows(rows *model.Rows) error {
	if !st.active() {
		rows.SortSeries()
		return nil
	}
	defer st.close()
	if rows.Len() != st.n {
		return errors.New("the rows changed while min, max and mean were streamed")
	}
	// The series-order columns are written over the row-order ones, each
	// where the row-order column it replaces starts (every column is read
	// whole before it is written, and its room is whole pages: begin; rows
	// past the room went to the heap, failed): the writes take no disk the
	// row-order columns did not hold, which is the room begin asked for.
	// Rewriting the file's pages, already in the page cache, costs a
	// fraction of writing a new file's (fresh memory, costly to touch on a
	// VM).
	page := spill.PageSize()
	out, err := spill.Over(st.f)
	if err != nil || st.failed || (int64(st.n)*4+page-1)/page*page > int64(st.stride)*4 {
		if err := st.back(rows); err != nil {
			return err
		}
		rows.SortSeries()
		return nil
	}
	var keep []model.Stat
	var keepAt []int // their index in the row-order file
	for c, s := range st.cols {
		if st.number[s] {
			keep, keepAt = append(keep, s), append(keepAt, c)
		}
	}
	var refs []spill.Ref
	var kept [][]float32 // columns kept in the heap (keep[len(refs):])
	counts := make([][model.NumStats]model.NonFinite, 0)
	put := func(dest, scratch []int32) {
		buf := make([]float32, min(streamChunk, st.n))
		for k, s := range keep {
			base := int64(keepAt[k]) * int64(st.stride) * 4
			for lo := 0; lo < st.n; lo += len(buf) {
				b := buf[:min(len(buf), st.n-lo)]
				// every row was written (else failed): a short read would
				// leave the previous piece's values in buf's tail
				if k, rerr := st.f.ReadAt(spill.Bytes(b), base+int64(lo)*4); k < 4*len(b) {
					if rerr == nil || rerr == io.EOF {
						rerr = io.ErrUnexpectedEOF
					}
					err = fmt.Errorf("spill: reading min, max and mean back: %w", rerr)
					return
				}
				if dest == nil {
					for j, v := range b {
						scratch[lo+j] = int32(math.Float32bits(v))
					}
					continue
				}
				for j, v := range b {
					scratch[dest[lo+j]] = int32(math.Float32bits(v))
				}
			}
			col := unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(scratch))), len(scratch))
			for run := range rows.Runs() {
				for int(run.Metric) >= len(counts) {
					counts = append(counts, [model.NumStats]model.NonFinite{})
				}
				counts[run.Metric][s].AddAll32(col[run.Lo:run.Hi])
			}
			ref, werr := spill.Ref{}, error(nil)
			if len(kept) == 0 {
				if werr = out.StartAt(base); werr == nil {
					ref, werr = out.Float32s(col)
				}
			}
			if werr != nil || len(kept) > 0 {
				// the spill file cannot be written: this column and the
				// next stay in the heap (the results are the same)
				kept = append(kept, append([]float32(nil), col...))
				continue
			}
			refs = append(refs, ref)
		}
	}
	called := false
	park := &stepPark{st: st}
	if perr := rows.SortSeriesParked(func(dest, scratch []int32) {
		called = true
		put(dest, scratch)
	}, park); perr != nil {
		return perr
	}
	if !called { // in series order already: the file's order is theirs
		// the step's array is the scratch here too (parked), else a new one
		if !park.Park(rows.Step) {
			put(nil, make([]int32, st.n))
		} else {
			put(nil, rows.Step)
			for lo := 0; lo < st.n; lo += streamChunk {
				if perr := park.ReadBack(lo, rows.Step[lo:min(st.n, lo+streamChunk)]); perr != nil {
					// the steps are gone: the load fails, and no row is
					// left holding another column's bits (as the sort does)
					*rows = model.Rows{}
					return perr
				}
			}
		}
	}
	if park.n > 0 && park.ends == nil {
		// the steps are read back: their disk goes back now, not when
		// the mapping of the columns written over the file is let go
		punchHole(st.f, park.at(), int64(park.n)*4)
	}
	if err != nil {
		return err
	}
	// the row-order columns not kept (all NaN) are read too: their disk
	// goes back now as well
	for c := range st.cols {
		if !slices.Contains(keepAt, c) {
			punchHole(st.f, int64(c)*int64(st.stride)*4, int64(st.stride)*4)
		}
	}
	if len(keep) == 0 { // every streamed column NaN: they stay lacking
		return nil
	}
	m, err := out.Map()
	if err != nil {
		return err
	}
	c := &model.StatCounts{Rows: st.n, ByMetric: counts}
	for run := range rows.Runs() { // lacking columns count NaN, as CountStats does
		for int(run.Metric) >= len(c.ByMetric) {
			c.ByMetric = append(c.ByMetric, [model.NumStats]model.NonFinite{})
		}
		for s := model.StatMin; s < model.NumStats; s++ {
			if !contains(keep, s) {
				c.ByMetric[run.Metric][s].NaN += run.Hi - run.Lo
			}
		}
	}
	for k, s := range keep {
		if k >= len(refs) {
			rows.Stats[s], rows.Lacks[s] = kept[k-len(refs)], false
			continue
		}
		rows.Stats[s], rows.Lacks[s] = m.Float32s(refs[k]), false
		m.Release(refs[k])
	}
	rows.Mapped = true
	rows.Counted = c
	st.mapped = st.n
	return nil
}

func contains(ss []model.Stat, s model.Stat) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// stepPark parks the step column in the stream's row-order file, after its
// streamed columns, while the series sort uses the step's array as its
// scratch (model.ColumnPark): the load's peak holds no scratch column.
// It parks nothing when the spill folder lacks room for it (the sort then
// allocates its scratch, as without a stream).
//
// A step column in few runs of one value (a trend.db's rows come step by
// step, every target and metric of a rank at each) is held as its runs in
// memory instead — at most 8 bytes a parkRunRows rows, nothing written or
// read back: writing the column was a fifth of the sort's CPU (the file's
// pages are fresh memory, costly to touch on a VM).
type stepPark struct {
	st *statStream
	n  int // rows parked
	// vals[k] is the steps of rows ends[k-1]..ends[k]-1 (a column parked
	// in runs; nil: in the file)
	vals, ends []int32
}

// parkRunRows is how many rows a run must hold on average for the column
// to be parked in runs (0: never; a test parks in the file).
var parkRunRows = 256

// stepRuns is the number of runs of equal values in col, 0 when col is
// empty or has more than len(col)/parkRunRows of them.
func stepRuns(col []int32) int {
	if parkRunRows <= 0 || len(col) == 0 {
		return 0
	}
	most, runs := len(col)/parkRunRows, 1
	for i := 1; i < len(col); i++ {
		if col[i] != col[i-1] {
			if runs++; runs > most {
				return 0
			}
		}
	}
	return runs
}

// parkWriteAt and parkReadAt are the parked column's file writes and reads
// (a test fails them).
var (
	parkWriteAt = (*os.File).WriteAt
	parkReadAt  = (*os.File).ReadAt
)

// at is where the parked column starts in the file.
func (p *stepPark) at() int64 { return int64(len(p.st.cols)) * int64(p.st.stride) * 4 }

func (p *stepPark) Park(col []int32) bool {
	if runs := stepRuns(col); runs > 0 {
		p.vals, p.ends = make([]int32, 0, runs), make([]int32, 0, runs)
		for i, v := range col {
			if i > 0 && v != col[i-1] {
				p.ends = append(p.ends, int32(i))
				p.vals = append(p.vals, col[i-1])
			}
		}
		p.ends, p.vals = append(p.ends, int32(len(col))), append(p.vals, col[len(col)-1])
		p.n, p.st.parked, p.st.parkedInRuns = len(col), len(col), len(col)
		return true
	}
	dir := SpillDirFor(p.st.input)
	if dir == "" {
		return false
	}
	if free, ok := spillFree(dir); !ok || free < int64(len(col))*4+SpillHeadroom {
		return false
	}
	if _, err := parkWriteAt(p.st.f, spill.Bytes(col), p.at()); err != nil {
		return false
	}
	p.n, p.st.parked = len(col), len(col)
	return true
}

func (p *stepPark) ReadBack(off int, buf []int32) error {
	if off+len(buf) > p.n {
		return errors.New("spill: reading the steps back: more rows asked for than parked")
	}
	if p.ends != nil {
		k, _ := slices.BinarySearch(p.ends, int32(off+1)) // the run of row off
		for j := 0; j < len(buf); k++ {
			end := min(int(p.ends[k])-off, len(buf))
			for ; j < end; j++ {
				buf[j] = p.vals[k]
			}
		}
		return nil
	}
	b := spill.Bytes(buf)
	k, err := parkReadAt(p.st.f, b, p.at()+int64(off)*4)
	if k == len(b) {
		return nil
	}
	if err == nil || err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("spill: reading the steps back from %s: %w", filepath.Dir(p.st.f.Name()), err)
}
