package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"spikescope/model"
)

// A load of a trend.db reads one state of it while a writer process
// commits: appended steps (one commit per rank and step, so a step is
// often half written) or rewrites of every row (one commit sets every norm
// to 1000+i). In WAL and rollback-journal mode.

// snapWriterCommits bounds the commits of a writer.
const snapWriterCommits = 4000

// snapRewriteBase is the first norm a rewrite writer sets (then +1 each
// commit).
const snapRewriteBase = 1000

// snapWriter is the writer process's loop (TestSQLiteWriterProcess): it
// fills the database, prints "ready" and commits until stdin closes.
func snapWriter(t *testing.T, db *sql.DB, mode string, must func(string)) {
	kind, journal, _ := strings.Cut(mode, "-")
	fail := func(err error) { t.Fatal(err) }
	if journal == "impatient" {
		// a writer that gives up when it waited 300 ms to commit; it
		// leaves a file saying so
		journal = "delete"
		must(`PRAGMA busy_timeout=300`)
		fail = func(err error) {
			os.WriteFile(snapWriterFailed(db), []byte(err.Error()), 0o644)
			os.Exit(3)
		}
	} else {
		must(`PRAGMA busy_timeout=60000`) // rollback journal: readers hold the shared lock for a load
	}
	must(`PRAGMA journal_mode=` + journal)
	if err := fillLiveDB(db); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
	fmt.Println("ready")
	ins, err := db.Prepare(`INSERT INTO trend_data VALUES(?, ?, ?, 1, ?, 0, 0, 0)`)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		select {
		case <-stop:
			db.Close()
			os.Exit(0)
		case <-time.After(10 * time.Millisecond):
		}
		if i == snapWriterCommits {
			i--
			continue // enough: the test's loads must not grow without end
		}
		switch kind {
		case "append": // commit i: rank i%ranks of step liveSteps+i/ranks
			r, s := i%liveRanks, liveSteps+i/liveRanks
			tx, err := db.Begin()
			if err != nil {
				fail(err)
			}
			for tg := 0; tg < liveTargets; tg++ {
				if _, err := tx.Stmt(ins).Exec(r, s, tg+1, liveNorm(r, tg, s)); err != nil {
					fail(err)
				}
			}
			if err := tx.Commit(); err != nil {
				fail(err)
			}
		case "rewrite":
			must(fmt.Sprintf(`UPDATE trend_data SET norm = %d`, snapRewriteBase+i))
		}
	}
}

// asOfRE finds the row count of the "as of" warning.
var asOfRE = regexp.MustCompile(`the analysis is of the data as of \d\d:\d\d:\d\d\.\d{3}, when the read began \((\d+) data rows\)`)

// copyAt copies final (the database once the writer stopped) into a new
// file and takes it back to the state a load read: the appended commits
// after the load's rows removed, or the norms set to the version the load
// saw.
func copyAt(t *testing.T, final, kind string, d *model.MonitorData) string {
	t.Helper()
	b, err := os.ReadFile(final)
	if err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(t.TempDir(), "at.trend.db")
	if err := os.WriteFile(cp, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var q string
	switch kind {
	case "append":
		k := (d.Rows.Len() - liveRanks*liveSteps*liveTargets) / liveTargets // commits read
		r, s := k%liveRanks, liveSteps+k/liveRanks                          // the first commit not read
		q = fmt.Sprintf(`DELETE FROM trend_data WHERE step > %d OR (step = %d AND rank >= %d)`, s, s, r)
	case "rewrite":
		q = fmt.Sprintf(`UPDATE trend_data SET norm = %v`, d.Rows.Norm[0])
		if d.Rows.Norm[0] < snapRewriteBase { // before the first rewrite: the filled norms (liveNorm)
			q = `UPDATE trend_data SET norm = 1 + 0.01*((rank*7 + (target_id-1)*3 + step) % 10)`
		}
	}
	execSQL(t, cp, q)
	return cp
}

// vacuumCopy copies the database at path, its log included, into one
// rollback-journal file.
func vacuumCopy(t *testing.T, path string) string {
	t.Helper()
	cp := filepath.Join(t.TempDir(), "final.trend.db")
	src, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.Exec(`VACUUM INTO ?`, cp); err != nil {
		t.Fatal(err)
	}
	return cp
}

func TestTrendDBLoadReadsOneStateWhileAWriterCommits(t *testing.T) {
	for _, mode := range []string{"append-wal", "append-delete", "rewrite-wal", "rewrite-delete"} {
		t.Run(mode, func(t *testing.T) {
			kind, _, _ := strings.Cut(mode, "-")
			path := filepath.Join(t.TempDir(), "live.trend.db")
			release, _ := startWriter(t, mode, path)
			// 20 loads, and more (up to maxLoads) until one said that
			// the writer committed during its read. Every other load
			// reads by SQL: with a rollback journal, saying so needs the
			// writer to begin or commit during the load, which a load
			// of 12–19 ms (this database's pages decoded in Go) meets
			// far less often than one of 30–40 ms (by SQL)
			const loads, maxLoads = 20, 200
			var got []*model.MonitorData
			asOf, took := 0, time.Duration(0)
			for i := 0; i < loads || asOf == 0 && i < maxLoads; i++ {
				start := time.Now()
				pagesOff = i%2 == 1
				d, err := LoadTrendDB(context.Background(), path, nil)
				pagesOff = false
				took += time.Since(start)
				if err != nil {
					t.Fatalf("load %d of %d: %v", i+1, loads, err)
				}
				if m := asOfRE.FindStringSubmatch(strings.Join(said(d.WarningsReasons), "\n")); m != nil {
					asOf++
					if n, _ := strconv.Atoi(m[1]); n != d.Rows.Len() {
						t.Errorf("load %d: read %d rows, the warning says %d", i+1, d.Rows.Len(), n)
					}
				}
				got = append(got, d)
				time.Sleep(3 * time.Millisecond)
			}
			release()
			final := vacuumCopy(t, path)
			if asOf == 0 {
				t.Errorf("none of %d loads said that the writer committed during the read", len(got))
			}
			states := map[string]bool{}
			for i, d := range got {
				want := loadT(t, copyAt(t, final, kind, d))
				if a, b := rowSet(d), rowSet(want); !slices.Equal(a, b) {
					t.Fatalf("load %d (%d rows): not the database at any one commit: %d rows differ from its copy at that commit", i+1, d.Rows.Len(), countDiff(a, b))
				}
				states[fmt.Sprint(d.Rows.Len(), d.Rows.Norm[0])] = true
			}
			t.Logf("%d loads (%v each), %d distinct states, %d said the writer committed during the read", len(got), took/time.Duration(len(got)), len(states), asOf)
			if len(states) < 2 {
				t.Errorf("all %d loads read the same state: the writer did not commit between them", loads)
			}
		})
	}
}

func loadT(t *testing.T, path string) *model.MonitorData {
	t.Helper()
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// countDiff counts the entries of two sorted lists not in both.
func countDiff(a, b []string) int {
	n := 0
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			n++
		}
	}
	for _, x := range b {
		if _, ok := slices.BinarySearch(a, x); !ok {
			n++
		}
	}
	return n
}

