package synth

import (
	"database/sql"
	"fmt"
	"os"
	"strings"

	_ "modernc.org/sqlite" // pure-Go SQLite driver "sqlite"
)

// trendDDL is msprobe data2db's monitor schema, verbatim (formats.md §2.1),
// for a run with the metrics grad_reduced/grad_unreduced and the stats
// norm, min, max, mean.
var trendDDL = []string{
	`CREATE TABLE monitoring_targets (
    target_id INTEGER PRIMARY KEY AUTOINCREMENT,
    target_name TEXT NOT NULL,
    vpp_stage INTEGER NOT NULL,
    micro_step INTEGER NOT NULL DEFAULT 0,
    UNIQUE(target_name, vpp_stage, micro_step))`,
	`CREATE TABLE monitoring_metrics (
    metric_id INTEGER PRIMARY KEY AUTOINCREMENT,
    metric_name TEXT UNIQUE NOT NULL)`,
	`CREATE TABLE monitoring_tags (
    tag_id INTEGER PRIMARY KEY AUTOINCREMENT,
    tag_name TEXT NOT NULL,
    category TEXT NOT NULL,
    metric_id INTEGER NOT NULL,
    UNIQUE(tag_name, category, metric_id),
    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id))`,
	`CREATE TABLE tag_target_mapping (
    tag_id INTEGER NOT NULL,
    target_id INTEGER NOT NULL,
    PRIMARY KEY (tag_id, target_id),
    FOREIGN KEY (tag_id) REFERENCES monitoring_tags(tag_id),
    FOREIGN KEY (target_id) REFERENCES monitoring_target(target_id))`,
	`CREATE TABLE global_stats (
    min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0,
    grad_reduced TEXT DEFAULT NULL, grad_unreduced TEXT DEFAULT NULL)`,
	`CREATE TABLE trend_data (
    rank INTEGER NOT NULL,
    step INTEGER NOT NULL,
    target_id INTEGER NOT NULL,
    metric_id INTEGER NOT NULL,
    norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL,
    PRIMARY KEY (rank, step, target_id, metric_id),
    FOREIGN KEY (target_id) REFERENCES monitoring_targets(target_id),
    FOREIGN KEY (metric_id) REFERENCES monitoring_metrics(metric_id)) WITHOUT ROWID`,
}

// trendStatList is the global_stats text of each metric (set order in
// msprobe; any order is valid).
const trendStatList = "norm,min,max,mean"

// createTrendDB makes a fresh database file at path with the schema and the
// fast-write pragmas. An existing file is replaced.
func createTrendDB(path string) (*sql.DB, error) {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	for _, q := range append([]string{"PRAGMA journal_mode=OFF", "PRAGMA synchronous=OFF", "PRAGMA cache_size=-65536", "PRAGMA locking_mode=EXCLUSIVE"}, trendDDL...) {
		if _, err := db.Exec(q); err != nil {
			db.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	return db, nil
}

// tagsOf splits a target name into msprobe's UI tags: every non-numeric
// segment is a "module" tag, "<word>.<n>" a "layer" tag.
func tagsOf(name string) (tags [][2]string) {
	seg := strings.Split(name, ".")
	for i, s := range seg {
		if isDigits(s) {
			if i > 0 {
				tags = append(tags, [2]string{seg[i-1] + "." + s, "layer"})
			}
			continue
		}
		tags = append(tags, [2]string{s, "module"})
	}
	return tags
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// writeDimensions fills monitoring_metrics, monitoring_targets, tags and
// global_stats. Target ids are 1..len(names) in order.
func writeDimensions(tx *sql.Tx, names []string, maxStep, maxRank int) error {
	for _, m := range []string{MetricUnreduced, MetricReduced} {
		if _, err := tx.Exec(`INSERT INTO monitoring_metrics (metric_name) VALUES (?)`, m); err != nil {
			return err
		}
	}
	for _, n := range names {
		if _, err := tx.Exec(`INSERT INTO monitoring_targets (target_name, vpp_stage, micro_step) VALUES (?, 0, 0)`, n); err != nil {
			return err
		}
	}
	// msprobe inserts the tags of the last metric first (formats.md §2.1).
	for _, metric := range []int{2, 1} {
		for ti, n := range names {
			for _, t := range tagsOf(n) {
				if _, err := tx.Exec(`INSERT OR IGNORE INTO monitoring_tags (tag_name, category, metric_id) VALUES (?, ?, ?)`, t[0], t[1], metric); err != nil {
					return err
				}
				if _, err := tx.Exec(`INSERT OR IGNORE INTO tag_target_mapping (tag_id, target_id)
					SELECT tag_id, ? FROM monitoring_tags WHERE tag_name = ? AND category = ? AND metric_id = ?`, ti+1, t[0], t[1], metric); err != nil {
					return err
				}
			}
		}
	}
	_, err := tx.Exec(`INSERT INTO global_stats (min_step, max_step, max_rank, grad_reduced, grad_unreduced) VALUES (0, ?, ?, ?, ?)`,
		maxStep, maxRank, trendStatList, trendStatList)
	return err
}

// beginTrendDB creates the database file at path, opens its one write
// transaction and writes the dimension tables for params (their squashed
// names) up to maxStep and maxRank; the caller defers db.Close and
// tx.Rollback and commits.
func beginTrendDB(path string, params []Param, maxStep, maxRank int) (*sql.DB, *sql.Tx, error) {
	db, err := createTrendDB(path)
	if err != nil {
		return nil, nil, err
	}
	tx, err := db.Begin()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.Squashed
	}
	if err := writeDimensions(tx, names, maxStep, maxRank); err != nil {
		tx.Rollback()
		db.Close()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return db, tx, nil
}

// insertTrendRows is the INSERT of n trend_data rows (8 values each).
func insertTrendRows(n int) string {
	return "INSERT INTO trend_data (rank, step, target_id, metric_id, norm, min, max, mean) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?),", n), ",")
}

// WriteTrendDB writes the anomalous device's monitor data as msprobe
// `data2db --micro_step true` would from its CSV tree.
func (r *Run) WriteTrendDB(path string) error { return r.WriteTrendDBFor(path, Anomalous) }

// WriteTrendDBFor writes the given device's trend.db.
func (r *Run) WriteTrendDBFor(path string, dev Device) error {
	c := r.Cfg
	db, tx, err := beginTrendDB(path, r.Params, c.OptSteps*c.Window-1, c.Ranks-1)
	if err != nil {
		return err
	}
	defer db.Close()
	defer tx.Rollback()
	st, err := tx.Prepare(insertTrendRows(1))
	if err != nil {
		return err
	}
	defer st.Close()
	P := len(r.Params)
	for rank := 0; rank < c.Ranks; rank++ {
		for s := 0; s < c.OptSteps; s++ {
			for m := 0; m < c.Window; m++ {
				step := s*c.Window + m
				for p := 0; p < P; p++ {
					if err := insertStat(st, rank, step, p+1, 1, r.unreduced[dev][r.uIndex(rank, s, m, p)]); err != nil {
						return err
					}
					if m == 0 {
						if err := insertStat(st, rank, step, p+1, 2, r.reduced[dev][s*P+p]); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}

func insertStat(st *sql.Stmt, rank, step, target, metric int, g GradStat) error {
	_, err := st.Exec(rank, step, target, metric,
		trendValue(stored(g.Norm)), trendValue(stored(g.Min)), trendValue(stored(g.Max)), trendValue(stored(g.Mean)))
	return err
}
