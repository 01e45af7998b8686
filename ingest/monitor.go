package ingest

import (
	"context"
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
// stops the load promptly with ctx.Err(). Rows are not sorted: a trend.db
// gives key order (rank, step, target, metric), CSV trees file by file.
func LoadMonitor(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
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
	switch f {
	case model.FormatTrendDB:
		file, warn := path, []string(nil)
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			if file, warn, err = findTrendDBFile(path); err != nil {
				return nil, err
			}
		}
		d, err := LoadTrendDB(ctx, file, p)
		if err != nil {
			return nil, err
		}
		d.Warnings = append(warn, d.Warnings...)
		return d, nil
	case model.FormatCSV:
		return LoadCSV(ctx, path, p)
	case model.FormatDump:
		t, err := LoadDumpTree(ctx, path, p)
		if err != nil {
			return nil, err
		}
		return GradientsFromDumps(t), nil
	}
	return nil, inputErr(path, nil, "unknown format %q (want auto, trenddb, csv or dump)", string(f))
}
