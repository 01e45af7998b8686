package ingest

import (
	"context"
	"database/sql"
	"os"
	"time"

	"spikescope/model"
)

// CSVFileBytesPerRow is the size of one monitor CSV row on disk, from the
// generated v1 trees of docs/benchmarks.md ("The generated runs": 193 MB for
// 2M rows, 1.55 GB for 16M, 9.78 GB for 100M: 96.5–97.8 bytes a row, the
// 291 parameter names of a 48-layer model with norm, min, max and mean).
// Longer parameter names make a row larger, so the estimate errs high.
const CSVFileBytesPerRow = 96

// TrendDBFileBytesPerRow is the size of one trend_data row in the file (a
// WITHOUT ROWID B-tree on the key, as msprobe's data2db writes it), from the
// generated trend.dbs of docs/benchmarks.md: 110.5 MB for 2M rows, 886 MB
// for 16M (55.3–55.4 bytes a row, norm, min, max and mean present). A
// database with fewer statistic columns has smaller rows, so its rows are
// estimated low, but its rows also hold fewer columns in memory.
const TrendDBFileBytesPerRow = 55

// estimateTimeout bounds the trend.db query of EstimateMonitorRows: the
// estimate must stay cheap; a database that does not answer at once (a
// writer holding it) is read without one.
const estimateTimeout = 5 * time.Second

// EstimateMonitorRows is a cheap estimate of the rows a monitor input holds,
// made before it is read, for the memory check: a trend.db's largest rowid
// (one B-tree descent per table; rows deleted below it make it err high) or,
// for msprobe's WITHOUT ROWID trend_data, its pages in use ÷
// TrendDBFileBytesPerRow; a CSV tree's file bytes ÷ CSVFileBytesPerRow. false when it cannot tell (a
// dump tree, a table without rowid, an input the reader will word an error
// for): the caller then does not refuse.
func EstimateMonitorRows(ctx context.Context, path string, f model.Format) (int64, bool) {
	switch f {
	case model.FormatTrendDB:
		file := path
		if st, err := os.Stat(path); err == nil && st.IsDir() {
			if file, _, err = findTrendDBFile(path); err != nil {
				return 0, false
			}
		}
		ctx, cancel := context.WithTimeout(ctx, estimateTimeout)
		defer cancel()
		return trendDBRowEstimate(ctx, file)
	case model.FormatCSV:
		disc, err := findMonitorCSVs(path)
		if err != nil || len(disc.files) == 0 {
			return 0, false
		}
		var bytes int64
		for _, f := range disc.files {
			bytes += f.size
		}
		return bytes / CSVFileBytesPerRow, true
	}
	return 0, false
}

// trendDBRowEstimate sums max(rowid) of the data tables (Gen B trend_data,
// or Gen A's metric tables), through the read-only opener; a table without
// rowid is estimated from the database's pages in use (the data table is
// nearly all of the file).
func trendDBRowEstimate(ctx context.Context, path string) (int64, bool) {
	db, _, err := openSQLiteReadOnly(path)
	if err != nil {
		return 0, false
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	tables, err := listTables(db)
	if err != nil {
		return 0, false
	}
	var data []string
	for _, t := range tables {
		if t == "trend_data" {
			data = []string{t}
			break
		}
		if genATableRE.MatchString(t) {
			data = append(data, t)
		}
	}
	if len(data) == 0 {
		return 0, false
	}
	var total int64
	for _, t := range data {
		var n sql.NullInt64
		if err := db.QueryRowContext(ctx, `SELECT max(rowid) FROM "`+t+`"`).Scan(&n); err != nil {
			return trendDBPageEstimate(ctx, db) // WITHOUT ROWID
		}
		if n.Valid && n.Int64 > 0 {
			total += n.Int64
		}
	}
	return total, true
}

// trendDBPageEstimate is the rows of a database from its pages in use.
func trendDBPageEstimate(ctx context.Context, db *sql.DB) (int64, bool) {
	var pages, size, free int64
	for _, q := range []struct {
		pragma string
		v      *int64
	}{{"page_count", &pages}, {"page_size", &size}, {"freelist_count", &free}} {
		if err := db.QueryRowContext(ctx, "PRAGMA "+q.pragma).Scan(q.v); err != nil {
			return 0, false // unreadable: the reader words it
		}
	}
	if pages <= free || size <= 0 {
		return 0, false
	}
	return (pages - free) * size / TrendDBFileBytesPerRow, true
}