// A WAL database whose log is empty: truncated after a checkpoint (a
// writer connected), it still has a snapshot to share; never written, it
// has none, and the connections read the database file.
func TestTrendDBEmptyWALIsReadInOneState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.trend.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, q := range []string{`PRAGMA journal_mode=WAL`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := fillLiveDB(db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(path + "-wal"); err != nil || st.Size() != 0 {
		t.Fatalf("the log is not empty: %v %v", st, err)
	}
	abs, _ := filepath.Abs(path)
	snap, err := openTrendSnap(context.Background(), sqliteURI(abs, false), abs, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	// a truncated log that was written before still has a snapshot
	if snap.emptyWAL || snap.snap == 0 || len(snap.free) != 2 {
		t.Errorf("truncated log: empty log %v, snapshot %v, %d connections", snap.emptyWAL, snap.snap != 0, len(snap.free))
	}
	snap.close()
	d := loadT(t, path)
	checkCommitted(t, d)
	if d.ReadMode != ReadModeReadOnly {
		t.Errorf("mode %q", d.ReadMode)
	}
	// a log that was never written (a stray -wal beside a database in
	// rollback-journal mode, which SQLite opens in WAL mode): no snapshot
	other := filepath.Join(t.TempDir(), "e.trend.db")
	execSQL(t, other, ddlTargets, ddlMetrics, ddlTrend)
	os.WriteFile(other+"-wal", []byte("pending"), 0o644)
	abs, _ = filepath.Abs(other)
	snap, err = openTrendSnap(context.Background(), sqliteURI(abs, false), abs, false, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.emptyWAL || snap.snap != 0 || len(snap.free) != 2 {
		t.Errorf("log never written: empty log %v, snapshot %v, %d connections", snap.emptyWAL, snap.snap != 0, len(snap.free))
	}
	snap.close()
}

// snapWriterFailed is the file an impatient writer leaves when a commit
// failed.
func snapWriterFailed(db *sql.DB) string {
	var path string
	db.QueryRow(`SELECT file FROM pragma_database_list WHERE name = 'main'`).Scan(&path)
	return path + ".writer-failed"
}

// A rollback-journal writer that waits at most 300 ms to commit never
// fails for a load: a load that keeps it waiting writerWaitLimit stops,
// lets it commit and reads again; each load gives the database at one
// commit, or — when the writer keeps committing through every try — says
// so and that WAL mode would let both work.
func TestTrendDBLoadYieldsToARollbackWriter(t *testing.T) {
	defer func(w time.Duration) { writerWaitLimit = w }(writerWaitLimit)
	writerWaitLimit = 20 * time.Millisecond
	path := filepath.Join(t.TempDir(), "live.trend.db")
	release, _ := startWriter(t, "append-impatient", path)
	if writerWaitingCheck(path) == nil {
		t.Skip("a waiting writer cannot be told here")
	}
	var got []*model.MonitorData
	refused := 0
	for i := 0; i < 10; i++ {
		d, err := LoadTrendDB(context.Background(), path, nil)
		if err != nil {
			if !strings.Contains(err.Error(), "another process kept committing to it while it was read (rollback-journal mode") {
				t.Fatalf("load %d: %v", i+1, err)
			}
			refused++
			continue
		}
		got = append(got, d)
	}
	release()
	if b, err := os.ReadFile(path + ".writer-failed"); err == nil {
		t.Fatalf("the writer's commit failed while loads read: %s", b)
	}
	final := vacuumCopy(t, path)
	for i, d := range got {
		want := loadT(t, copyAt(t, final, "append", d))
		if a, b := rowSet(d), rowSet(want); !slices.Equal(a, b) {
			t.Fatalf("load %d (%d rows): %d rows differ from the database at that commit", i+1, d.Rows.Len(), countDiff(a, b))
		}
	}
	t.Logf("%d loads read, %d refused", len(got), refused)
}
