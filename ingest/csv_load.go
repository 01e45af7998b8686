package ingest

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"

	"spikescope/model"
)

// csvGrowthSlack is the headroom over the row estimate when the merged
// arrays are first sized, so that a slightly low estimate does not double
// them.
const csvGrowthSlack = 1.05

// LoadCSV reads monitor CSVs: one file, or a folder tree of per-rank folders
// (v1 "<time>-rank<R>-<uuid>/", v2 "rank_<R>/", or "rank<R>/"). Files are
// parsed in parallel (up to GOMAXPROCS) and merged, as soon as all earlier
// files are in, in (rank, rank folder, metric, step range) order, so a file's
// own rows are freed early and peak memory stays near the result's size.
// Targets are (name, vpp_stage) pairs shared by all metrics. Progress is
// reported in bytes. In a tree of several files a file that cannot be read
// is skipped with a warning naming it and its problem; the load fails only
// when no file could be read. A single file given directly fails as it is.
func LoadCSV(ctx context.Context, path string, p model.ProgressFunc) (*model.MonitorData, error) {
	return loadCSVKeyed(ctx, path, p, nil, nil, false)
}

// loadCSV is LoadCSV, out of core when ooc is not nil.
// min, max and mean of a large tree go to st as merged (stats_stream.go)
// when st is not nil; the merged rows are then keyed (model.Rows.KeyBySeries:
// one series key a row instead of rank, target and metric until the sort).
func loadCSV(ctx context.Context, path string, p model.ProgressFunc, ooc *OutOfCore, st *statStream) (*model.MonitorData, error) {
	return loadCSVKeyed(ctx, path, p, ooc, st, st != nil)
}

