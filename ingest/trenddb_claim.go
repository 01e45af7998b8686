package ingest

import (
	"context"
	"errors"
	"math"
	"runtime/debug"
	"sync/atomic"

	"spikescope/model"
)

// claimBlock is how many rows a scan of a rank range collects before it
// claims their place in the result.
const claimBlock = 8192

// countedOnly makes every read count its ranges first (tests compare the
// two reads).
var countedOnly bool

// errNotClean stops a claimed read: a row needs the counted read (a key or
// cell that is no number, more rows than counted, a row outside the ranges)
// whose messages name row numbers.
var errNotClean = errors.New("needs the counted read")

// readClaimed reads rank ranges without counting them first: each range's
// scan claims blocks of the preallocated rows as it goes (an atomic
// cursor), so ranges land in the order they finish. Every series lies in
// one rank range and its rows keep their scan order, so LoadMonitor's
// stable series sort gives what the counted read gives. It reports false,
// with the rows and any placeholder targets undone, when the data needs
// the counted read (errNotClean).
func (r *trendReader) readClaimed(ctx context.Context, chunks []*trendChunk, total int, p model.ProgressFunc) (bool, error) {
	d := r.d
	nT, nM := len(d.Targets), len(d.Metrics)
	for _, c := range chunks {
		for _, s := range c.stats {
			d.HasStat[s] = true
		}
	}
	rows := &d.Rows
	for s := model.StatMin; s < model.NumStats; s++ {
		if !d.HasStat[s] {
			rows.Lack(s)
		}
	}
	sc := newTrendScanner(r)
	sc.blockLacks = rows.Lacks
	if r.sink == nil {
		r.stream.begin(rows, total, total) // min, max and mean to a file as read
		if r.stream != nil && r.stream.want && r.ranks.hi-r.ranks.lo < math.MaxInt32 {
			// a load sorted into series order afterwards (LoadMonitor):
			// each row holds its series key, not rank, target and metric
			// (a row outside the space needs the counted read)
			rows.KeyBy(model.KeySpace{MinRank: int32(r.ranks.lo), Ranks: int(r.ranks.hi - r.ranks.lo + 1), Targets: nT, Metrics: nM}, total)
		}
		rows.Resize(total)
		if r.microMode {
			rows.MakeMicro() // placed from several goroutines
		}
	}
	meter := newProgressMeter(p, r.path, "rows", int64(total))
	meter.add(0)
	var cursor atomic.Int64
	err := parallelEach(ctx, len(chunks), r.workers, func(i int) error {
		return sc.readClaimedChunk(ctx, chunks[i], &cursor, total, meter)
	})
	if err == nil && cursor.Load() != int64(total) {
		err = errNotClean // rows outside the integer ranges (keys stored as text)
	}
	if errors.Is(err, errNotClean) {
		r.stream.close()
		d.Rows = model.Rows{}
		if r.sink != nil {
			r.sink.reset()
		}
		d.Targets, d.Metrics = d.Targets[:nT], d.Metrics[:nM]
		return false, nil
	}
	if err != nil {
		r.stream.close()
		return false, err
	}
	meter.finish()
	if sc.badRows > 0 || sc.badCellRows > 0 {
		// rows are dropped (compactRows): on heap columns
		if err := r.stream.back(rows); err != nil {
			return false, err
		}
	}
	sc.finish()
	return true, nil
}

// trendRows is where scanClaimed reads a rank range's rows from: SQLite's
// scan (rawStmt) or the walk of trend_data's pages (pageWalker). Columns
// are those of the chunk's query: rank, step, target_id, metric_id, then
// its statistics.
type trendRows interface {
	next() (bool, error)
	colInt(i int) (v int64, ok bool, what string)
	colStat(i int) (v float64, kind int)
}

// readClaimedChunk scans one rank range on its own raw connection: its
// pages when the load reads them (r.pages), else by SQL.
func (s *trendScanner) readClaimedChunk(ctx context.Context, c *trendChunk, cursor *atomic.Int64, total int, meter *progressMeter) error {
	if l := s.r.pages; l != nil {
		return s.r.withChunkPages(l, c, func(w *pageWalker) error { return s.scanClaimed(ctx, w, c, cursor, total, meter) })
	}
	return s.withChunkStmt(c, func(st *rawStmt) error { return s.scanClaimed(ctx, st, c, cursor, total, meter) })
}

