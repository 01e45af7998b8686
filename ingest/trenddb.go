package ingest

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// trendClamp is where msprobe data2db clamps values: it stores +inf as
// 1e9+1 and -inf as -(1e9+1) (formats.md §2.1). ±1e9 exactly may be a
// clamped finite value and stays finite.
const trendClamp = 1e9 + 1

// maxMetrics is how many metrics Rows.Metric (uint8) can index.
const maxMetrics = 256

// Gen B tables and columns spikescope reads (formats.md §2.1). The other
// tables (monitoring_tags, tag_target_mapping, global_stats) only serve UI
// filtering in msprobe and are not required.
var (
	trendDataKeyCols = []string{"rank", "step", "target_id", "metric_id"}
	targetCols       = []string{"target_id", "target_name", "vpp_stage"}
	metricCols       = []string{"metric_id", "metric_name"}
)

// dumpMetricNames are the metrics of a dump_data.trend.db (§2.2): there
// monitoring_targets.micro_step holds an op's call index, not a micro step.
var dumpMetricNames = map[string]bool{"forward": true, "backward": true, "recompute": true, "parameters_grad": true}

// LoadTrendDB reads a msprobe trend database: the current Gen B
// `*.trend.db` (single trend_data table) or the older Gen A
// `monitor_metrics.db` (tables metric_{id}_step_{a}_{b}). The file is opened
// read-only, with SQLite's locking unless no writer can exist (see
// trenddb_mode.go); it is never created or modified.
//
// Rows of Gen B come in key order (rank, step, target_id, metric_id); Gen A
// rows come table by table. Step is kept as stored: with data2db's default
// (--micro_step true) it is a global micro-step index, and the analysis
// derives the window. When monitoring_targets.micro_step is used (built with
// --micro_step false, and Gen A), targets that differ only in micro step are
// merged, Rows.Micro carries the micro step and ExplicitMicro is set; a
// metric whose targets never have a non-zero micro step (e.g. grad_reduced)
// keeps NoMicro.
//
// Damaged rows do not sink the database (conclude what the data allows): a
// statistic cell holding text that spells a number is read as that number;
// one holding other text or a blob is a data problem (trenddb_badcells.go):
// a norm cell drops its row, another statistic reads as NaN, both counted
// in a warning naming the first cells. A row whose key (rank, step,
// target_id, metric_id) is not a usable non-negative integer is skipped and
// counted in a warning naming the first one; rows repeating a key (a table
// without a primary key) are used once. Only when no row at all can be read is it an
// InputError. Missing tables or key columns, and key or statistic columns
// declared as text, are InputErrors.
func LoadTrendDB(ctx context.Context, path string, p model.ProgressFunc) (*model.MonitorData, error) {
	return loadTrendDB(ctx, path, p, nil, nil)
}

// loadTrendDB is LoadTrendDB, out of core when ooc is not nil.
func loadTrendDB(ctx context.Context, path string, p model.ProgressFunc, ooc *OutOfCore, st *statStream) (*model.MonitorData, error) {
	plan, err := planSQLiteRead(path)
	if err != nil {
		return nil, err
	}
	workers := runtime.GOMAXPROCS(0)
	var (
		snap *trendSnap
		d    *model.MonitorData
		rows int
	)
	for try := 1; ; try++ {
		snap, err = openTrendSnap(ctx, plan.uri, plan.abs, plan.mode != ReadModeReadOnly, workers)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, sqliteProblem(path, err)
		}
		rctx, stop := snap.yieldToWriter(ctx)
		d, rows, err = readTrendSnap(rctx, path, snap, workers, p, ooc, st)
		yielded := stop()
		snap.close() // the read transactions end: a waiting writer goes on
		if err == nil || !yielded || ctx.Err() != nil {
			break
		}
		if try == writerYieldTries {
			return nil, inputErr(path, nil, "another process kept committing to it while it was read (rollback-journal mode: a writer waits for every reader), and a read takes longer than a writer should wait (%v): run again when the writer has finished, or have it use WAL mode (PRAGMA journal_mode=WAL), which lets a reader and a writer work at once", writerWaitLimit)
		}
	}
	if err != nil {
		st.close()
		return nil, err
	}
	d.ReadMode = plan.mode
	if plan.why != "" {
		d.ReadMode += ": " + plan.why
		d.WarningsReasons = append(d.WarningsReasons, plan.whyR)
	}
	d.WarningsReasons = append(d.WarningsReasons, plan.warnings...)
	d.WarningsReasons = append(d.WarningsReasons, plan.after(snap, rows)...)
	return d, nil
}

