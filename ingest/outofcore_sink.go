package ingest

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"syscall"

	"spikescope/model"
	"spikescope/spill"
)

// rowSink takes a reader's rows chunk by chunk instead of one model.Rows:
// it appends them to a spill file, each row's (metric, target, rank) as a
// series id, and counts the rows of every series; build then sorts them
// into series order (outofcore_build.go). Readers call add from several
// goroutines.
type rowSink struct {
	o        OutOfCore
	source   string             // the input, for errors
	progress model.ProgressFunc // the sort's progress (nil: none)

	mu     sync.Mutex
	f      *spill.File
	blocks []sinkBlock
	ids    seriesIDs
	keys   []seriesKey // series id → key
	counts []int       // series id → rows
	rows   int
	// hasMicro: a row of the metric has a micro step other than 0 (the
	// trend.db reader's micro rule, trendScanner.finish)
	hasMicro [maxMetrics]bool
	// latest is dropSupersededRuns' latest run folder per (rank, step,
	// metric), of rows from ranks with several folders
	latest map[rowKey]int16

	// set by the reader before build: what the in-memory path applies to
	// whole rows
	microRule bool // trend.db micro mode: metrics without micro steps get NoMicro
	dedup     bool // trend.db without a unique key: dropDuplicateRows
	runs      bool // CSV tree with resumed runs: dropSupersededRuns

	// the chunk being gathered (put), its buffers reused
	pend             pendingChunk
	sid, step, micro []int32
	norm             []float64
	stats            [model.NumStats][]float32
}

// sinkBlock is one spilled chunk.
type sinkBlock struct {
	order  int64 // the reader's position of the chunk's first row (rows keep this order within a series)
	n      int
	folder int16 // run folder order of a CSV file (dropSupersededRuns), -1 none
	sid    spill.Ref
	step   spill.Ref
	micro  spill.Ref
	norm   spill.Ref
	stats  [model.NumStats]spill.Ref
	lacks  [model.NumStats]bool // not stored: NaN
	// minPos..maxPos are the series positions its rows hold (build's first
	// pass finds them: later buckets skip chunks outside)
	minPos, maxPos int32
	seen, released bool
}

// seriesKey identifies one series.
type seriesKey struct {
	rank, target int32
	metric       uint8
}

// seriesIDs numbers series in the order they are first seen: per rank a
// table [metric] of the rank's targets' id+1, the last rank's kept at hand
// (rows come rank by rank, or file by file of one rank).
type seriesIDs struct {
	byRank   map[int32]*[]idRow
	lastRank int32
	last     *[]idRow
}

// idRow holds id+1 of the series of targets base… of one rank and metric:
// from the rank's lowest target, not from 0, since ranks of a pipeline
// stage or an expert group have targets of their own — tables from 0
// would take ranks × targets entries, hundreds of MB at thousands of
// ranks.
type idRow struct {
	base int32
	ids  []int32
}

// at is the entry of target, the row grown to hold it.
func (r *idRow) at(target int32) *int32 {
	if r.ids == nil {
		r.base = target
	}
	if target < r.base {
		// grown below by at least its length: targets seen in falling
		// order cost amortised time
		extra := max(int64(r.base)-int64(target), int64(len(r.ids)))
		base := max(int64(r.base)-extra, math.MinInt32)
		shift := int(int64(r.base) - base)
		ids := make([]int32, shift+len(r.ids))
		copy(ids[shift:], r.ids)
		r.base, r.ids = int32(base), ids
	}
	i := int(int64(target) - int64(r.base))
	if i >= len(r.ids) {
		r.ids = append(r.ids, make([]int32, i+1-len(r.ids))...)
	}
	return &r.ids[i]
}

func newRowSink(source string, o OutOfCore, p model.ProgressFunc) *rowSink {
	s := &rowSink{o: o, source: source, progress: p, ids: seriesIDs{byRank: map[int32]*[]idRow{}}}
	if o.sinks != nil {
		*o.sinks = append(*o.sinks, s)
	}
	return s
}

// close closes the spill file of rows not yet sorted (build closes it
// itself): a load that stopped early.
func (s *rowSink) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
		s.f = nil
	}
}

