package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"spikescope/model"
)

// loadPagesAndSQL loads path with trend_data's pages decoded in Go and by
// SQL, on two workers (so that the reads split the data the same way on
// any machine); used: the first load was read from pages.
func loadPagesAndSQL(t *testing.T, path string) (pages, bySQL *model.MonitorData, used bool) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	n := pageLoads.Load()
	pages, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	used = pageLoads.Load() > n
	pagesOff = true
	defer func() { pagesOff = false }()
	bySQL, err = LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if pageLoads.Load() != n+1 && used {
		t.Fatal("the SQL load read pages")
	}
	return pages, bySQL, used
}

// rowsBits renders every row in series order, every column bit for bit.
func rowsBits(d *model.MonitorData) []string {
	d.Rows.SortSeries()
	r := &d.Rows
	out := make([]string, r.Len())
	for i := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "%d %d %d %d %d", r.RankOf(i), r.Step[i], r.MicroOf(i), r.TargetOf(i), r.MetricOf(i))
		for s := model.Stat(0); s < model.NumStats; s++ {
			fmt.Fprintf(&b, " %x", math.Float64bits(r.Value(s, i)))
		}
		out[i] = b.String()
	}
	return out
}

// sameLoads asserts two loads equal: rows, targets, metrics, warnings.
func sameLoads(t *testing.T, name string, a, b *model.MonitorData) {
	t.Helper()
	ra, rb := rowsBits(a), rowsBits(b)
	if !slices.Equal(ra, rb) {
		for i := range min(len(ra), len(rb)) {
			if ra[i] != rb[i] {
				t.Fatalf("%s: row %d of %d/%d differs:\npages %s\nSQL   %s", name, i, len(ra), len(rb), ra[i], rb[i])
			}
		}
		t.Fatalf("%s: %d rows from pages, %d by SQL", name, len(ra), len(rb))
	}
	if !slices.Equal(a.Targets, b.Targets) || !slices.Equal(a.Metrics, b.Metrics) || a.HasStat != b.HasStat || a.ExplicitMicro != b.ExplicitMicro {
		t.Errorf("%s: targets, metrics or statistics differ", name)
	}
	if wa, wb := said(a.WarningsReasons), said(b.WarningsReasons); !slices.Equal(wa, wb) {
		t.Errorf("%s: warnings\npages %q\nSQL   %q", name, wa, wb)
	}
}

// TestTrendDBPagesMatchSQL: on every trend.db of testdata, the page read
// gives the SQL read's rows, bit for bit, its targets and warnings.
func TestTrendDBPagesMatchSQL(t *testing.T) {
	var paths []string
	for _, pat := range []string{"../testdata/monitor/*.trend.db", "../testdata/msprobe-real/*/*.trend.db", "../testdata/msprobe-real/kit/*/*.trend.db", "../testdata/demo/*/trend.db"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d databases found", len(paths))
	}
	for _, p := range paths {
		pages, bySQL, used := loadPagesAndSQL(t, p)
		if !used {
			t.Errorf("%s: not read from pages", p)
		}
		if pages.Rows.Len() == 0 {
			t.Errorf("%s: no rows", p)
		}
		sameLoads(t, p, pages, bySQL)
	}
}

// writeManyPages writes a trend.db of many pages (interior pages two
// levels deep at 1 KiB pages) and sets its page size and reserved bytes
// (0: as written).
func writeManyPages(t testing.TB, path string, pageSize, reserved int) {
	t.Helper()
	WriteTrendDB(t, path, BenchShape{Ranks: 13, Targets: 40, Metrics: 2, Steps: 60})
	if pageSize == 0 && reserved == 0 {
		return
	}
	tls := libc.NewTLS()
	defer tls.Close()
	z, _ := libc.CString(path)
	defer libc.Xfree(tls, z)
	pp := tls.Alloc(8)
	defer tls.Free(8)
	if rc := sqlite3.Xsqlite3_open_v2(tls, z, pp, sqlite3.SQLITE_OPEN_READWRITE, 0); rc != sqlite3.SQLITE_OK {
		t.Fatalf("open: %d", rc)
	}
	db := libc.AtomicLoadPUintptr(pp)
	defer sqlite3.Xsqlite3_close_v2(tls, db)
	exec := func(q string) {
		zq, _ := libc.CString(q)
		defer libc.Xfree(tls, zq)
		if rc := sqlite3.Xsqlite3_exec(tls, db, zq, 0, 0, 0); rc != sqlite3.SQLITE_OK {
			t.Fatalf("%s: %s", q, libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db)))
		}
	}
	if pageSize > 0 {
		exec(fmt.Sprintf("PRAGMA page_size = %d", pageSize))
	}
	// after the page size (its pragma resets the reserve wanted)
	if reserved > 0 {
		p := tls.Alloc(4)
		defer tls.Free(4)
		libc.AtomicStorePInt32(p, int32(reserved))
		if rc := sqlite3.Xsqlite3_file_control(tls, db, 0, sqlite3.SQLITE_FCNTL_RESERVE_BYTES, p); rc != sqlite3.SQLITE_OK {
			t.Fatalf("reserve bytes: %d", rc)
		}
	}
	exec("VACUUM")
}