// readTrendSnap reads the database at snap's state; rows is the data
// rows it held (before any was left out).
func readTrendSnap(ctx context.Context, path string, snap *trendSnap, workers int, p model.ProgressFunc, ooc *OutOfCore, st *statStream) (*model.MonitorData, int, error) {
	tables, err := listTablesRaw(snap.holder)
	if err != nil {
		return nil, 0, sqliteProblem(path, err)
	}
	have := map[string]bool{}
	var genA []string
	for _, t := range tables {
		have[t] = true
		if genATableRE.MatchString(t) {
			genA = append(genA, t)
		}
	}
	r := &trendReader{path: path, snap: snap, q: snap.holder, workers: workers, d: &model.MonitorData{Path: path, Format: model.FormatTrendDB}, stream: st}
	if ooc != nil {
		r.sink = newRowSink(path, *ooc, p)
	}
	switch {
	case have["trend_data"]:
		err = r.loadGenB(ctx, have, p)
	case len(genA) > 0:
		err = r.loadGenA(ctx, have, genA, p)
	default:
		var missing []string
		for _, t := range []string{"trend_data", "monitoring_targets", "monitoring_metrics"} {
			if !have[t] {
				missing = append(missing, t)
			}
		}
		return nil, 0, inputErr(path, nil, "not a msprobe trend database: missing table(s) %s (found %s)", strings.Join(missing, ", "), describeTables(tables))
	}
	if err != nil {
		if r.sink != nil {
			r.sink.close() // its spill file goes now, not with the load's end
		}
		if ctx.Err() != nil {
			return nil, 0, ctx.Err()
		}
		return nil, 0, sqliteProblem(path, err)
	}
	if r.d.Rows.Len() == 0 {
		r.d.WarningsReasons = append(r.d.WarningsReasons, model.TrendNoRows{})
	}
	return r.d, r.total, nil
}

// trendReader holds the state of one trend.db load.
type trendReader struct {
	path    string
	snap    *trendSnap // the one state every connection reads (trenddb_snap.go)
	q       *rawConn   // snap's holder: schema, lookups and counts
	workers int
	d       *model.MonitorData
	total   int // data rows at the state read, from COUNT(*)
	// ranks is the rank range of the uncounted rank ranges (planGenB):
	// rows read into them are keyed by series (readClaimed)
	ranks struct{ lo, hi int64 }

	// lookups filled by readMetrics / readTargets
	metricOf  map[int64]int   // metric_id → index into d.Metrics
	targetOf  map[int64]int32 // target_id → index into d.Targets
	microOf   map[int64]int32 // target_id → monitoring_targets.micro_step
	microMode bool            // targets carry micro steps (see LoadTrendDB)

	// pages: trend_data's pages are read in Go (trenddb_pages.go); nil: by SQL
	pages *trendPages

	sink *rowSink // rows go out of core (outofcore_trenddb.go); nil: into d.Rows
	// stream takes min, max and mean out of the heap as they are read
	// (stats_stream.go); nil: they stay in d.Rows
	stream *statStream
}

// requireTables names the required tables that are missing.
func (r *trendReader) requireTables(have map[string]bool, want ...string) error {
	var missing []string
	for _, t := range want {
		if !have[t] {
			missing = append(missing, t)
		}
	}
	if len(missing) > 0 {
		return inputErr(r.path, nil, "missing table(s) %s", strings.Join(missing, ", "))
	}
	return nil
}

// statColumns returns the statistics present among cols, in Stat order.
func statColumns(cols map[string]sqlColumn) []model.Stat {
	var out []model.Stat
	for s := model.Stat(0); s < model.NumStats; s++ {
		if _, ok := cols[model.StatNames[s]]; ok {
			out = append(out, s)
		}
	}
	return out
}

