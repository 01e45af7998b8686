package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/model"
)

// newRows is how many rows the replacement files of these tests hold: the
// live tests' rows of the first half of the steps (the old file has all).
const newRows = liveRanks * (liveSteps / 2) * liveTargets

// writeReplacement writes, at path, the live tests' database cut to the
// first half of its steps: in WAL mode with the given page size (closed:
// no -wal left), or in rollback-journal mode when walMode is false.
func writeReplacement(t testing.TB, path string, walMode bool, pageSize int) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	for _, q := range []string{fmt.Sprintf("PRAGMA page_size=%d", pageSize), map[bool]string{true: "PRAGMA journal_mode=WAL", false: "PRAGMA journal_mode=DELETE"}[walMode]} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := fillLiveDB(db); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(fmt.Sprintf(`DELETE FROM trend_data WHERE step >= %d`, liveSteps/2)); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatal("the replacement left a -wal")
	}
}

// sqliteRows is how many rows a plain read-only SQLite open sees: what the
// reader did before it checked the log.
func sqliteRows(t *testing.T, path string) int {
	t.Helper()
	raw, err := sql.Open("sqlite", sqliteURI(path, false))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM trend_data`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// files lists the folder's names and sizes (nothing may be written there).
func files(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		st, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%d", e.Name(), st.Size()))
	}
	return strings.Join(out, " ")
}

// A new trend.db in rollback-journal mode renamed over one whose WAL writer
// crashed or still runs: SQLite replays the old file's log over the new
// file (a plain read sees all of the old rows); the reader sees the new
// file's rows, says why, and writes nothing next to it.
func TestTrendDBStaleWALBesideRenamedFile(t *testing.T) {
	for _, alive := range []bool{false, true} {
		t.Run(map[bool]string{false: "crashed writer", true: "live writer"}[alive], func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "monitor.trend.db")
			_, kill := startWriter(t, "wal", path)
			if !alive {
				kill()
			}
			next := filepath.Join(dir, ".next.trend.db")
			writeReplacement(t, next, false, 4096)
			if err := os.Rename(next, path); err != nil {
				t.Fatal(err)
			}
			if n := sqliteRows(t, path); n != liveRanks*liveSteps*liveTargets {
				t.Fatalf("a plain SQLite read saw %d rows: the old log was not replayed, the test shows nothing", n)
			}
			before := files(t, dir)
			d, err := LoadTrendDB(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if d.Rows.Len() != newRows {
				t.Fatalf("%d rows read, the new file has %d (the old one %d)", d.Rows.Len(), newRows, liveRanks*liveSteps*liveTargets)
			}
			w := strings.Join(said(d.WarningsReasons), "\n")
			if !strings.HasPrefix(d.ReadMode, ReadModeWithoutWAL) || !strings.Contains(w, "monitor.trend.db-wal holds committed pages of another file: this database is in rollback-journal mode") {
				t.Errorf("mode %q warnings %q", d.ReadMode, said(d.WarningsReasons))
			}
			if after := files(t, dir); after != before {
				t.Errorf("files next to the database changed: %s → %s", before, after)
			}
			kill()
		})
	}
}

// A new trend.db in WAL mode renamed over one with a live WAL writer: the
// files alone cannot tell the log is not its own (same mode, same page
// size), but the log generation was beside the file this process read
// before at the path — the follower's case. The new file's rows are
// shown, on every later read too.
func TestFollowTrendDBStaleWALOfReplacedFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "monitor.trend.db")
	release, _ := startWriter(t, "wal", path)
	f, err := FollowMonitor(context.Background(), path, model.FormatTrendDB, nil)
	if err != nil {
		t.Fatal(err)
	}
	checkCommitted(t, f.Data())
	// the same file read again: its own log (all its rows) is read
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil || d.ReadMode != ReadModeReadOnly {
		t.Fatalf("the writer's own file read again: %v, mode %q", err, modeOf(d))
	}
	checkCommitted(t, d)
	next := filepath.Join(dir, ".next.trend.db")
	writeReplacement(t, next, true, 4096)
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	if n := sqliteRows(t, path); n == newRows {
		t.Fatalf("a plain SQLite read saw the new file's %d rows: the old log was not replayed, the test shows nothing", n)
	}
	p := poll(t, f)
	if !p.Reread || f.Data().Rows.Len() != newRows {
		t.Fatalf("after the poll (%+v): %d rows, the new file has %d", p, f.Data().Rows.Len(), newRows)
	}
	if w := strings.Join(said(f.Data().WarningsReasons), "\n"); !strings.Contains(w, "monitor.trend.db-wal holds committed pages of another file: it was beside the file read before at this path") {
		t.Errorf("warnings %q", said(f.Data().WarningsReasons))
	}
	// read again while the old writer's log is still there: still not applied
	d, err = LoadTrendDB(context.Background(), path, nil)
	if err != nil || d.Rows.Len() != newRows || !strings.HasPrefix(d.ReadMode, ReadModeWithoutWAL) {
		t.Fatalf("second read: %v, %d rows, mode %q", err, rowsOf(d), modeOf(d))
	}
	release()
}

func rowsOf(d *model.MonitorData) int {
	if d == nil {
		return -1
	}
	return d.Rows.Len()
}

func modeOf(d *model.MonitorData) string {
	if d == nil {
		return ""
	}
	return d.ReadMode
}

// A WAL database of another page size renamed over the log's file: told
// from the files, on the first read.
func TestTrendDBStaleWALOtherPageSize(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "monitor.trend.db")
	_, kill := startWriter(t, "wal", path)
	kill()
	next := filepath.Join(dir, ".next.trend.db")
	writeReplacement(t, next, true, 1024)
	if err := os.Rename(next, path); err != nil {
		t.Fatal(err)
	}
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != newRows || !strings.Contains(strings.Join(said(d.WarningsReasons), "\n"), "its page size is 4096, the database's 1024") {
		t.Fatalf("%d rows (want %d), warnings %q", d.Rows.Len(), newRows, said(d.WarningsReasons))
	}
}

// walCommitted agrees with SQLite on what it would apply: a log whose
// first frame's checksum is broken, or whose frames carry other salts,
// has no valid commit (SQLite then replays nothing, and the file reads
// normally).
func TestWALCommittedValidFrames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "monitor.trend.db")
	_, kill := startWriter(t, "wal", path)
	kill()
	wal, err := os.ReadFile(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	h := readWALHeader(path + "-wal")
	if !h.valid || !walCommitted(path+"-wal", h) || h.pageSize != 4096 {
		t.Fatalf("the crashed writer's log: %+v", h)
	}
	for name, change := range map[string]func(b []byte){
		"checksum": func(b []byte) { b[walHeaderSize+16] ^= 1 },
		"salt":     func(b []byte) { b[walHeaderSize+8] ^= 1 },
		"page":     func(b []byte) { b[walHeaderSize+walFrameHeaderSize+100] ^= 1 },
	} {
		t.Run(name, func(t *testing.T) {
			d := t.TempDir()
			p := filepath.Join(d, "monitor.trend.db")
			next := filepath.Join(d, ".next.trend.db")
			writeReplacement(t, next, false, 4096)
			if err := os.Rename(next, p); err != nil {
				t.Fatal(err)
			}
			b := append([]byte(nil), wal...)
			change(b)
			if err := os.WriteFile(p+"-wal", b, 0o644); err != nil {
				t.Fatal(err)
			}
			if h := readWALHeader(p + "-wal"); !h.valid || walCommitted(p+"-wal", h) {
				t.Fatalf("a broken first frame: %+v", h)
			}
			// SQLite agrees: nothing of the log is replayed
			if n := sqliteRows(t, p); n != newRows {
				t.Fatalf("SQLite replayed a log readWALHeader calls empty: %d rows", n)
			}
		})
	}
	// a header of another checkpoint sequence (its checksum then fails)
	b := append([]byte(nil), wal...)
	b[15] ^= 1
	p := filepath.Join(t.TempDir(), "x-wal")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if h := readWALHeader(p); h.valid {
		t.Fatalf("a header with a wrong checksum: %+v", h)
	}
}

// A named pipe in the -wal's place is not opened (that would wait for a
// writer forever): the log counts as absent.
func TestReadWALHeaderNamedPipe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.trend.db-wal")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan walHeader, 1)
	go func() { done <- readWALHeader(p) }()
	select {
	case h := <-done:
		if h.valid || walCommitted(p, h) {
			t.Fatalf("a pipe read as a log: %+v", h)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("readWALHeader waits on a named pipe")
	}
}
