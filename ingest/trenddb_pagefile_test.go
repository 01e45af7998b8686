package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"spikescope/model"
)

// tryCommitWriter is the writer process of the lock tests
// (TestSQLiteWriterProcess, mode try-commit): one commit of a new norm in
// every row that does not wait for readers, then (WAL mode) a checkpoint
// that does not either; it prints "committed" or "busy …" and exits.
func tryCommitWriter(db *sql.DB) {
	say := func(err error) {
		if err != nil {
			fmt.Println("busy", strings.ReplaceAll(err.Error(), "\n", " "))
			os.Exit(0)
		}
	}
	conn, err := db.Conn(context.Background())
	say(err)
	for _, q := range []string{`PRAGMA busy_timeout=0`, `BEGIN IMMEDIATE`, `UPDATE trend_data SET norm = norm + 1`} {
		_, err := conn.ExecContext(context.Background(), q)
		say(err)
	}
	if _, err := conn.ExecContext(context.Background(), `COMMIT`); err != nil {
		conn.ExecContext(context.Background(), `ROLLBACK`)
		say(err)
	}
	// busy, log frames, frames checkpointed
	var busy, log, done int
	conn.QueryRowContext(context.Background(), `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &log, &done)
	fmt.Println("committed; checkpoint", busy, log, done)
	os.Exit(0)
}

// tryCommit runs tryCommitWriter on path in another process (SQLite's
// locks are per process) and returns what it said.
func tryCommit(t *testing.T, path string) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSQLiteWriterProcess$")
	cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_WRITER=try-commit:"+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Errorf("writer: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// TestTrendDBFilePagesKeepTheLoadsLocks: a rollback-journal load reads
// trend_data's pages from the database file, and a writer process still
// cannot commit while the load is under way (its shared locks hold) —
// half-way through the walks, after the count — but can once it is over.
// The control closes a descriptor of the file in the middle of a load,
// which drops every POSIX lock this process holds on it: there the writer
// commits, so the check would catch a descriptor of the file closed before
// the load's connections are. In WAL mode with a log that had no frame
// (read from the file too), the writer commits at once, and its
// checkpoint cannot copy the commit into the file under the load: the
// load gives the rows as they were.
func TestTrendDBFilePagesKeepTheLoadsLocks(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	for _, kind := range []string{"rollback", "a descriptor closed (control)", "empty log"} {
		t.Run(kind, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "l.trend.db")
			writeManyPages(t, path, 1024, 0)
			if kind == "empty log" {
				if err := os.WriteFile(path+"-wal", []byte("pending"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			// how many pages a load fetches
			var fetches atomic.Int64
			pageFetchHook = func() { fetches.Add(1) }
			defer func() { pageFetchHook = nil }()
			walks := fileWalks.Load()
			before, err := LoadTrendDB(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if fileWalks.Load() == walks {
				t.Fatal("the pages were not read from the file")
			}
			at := fetches.Load() * 3 / 4 // in the read, past the count
			if at < 10 {
				t.Fatalf("%d pages fetched", fetches.Load())
			}
			fetches.Store(0)
			var once sync.Once
			said := ""
			pageFetchHook = func() {
				if fetches.Add(1) < at {
					return
				}
				once.Do(func() {
					if kind == "a descriptor closed (control)" {
						f, err := os.Open(path)
						if err != nil {
							t.Error(err)
							return
						}
						f.Close()
					}
					said = tryCommit(t, path)
				})
			}
			d, err := LoadTrendDB(context.Background(), path, nil)
			pageFetchHook = nil
			if said == "" {
				t.Fatal("the writer did not run during the load")
			}
			t.Logf("the writer during the load: %s", said)
			switch kind {
			case "a descriptor closed (control)":
				if !strings.HasPrefix(said, "committed") {
					t.Fatalf("with a descriptor closed, the writer says %q", said)
				}
				return
			case "rollback":
				if !strings.HasPrefix(said, "busy") {
					t.Fatalf("a writer committed during a load that reads the file: %q", said)
				}
			case "empty log":
				// the checkpoint could not copy the frames (busy)
				if !strings.HasPrefix(said, "committed; checkpoint 1 ") {
					t.Fatalf("a WAL writer could not commit during a load, or its checkpoint ran: %q", said)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			if a, b := rowsBits(before), rowsBits(d); !slices.Equal(a, b) {
				t.Fatalf("%d of %d rows differ from the database's before the commit", countDiff(a, b), len(a))
			}
			if kind == "rollback" {
				if said := tryCommit(t, path); !strings.HasPrefix(said, "committed") {
					t.Fatalf("after the load, the writer says %q", said)
				}
			}
			// the commit is there for the next load
			after, err := LoadTrendDB(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := countDiff(rowsBits(before), rowsBits(after)); n == 0 {
				t.Fatal("the writer's commit is not in the next load")
			}
		})
	}
}

// loadFileAndDBPage loads path with its pages read from the file and
// through sqlite_dbpage (on two workers); file: the first read the file.
func loadFileAndDBPage(t *testing.T, path string) (fromFile, fromPager *model.MonitorData, file bool) {
	t.Helper()
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	walks, loads := fileWalks.Load(), pageLoads.Load()
	fromFile, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	file = fileWalks.Load() > walks
	pageFilesOff = true
	defer func() { pageFilesOff = false }()
	walks = fileWalks.Load()
	fromPager, err = LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fileWalks.Load() != walks || pageLoads.Load() != loads+2 {
		t.Fatal("not both loads read pages, or the second read the file")
	}
	return fromFile, fromPager, file
}

// TestTrendDBFilePagesWhereTheFileIsTheState: a rollback-journal
// database, an immutable one (WAL mode, no writer connected) and one whose
// write-ahead log has no frame (a stray -wal: SQLite reads it in WAL mode,
// every connection on WAL_READ_LOCK(0)) are read from the file, with the
// rows sqlite_dbpage's pages give; a WAL database with a writer's commits
// in its log is not (TestTrendDBPagesWALWriter).
func TestTrendDBFilePagesWhereTheFileIsTheState(t *testing.T) {
	for _, kind := range []string{"rollback", "immutable", "empty log"} {
		path := filepath.Join(t.TempDir(), "f.trend.db")
		writeManyPages(t, path, 1024, 0)
		switch kind {
		case "immutable":
			execSQL(t, path, `PRAGMA journal_mode=WAL`)
		case "empty log":
			if err := os.WriteFile(path+"-wal", []byte("pending"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		a, b, file := loadFileAndDBPage(t, path)
		if !file {
			t.Errorf("%s: not read from the file", kind)
		}
		if im := strings.HasPrefix(a.ReadMode, ReadModeImmutable); im != (kind == "immutable") {
			t.Errorf("%s: read mode %q", kind, a.ReadMode)
		}
		if a.Rows.Len() != 13*40*2*60 {
			t.Errorf("%s: %d rows", kind, a.Rows.Len())
		}
		sameLoads(t, kind, a, b)
	}
}

// TestOpenPageFileChecks: the file is read only when it agrees with
// SQLite: page 1 and the root page as SQLite's pager gives them, the
// page count; not a WAL database under locks (pages may be in the log).
func TestOpenPageFileChecks(t *testing.T) {
	for _, wal := range []bool{false, true} {
		path := filepath.Join(t.TempDir(), "c.trend.db")
		writeManyPages(t, path, 1024, 0)
		if wal {
			execSQL(t, path, `PRAGMA journal_mode=WAL`)
		}
		err := withPagesConn(path, func(conn *rawConn, l *trendPages) error {
			if (l.file == nil) != wal {
				return fmt.Errorf("read from the file: %v", l.file != nil)
			}
			f, err := newPageFetcher(conn, l.pageSize)
			if err != nil {
				return err
			}
			defer f.close()
			p, err := f.page(1)
			if err != nil {
				return err
			}
			p1 := slices.Clone(p)
			if p, err = f.page(l.root); err != nil {
				return err
			}
			root := slices.Clone(p)
			if wal {
				// the same pages without locks (immutable) are read
				if openPageFile(conn, l, false, p1, root) == nil {
					return fmt.Errorf("an immutable WAL database is not read from the file")
				}
				return nil
			}
			if openPageFile(conn, l, true, p1, root) == nil {
				return fmt.Errorf("the file is not read with the right pages")
			}
			mut := func(b []byte, i int) []byte { b = slices.Clone(b); b[i] ^= 1; return b }
			short := *l
			short.pageCount--
			for what, ok := range map[string]bool{
				"page 1 differs":        openPageFile(conn, l, true, mut(p1, 200), root) == nil,
				"the root page differs": openPageFile(conn, l, true, p1, mut(root, len(root)-1)) == nil,
				"another page count":    openPageFile(conn, &short, true, p1, root) == nil,
			} {
				if !ok {
					return fmt.Errorf("read from the file although %s", what)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatalf("wal %v: %v", wal, err)
		}
	}
}

// TestFileFetcherPages: the file fetcher's windows give every page as
// sqlite_dbpage does, fetched in file order, backwards, at random and in
// runs, up to the last page.
func TestFileFetcherPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.trend.db")
	writeManyPages(t, path, 1024, 0)
	err := withPagesConn(path, func(conn *rawConn, l *trendPages) error {
		if l.file == nil {
			return fmt.Errorf("the file is not read")
		}
		pf, err := newPageFetcher(conn, l.pageSize)
		if err != nil {
			return err
		}
		defer pf.close()
		n := int(l.pageCount)
		var order []uint32
		for p := 1; p <= n; p++ {
			order = append(order, uint32(p))
		}
		for p := n; p >= 1; p-- {
			order = append(order, uint32(p))
		}
		rng := rand.New(rand.NewPCG(1, 2))
		for range 3 * n {
			p := 1 + rng.IntN(n)
			for k := range rng.IntN(20) {
				order = append(order, uint32(min(n, p+k)))
			}
		}
		ff := newFileFetcher(l.file)
		defer ff.close()
		for i, p := range order {
			got, err := ff.page(p)
			if err != nil {
				return fmt.Errorf("fetch %d, page %d: %v", i, p, err)
			}
			want, err := pf.page(p)
			if err != nil {
				return err
			}
			if !slices.Equal(got, want) {
				return fmt.Errorf("fetch %d: page %d differs", i, p)
			}
		}
		if _, err := ff.page(uint32(n + 1)); err == nil {
			return fmt.Errorf("a page past the database was read")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