// checkStatColumns requires at least one stat column and numeric types.
func (r *trendReader) checkStatColumns(table string, cols map[string]sqlColumn) ([]model.Stat, error) {
	stats := statColumns(cols)
	if len(stats) == 0 {
		return nil, inputErr(r.path, nil, "table %s lacks column(s) norm, min, max, mean (needs at least one)", table)
	}
	for _, s := range stats {
		c := cols[model.StatNames[s]]
		if !numericColumnOK(c.Type) {
			return nil, inputErr(r.path, nil, "column %s.%s has type %s, expected REAL", table, c.Name, c.Type)
		}
	}
	return stats, nil
}

func (r *trendReader) loadGenB(ctx context.Context, have map[string]bool, p model.ProgressFunc) error {
	if err := r.requireTables(have, "trend_data", "monitoring_targets", "monitoring_metrics"); err != nil {
		return err
	}
	cols, err := tableColumns(r.q, "trend_data")
	if err != nil {
		return err
	}
	if err := requireColumns(r.path, "trend_data", cols, trendDataKeyCols, allNumeric(trendDataKeyCols)); err != nil {
		return err
	}
	stats, err := r.checkStatColumns("trend_data", cols)
	if err != nil {
		return err
	}
	if err := r.readMetrics(); err != nil {
		return err
	}
	if err := r.readTargets(); err != nil {
		return err
	}
	file, rollback := r.snap.fileState()
	r.pages = trendPageLayout(r.q, stats, file, rollback)
	chunks, total, err := r.planGenB(ctx, stats, countedOnly, p)
	if err != nil {
		return err
	}
	unique := trendKeyUnique(r.q, "trend_data")
	done := false
	if len(chunks) > 0 && chunks[0].count < 0 {
		nW := len(r.d.WarningsReasons)
		if done, err = r.readClaimed(ctx, chunks, total, p); err != nil {
			return err
		}
		if !done && r.pages != nil {
			// what the page walk does not read: by SQL
			r.pages = nil
			r.d.WarningsReasons = r.d.WarningsReasons[:nW]
			if done, err = r.readClaimed(ctx, chunks, total, p); err != nil {
				return err
			}
		} else if done && r.pages != nil {
			pageLoads.Add(1)
		}
		if !done { // a problem row, or rows outside the ranges: count and read again
			if chunks, _, err = r.planGenB(ctx, stats, true, p); err != nil {
				return err
			}
		}
	}
	if !done {
		if err := r.readChunksPages(ctx, chunks, stats, p); err != nil {
			return err
		}
	}
	return r.settleRows(ctx, unique)
}

func allNumeric(cols []string) map[string]bool {
	m := map[string]bool{}
	for _, c := range cols {
		m[c] = true
	}
	return m
}

// readMetrics loads monitoring_metrics: names come from the table, never
// from assumed ids (reference bug 26).
func (r *trendReader) readMetrics() error {
	cols, err := tableColumns(r.q, "monitoring_metrics")
	if err != nil {
		return err
	}
	if err := requireColumns(r.path, "monitoring_metrics", cols, metricCols, map[string]bool{"metric_id": true}); err != nil {
		return err
	}
	rows, err := r.q.queryAll(`SELECT metric_id, metric_name FROM monitoring_metrics ORDER BY metric_id`)
	if err != nil {
		return err
	}
	r.metricOf = map[int64]int{}
	for _, row := range rows {
		id, ok, err := cellInt(row[0])
		if err != nil {
			return inputErr(r.path, err, "monitoring_metrics: metric_id %s", oneLine(err.Error()))
		}
		if !ok {
			continue
		}
		if len(r.d.Metrics) >= maxMetrics {
			return inputErr(r.path, nil, "monitoring_metrics has more than %d metrics", maxMetrics)
		}
		n := cellString(row[1])
		if n == "" {
			n = fmt.Sprintf("metric_%d", id)
		}
		r.metricOf[id] = len(r.d.Metrics)
		r.d.Metrics = append(r.d.Metrics, n)
	}
	return nil
}

// isDumpDB reports whether the metrics are those of a dump_data.trend.db.
func (r *trendReader) isDumpDB() bool {
	if len(r.d.Metrics) == 0 {
		return false
	}
	for _, m := range r.d.Metrics {
		if !dumpMetricNames[m] {
			return false
		}
	}
	return true
}