// withChunkPages runs fn on a walk of c's rank range at the load's state
// (withPages: from the file, or on a raw connection).
func (r *trendReader) withChunkPages(l *trendPages, c *trendChunk, fn func(*pageWalker) error) error {
	if !c.keys {
		return errNotClean
	}
	return r.withPages(l, func(w *pageWalker) error {
		if err := w.start(c.lo, c.hi); err != nil {
			return err
		}
		return fn(w)
	})
}

// withPages runs fn on a page walker at the load's state (not started):
// from the file, or on a raw connection.
func (r *trendReader) withPages(l *trendPages, fn func(*pageWalker) error) (err error) {
	if l.file != nil {
		// from the file: no connection (the load's hold its locks)
		f := newFileFetcher(l.file)
		defer f.close()
		return fn(newPageWalker(l, f.page))
	}
	conn, err := r.snap.get()
	if err != nil {
		return err
	}
	faulted := false
	defer func() {
		if !faulted { // a connection whose read faulted is not used again
			r.snap.put(conn)
		}
	}()
	f, err := newPageFetcher(conn, l.pageSize)
	if err != nil {
		return errNotClean
	}
	defer f.close()
	if r.snap.locked {
		// mapped (mapFile): SQLite's locks keep the file from shrinking
		// while it is read, but a process that ignores them can truncate
		// it, and a mapped page past the end then faults — an error
		// here, not a crash. Immutable files are read without a map.
		defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
		defer func() {
			if e := recover(); e != nil {
				if _, ok := e.(interface{ Addr() uintptr }); !ok {
					panic(e)
				}
				faulted, err, f.mapped = true, errTruncatedWhileReading, 0
			}
		}()
		if err := f.mapFile(int64(l.pageSize) * int64(l.pageCount)); err != nil {
			return errNotClean
		}
	}
	return fn(newPageWalker(l, f.page))
}

// errTruncatedWhileReading: the database file ended before a page the
// load's state has: a mapped page faulted (withPages), or a read from the
// file came back short (pageFile.read).
var errTruncatedWhileReading = errors.New("the file was cut short while it was read (another process changed it); run again")

// scanClaimed scans c's rows into blocks of the preallocated rows it claims.
func (s *trendScanner) scanClaimed(ctx context.Context, st trendRows, c *trendChunk, cursor *atomic.Int64, total int, meter *progressMeter) error {
	rows := &s.r.d.Rows
	var block model.Rows
	block.Lacks = s.blockLacks
	block.Grow(claimBlock)
	flush := func() error {
		k := block.Len()
		if k == 0 {
			return nil
		}
		off := cursor.Add(int64(k)) - int64(k)
		if off+int64(k) > int64(total) {
			return errNotClean // more rows than counted: the database changed
		}
		if !rows.Fits(&block) {
			return errNotClean // a target or metric id outside the tables
		}
		if sink := s.r.sink; sink != nil {
			if err := sink.add(off, &block, nil, nil, -1); err != nil {
				return err
			}
		} else {
			rows.Place(int(off), &block)
			if st := s.r.stream; st.active() {
				st.put(int(off), &block)
			}
		}
		block.Truncate(0)
		meter.add(int64(k))
		return ctx.Err()
	}
	microMode := s.r.microMode
	var text int64
	for {
		ok, err := st.next()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		rank, ok1, _ := st.colInt(0)
		step, ok2, _ := st.colInt(1)
		tid, ok3, _ := st.colInt(2)
		mid, ok4, _ := st.colInt(3)
		if !ok1 || !ok2 || !ok3 || !ok4 || rank < 0 || step < 0 || rank > math.MaxInt32 || step > math.MaxInt32 {
			return errNotClean
		}
		mi, err := s.metric(mid)
		if err != nil {
			return err
		}
		ti, micro := s.target(tid)
		if !microMode {
			micro = model.NoMicro
		}
		vals := [model.NumStats]float64{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		for k, stat := range c.stats {
			v, kind := st.colStat(4 + k)
			switch kind {
			case cellNumText:
				text++
			case cellBad:
				return errNotClean
			}
			vals[stat] = v
		}
		block.Append(int32(rank), int32(step), micro, ti, mi, vals)
		if block.Len() == claimBlock {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	if text > 0 {
		s.mu.Lock()
		s.textVals += text
		s.mu.Unlock()
	}
	return nil
}
