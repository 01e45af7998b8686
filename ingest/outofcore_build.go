package ingest

import (
	"cmp"
	"context"
	"math"
	"slices"

	"spikescope/model"
	"spikescope/spill"
)

// sinkBuilt is what build dropped, for the readers' warnings.
type sinkBuilt struct {
	dropped  map[int32]int            // rows of superseded runs, per rank (runs)
	dups     int                      // repeated rows left out (dedup)
	firstDup model.TrendDuplicateRows // the first repeat in row order
}

// outColumn is one result column, written bucket by bucket to a spill file
// of its own (a spill column grows only while it is its file's last).
type outColumn struct {
	f   *spill.File
	ref spill.Ref
	n   int // elements written
}

func (c *outColumn) write(b []byte, n int, first func() (spill.Ref, error)) error {
	if n == 0 {
		return nil
	}
	var err error
	if c.n == 0 {
		c.ref, err = first()
	} else {
		c.ref, err = c.f.Append(c.ref, b)
	}
	c.n += n
	return err
}

// build sorts the spilled rows into series order and gives d the rows: an
// external distribution sort. The series, in series order (metric, target,
// rank), are cut into buckets of at most the bucket's rows (a series is
// never cut); for each bucket every chunk is read back in the reader's row
// order and the bucket's rows are counted into place (stable: the reader's
// order within a series, what SortSeries keeps), the rules the in-memory
// path applies to whole rows are applied series by series (micro rule,
// superseded runs, duplicates), and the bucket's columns are appended to
// the result files. d.Rows then holds views of the mapped result and the
// series table.
func (s *rowSink) build(ctx context.Context, d *model.MonitorData) (sinkBuilt, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out sinkBuilt
	if s.dedup || s.runs {
		out.dropped = map[int32]int{}
	}
	lacks := d.Rows.Lacks
	if err := s.flush(); err != nil {
		return out, err
	}
	if s.f == nil { // no row
		d.Rows = model.Rows{Lacks: lacks}
		return out, nil
	}
	defer func() {
		s.f.Close()
		s.f = nil
	}()
	in, err := s.f.Map()
	if err != nil {
		return out, s.spillErr(err)
	}
	// the chunks are copied into the buckets: once sorted, their mapping
	// would hold the file's disk (32 bytes a row) until the process exits
	defer in.Unmap()
	s.sortBlocks()

	// series order: pos[id] is series id's place in it
	bySeries := make([]int32, len(s.keys))
	for i := range bySeries {
		bySeries[i] = int32(i)
	}
	slices.SortFunc(bySeries, func(a, b int32) int {
		x, y := s.keys[a], s.keys[b]
		return cmp.Or(cmp.Compare(x.metric, y.metric), cmp.Compare(x.target, y.target), cmp.Compare(x.rank, y.rank))
	})
	pos := make([]int32, len(s.keys))
	for p, id := range bySeries {
		pos[id] = int32(p)
	}

	// the statistics stored: those the input has (the rest read NaN)
	var store [model.NumStats]bool
	for st := model.StatMin; st < model.NumStats; st++ {
		store[st] = d.HasStat[st]
	}
	fits := s.bucketFits(store)

	var cols [2 + model.NumStats]outColumn // step, micro, norm, min, max, mean
	for i := range cols {
		if i-2 >= int(model.StatMin) && !store[i-2] {
			continue
		}
		if cols[i].f, err = spill.Create(s.o.Dir); err != nil {
			return out, s.spillErr(err)
		}
		defer cols[i].f.Close()
	}
	var table []model.Series
	written, placed := 0, 0
	s.report(0)
	// the summary's non-finite counts, taken while each bucket is in the
	// heap (Rows.Counted): read later, they would page every statistic in
	counts := &model.StatCounts{}
	firstDupOrder := int64(math.MaxInt64)
	var bk bucketRows
	for lo := 0; lo < len(bySeries); {
		hi, n := lo, 0
		for hi < len(bySeries) && (hi == lo || fits(n+s.counts[bySeries[hi]], hi+1-lo)) {
			n += s.counts[bySeries[hi]]
			hi++
		}
		bk.reset(n, store, s.dedup, s.runs)
		// next[p-lo]: where series p's next row goes in the bucket
		next := make([]int, hi-lo+1)
		for p := lo; p < hi; p++ {
			next[p-lo+1] = next[p-lo] + s.counts[bySeries[p]]
		}
		starts := slices.Clone(next)
		for i := range s.blocks {
			if i%1024 == 0 && ctx.Err() != nil {
				return out, ctx.Err()
			}
			b := &s.blocks[i]
			if b.seen && (b.maxPos < int32(lo) || b.minPos >= int32(hi)) {
				continue // none of its series in the bucket
			}
			bk.take(in, b, pos, lo, hi, next)
		}
		// pages of chunks no later bucket needs leave memory; when the
		// chunks are larger than the heap budget, all pages (a later
		// bucket reads them from the file, or the page cache, again)
		if s.o.HeapBytes > 0 && s.f.Size() > s.o.HeapBytes {
			in.Release(spill.Ref{Len: int(s.f.Size()), Size: 1})
		} else {
			for i := range s.blocks {
				if b := &s.blocks[i]; !b.released && b.seen && b.maxPos < int32(hi) {
					b.release(in)
				}
			}
		}
		// the whole-row rules, series by series, compacting the bucket
		w := 0
		seen := map[[2]int32]struct{}{}
		for p := lo; p < hi; p++ {
			key := s.keys[bySeries[p]]
			begin, end := starts[p-lo], starts[p-lo+1]
			if s.microRule && !s.hasMicro[key.metric] {
				for i := begin; i < end; i++ {
					bk.micro[i] = model.NoMicro
				}
			}
			clear(seen)
			start := w
			for i := begin; i < end; i++ {
				if s.runs {
					if o := bk.folder[i]; o >= 0 && o < s.latest[rowKey{key.rank, bk.step[i], key.metric}] {
						out.dropped[key.rank]++
						continue
					}
				}
				if s.dedup {
					k := [2]int32{bk.step[i], bk.micro[i]}
					if _, dup := seen[k]; dup {
						out.dups++
						if o := bk.order[i]; o < firstDupOrder {
							firstDupOrder = o
							out.firstDup = model.TrendDuplicateRows{Rank: int64(key.rank), Step: int64(bk.step[i]), Target: d.Targets[key.target].Name, Metric: d.Metrics[key.metric]}
						}
						continue
					}
					seen[k] = struct{}{}
				}
				bk.move(w, i)
				w++
			}
			if w > start {
				table = append(table, model.Series{Start: written + start, Rank: key.rank, Target: key.target, Metric: key.metric})
				bk.count(counts, key.metric, start, w)
			}
		}
		if err := bk.writeTo(&cols, w); err != nil {
			return out, s.spillErr(err)
		}
		written += w
		placed += n
		s.report(placed)
		lo = hi
	}
	s.blocks = nil

	rows := model.Rows{Lacks: lacks, Table: table, Mapped: true}
	maps := [len(cols)]*spill.Mapping{}
	for i := range cols {
		if cols[i].f == nil {
			continue
		}
		if maps[i], err = cols[i].f.Map(); err != nil {
			return out, s.spillErr(err)
		}
	}
	rows.Step, rows.Norm = maps[0].Int32s(cols[0].ref), maps[2].Float64s(cols[2].ref)
	rows.SetMicroColumn(maps[1].Int32s(cols[1].ref))
	for st := model.StatMin; st < model.NumStats; st++ {
		if store[st] {
			rows.Stats[st], rows.Lacks[st] = maps[2+st].Float32s(cols[2+st].ref), false
		} else {
			rows.Stats[st], rows.Lacks[st] = nil, true
		}
	}
	if written == 0 {
		rows.Table = nil
	}
	counts.Rows = written
	rows.Counted = counts
	d.Rows = rows
	return out, nil
}