// readTargets loads monitoring_targets. In a monitor DB whose targets carry
// micro steps, targets differing only by micro step are merged (the micro
// step goes to the rows instead); in a dump DB micro_step is the call index
// and stays part of the target.
func (r *trendReader) readTargets() error {
	cols, err := tableColumns(r.q, "monitoring_targets")
	if err != nil {
		return err
	}
	if err := requireColumns(r.path, "monitoring_targets", cols, targetCols, map[string]bool{"target_id": true, "vpp_stage": true}); err != nil {
		return err
	}
	microExpr := "0"
	if c, ok := cols["micro_step"]; ok {
		if !numericColumnOK(c.Type) {
			return inputErr(r.path, nil, "column monitoring_targets.micro_step has type %s, expected INTEGER", c.Type)
		}
		microExpr = "micro_step"
	}
	rows, err := r.q.queryAll(`SELECT target_id, target_name, vpp_stage, ` + microExpr + ` FROM monitoring_targets ORDER BY target_id`)
	if err != nil {
		return err
	}
	type rawTarget struct {
		id    int64
		name  string
		vpp   int
		micro int
	}
	var raw []rawTarget
	anyMicro := false
	for _, row := range rows {
		var v [4]int64
		var ok [4]bool
		for _, k := range []int{0, 2, 3} {
			var err error
			if v[k], ok[k], err = cellInt(row[k]); err != nil {
				return inputErr(r.path, err, "monitoring_targets: %s %s", []string{"target_id", "", "vpp_stage", "micro_step"}[k], oneLine(err.Error()))
			}
		}
		if !ok[0] {
			continue
		}
		t := rawTarget{id: v[0], name: cellString(row[1]), vpp: int(v[2]), micro: int(v[3])}
		if t.micro != 0 {
			anyMicro = true
		}
		raw = append(raw, t)
	}
	dump := r.isDumpDB()
	if dump {
		r.d.WarningsReasons = append(r.d.WarningsReasons, model.TrendFromDump{Metrics: slices.Clone(r.d.Metrics)})
	}
	r.microMode = anyMicro && !dump
	r.targetOf = make(map[int64]int32, len(raw))
	r.microOf = make(map[int64]int32, len(raw))
	type key struct {
		name string
		vpp  int
	}
	merged := map[key]int32{}
	for _, t := range raw {
		if r.microMode {
			k := key{t.name, t.vpp}
			idx, ok := merged[k]
			if !ok {
				idx = int32(len(r.d.Targets))
				merged[k] = idx
				r.d.Targets = append(r.d.Targets, model.Target{Name: t.name, VPPStage: t.vpp})
			}
			r.targetOf[t.id] = idx
			r.microOf[t.id] = int32(t.micro)
			continue
		}
		r.targetOf[t.id] = int32(len(r.d.Targets))
		r.d.Targets = append(r.d.Targets, model.Target{Name: t.name, VPPStage: t.vpp, MicroStep: t.micro})
	}
	r.d.ExplicitMicro = r.microMode
	return nil
}

// trendChunk is one disjoint key range of the data, read by one connection.
type trendChunk struct {
	query  string
	args   []any
	stats  []model.Stat // stat columns after the key columns, in order
	metric int          // fixed metric index (Gen A), or -1 when the query has metric_id
	count  int          // rows in the range, from COUNT(*); -1: not counted (readClaimed)
	off    int          // where its rows start in the result
	// keys: the query's rows are those whose (rank, step) lies in lo..hi
	// (both included), in key order (the page walk's range)
	keys   bool
	lo, hi [2]int64
}

// chunksPerWorker splits the data finer than one range per worker so that
// uneven ranges still keep every worker busy.
const chunksPerWorker = 4