// id is the series id of (rank, target, metric), numbered anew if unseen.
func (s *rowSink) id(rank, target int32, metric uint8) int32 {
	x := &s.ids
	if x.last == nil || rank != x.lastRank {
		tab, ok := x.byRank[rank]
		if !ok {
			tab = &[]idRow{}
			x.byRank[rank] = tab
		}
		x.lastRank, x.last = rank, tab
	}
	tab := x.last
	if int(metric) >= len(*tab) {
		*tab = append(*tab, make([]idRow, int(metric)+1-len(*tab))...)
	}
	row := &(*tab)[metric]
	var e *int32
	if i := int64(target) - int64(row.base); row.ids != nil && i >= 0 && i < int64(len(row.ids)) {
		e = &row.ids[i] // a target seen before: the common case, inline
	} else {
		e = row.at(target)
	}
	if v := *e; v != 0 {
		return v - 1
	}
	id := int32(len(s.keys))
	s.keys = append(s.keys, seriesKey{rank, target, metric})
	s.counts = append(s.counts, 0)
	*e = id + 1
	return id
}

// add spills rows (rows marked badRowTarget are left out), their targets
// and metrics renumbered by tmap and mmap (nil: as they are); order is the
// reader's position of the first row, folder the rows' run folder order
// (-1 none). The rows can be reused once it returns.
func (s *rowSink) add(order int64, r *model.Rows, tmap []int32, mmap []uint8, folder int16) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	chunk := s.chunkRows()
	n := r.Len()
	for lo := 0; lo < n; lo += chunk {
		if err := s.put(order+int64(lo), r, lo, min(n, lo+chunk), tmap, mmap, folder); err != nil {
			return err
		}
	}
	return nil
}

// put adds rows lo..hi-1 of r to the chunk being gathered, which is
// spilled once full: rows that follow the chunk's (a reader's next file or
// block) join it, so that many small files do not each take a page of
// disk per column (a CSV tree of 100-row files spilled 294 bytes a row on
// disk, not 32).
func (s *rowSink) put(order int64, r *model.Rows, lo, hi int, tmap []int32, mmap []uint8, folder int16) error {
	chunk := s.chunkRows()
	p := &s.pend
	if len(s.sid) > 0 && (order != p.end || folder != p.folder || r.Lacks != p.lacks || len(s.sid)+hi-lo > chunk) {
		if err := s.flush(); err != nil {
			return err
		}
	}
	if len(s.sid) == 0 {
		*p = pendingChunk{order: order, folder: folder, lacks: r.Lacks}
	}
	p.end = order + int64(hi-lo)
	s.reserve(hi-lo, chunk)
	if folder >= 0 && s.latest == nil {
		s.latest = map[rowKey]int16{}
	}
	for i := lo; i < hi; i++ {
		t := r.Target[i]
		if t == badRowTarget {
			continue
		}
		if tmap != nil {
			t = tmap[t]
		}
		m := r.Metric[i]
		if mmap != nil {
			m = mmap[m]
		}
		id := s.id(r.Rank[i], t, m)
		s.counts[id]++
		s.sid = append(s.sid, id)
		s.step = append(s.step, r.Step[i])
		micro := r.MicroOf(i)
		s.micro = append(s.micro, micro)
		s.norm = append(s.norm, r.Norm[i])
		if micro != 0 {
			s.hasMicro[m] = true
		}
		if folder >= 0 {
			k := rowKey{r.Rank[i], r.Step[i], m}
			if cur, ok := s.latest[k]; !ok || folder > cur {
				s.latest[k] = folder
			}
		}
		for st := model.StatMin; st < model.NumStats; st++ {
			if !r.Lacks[st] {
				s.stats[st] = append(s.stats[st], r.Stats[st][i])
			}
		}
	}
	if len(s.sid) >= chunk {
		return s.flush()
	}
	return nil
}

// chunkRows is the most rows a spilled chunk holds.
func (s *rowSink) chunkRows() int {
	if s.o.ChunkRows > 0 {
		return s.o.ChunkRows
	}
	return defaultChunkRows
}

// pendingChunk is the chunk put gathers: its first row's reader position,
// the position after its last row, and what all its rows share.
type pendingChunk struct {
	order, end int64
	folder     int16
	lacks      [model.NumStats]bool
}