// bucketCursorBytes is the heap a bucket's series take beside its rows:
// the cursor and the start of each (next, starts).
const bucketCursorBytes = 16

// bucketFits is whether a bucket of rows rows in series series stays in
// the bucket's heap: BucketRows rows when set, else HeapBytes counted as
// bucketRows holds them (step, micro step and norm, each statistic
// stored, the input position for the duplicate rule, the run folder for
// superseded runs) and the series' cursors — series of a row or two took
// a third more than OutOfCoreBucketBytesPerRow alone allowed.
func (s *rowSink) bucketFits(store [model.NumStats]bool) func(rows, series int) bool {
	row := int64(4 + 4 + 8)
	for st := model.StatMin; st < model.NumStats; st++ {
		if store[st] {
			row += 4
		}
	}
	if s.dedup {
		row += 8
	}
	if s.runs {
		row += 2
	}
	return func(rows, series int) bool {
		switch {
		case s.o.BucketRows > 0:
			return rows <= s.o.BucketRows
		case s.o.HeapBytes > 0:
			// at most HeapBytes/OutOfCoreBucketBytesPerRow rows either way:
			// its slack is the collector's room
			return int64(rows)*OutOfCoreBucketBytesPerRow <= s.o.HeapBytes &&
				int64(rows)*row+int64(series+1)*bucketCursorBytes <= s.o.HeapBytes
		}
		return true
	}
}

// bucketRows holds one bucket's rows while they are sorted (reused).
type bucketRows struct {
	step, micro []int32
	norm        []float64
	stats       [model.NumStats][]float32
	store       [model.NumStats]bool
	order       []int64 // the reader's position (dedup's first repeat)
	folder      []int16 // run folder order (runs)
}