// planGenB splits trend_data into key ranges on its primary key (rank,
// step, ...): by rank ranges when there are enough ranks, else by step
// ranges within each rank. Every bound is an O(log n) MIN/MAX lookup. If
// the ranges do not cover every row (keys stored as text, say), it falls
// back to one full scan.
//
// With counted false, rank ranges are not counted (a COUNT(*) per range
// cost 12% of the read at 2M and 16M rows): each returned chunk has count
// -1 and total is the table's row count, for readClaimed.
func (r *trendReader) planGenB(ctx context.Context, stats []model.Stat, counted bool, p model.ProgressFunc) ([]*trendChunk, int, error) {
	sel := "SELECT rank, step, target_id, metric_id" + statSelect(stats) + " FROM trend_data"
	if p != nil {
		// COUNT(*) sums the b-tree's leaf counts (2.3 s at 100M rows):
		// the screen says what the wait is
		p(model.Progress{Input: r.path, Unit: "rows", Stage: model.StageCounting})
	}
	total, err := r.tableCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	r.total = total
	full := []*trendChunk{{query: sel, stats: stats, metric: -1, count: total, keys: true,
		lo: [2]int64{math.MinInt64, math.MinInt64}, hi: [2]int64{math.MaxInt64, math.MaxInt64}}}
	if total == 0 || r.workers < 2 {
		return full, total, nil
	}
	lo, err1 := r.keyBound(ctx, "MIN(rank)", "")
	hi, err2 := r.keyBound(ctx, "MAX(rank)", "")
	if err1 != nil || err2 != nil || !lo.Valid || !hi.Valid {
		return full, total, nil
	}
	want := int64(r.workers * chunksPerWorker)
	var chunks []*trendChunk
	if nr := hi.Int64 - lo.Int64 + 1; nr >= want {
		for i := int64(0); i < want; i++ {
			a := lo.Int64 + nr*i/want
			b := lo.Int64 + nr*(i+1)/want - 1
			if b < a {
				continue
			}
			chunks = append(chunks, &trendChunk{query: sel + " WHERE rank >= ? AND rank <= ?", args: []any{a, b}, stats: stats, metric: -1, count: -1, keys: true, lo: [2]int64{a, math.MinInt64}, hi: [2]int64{b, math.MaxInt64}})
		}
		if !counted {
			// every rank in one range: its series never span ranges
			r.ranks.lo, r.ranks.hi = lo.Int64, hi.Int64
			return chunks, total, nil
		}
	} else {
		per := (want + nr - 1) / nr
		for rk := lo.Int64; rk <= hi.Int64; rk++ {
			slo, err1 := r.keyBound(ctx, "MIN(step)", " WHERE rank = ?", rk)
			shi, err2 := r.keyBound(ctx, "MAX(step)", " WHERE rank = ?", rk)
			if err1 != nil || err2 != nil {
				return full, total, nil // non-integer steps: one full scan reports them
			}
			if !slo.Valid {
				continue
			}
			ns := shi.Int64 - slo.Int64 + 1
			parts := min(per, ns)
			for i := int64(0); i < parts; i++ {
				a := slo.Int64 + ns*i/parts
				b := slo.Int64 + ns*(i+1)/parts - 1
				chunks = append(chunks, &trendChunk{query: sel + " WHERE rank = ? AND step >= ? AND step <= ?", args: []any{rk, a, b}, stats: stats, metric: -1,
					keys: true, lo: [2]int64{rk, a}, hi: [2]int64{rk, b}})
			}
		}
	}
	if err := r.countChunks(ctx, chunks); err != nil {
		return nil, 0, err
	}
	sum := 0
	for _, c := range chunks {
		sum += c.count
	}
	if sum != total {
		return full, total, nil
	}
	return chunks, total, nil
}

// statSelect is the ", norm, min" part of a SELECT for the present stats.
func statSelect(stats []model.Stat) string {
	var b strings.Builder
	for _, s := range stats {
		b.WriteString(", ")
		b.WriteString(model.StatNames[s])
	}
	return b.String()
}

// keyBound is one MIN or MAX of a key column (agg, e.g. "MIN(rank)") over
// trend_data and where: one query each, because SQLite looks a lone
// min() or max() up in the primary key's b-tree but scans every row for
// two in one query (a 100M-row file: 25 s before the first row was
// read). A bound that is no integer is an error: the ranges would not
// cover its rows, and the one full scan reports them.
func (r *trendReader) keyBound(ctx context.Context, agg, where string, args ...any) (sql.NullInt64, error) {
	rows, err := r.q.queryAll("SELECT "+agg+" FROM trend_data"+where, args...)
	if err != nil {
		return sql.NullInt64{}, err
	}
	var raw any
	if len(rows) == 1 && len(rows[0]) == 1 {
		raw = rows[0][0]
	}
	switch x := raw.(type) {
	case nil:
		return sql.NullInt64{}, nil
	case int64:
		return sql.NullInt64{Int64: x, Valid: true}, nil
	}
	return sql.NullInt64{}, fmt.Errorf("%s is not an integer", agg)
}