// flush spills the gathered chunk, if any.
func (s *rowSink) flush() error {
	if len(s.sid) == 0 {
		return nil
	}
	if s.f == nil {
		f, err := spill.Create(s.o.Dir)
		if err != nil {
			return s.spillErr(err)
		}
		s.f = f
	}
	b := sinkBlock{order: s.pend.order, n: len(s.sid), folder: s.pend.folder, lacks: s.pend.lacks}
	var err error
	write := func(ref *spill.Ref, w func() (spill.Ref, error)) {
		if err == nil {
			*ref, err = w()
		}
	}
	write(&b.sid, func() (spill.Ref, error) { return s.f.Int32s(s.sid) })
	write(&b.step, func() (spill.Ref, error) { return s.f.Int32s(s.step) })
	write(&b.micro, func() (spill.Ref, error) { return s.f.Int32s(s.micro) })
	write(&b.norm, func() (spill.Ref, error) { return s.f.Float64s(s.norm) })
	for st := model.StatMin; st < model.NumStats; st++ {
		if !b.lacks[st] {
			write(&b.stats[st], func() (spill.Ref, error) { return s.f.Float32s(s.stats[st]) })
		}
	}
	if err != nil {
		return s.spillErr(err)
	}
	s.blocks = append(s.blocks, b)
	s.rows += b.n
	s.clearChunk()
	return nil
}

// reserve makes room for n more rows in the chunk buffers, doubling them
// up to a chunk's rows: append's growth by a quarter would allocate five
// times the buffers on the way to a full chunk.
func (s *rowSink) reserve(n, chunk int) {
	need := len(s.sid) + n
	if need <= cap(s.sid) {
		return
	}
	c := min(max(need, 2*cap(s.sid)), max(chunk, need))
	grow := func(v []int32) []int32 { return slices.Grow(v, c-len(v)) }
	s.sid, s.step, s.micro = grow(s.sid), grow(s.step), grow(s.micro)
	s.norm = slices.Grow(s.norm, c-len(s.norm))
	for st := model.StatMin; st < model.NumStats; st++ {
		s.stats[st] = slices.Grow(s.stats[st], c-len(s.stats[st]))
	}
}

// clearChunk empties the chunk buffers (kept for reuse).
func (s *rowSink) clearChunk() {
	s.sid, s.step, s.micro, s.norm = s.sid[:0], s.step[:0], s.micro[:0], s.norm[:0]
	for st := model.StatMin; st < model.NumStats; st++ {
		s.stats[st] = s.stats[st][:0]
	}
}

// reset forgets every row spilled (the trend.db reader reads again).
func (s *rowSink) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f != nil {
		s.f.Close()
	}
	s.f, s.blocks, s.keys, s.counts, s.rows = nil, nil, nil, nil, 0
	s.clearChunk()
	s.ids = seriesIDs{byRank: map[int32]*[]idRow{}}
	s.hasMicro, s.latest = [maxMetrics]bool{}, nil
}

// len is the rows taken so far (spilled, or in the chunk being gathered).
func (s *rowSink) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rows + len(s.sid)
}

// spillErr words a spill failure (a full disk, say) for the input's line.
func (s *rowSink) spillErr(err error) error {
	dir := s.o.Dir
	if dir == "" {
		dir = spill.Dir()
	}
	return inputErr(s.source, err, "reading it through a temporary file in %s failed: %s", dir, spillCause(err))
}

// spillCause is what went wrong in a spill, for the user: the system's
// word ("no space left on device"), not the temporary file's name.
func spillCause(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return strings.TrimPrefix(err.Error(), "spill: ")
}

// sortedBlocks puts the chunks in the reader's row order (readers spill
// from several goroutines).
func (s *rowSink) sortBlocks() {
	slices.SortFunc(s.blocks, func(a, b sinkBlock) int {
		switch {
		case a.order < b.order:
			return -1
		case a.order > b.order:
			return 1
		}
		return 0
	})
}

// String is for test failures.
func (b sinkBlock) String() string { return fmt.Sprintf("block@%d×%d", b.order, b.n) }