// TestTrendDBPagesLayouts: many pages, other page sizes and reserved
// bytes: the page read equals the SQL read.
func TestTrendDBPagesLayouts(t *testing.T) {
	for _, c := range []struct{ size, reserved int }{{0, 0}, {1024, 0}, {65536, 0}, {1024, 8}, {4096, 32}, {512, 0}} {
		path := filepath.Join(t.TempDir(), "p.trend.db")
		writeManyPages(t, path, c.size, c.reserved)
		name := fmt.Sprintf("page size %d, reserved %d", c.size, c.reserved)
		var got [2]int
		if err := withPagesConn(path, func(conn *rawConn, l *trendPages) error {
			got = [2]int{l.pageSize, l.pageSize - l.usable}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if c.size != 0 && got != [2]int{c.size, c.reserved} {
			t.Fatalf("%s: the database has %v", name, got)
		}
		pages, bySQL, used := loadPagesAndSQL(t, path)
		if !used {
			t.Errorf("%s: not read from pages", name)
		}
		if pages.Rows.Len() != 13*40*2*60 {
			t.Errorf("%s: %d rows", name, pages.Rows.Len())
		}
		sameLoads(t, name, pages, bySQL)
	}
}

// withPagesConn runs fn on a read connection of path inside a read
// transaction, with trend_data's page layout.
func withPagesConn(path string, fn func(*rawConn, *trendPages) error) error {
	conn, err := openRawConn("file:" + path + "?mode=ro")
	if err != nil {
		return err
	}
	defer conn.close()
	if err := conn.exec("BEGIN"); err != nil {
		return err
	}
	cols, err := tableColumns(conn, "trend_data")
	if err != nil {
		return err
	}
	l := trendPageLayout(conn, statColumns(cols), true, true)
	if l == nil {
		return fmt.Errorf("no page layout")
	}
	return fn(conn, l)
}

// walkRows is every row the page walk gives for lo..hi, as text, and the
// entries read from interior cells; its count must be as many.
func walkRows(conn *rawConn, l *trendPages, lo, hi [2]int64) ([]string, int, error) {
	f, err := newPageFetcher(conn, l.pageSize)
	if err != nil {
		return nil, 0, err
	}
	defer f.close()
	w := newPageWalker(l, f.page)
	if err := w.start(lo, hi); err != nil {
		return nil, 0, err
	}
	out, err := rowText(w, l.nStat)
	if err != nil {
		return nil, 0, err
	}
	// the count without decoding gives as many
	c := newPageWalker(l, f.page)
	if err := c.start(lo, hi); err != nil {
		return nil, 0, err
	}
	if n, err := c.count(); err != nil || n != len(out) {
		return nil, 0, fmt.Errorf("counted %d (%v), walked %d", n, err, len(out))
	}
	return out, w.interior, nil
}

// rowText renders every row of src (four keys, nStat statistics).
func rowText(src trendRows, nStat int) ([]string, error) {
	var out []string
	for {
		ok, err := src.next()
		if err != nil || !ok {
			return out, err
		}
		var b strings.Builder
		for i := range 4 {
			v, ok, what := src.colInt(i)
			fmt.Fprintf(&b, "%d %v %s ", v, ok, what)
		}
		for k := range nStat {
			v, kind := src.colStat(4 + k)
			fmt.Fprintf(&b, "%x %d ", math.Float64bits(v), kind)
		}
		out = append(out, b.String())
	}
}

// TestTrendDBPageWalkRanges: every (rank, step) range the reads use gives
// SQLite's rows in SQLite's order, entries of interior cells among them.
func TestTrendDBPageWalkRanges(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.trend.db")
	writeManyPages(t, path, 1024, 0)
	const mn, mx = math.MinInt64, math.MaxInt64
	ranges := [][2][2]int64{
		{{mn, mn}, {mx, mx}}, {{0, mn}, {0, mx}}, {{3, mn}, {7, mx}}, {{12, mn}, {40, mx}}, {{13, mn}, {20, mx}},
		{{-5, mn}, {-1, mx}}, {{5, 0}, {5, 59}}, {{5, 17}, {5, 17}}, {{5, 30}, {6, 2}}, {{2, 61}, {3, -1}},
	}
	err := withPagesConn(path, func(conn *rawConn, l *trendPages) error {
		interior := 0
		for _, r := range ranges {
			got, n, err := walkRows(conn, l, r[0], r[1])
			if err != nil {
				return fmt.Errorf("%v: %v", r, err)
			}
			interior += n
			sel := "SELECT rank, step, target_id, metric_id" + statSelect(statColumns(map[string]sqlColumn{"norm": {}, "min": {}, "max": {}, "mean": {}})) +
				" FROM trend_data WHERE (rank > ?1 OR rank = ?1 AND step >= ?2) AND (rank < ?3 OR rank = ?3 AND step <= ?4)"
			st, err := conn.prepare(sel, []any{r[0][0], r[0][1], r[1][0], r[1][1]})
			if err != nil {
				return err
			}
			want, err := rowText(st, l.nStat)
			st.close()
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("%v: %d rows walked, %d by SQL, or they differ", r, len(got), len(want))
			}
			if r[0][0] == mn && len(got) != 13*40*2*60 {
				return fmt.Errorf("the whole table: %d rows", len(got))
			}
		}
		if interior == 0 {
			return fmt.Errorf("no entry came from an interior cell")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestTrendDBPagesFallBack: what the page walk does not read — a text
// statistic, a text key, a NULL statistic beside numbers, a payload on an
// overflow page, a column added later, a rowid table — is read by SQL,
// with SQL's rows and words.
func TestTrendDBPagesFallBack(t *testing.T) {
	for _, c := range []struct {
		sql   string
		pages bool // still read from pages
	}{
		{"UPDATE trend_data SET norm = NULL WHERE rank = 3 AND step = 2", true},
		{"UPDATE trend_data SET min = 7 WHERE rank = 3 AND step = 2", true}, // an integer in a REAL column
		{"ALTER TABLE trend_data ADD COLUMN note TEXT", true},
		{"UPDATE trend_data SET norm = '2.5' WHERE rank = 9 AND step = 3 AND target_id = 2", true}, // stored as REAL
		{"UPDATE trend_data SET norm = 'n/a' WHERE rank = 9 AND step = 3 AND target_id = 2", false},
		{"UPDATE trend_data SET mean = x'00ff' WHERE rank = 1 AND step = 1 AND target_id = 1", false},
		{"UPDATE trend_data SET step = 'x' WHERE rank = 4 AND step = 1 AND target_id = 5", false},
		{"UPDATE trend_data SET rank = 4.5 WHERE rank = 4 AND step = 1 AND target_id = 5", false},
		{"ALTER TABLE trend_data ADD COLUMN note TEXT; UPDATE trend_data SET note = printf('%.5000c', 'x') WHERE rank = 2 AND step = 0 AND target_id = 3", false},
		{"CREATE TABLE t2 AS SELECT * FROM trend_data; DROP TABLE trend_data; ALTER TABLE t2 RENAME TO trend_data", false},
	} {
		path := filepath.Join(t.TempDir(), "r.trend.db")
		WriteTrendDB(t, path, BenchShape{Ranks: 12, Targets: 7, Metrics: 2, Steps: 6})
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range strings.Split(c.sql, "; ") {
			if _, err := db.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		db.Close()
		counted := pageCounts.Load()
		pages, bySQL, used := loadPagesAndSQL(t, path)
		if used != c.pages {
			t.Errorf("%q: read from pages %v, want %v", c.sql, used, c.pages)
		}
		// a load read from pages took its total from them too (whatever
		// the count gives, the loads above are the same)
		if c.pages && pageCounts.Load() == counted {
			t.Errorf("%q: read from pages, but its rows counted by SQL", c.sql)
		}
		if pages.Rows.Len() < 12*7*2*6-2 {
			t.Errorf("%q: %d rows", c.sql, pages.Rows.Len())
		}
		sameLoads(t, c.sql, pages, bySQL)
	}
}

// TestTrendDBPagesWALWriter: a writer process holds committed data only
// in the write-ahead log (never checkpointed), a later commit rewrites
// some of it, and an uncommitted write is open: the page read gives the
// committed state, as the SQL read does.
func TestTrendDBPagesWALWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.trend.db")
	release, _ := startWriter(t, "pages-wal", path)
	defer release()
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() < 100*4096 {
		t.Fatalf("no write-ahead log with the data: %v", err)
	}
	walks := fileWalks.Load()
	pages, bySQL, used := loadPagesAndSQL(t, path)
	if !used {
		t.Error("not read from pages")
	}
	if fileWalks.Load() != walks {
		t.Error("WAL mode: pages read from the file (they may be in the log)")
	}
	sameLoads(t, "wal", pages, bySQL)
	if pages.Rows.Len() != pagesWALRows {
		t.Fatalf("%d rows, want %d", pages.Rows.Len(), pagesWALRows)
	}
	second := 0
	for i := range pages.Rows.Len() {
		switch v := pages.Rows.Norm[i]; {
		case v == liveBogus:
			t.Fatal("an uncommitted value was read")
		case v == 2:
			second++
		}
	}
	if second != 12*30 {
		t.Errorf("%d rows of the second commit, want %d", second, 12*30)
	}
}

const pagesWALRows = 12 * 30 * 20

// pagesWALWriter is the writer process of TestTrendDBPagesWALWriter.
func pagesWALWriter(db *sql.DB, must func(string)) {
	must(`PRAGMA journal_mode=WAL`)
	must(`PRAGMA wal_autocheckpoint=0`)
	for _, q := range []string{ddlTargets, ddlMetrics, ddlTrend, `INSERT INTO monitoring_metrics VALUES(1, 'grad_unreduced')`} {
		must(q)
	}
	must(`BEGIN`)
	for tg := 0; tg < 20; tg++ {
		must(fmt.Sprintf(`INSERT INTO monitoring_targets VALUES(%d, 'layers.%d.weight', 0, 0)`, tg+1, tg))
	}
	must(`WITH RECURSIVE r(x) AS (SELECT 0 UNION ALL SELECT x+1 FROM r WHERE x < 11),
		s(y) AS (SELECT 0 UNION ALL SELECT y+1 FROM s WHERE y < 29),
		t(z) AS (SELECT 1 UNION ALL SELECT z+1 FROM t WHERE z < 20)
		INSERT INTO trend_data SELECT x, y, z, 1, 1 + (x*7 + y*3 + z) % 10 * 0.01, -1, 1, 0 FROM r, s, t`)
	must(`COMMIT`)
	must(`UPDATE trend_data SET norm = 2 WHERE target_id = 5`)
	must(`BEGIN IMMEDIATE`)
	must(fmt.Sprintf(`UPDATE trend_data SET norm = %g`, liveBogus))
}

// TestTrendDBPagesTruncatedWhileRead: a process that ignores SQLite's
// locks cuts the file short while its pages are read — from the file
// itself (a read comes back short), and mapped through sqlite_dbpage (a
// fault): the load fails with a message instead of reading on or
// crashing.
func TestTrendDBPagesTruncatedWhileRead(t *testing.T) {
	for _, fromFile := range []bool{true, false} {
		t.Run(fmt.Sprintf("from-file=%v", fromFile), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "p.trend.db")
			writeManyPages(t, path, 1024, 0)
			// one worker: one walk of the whole table, begun before the cut
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			pageFilesOff = !fromFile
			defer func() { pageFilesOff = false }()
			var fetched atomic.Int64
			pageFetchHook = func() {
				if fetched.Add(1) == 20 {
					if err := os.Truncate(path, 8192); err != nil {
						t.Error(err)
					}
				}
			}
			defer func() { pageFetchHook = nil }()
			walks := fileWalks.Load()
			_, err := LoadTrendDB(context.Background(), path, nil)
			if err == nil || !strings.Contains(err.Error(), "cut short while it was read") {
				t.Fatalf("error %v", err)
			}
			if read := fileWalks.Load() > walks; read != fromFile {
				t.Fatalf("pages read from the file: %v, want %v", read, fromFile)
			}
		})
	}
}