// countChunks fills each chunk's count with COUNT(*) over its WHERE clause
// (or from its pages), in parallel.
func (r *trendReader) countChunks(ctx context.Context, chunks []*trendChunk) error {
	return parallelEach(ctx, len(chunks), r.workers, func(i int) error {
		c := chunks[i]
		if l := r.pages; l != nil {
			// from the pages (the read checks it); by SQL when they
			// hold what the page walk does not read
			err := r.withChunkPages(l, c, func(w *pageWalker) (err error) {
				c.count, err = w.count()
				return err
			})
			if !errors.Is(err, errNotClean) {
				return err
			}
		}
		conn, err := r.snap.get()
		if err != nil {
			return err
		}
		defer r.snap.put(conn)
		rows, err := conn.queryAll("SELECT COUNT(*)"+c.query[strings.Index(c.query, " FROM "):], c.args...)
		if err != nil {
			return err
		}
		c.count, err = countOf(rows)
		return err
	})
}

// tableCount is trend_data's row count. When the load reads pages it is
// counted from them, a part of the b-tree on each worker (SQLite's
// COUNT(*) reads every leaf page on one connection with a system call
// each: 10% of a large load); else, or when the pages hold what the page
// walk does not read, by SQL. The claimed read checks it as it checks SQL's: rows more
// or fewer than counted send the load to the counted read.
func (r *trendReader) tableCount(ctx context.Context) (int, error) {
	if n, ok, err := r.pageTableCount(ctx); ok || err != nil {
		return n, err
	}
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return r.count(`SELECT COUNT(*) FROM trend_data`)
}

// pageTableCount counts trend_data's entries from its pages, as SQLite's
// COUNT(*) does: every cell of its leaves and interior pages, no entry
// decoded. The root's subtrees are split among the workers. Keys the
// page walk cannot read are found by the read, which checks the count.
// Not ok: by SQL (a page the walk does not read); err: the file was cut
// short while it was read.
func (r *trendReader) pageTableCount(ctx context.Context) (int, bool, error) {
	l := r.pages
	if l == nil {
		return 0, false, nil
	}
	var kids int
	err := r.withPages(l, func(w *pageWalker) (err error) {
		kids, err = w.rootChildren()
		return err
	})
	if err != nil {
		return 0, false, pageCountErr(err)
	}
	parts := max(1, min(kids, r.workers*chunksPerWorker))
	counts := make([]int, parts)
	err = parallelEach(ctx, parts, r.workers, func(i int) error {
		return r.withPages(l, func(w *pageWalker) (err error) {
			counts[i], err = w.countPart(i, parts)
			return err
		})
	})
	if err != nil {
		return 0, false, pageCountErr(err)
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	pageCounts.Add(1)
	return n, true, nil
}

// pageCountErr is what stops a load of a page count's error (nil: count
// by SQL).
func pageCountErr(err error) error {
	if errors.Is(err, errTruncatedWhileReading) {
		return err
	}
	return nil
}

// count runs a SELECT COUNT(*) on the holder.
func (r *trendReader) count(q string) (int, error) {
	rows, err := r.q.queryAll(q)
	if err != nil {
		return 0, err
	}
	return countOf(rows)
}

// countOf is the one integer of a COUNT(*) result.
func countOf(rows [][]any) (int, error) {
	if len(rows) == 1 && len(rows[0]) == 1 {
		if n, ok := rows[0][0].(int64); ok {
			return int(n), nil
		}
	}
	return 0, fmt.Errorf("COUNT(*) gave no number")
}

// cellInt reads an id or number cell the way database/sql's NullInt64
// does: NULL is not valid; an integer, an integral real or text spelling
// an integer is.
func cellInt(v any) (int64, bool, error) {
	switch x := v.(type) {
	case nil:
		return 0, false, nil
	case int64:
		return x, true, nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true, nil
		}
		return 0, false, fmt.Errorf("holds %v, not an integer", x)
	case string:
		n, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		if err != nil {
			return 0, false, fmt.Errorf("holds text %q, not an integer", x)
		}
		return n, true, nil
	}
	return 0, false, fmt.Errorf("holds binary data, not an integer")
}