// loadCSVKeyed is loadCSV, the rows merged in memory keyed when keyed is
// set (LoadMonitor sorts them; LoadCSV hands rows with their own rank,
// target and metric to followers and appenders).
func loadCSVKeyed(ctx context.Context, path string, p model.ProgressFunc, ooc *OutOfCore, st *statStream, keyed bool) (*model.MonitorData, error) {
	disc, err := findMonitorCSVs(path)
	if err != nil {
		return nil, err
	}
	if len(disc.files) == 0 {
		if disc.seen == 0 {
			return nil, inputErr(path, nil, "empty folder")
		}
		return nil, inputErr(path, nil, "no monitor CSV file (<metric>_<a>-<b>.csv or <slug>_step<a>-<b>.csv) among %d file(s)", disc.seen)
	}
	var total int64
	for _, f := range disc.files {
		total += f.size
	}
	meter := newProgressMeter(p, path, "bytes", total)
	meter.add(0) // a first report (0 of total) before parsing starts
	m := &csvMerger{d: &model.MonitorData{Path: path, Format: model.FormatCSV}, totalBytes: total,
		targets: map[targetKey]int32{}, metrics: map[string]uint8{}, runOrder: disc.runOrder}
	if ooc != nil {
		m.sink = newRowSink(path, *ooc, p)
	} else {
		m.stream = st
		if keyed {
			m.d.Rows.KeyBySeries()
		}
	}
	var skip *csvSkips
	if !disc.single && len(disc.files) > 1 {
		skip = &csvSkips{}
	}
	if err := readCSVFilesOrdered(ctx, disc.files, meter, m.add, skip); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	meter.finish()
	d := m.d
	if m.sink == nil && d.Rows.Len() >= SpillStatsMinRows {
		// the parse's garbage (every file's fields and names: 4M rows,
		// 19 MB) is all the collector has not taken back: with the merged
		// columns live it next runs at twice their size, after the sort.
		// Give those pages back before the sort's scratch column comes on
		// top of them.
		debug.FreeOSMemory()
	}
	m.stream.setRows(d.Rows.Len())
	if len(m.runOrder) > 0 {
		// superseded runs' rows are dropped (dropSupersededRuns): on
		// heap columns
		if err := m.stream.back(&d.Rows); err != nil {
			return nil, err
		}
	}
	dropped, err := m.settleRows(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if len(disc.runOrder) > 0 {
		for _, r := range sortedIntKeys(disc.runs) {
			if _, ok := disc.runOrder[anyKey(disc.runs[r])]; ok {
				disc.warnings = append(disc.warnings, runsWarning(r, disc.runs[r], true, dropped[int32(r)]))
			}
		}
	}
	d.WarningsReasons = append(disc.warnings, d.WarningsReasons...)
	if skip != nil && len(skip.errs) > 0 {
		if len(skip.errs) == len(disc.files) {
			return nil, inputErr(path, skip.errs[0], "none of the %d monitor CSV files could be read; the first: %v", len(disc.files), skip.errs[0])
		}
		d.WarningsReasons = append(skip.warnings(len(disc.files)), d.WarningsReasons...)
	}
	if d.Rows.Len() == 0 {
		d.WarningsReasons = append(d.WarningsReasons, model.CSVNoRows{Files: len(disc.files)})
	}
	return d, nil
}

// maxSkipWarnings is how many skipped files of a tree are named one by one;
// the rest are counted.
const maxSkipWarnings = 10

// csvSkips collects the files of a tree that could not be read. In a tree
// a broken file is skipped, not fatal: the others are analysed and the
// output says which rows are missing (the method's "conclude what the data
// allows"). A single file given directly still fails.
type csvSkips struct {
	errs []error // in file order
}

// warnings says how many files were skipped and why, naming the first few.
func (s *csvSkips) warnings(total int) []model.Reason {
	out := []model.Reason{model.CSVSkippedFiles{Skipped: len(s.errs), Total: total}}
	for i, e := range s.errs {
		if i == maxSkipWarnings {
			out = append(out, model.CSVMoreSkipped{Count: len(s.errs) - maxSkipWarnings})
			break
		}
		out = append(out, model.CSVSkippedFile{Err: e.Error()})
	}
	return out
}

// readCSVFilesOrdered parses files on GOMAXPROCS goroutines and hands each
// result to merge in file order, on the calling goroutine. merge must copy
// the result's rows: their arrays are reused for a later file. A file's bad
// input error is recorded in skip when skip is not nil (the file is left
// out); any other error, or any error when skip is nil, cancels the rest.
func readCSVFilesOrdered(ctx context.Context, files []csvFile, meter *progressMeter, merge func(f csvFile, r *csvResult) error, skip *csvSkips) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type result struct {
		i   int
		r   *csvResult
		err error
	}
	workers := min(runtime.GOMAXPROCS(0), len(files))
	bufs := &csvRowBufs{}
	jobs := make(chan int)
	done := make(chan result, workers)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if err := ctx.Err(); err != nil {
					done <- result{i, nil, err}
					continue
				}
				r, err := readCSVFile(ctx, files[i], meter, bufs)
				done <- result{i, r, err}
			}
		}()
	}
	// at most csvFilesAhead files per worker are read and not yet merged:
	// their rows wait in memory (and in row buffers) until the earlier
	// files are in
	slots := make(chan struct{}, csvFilesAhead*workers)
	go func() {
		defer close(jobs)
		for i := range files {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			select {
			case jobs <- i:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(done)
	}()
	pending := map[int]*csvResult{}
	skipped := map[int]error{}
	next := 0
	var first error
	for res := range done {
		if first != nil {
			continue // drain
		}
		if res.err != nil {
			var ie *InputError
			if skip == nil || !errors.As(res.err, &ie) || ctx.Err() != nil {
				first = res.err
				cancel()
				continue
			}
			res.r = nil // skipped: recorded in file order below
			skipped[res.i] = res.err
		}
		pending[res.i] = res.r
		for r, ok := pending[next]; ok; r, ok = pending[next] {
			delete(pending, next)
			<-slots // file next is in: another may be read
			if r == nil {
				skip.errs = append(skip.errs, skipped[next])
				delete(skipped, next)
				next++
				continue
			}
			if err := merge(files[next], r); err != nil {
				first = err
				cancel()
				break
			}
			bufs.put(r) // merged: its arrays parse a later file
			next++
		}
	}
	if first == nil && next != len(files) {
		first = ctx.Err() // cancelled before every file was read
	}
	return first
}

// csvFilesAhead is how many files per reader may be read ahead of the
// merge (which takes them in file order).
const csvFilesAhead = 2

// csvMerger appends per-file rows to one MonitorData, mapping file-local
// target and metric indices to global ones.
type csvMerger struct {
	d          *model.MonitorData
	totalBytes int64
	// mergedBytes is the size of the files merged so far.
	mergedBytes int64
	tmap        []int32 // a file's target indices to the tree's, reused
	targets     map[targetKey]int32
	metrics     map[string]uint8
	// runOrder is the time order of the run folders of ranks with several
	// (empty when none has); folderOrder then holds each row's, -1 elsewhere.
	runOrder    map[string]int
	folderOrder []int16
	// sink takes the rows out of core (outofcore_csv.go); nil: into d.Rows
	sink    *rowSink
	spilled int64 // rows handed to sink
	// stream takes min, max and mean out of the heap as merged (nil: into
	// d.Rows); tried says whether the first file's rows decided it
	stream *statStream
	tried  bool
}

// csvStreamRoom is how many times the row estimate the stream's file
// has room for (holes cost no disk): files with fewer bytes a row than
// the first's make more rows than estimated; beyond the room the rest
// stays in the heap (statStream.put).
const csvStreamRoom = 4

// anyKey is one key of a non-empty set.
func anyKey(m map[string]bool) string {
	for k := range m {
		return k
	}
	return ""
}

func (m *csvMerger) add(f csvFile, r *csvResult) error {
	d := m.d
	m.mergedBytes += f.size
	if n := r.rows.Len(); m.stream != nil && !m.tried && n > 0 {
		// the first file's bytes a row estimate the tree's rows
		m.tried = true
		est := float64(n) * float64(m.totalBytes) / float64(max(m.mergedBytes, 1))
		est = min(est, 1<<31-1)
		m.stream.begin(&d.Rows, int(est), int(min(est*csvStreamRoom, 1<<31-1)))
	}
	if n := r.rows.Len(); m.sink == nil && n > 0 && cap(d.Rows.Step)-d.Rows.Len() < n {
		// size the arrays from the bytes per row so far (the first file's,
		// then all merged files' when that estimate was low), not by
		// append's doubling: the old arrays are garbage as large as the rows
		est := float64(d.Rows.Len()+n)*float64(m.totalBytes)/float64(max(m.mergedBytes, 1))*csvGrowthSlack - float64(d.Rows.Len())
		d.Rows.Grow(int(min(max(est, float64(n)), 1<<31-1)))
		if len(m.runOrder) > 0 {
			m.folderOrder = slices.Grow(m.folderOrder, cap(d.Rows.Step)-len(m.folderOrder))
		}
	}
	m.tmap = slices.Grow(m.tmap[:0], len(r.targets))[:len(r.targets)]
	tmap := m.tmap
	for i, t := range r.targets {
		k := targetKey{t.Name, t.VPPStage}
		g, ok := m.targets[k]
		if !ok {
			g = int32(len(d.Targets))
			m.targets[k] = g
			d.Targets = append(d.Targets, t)
		}
		tmap[i] = g
	}
	mmap := make([]uint8, len(r.metrics))
	for i, name := range r.metrics {
		g, ok := m.metrics[name]
		if !ok {
			if len(d.Metrics) >= maxMetrics {
				return inputErr(f.path, nil, "more than %d distinct metrics in the tree", maxMetrics)
			}
			g = uint8(len(d.Metrics))
			m.metrics[name] = g
			d.Metrics = append(d.Metrics, name)
		}
		mmap[i] = g
		if r.oneBased {
			if d.MicroOneBased == nil {
				d.MicroOneBased = map[string]bool{}
			}
			d.MicroOneBased[name] = true
		}
	}
	for s := range d.HasStat {
		d.HasStat[s] = d.HasStat[s] || r.hasStat[s]
	}
	d.ExplicitMicro = d.ExplicitMicro || r.micro
	o := int16(-1)
	if len(m.runOrder) > 0 {
		if v, ok := m.runOrder[f.rankDir]; ok {
			o = int16(min(v, 1<<15-1))
		}
	}
	d.WarningsReasons = append(d.WarningsReasons, r.warnings...)
	if m.sink != nil {
		err := m.sink.add(m.spilled, &r.rows, tmap, mmap, o)
		m.spilled += int64(r.rows.Len())
		return err
	}
	if len(m.runOrder) > 0 {
		for range r.rows.Len() {
			m.folderOrder = append(m.folderOrder, o)
		}
	}
	if st := m.stream; st.active() {
		off := d.Rows.Len()
		src := r.rows // its min, max and mean go to the stream, not d.Rows
		for _, s := range st.cols {
			src.Stats[s], src.Lacks[s] = nil, true
		}
		d.Rows.AppendRows(&src, tmap, mmap)
		st.put(off, &r.rows)
		return nil
	}
	d.Rows.AppendRows(&r.rows, tmap, mmap)
	return nil
}