func (b *bucketRows) reset(n int, store [model.NumStats]bool, order, folder bool) {
	size := func(v []int32) []int32 { return slices.Grow(v[:0], n)[:n] }
	b.step, b.micro = size(b.step), size(b.micro)
	b.norm = slices.Grow(b.norm[:0], n)[:n]
	b.store = store
	for st := model.StatMin; st < model.NumStats; st++ {
		if store[st] {
			b.stats[st] = slices.Grow(b.stats[st][:0], n)[:n]
		}
	}
	if order {
		b.order = slices.Grow(b.order[:0], n)[:n]
	}
	if folder {
		b.folder = slices.Grow(b.folder[:0], n)[:n]
	}
}

// take counts the rows of chunk c whose series lie in lo..hi-1 into place.
func (b *bucketRows) take(in *spill.Mapping, c *sinkBlock, pos []int32, lo, hi int, next []int) {
	sids := in.Int32s(c.sid)
	step, micro, norm := in.Int32s(c.step), in.Int32s(c.micro), in.Float64s(c.norm)
	var stats [model.NumStats][]float32
	for st := model.StatMin; st < model.NumStats; st++ {
		if !c.lacks[st] {
			stats[st] = in.Float32s(c.stats[st])
		}
	}
	nan := float32(math.NaN())
	if !c.seen { // the first pass: the range of series the chunk holds
		c.minPos, c.maxPos, c.seen = math.MaxInt32, -1, true
		for _, id := range sids {
			c.minPos, c.maxPos = min(c.minPos, pos[id]), max(c.maxPos, pos[id])
		}
	}
	for j, id := range sids {
		p := int(pos[id])
		if p < lo || p >= hi {
			continue
		}
		k := next[p-lo]
		next[p-lo]++
		b.step[k], b.micro[k], b.norm[k] = step[j], micro[j], norm[j]
		for st := model.StatMin; st < model.NumStats; st++ {
			if !b.store[st] {
				continue
			}
			if c.lacks[st] {
				b.stats[st][k] = nan
			} else {
				b.stats[st][k] = stats[st][j]
			}
		}
		if b.order != nil {
			b.order[k] = c.order + int64(j)
		}
		if b.folder != nil {
			b.folder[k] = c.folder
		}
	}
}

// count adds the non-finite min, max and mean of rows lo..hi-1 (of one
// series of metric) to c, as Rows.CountStats counts them.
func (b *bucketRows) count(c *model.StatCounts, metric uint8, lo, hi int) {
	for int(metric) >= len(c.ByMetric) {
		c.ByMetric = append(c.ByMetric, [model.NumStats]model.NonFinite{})
	}
	m := &c.ByMetric[metric]
	for st := model.StatMin; st < model.NumStats; st++ {
		if !b.store[st] {
			m[st].NaN += hi - lo
			continue
		}
		m[st].AddAll32(b.stats[st][lo:hi])
	}
}

// report tells the sort's progress: done of the rows placed.
func (s *rowSink) report(done int) {
	if s.progress != nil {
		s.progress(model.Progress{Done: int64(done), Total: int64(s.rows), Unit: "rows", Stage: model.StageSorting})
	}
}

// move copies row src over row dst (dst ≤ src: compaction).
func (b *bucketRows) move(dst, src int) {
	if dst == src {
		return
	}
	b.step[dst], b.micro[dst], b.norm[dst] = b.step[src], b.micro[src], b.norm[src]
	for st := model.StatMin; st < model.NumStats; st++ {
		if b.store[st] {
			b.stats[st][dst] = b.stats[st][src]
		}
	}
}

// writeTo appends the bucket's first n rows to the result columns.
func (b *bucketRows) writeTo(cols *[2 + model.NumStats]outColumn, n int) error {
	step, micro, norm := b.step[:n], b.micro[:n], b.norm[:n]
	if err := cols[0].write(spill.Bytes(step), n, func() (spill.Ref, error) { return cols[0].f.Int32s(step) }); err != nil {
		return err
	}
	if err := cols[1].write(spill.Bytes(micro), n, func() (spill.Ref, error) { return cols[1].f.Int32s(micro) }); err != nil {
		return err
	}
	if err := cols[2].write(spill.Bytes(norm), n, func() (spill.Ref, error) { return cols[2].f.Float64s(norm) }); err != nil {
		return err
	}
	for st := model.StatMin; st < model.NumStats; st++ {
		if !b.store[st] {
			continue
		}
		v := b.stats[st][:n]
		c := &cols[2+st]
		if err := c.write(spill.Bytes(v), n, func() (spill.Ref, error) { return c.f.Float32s(v) }); err != nil {
			return err
		}
	}
	return nil
}

// release drops the chunk's pages from memory.
func (c *sinkBlock) release(in *spill.Mapping) {
	in.Release(c.sid)
	in.Release(c.step)
	in.Release(c.micro)
	in.Release(c.norm)
	for st := model.StatMin; st < model.NumStats; st++ {
		if !c.lacks[st] {
			in.Release(c.stats[st])
		}
	}
	c.released = true
}