// cellString reads a name cell: NULL is "", a number its decimal text.
func cellString(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}

// readChunksPages is readChunks from trend_data's pages when the page
// walk reads them all, else (or when one needs SQL's words) by SQL.
func (r *trendReader) readChunksPages(ctx context.Context, chunks []*trendChunk, stats []model.Stat, p model.ProgressFunc) error {
	if r.pages == nil {
		return r.readChunks(ctx, chunks, p)
	}
	d := r.d
	nT, nM, nW := len(d.Targets), len(d.Metrics), len(d.WarningsReasons)
	err := r.readChunks(ctx, chunks, p)
	if !errors.Is(err, errNotClean) {
		if err == nil {
			pageLoads.Add(1)
		}
		return err
	}
	// undone, and read by SQL
	r.pages = nil
	r.stream.close()
	d.Rows, d.WarningsReasons = model.Rows{}, d.WarningsReasons[:nW]
	if r.sink != nil {
		r.sink.reset()
	}
	d.Targets, d.Metrics = d.Targets[:nT], d.Metrics[:nM]
	chunks, _, err = r.planGenB(ctx, stats, true, p) // counted by SQL
	if err != nil {
		return err
	}
	return r.readChunks(ctx, chunks, p)
}

// readChunks allocates the columnar rows once and fills them from all chunks
// in parallel, each chunk at its own offset, so the result is in chunk
// (key) order with no copy.
func (r *trendReader) readChunks(ctx context.Context, chunks []*trendChunk, p model.ProgressFunc) error {
	total := 0
	d := r.d
	for _, c := range chunks {
		c.off = total
		total += c.count
		for _, s := range c.stats {
			d.HasStat[s] = true
		}
	}
	rows := &d.Rows
	for s := model.StatMin; s < model.NumStats; s++ {
		if !d.HasStat[s] {
			rows.Lack(s) // not stored: reads as NaN
		}
	}
	sc := newTrendScanner(r)
	sc.blockLacks = rows.Lacks
	if r.sink == nil {
		r.stream.begin(rows, total, total) // min, max and mean to a file as read
		rows.Resize(total)
		if r.microMode {
			rows.MakeMicro() // filled from several goroutines
		}
	}
	if !d.HasStat[model.StatNorm] {
		for i := range rows.Norm {
			rows.Norm[i] = math.NaN()
		}
	}
	meter := newProgressMeter(p, r.path, "rows", int64(total))
	meter.add(0) // a first report (0 of total) before the scan starts
	err := parallelEach(ctx, len(chunks), r.workers, func(i int) error {
		return sc.readChunk(ctx, chunks[i], meter)
	})
	if err != nil {
		return err
	}
	meter.finish()
	if sc.badRows > 0 || sc.badCellRows > 0 {
		// rows are dropped (compactRows): on heap columns
		if err := r.stream.back(rows); err != nil {
			return err
		}
	}
	sc.finish()
	if sc.badRows > 0 && r.rowCount() == 0 {
		return inputErr(r.path, sc.firstBadErr, "no trend_data row could be read: in every row a key column (rank, step, target_id, metric_id) is not a usable integer; the first: %s", problemOf(sc.firstBadErr))
	}
	return nil
}

// trendClampValue undoes data2db's clamp: ±(1e9+1) and beyond → ±Inf.
func trendClampValue(f float64) float64 {
	if f >= trendClamp {
		return math.Inf(1)
	}
	if f <= -trendClamp {
		return math.Inf(-1)
	}
	return f
}

// parseTextStat reads a statistic stored as text (data2db parses strings as
// floats or stores NULL, so this only happens in hand-made databases).
func parseTextStatOK(s string) (float64, bool) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN(), false
	}
	return trendClampValue(f), true
}

func parseTextStat(s string) float64 {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return math.NaN()
	}
	return f
}

// sortedKeys returns the keys of m in ascending order.
func sortedKeys[V any](m map[int64]V) []int64 {
	out := make([]int64, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
