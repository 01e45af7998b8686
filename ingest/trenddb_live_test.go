package ingest

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/model"
)

// Live and crashed writers: a second process (this test binary, re-run as
// TestSQLiteWriterProcess) writes a trend.db while LoadTrendDB reads it.

const (
	liveRanks, liveTargets, liveSteps = 4, 100, 50
	// liveBogus is what the writers put in uncommitted rows: it must never
	// be read.
	liveBogus = 5e6
)

// liveNorm is the committed norm of a row.
func liveNorm(r, t, s int) float64 { return 1 + 0.01*float64((r*7+t*3+s)%10) }

// fillLiveDB creates the tables and rows of the live tests in db.
func fillLiveDB(db *sql.DB) error {
	for _, q := range []string{ddlTargets, ddlMetrics, ddlTrend, `INSERT INTO monitoring_metrics VALUES(1, 'grad_unreduced')`} {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	for t := 0; t < liveTargets; t++ {
		if _, err := tx.Exec(`INSERT INTO monitoring_targets VALUES(?, ?, 0, 0)`, t+1, fmt.Sprintf("layers.%d.mlp.linear_fc%d.weight", t/2, t%2+1)); err != nil {
			return err
		}
	}
	st, err := tx.Prepare(`INSERT INTO trend_data VALUES(?, ?, ?, 1, ?, 0, 0, 0)`)
	if err != nil {
		return err
	}
	for r := 0; r < liveRanks; r++ {
		for s := 0; s < liveSteps; s++ {
			for t := 0; t < liveTargets; t++ {
				if _, err := st.Exec(r, s, t+1, liveNorm(r, t, s)); err != nil {
					return err
				}
			}
		}
	}
	st.Close()
	return tx.Commit()
}

// TestSQLiteWriterProcess is the writer process of the live tests, not a
// test: SPIKESCOPE_TEST_WRITER=MODE:PATH. It prints "ready" once its
// transaction is open and holds it until stdin closes (or it is killed).
//
//	wal       create PATH in WAL mode (all data committed, in the -wal only),
//	          then hold an uncommitted write of liveBogus values
//	reserved  rollback journal: hold a small uncommitted write (RESERVED lock)
//	spill     rollback journal: an uncommitted write of every row with a tiny
//	          cache, so that half-written pages reach the database file
func TestSQLiteWriterProcess(t *testing.T) {
	spec := os.Getenv("SPIKESCOPE_TEST_WRITER")
	if spec == "" {
		t.Skip("the writer process of the live-database tests")
	}
	mode, path, _ := strings.Cut(spec, ":")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	must := func(q string) {
		if _, err := db.Exec(q); err != nil {
			fmt.Fprintln(os.Stderr, q, err)
			os.Exit(3)
		}
	}
	switch mode {
	case "append-wal", "append-delete", "append-impatient", "rewrite-wal", "rewrite-delete":
		snapWriter(t, db, mode, must) // trenddb_snap_test.go; does not return
	case "pages-wal":
		pagesWALWriter(db, must) // trenddb_pages_test.go
	case "try-commit":
		tryCommitWriter(db) // trenddb_pagefile_test.go; does not return
	case "wal":
		must(`PRAGMA journal_mode=WAL`)
		must(`PRAGMA wal_autocheckpoint=0`)
		if err := fillLiveDB(db); err != nil {
			t.Fatal(err)
		}
		must(`BEGIN IMMEDIATE`)
		must(fmt.Sprintf(`UPDATE trend_data SET norm = %g`, liveBogus))
	case "loop": // WAL: commit to a side table every few ms until stdin closes
		must(`PRAGMA journal_mode=WAL`)
		if err := fillLiveDB(db); err != nil {
			t.Fatal(err)
		}
		must(`CREATE TABLE scratch (x)`)
		stop := make(chan struct{})
		go func() { io.Copy(io.Discard, os.Stdin); close(stop) }()
		fmt.Println("ready")
		for {
			select {
			case <-stop:
				db.Close()
				os.Exit(0)
			case <-time.After(2 * time.Millisecond):
				must(`INSERT INTO scratch VALUES (1)`)
			}
		}
	case "reserved":
		must(`PRAGMA journal_mode=DELETE`)
		must(`BEGIN IMMEDIATE`)
		must(fmt.Sprintf(`UPDATE trend_data SET norm = %g WHERE rank = 0 AND step = 7`, liveBogus))
	case "spill":
		must(`PRAGMA journal_mode=DELETE`)
		must(`PRAGMA cache_size=2`)
		must(`BEGIN`)
		must(fmt.Sprintf(`UPDATE trend_data SET norm = %g`, liveBogus))
	}
	fmt.Println("ready")
	io.Copy(io.Discard, os.Stdin)
	must(`ROLLBACK`)
	db.Close()
	os.Exit(0)
}

// startWriter runs the writer process and waits until its transaction is
// open. release lets it roll back and exit; kill crashes it (SIGKILL).
func startWriter(t *testing.T, mode, path string) (release, kill func()) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSQLiteWriterProcess$")
	cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_WRITER="+mode+":"+path)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if sc.Text() == "ready" {
				ready <- true
				io.Copy(io.Discard, stdout)
				return
			}
		}
		ready <- false
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("writer %s did not start", mode)
		}
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("writer %s: no ready", mode)
	}
	done := false
	finish := func(f func()) {
		if done {
			return
		}
		done = true
		f()
		cmd.Wait()
	}
	release = func() { finish(func() { stdin.Close() }) }
	kill = func() { finish(func() { cmd.Process.Signal(syscall.SIGKILL) }) }
	t.Cleanup(kill)
	return release, kill
}

