package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"spikescope/model"
)

// scanCheckEvery is how many rows a reader goroutine reads between checks of
// cancellation and progress updates.
const scanCheckEvery = 8192

// denseLookupSlack bounds the size of a slice lookup table for ids: ids up
// to this many times the count (plus a constant) use a slice, others a map.
const denseLookupSlack = 4

// trendScanner converts typed column values (rawStmt) into the columnar rows. Lookups
// are read-only during the scan; ids missing from monitoring_targets or
// monitoring_metrics get placeholder entries under mu.
type trendScanner struct {
	r *trendReader

	targetSlice []int32 // target_id → index+1 (0 = unknown), when dense
	microSlice  []int32
	metricSlice []int16 // metric_id → index+1

	mu            sync.Mutex
	extraTargets  map[int64]int32
	extraMetrics  map[int64]int
	unknownTarget int64 // rows with an unknown target_id
	unknownMetric int64
	textVals      int64                      // text cells read as numbers
	badCells      [model.NumStats]badCellLog // cells that are not numbers
	badCellRows   int64                      // rows dropped for a norm that is not a number
	badRows       int64                      // rows skipped for a broken key (see badKey)
	firstBad      int                        // the earliest of them, as a row index
	firstBadErr   error

	// blockLacks is what a claimed block stores (the rows' lacks before
	// min, max and mean were streamed: a block keeps them for the stream)
	blockLacks [model.NumStats]bool
}

// badRowTarget marks a row skipped for a broken key until compactRows
// drops it.
const badRowTarget = -1

// badKey records a row whose key column could not be read (text, a blob,
// or a value out of range). One such row is skipped with a warning instead
// of failing the whole database: the other rows are analysed.
func (s *trendScanner) badKey(row int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.badRows++
	if s.firstBadErr == nil || row < s.firstBad {
		s.firstBad, s.firstBadErr = row, err
	}
}

func newTrendScanner(r *trendReader) *trendScanner {
	s := &trendScanner{r: r, extraTargets: map[int64]int32{}, extraMetrics: map[int64]int{}}
	if maxID, ok := denseMax(r.targetOf); ok {
		s.targetSlice = make([]int32, maxID+1)
		s.microSlice = make([]int32, maxID+1)
		for id, idx := range r.targetOf {
			s.targetSlice[id] = idx + 1
			s.microSlice[id] = r.microOf[id]
		}
	}
	if maxID, ok := denseMax(r.metricOf); ok {
		s.metricSlice = make([]int16, maxID+1)
		for id, idx := range r.metricOf {
			s.metricSlice[id] = int16(idx + 1)
		}
	}
	return s
}

// denseMax returns the largest id when all ids are ≥ 0 and few enough gaps
// exist for a slice lookup.
func denseMax[V any](m map[int64]V) (int64, bool) {
	var maxID int64 = -1
	for id := range m {
		if id < 0 {
			return 0, false
		}
		maxID = max(maxID, id)
	}
	return maxID, maxID < int64(denseLookupSlack*len(m)+1024)
}

