package ingest

import (
	"context"
	"math"
	"os"

	"spikescope/model"
)

// LoadMonitor reads monitor data from path in format f (FormatAuto detects
// it with DetectFormat):
//   - trenddb: a database file, or a folder holding one (see
//     findTrendDBFile);
//   - csv: a monitor CSV or a folder tree of them;
//   - dump: the parameter gradients of a dump tree as monitor rows
//     (GradientsFromDumps).
//
// Progress goes to p (rows for databases, bytes for CSV); cancelling ctx
// stops the load promptly with ctx.Err(). Rows come in series order
// (model.Rows.SortSeries: by metric, target, rank, then as the input had
// them), which lets the analysis index them in place. Of many rows, min,
// max and mean are mapped from a spill file instead of held in the heap
// (SpillStats).
func LoadMonitor(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
	// a large load's min, max and mean go to a spill file as read
	d, err := loadMonitorStream(ctx, path, f, p, nil, &statStream{want: true, input: path})
	if err != nil {
		return nil, err
	}
	holdLess(path, d)
	return d, nil
}

// loadMonitorHeap is LoadMonitor with every column in the heap: for a
// followed trend.db, read again each time the job rewrites it, where a
// spill file per read would take disk space until the process exits (a
// mapping is never undone).
func loadMonitorHeap(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
	return loadMonitorWith(ctx, path, f, p, nil)
}

// loadMonitorWith is loadMonitorHeap, out of core when ooc is not nil.
func loadMonitorWith(ctx context.Context, path string, f model.Format, p model.ProgressFunc, ooc *OutOfCore) (*model.MonitorData, error) {
	return loadMonitorStream(ctx, path, f, p, ooc, nil)
}

// loadMonitorStream is loadMonitorWith, streaming min, max and mean out of
// the heap as they are read (stats_stream.go) when st is not nil.
func loadMonitorStream(ctx context.Context, path string, f model.Format, p model.ProgressFunc, ooc *OutOfCore, st *statStream) (*model.MonitorData, error) {
	if f == model.FormatAuto || f == "" {
		var err error
		if f, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if p != nil {
		// reports name the path the caller gave, even when a database is
		// found inside it
		inner := p
		p = func(pr model.Progress) {
			pr.Input = path
			inner(pr)
		}
	}
	d, err := loadMonitor(ctx, path, f, p, ooc, st)
	if err != nil {
		st.close()
		return nil, err
	}
	escapeTargetNames(d)
	for s := model.StatMin; s < model.NumStats; s++ {
		if !d.HasStat[s] || allNaN(&d.Rows, s) {
			d.Rows.Lack(s) // nothing to keep: reads NaN, and the sort skips it
		}
	}
	if err := st.sortRows(&d.Rows); err != nil {
		return nil, err // the spill folder's disk, not the input
	}
	d.WarningsReasons = append(d.WarningsReasons, statCoverageWarnings(d)...)
	return d, nil
}

// statCoverageWarnings says which statistics the data lacks entirely: no
// norm column, or a statistic that is NULL/NaN/empty in every row. Both
// still load (a database built with some ops is valid), but Phase 1 works
// on norms, so the output must say when there are none to compare.
func statCoverageWarnings(d *model.MonitorData) []model.Reason {
	if d.Rows.Len() == 0 {
		return nil
	}
	var out []model.Reason
	var have []string
	for s := model.Stat(0); s < model.NumStats; s++ {
		if d.HasStat[s] {
			have = append(have, model.StatNames[s])
		}
	}
	if !d.HasStat[model.StatNorm] {
		out = append(out, model.StatNoNorm{Have: have})
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if !d.HasStat[s] || !allNaN(&d.Rows, s) {
			continue
		}
		out = append(out, model.StatAllMissing{Stat: model.StatNames[s], Rows: d.Rows.Len(), Norm: s == model.StatNorm})
	}
	return out
}

// allNaN reports whether every value is NaN; it stops at the first number.
func allNaN(r *model.Rows, s model.Stat) bool {
	for i := range r.Len() {
		if !math.IsNaN(r.Value(s, i)) {
			return false
		}
	}
	return true
}

// loadMonitor reads path in the (known) format f.
func loadMonitor(ctx context.Context, path string, f model.Format, p model.ProgressFunc, ooc *OutOfCore, st *statStream) (*model.MonitorData, error) {
	switch f {
	case model.FormatTrendDB:
		file, warn := path, []model.Reason(nil)
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			if file, warn, err = findTrendDBFile(path); err != nil {
				return nil, err
			}
		}
		d, err := loadTrendDB(ctx, file, p, ooc, st)
		if err != nil {
			return nil, err
		}
		d.WarningsReasons = append(warn, d.WarningsReasons...)
		return d, nil
	case model.FormatCSV:
		return loadCSV(ctx, path, p, ooc, st)
	case model.FormatDump:
		t, err := LoadDumpTree(ctx, path, p)
		if err != nil {
			return nil, err
		}
		return GradientsFromDumps(t), nil
	}
	return nil, inputErr(path, nil, "unknown format %q (want auto, trenddb, csv or dump)", string(f))
}