// checkCommitted asserts that d holds exactly the committed rows.
func checkCommitted(t *testing.T, d *model.MonitorData) {
	t.Helper()
	if d.Rows.Len() != liveRanks*liveSteps*liveTargets {
		t.Fatalf("%d rows, want %d", d.Rows.Len(), liveRanks*liveSteps*liveTargets)
	}
	norm := d.Rows.Norm
	bad := 0
	for i := range norm {
		tgt := d.Targets[d.Rows.TargetOf(i)].Name
		var l, fc int
		fmt.Sscanf(tgt, "layers.%d.mlp.linear_fc%d.weight", &l, &fc)
		want := liveNorm(int(d.Rows.RankOf(i)), l*2+fc-1, int(d.Rows.Step[i]))
		if math.Abs(norm[i]-want) > 1e-12 {
			bad++
		}
	}
	if bad > 0 {
		t.Fatalf("%d rows differ from the committed values (uncommitted or half-written data was read)", bad)
	}
}

// A database that a live process writes in WAL mode: everything committed
// lives in the -wal file only (immutable=1 saw no tables), the open
// transaction's values must not be read.
func TestTrendDBLiveWALWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.trend.db")
	release, _ := startWriter(t, "wal", path)
	if _, err := os.Stat(path + "-wal"); err != nil {
		t.Fatal("the writer left no -wal:", err)
	}
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("live WAL database: %v", err)
	}
	checkCommitted(t, d)
	if d.ReadMode != ReadModeReadOnly || !strings.Contains(strings.Join(said(d.WarningsReasons), "\n"), "write-ahead log (live.trend.db-wal): its committed transactions were read") {
		t.Errorf("mode %q warnings %q", d.ReadMode, said(d.WarningsReasons))
	}
	release()
}

// A rollback-journal database with a live writer holding a write
// transaction: the committed state is read and the writer is named.
func TestTrendDBLiveJournalWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "live.trend.db")
	execFill(t, path)
	release, _ := startWriter(t, "reserved", path)
	if st, err := os.Stat(path + "-journal"); err != nil || st.Size() == 0 {
		t.Fatal("the writer has no journal:", err)
	}
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("live journal database: %v", err)
	}
	checkCommitted(t, d)
	if d.ReadMode != ReadModeReadOnly || !strings.Contains(strings.Join(said(d.WarningsReasons), "\n"), "another process holds a write transaction on it (live.trend.db-journal exists)") {
		t.Errorf("mode %q warnings %q", d.ReadMode, said(d.WarningsReasons))
	}
	release()
	// the writer's process is gone: the same file reads without a warning
	d, err = LoadTrendDB(context.Background(), path, nil)
	if err != nil || len(said(d.WarningsReasons)) != 0 {
		t.Fatalf("after the writer: %v %q", err, said(d.WarningsReasons))
	}
}