// target maps a target_id to (index, micro step).
func (s *trendScanner) target(id int64) (int32, int32) {
	if id >= 0 && id < int64(len(s.targetSlice)) {
		if v := s.targetSlice[id]; v != 0 {
			return v - 1, s.microSlice[id]
		}
	} else if s.targetSlice == nil {
		if idx, ok := s.r.targetOf[id]; ok {
			return idx, s.r.microOf[id]
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unknownTarget++
	idx, ok := s.extraTargets[id]
	if !ok {
		idx = int32(len(s.r.d.Targets))
		s.extraTargets[id] = idx
		s.r.d.Targets = append(s.r.d.Targets, model.Target{Name: fmt.Sprintf("target_id %d", id)})
	}
	return idx, 0
}

// metric maps a metric_id to its index.
func (s *trendScanner) metric(id int64) (uint8, error) {
	if id >= 0 && id < int64(len(s.metricSlice)) {
		if v := s.metricSlice[id]; v != 0 {
			return uint8(v - 1), nil
		}
	} else if s.metricSlice == nil {
		if idx, ok := s.r.metricOf[id]; ok {
			return uint8(idx), nil
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unknownMetric++
	idx, ok := s.extraMetrics[id]
	if !ok {
		if len(s.r.d.Metrics) >= maxMetrics {
			return 0, inputErr(s.r.path, nil, "more than %d distinct metric ids in the data", maxMetrics)
		}
		idx = len(s.r.d.Metrics)
		s.extraMetrics[id] = idx
		s.r.d.Metrics = append(s.r.d.Metrics, fmt.Sprintf("metric_id %d", id))
	}
	return uint8(idx), nil
}

// errChangedWhileReading: the row count of a range differs from its
// COUNT(*). Every connection of a load reads one state (trenddb_snap.go),
// so only a read without SQLite's locking (immutable: no writer was
// thought possible) can see it.
var errChangedWhileReading = errors.New("the database changed while it was read without SQLite's locking (opened immutable: no writer seemed possible); run again")

// readChunk reads one key range on its own raw connection (see rawConn):
// its pages when the load reads them (r.pages), else by SQL.
func (s *trendScanner) readChunk(ctx context.Context, c *trendChunk, meter *progressMeter) error {
	if l := s.r.pages; l != nil {
		err := s.r.withChunkPages(l, c, func(w *pageWalker) error { return s.scanRows(ctx, w, c, meter) })
		if errors.Is(err, errChangedWhileReading) {
			err = errNotClean // not the rows SQLite counted: read by SQL
		}
		return err
	}
	return s.withChunkStmt(c, func(st *rawStmt) error { return s.scanRows(ctx, st, c, meter) })
}

// withChunkStmt runs fn on c's query, prepared on a raw connection at the
// load's state (the key ranges are read in parallel, one per connection).
func (s *trendScanner) withChunkStmt(c *trendChunk, fn func(*rawStmt) error) error {
	conn, err := s.r.snap.get()
	if err != nil {
		return err
	}
	defer s.r.snap.put(conn)
	st, err := conn.prepare(c.query, c.args)
	if err != nil {
		return err
	}
	defer st.close()
	return fn(st)
}

// scanRows converts the rows of one chunk into d.Rows[c.off : c.off+c.count].
func (s *trendScanner) scanRows(ctx context.Context, rs trendRows, c *trendChunk, meter *progressMeter) error {
	rows, dst := &s.r.d.Rows, &s.r.d.Rows
	// out of core, the rows go to the sink in blocks: row i is at i-base
	// of the block; with min, max and mean streamed (statStream), blocks
	// are placed in d.Rows and their min, max and mean go to the stream
	base, size := 0, math.MaxInt
	var block model.Rows
	stream := s.r.stream
	if s.r.sink != nil || stream.active() {
		block.Lacks = s.blockLacks
		block.Resize(claimBlock)
		if !s.r.d.HasStat[model.StatNorm] { // as readChunks fills d.Rows
			for i := range block.Norm {
				block.Norm[i] = math.NaN()
			}
		}
		rows, base, size = &block, c.off, claimBlock
	}
	flush := func(upto int) error {
		if rows == dst || upto == base {
			return nil
		}
		v := block
		v.Truncate(upto - base)
		if s.r.sink == nil {
			dst.Place(base, &v)
			stream.put(base, &v)
			return nil
		}
		return s.r.sink.add(int64(base), &v, nil, nil, -1)
	}
	nKey := 4
	if c.metric >= 0 {
		nKey = 3
	}
	// stats this chunk lacks but others have read as NaN
	var absent []model.Stat
	for st := model.Stat(0); st < model.NumStats; st++ {
		if s.r.d.HasStat[st] && !slicesContains(c.stats, st) {
			absent = append(absent, st)
		}
	}
	nan := math.NaN()
	i, end := c.off, c.off+c.count
	var text int64
	var bad [model.NumStats]badCellLog
	microMode := s.r.microMode
	pending := 0
	for {
		ok, err := rs.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if i >= end {
			return errChangedWhileReading
		}
		if i-base == size {
			if err := flush(i); err != nil {
				return err
			}
			base = i
		}
		li := i - base
		rank, err := s.keyInt32(rs, 0, "rank", i)
		var step int32
		var tid, mid int64
		if err == nil {
			step, err = s.keyInt32(rs, 1, "step", i)
		}
		if err == nil {
			tid, err = s.keyInt(rs, 2, "target_id", i)
		}
		if err == nil && c.metric < 0 {
			mid, err = s.keyInt(rs, 3, "metric_id", i)
		}
		if err != nil {
			s.badKey(i, err)
			rows.Target[li] = badRowTarget
			i++
			continue
		}
		var mi uint8
		if c.metric >= 0 {
			mi = uint8(c.metric)
		} else if mi, err = s.metric(mid); err != nil {
			return err
		}
		ti, micro := s.target(tid)
		rows.Rank[li] = rank
		rows.Step[li] = step
		rows.Target[li] = ti
		rows.Metric[li] = mi
		if microMode {
			rows.SetMicro(li, micro)
		}
		dropped := false
		for k, st := range c.stats {
			v, kind := rs.colStat(nKey + k)
			switch kind {
			case cellNumText:
				text++
			case cellBad:
				bad[st].add(i, rank, step, tid)
				// a norm that is not a number is no measurement: the row
				// is dropped (it would read as a non-finite gradient)
				dropped = dropped || st == model.StatNorm
			}
			rows.SetValue(st, li, v)
		}
		if dropped {
			rows.Target[li] = badRowTarget
		}
		for _, st := range absent {
			rows.SetValue(st, li, nan)
		}
		i++
		if pending++; pending == scanCheckEvery {
			meter.add(int64(pending))
			pending = 0
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	meter.add(int64(pending))
	if i != end {
		return errChangedWhileReading
	}
	if err := flush(i); err != nil {
		return err
	}
	if text > 0 || bad != [model.NumStats]badCellLog{} {
		s.mu.Lock()
		s.textVals += text
		for st := range bad {
			s.badCells[st].merge(&bad[st])
		}
		s.badCellRows += bad[model.StatNorm].n
		s.mu.Unlock()
	}
	return nil
}

// keyInt reads an integer key column; integral REAL values are accepted.
func (s *trendScanner) keyInt(rs trendRows, col int, name string, row int) (int64, error) {
	v, ok, what := rs.colInt(col)
	if ok {
		return v, nil
	}
	return 0, inputErr(s.r.path, nil, "trend data row %d: column %s holds %s, expected an integer", row+1, name, what)
}

// keyInt32 is keyInt for columns stored as int32 (rank, step).
func (s *trendScanner) keyInt32(rs trendRows, col int, name string, row int) (int32, error) {
	x, err := s.keyInt(rs, col, name, row)
	if err != nil {
		return 0, err
	}
	if x < math.MinInt32 || x > math.MaxInt32 {
		return 0, inputErr(s.r.path, nil, "trend data row %d: %s %d is out of range", row+1, name, x)
	}
	if x < 0 { // rank and step count from 0
		return 0, inputErr(s.r.path, nil, "trend data row %d: %s %d is negative", row+1, name, x)
	}
	return int32(x), nil
}

// finish applies the per-metric micro rule and records warnings.
func (s *trendScanner) finish() {
	d := s.r.d
	if s.badRows > 0 || s.badCellRows > 0 {
		compactRows(&d.Rows)
	}
	if s.r.microMode {
		// A metric whose rows never have a micro step other than 0 was
		// written without a micro_step column (grad_reduced): NoMicro.
		var hasMicro [maxMetrics]bool
		for run := range d.Rows.Runs() {
			for _, m := range d.Rows.Micros(run.Lo, run.Hi) {
				if m != 0 {
					hasMicro[run.Metric] = true
					break
				}
			}
		}
		for run := range d.Rows.Runs() {
			if !hasMicro[run.Metric] {
				for i := run.Lo; i < run.Hi; i++ {
					d.Rows.SetMicro(i, model.NoMicro)
				}
			}
		}
		d.Rows.DropConstantMicro() // no metric has micro steps
	}
	if s.unknownTarget > 0 {
		list, more := idList(s.extraTargets)
		d.WarningsReasons = append(d.WarningsReasons, model.TrendUnknownIDs{Rows: s.unknownTarget, IDs: list, More: more})
	}
	if s.unknownMetric > 0 {
		list, more := idList(s.extraMetrics)
		d.WarningsReasons = append(d.WarningsReasons, model.TrendUnknownIDs{Metric: true, Rows: s.unknownMetric, IDs: list, More: more})
	}
	if s.badRows > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.TrendBadKeyRows{Rows: s.badRows, Problem: problemOf(s.firstBadErr)})
	}
	for st := range s.badCells {
		if b := &s.badCells[st]; b.n > 0 {
			d.WarningsReasons = append(d.WarningsReasons, b.warning(model.Stat(st), s.targetName))
		}
	}
	if s.textVals > 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.TrendTextNumbers{Cells: s.textVals})
	}
}

// idList prints up to a few ids of a map in ascending order.
func idList[V any](m map[int64]V) ([]int64, bool) {
	ids := sortedKeys(m)
	const maxShown = 5
	if len(ids) > maxShown {
		return ids[:maxShown], true
	}
	return ids, false
}

// parallelEach runs fn(0..n-1) on up to workers goroutines, in index order
// of start, and returns the first error; after an error or cancellation no
// new index starts.
func parallelEach(ctx context.Context, n, workers int, fn func(i int) error) error {
	if workers < 1 {
		workers = 1
	}
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	take := func() (int, bool) {
		mu.Lock()
		defer mu.Unlock()
		if first != nil || next >= n {
			return 0, false
		}
		if err := ctx.Err(); err != nil {
			first = err
			return 0, false
		}
		i := next
		next++
		return i, true
	}
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if first == nil {
			first = err
		}
	}
	for w := 0; w < min(workers, n); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := take()
				if !ok {
					return
				}
				if err := fn(i); err != nil {
					fail(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func slicesContains(v []model.Stat, x model.Stat) bool {
	for _, y := range v {
		if y == x {
			return true
		}
	}
	return false
}

// compactRows drops the rows marked badRowTarget, keeping the order.
func compactRows(r *model.Rows) {
	n := 0
	for i := range r.Target {
		if r.Target[i] == badRowTarget {
			continue
		}
		r.Move(n, i)
		n++
	}
	r.Truncate(n)
}

// problemOf is an InputError's problem without its path (the warning is
// about the database the output already names).
func problemOf(err error) string {
	var ie *InputError
	if errors.As(err, &ie) {
		return ie.Problem
	}
	return err.Error()
}