// A writer that is writing pages into the database file (it holds the
// exclusive lock): the reader waits, then refuses; it never reads them.
func TestTrendDBLiveCommittingWriter(t *testing.T) {
	defer func(d time.Duration) { sqliteBusyTimeout = d }(sqliteBusyTimeout)
	sqliteBusyTimeout = 300 * time.Millisecond
	path := filepath.Join(t.TempDir(), "live.trend.db")
	execFill(t, path)
	release, _ := startWriter(t, "spill", path)
	_, err := LoadTrendDB(context.Background(), path, nil)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "another process is committing a write to it") {
		t.Fatalf("got %v", err)
	}
	release()
}

// A writer that crashed mid-transaction leaves a hot journal and
// half-written pages: they are not analysed (immutable=1 read them as data).
func TestTrendDBCrashedWriterHotJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crash.trend.db")
	execFill(t, path)
	_, kill := startWriter(t, "spill", path)
	kill()
	if st, err := os.Stat(path + "-journal"); err != nil || st.Size() == 0 {
		t.Fatal("the crashed writer left no journal:", err)
	}
	// what an immutable reader sees: the crashed writer's values
	raw, err := sql.Open("sqlite", sqliteURI(path, true))
	if err != nil {
		t.Fatal(err)
	}
	var bogus int
	if err := raw.QueryRow(fmt.Sprintf(`SELECT count(*) FROM trend_data WHERE norm = %g`, liveBogus)).Scan(&bogus); err != nil || bogus == 0 {
		t.Fatalf("the crashed writer left no half-written rows to miss: %d (%v)", bogus, err)
	}
	raw.Close()
	_, err = LoadTrendDB(context.Background(), path, nil)
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "has a hot journal (crash.trend.db-journal): a writer crashed") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("got %v", err)
	}
	// and nothing was written next to it
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 2 {
		t.Errorf("files next to the database: %v", ents)
	}
}

// A WAL database with no -wal/-shm (no writer connected) is read as
// immutable: a plain read-only open would create both files next to it.
func TestTrendDBClosedWALReadsImmutableAndWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "closed.trend.db")
	release, _ := startWriter(t, "wal", path)
	release() // the last connection checkpoints and removes -wal, -shm
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("-wal still there")
	}
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCommitted(t, d)
	if !strings.HasPrefix(d.ReadMode, ReadModeImmutable) || !strings.Contains(d.ReadMode, "WAL mode") || len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "opened immutable, without SQLite's locking: it is in WAL mode with no -wal or -shm file") {
		t.Errorf("mode %q warnings %q", d.ReadMode, said(d.WarningsReasons))
	}
	ents, _ := os.ReadDir(filepath.Dir(path))
	if len(ents) != 1 {
		t.Errorf("files next to the database: %v", ents)
	}
}

// execFill writes the live tests' database in rollback-journal mode.
func execFill(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := fillLiveDB(db); err != nil {
		t.Fatal(err)
	}
}

// A database in a folder nobody may write, with no journal: no writer can
// exist, so it is read as immutable, and the mode says why.
func TestTrendDBReadOnlyFolderReadsImmutable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write any folder")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "ro.trend.db")
	execFill(t, path)
	os.Chmod(dir, 0o555)
	defer os.Chmod(dir, 0o755)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCommitted(t, d)
	if d.ReadMode != ReadModeImmutable+": its folder is not writable and it has no journal or write-ahead log" {
		t.Errorf("mode %q", d.ReadMode)
	}
}

// A writer that commits while the database is read: the reader says that
// the analysis is of the data as of the start of the read.
func TestTrendDBWriterCommittingDuringRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.trend.db")
	release, _ := startWriter(t, "loop", path)
	defer release()
	var warned bool
	for try := 0; try < 5 && !warned; try++ {
		d, err := LoadTrendDB(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		checkCommitted(t, d)
		warned = strings.Contains(strings.Join(said(d.WarningsReasons), "\n"), "another process committed to the database while it was read: the analysis is of the data as of ")
	}
	if !warned {
		t.Fatal("commits during five reads went unreported")
	}
}
