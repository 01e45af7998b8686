package ingest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"spikescope/model"
)

// One load of a trend.db reads one state of it, however many connections
// it uses. SQLite gives each read transaction a consistent view, but the
// load reads on several connections at once (the schema and counts on one,
// the key ranges in parallel), and a writer that commits between two of
// them would give each another view. So every connection of a load starts
// its read transaction at the same state:
//
//   - WAL mode: the first connection (the holder) opens a read transaction
//     and takes its snapshot (sqlite3_snapshot_get); every other connection
//     opens that snapshot (sqlite3_snapshot_open). The holder keeps its
//     transaction open until the load ends, which keeps the snapshot
//     available (no checkpoint can overwrite it). The writer is never
//     blocked: it goes on appending to the log.
//   - rollback-journal mode: the holder and one connection per worker each
//     take SQLite's shared lock at the start and keep it until the load
//     ends. No commit can land while one is held, so all of them see the
//     same committed state. A writer that was about to commit between two
//     of them (it holds the pending lock, which new readers must wait for)
//     gets its way: the locks taken are released and taken again after its
//     commit. A writer then waits for the read, as for any SQLite reader.
//   - immutable: no writer can exist; every connection reads the file.
//
// The data analysed is the database as of the start of the read; what a
// writer commits meanwhile is not read, and the load says so.
//
// Where the database file itself is that state for the whole load
// (fileState: immutable, rollback-journal mode, a WAL log that had no
// frame), trend_data's pages are read from the file, through the holder's
// own descriptor, which closes with the holder (trenddb_pagefile.go): no
// descriptor of the file is opened or closed by the load, so no POSIX lock
// of SQLite's is dropped.

// trendSnap is the state every connection of one load reads.
type trendSnap struct {
	uri    string
	holder *rawConn // holds the read transaction for the whole load
	snap   uintptr  // WAL: the holder's *sqlite3_snapshot; 0 otherwise
	at     time.Time
	stamp  string // fileStamp of the database and its -wal once the state was taken
	locked bool   // read with SQLite's locking (not immutable)
	// emptyWAL: WAL mode, but the log had no frame when the holder began
	// (no snapshot to share)
	emptyWAL bool
	// writerWaiting (rollback journal) tells a writer waiting for the
	// load's shared locks; nil when none can wait or it cannot be told
	writerWaiting func() bool

	mu   sync.Mutex
	free []*rawConn // connections at the state, not in use
	all  []*rawConn
}

// A rollback-journal writer waits for the load's shared locks. When one
// has waited writerWaitLimit (most writers give up after 5 s: Python's
// sqlite3 default), the load stops, lets it commit and starts again at the
// new state, up to writerYieldTries reads; then it refuses.
var writerWaitLimit = time.Second

const writerYieldTries = 4

// errWriterWaits is the cause that stops a load for a waiting writer.
var errWriterWaits = errors.New("a writer waits to commit")

// yieldToWriter returns the context of a read at s's state, cancelled when
// a rollback-journal writer has waited writerWaitLimit for it, and stop,
// which ends the watch and reports whether it did that.
func (s *trendSnap) yieldToWriter(ctx context.Context) (context.Context, func() bool) {
	waiting := s.writerWaiting
	if waiting == nil {
		return ctx, func() bool { return false }
	}
	rctx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(writerWaitLimit / 20)
		defer tick.Stop()
		var since time.Time
		for {
			select {
			case <-done:
				return
			case <-rctx.Done():
				return
			case now := <-tick.C:
				switch {
				case !waiting():
					since = time.Time{}
				case since.IsZero():
					since = now
				case now.Sub(since) >= writerWaitLimit:
					cancel(errWriterWaits)
					return
				}
			}
		}
	}()
	return rctx, func() bool {
		close(done)
		<-finished
		yielded := errors.Is(context.Cause(rctx), errWriterWaits)
		cancel(nil)
		return yielded
	}
}

// snapAcquireTries bounds how often the rollback-mode locks are taken
// again because a writer was committing.
const snapAcquireTries = 200

// openTrendSnap starts the read transaction every connection of a load
// shares (see above); workers is how many connections read in parallel.
// immutable: the database is opened without locking (nothing can change).
func openTrendSnap(ctx context.Context, uri, abs string, immutable bool, workers int) (*trendSnap, error) {
	for try := 0; ; try++ {
		s, busy, err := tryTrendSnap(uri, abs, immutable, workers)
		if err != nil || !busy {
			return s, err
		}
		if try == snapAcquireTries {
			return nil, fmt.Errorf("another process kept committing to it: a consistent state could not be locked for reading in %d tries", snapAcquireTries)
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// the writer commits now; the next holder waits for it (busy timeout)
		time.Sleep(time.Millisecond)
	}
}

// tryTrendSnap is one attempt; busy reports a writer that took the pending
// lock while the rollback-mode locks were being taken.
func tryTrendSnap(uri, abs string, immutable bool, workers int) (s *trendSnap, busy bool, err error) {
	s = &trendSnap{uri: uri}
	defer func() {
		if err != nil || busy {
			s.close()
			s = nil
		}
	}()
	h, err := s.open()
	if err != nil {
		return s, false, err
	}
	s.holder, s.at = h, time.Now()
	if immutable {
		s.stamp = fileStamp(abs)
		return s, false, nil
	}
	s.locked = true
	if err := h.exec("BEGIN"); err != nil {
		return s, false, err
	}
	if _, err := h.queryAll("SELECT count(*) FROM sqlite_master"); err != nil {
		return s, false, err
	}
	s.at = time.Now()
	if p, ok := h.snapshotGet(); ok {
		s.snap = p // WAL: the workers' connections open this snapshot
	} else if mode, err := h.queryAll("PRAGMA journal_mode"); err != nil {
		return s, false, err
	} else if len(mode) == 1 && cellString(mode[0][0]) == "wal" {
		// a log without a frame yet has no snapshot to share: the holder
		// reads the database file alone, and so does a worker's connection
		// as long as the log is still empty (join checks)
		s.emptyWAL = true
	}
	// every worker's connection now, while the holder's transaction keeps
	// the state: it cannot be checkpointed away (WAL), no commit can land
	// (rollback journal)
	for range workers {
		c, err := s.open()
		if err != nil {
			return s, false, err
		}
		busy, err := s.join(c)
		if busy || err != nil {
			return s, busy, err
		}
		s.free = append(s.free, c)
	}
	s.stamp = fileStamp(abs)
	if s.snap == 0 && !s.emptyWAL {
		s.writerWaiting = writerWaitingCheck(abs)
	}
	return s, false, nil
}

// join starts c's read transaction at the holder's state. busy: the state
// cannot be joined now (a rollback-mode writer holds the pending lock, or
// the write-ahead log was restarted under a holder that reads the
// database file alone); the caller takes a new state.
func (s *trendSnap) join(c *rawConn) (busy bool, err error) {
	if s.snap != 0 {
		// a first read opens the connection's write-ahead log, which
		// sqlite3_snapshot_open needs; its transaction ends with it
		if _, err := c.queryAll("SELECT count(*) FROM sqlite_master"); err != nil {
			return false, err
		}
		if err := c.exec("BEGIN"); err != nil {
			return false, err
		}
		z := mainSchema(c.tls)
		rc := sqlite3.Xsqlite3_snapshot_open(c.tls, c.db, z, s.snap)
		libc.Xfree(c.tls, z)
		switch {
		case rc == sqlite3.SQLITE_ERROR_SNAPSHOT:
			return true, nil
		case rc != sqlite3.SQLITE_OK:
			return false, c.err(rc)
		}
		return false, nil
	}
	if s.emptyWAL {
		if err := c.exec("BEGIN"); err != nil {
			return false, err
		}
		if _, err := c.queryAll("SELECT count(*) FROM sqlite_master"); err != nil {
			return false, err
		}
		if p, ok := c.snapshotGet(); ok {
			// the log has a commit the holder does not see: take a new state
			sqlite3.Xsqlite3_snapshot_free(c.tls, p)
			return true, nil
		}
		return false, nil
	}
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, 0)
	defer setBusyTimeout(c.tls, c.db)
	if err := c.exec("BEGIN"); err != nil {
		return false, err
	}
	if _, err := c.queryAll("SELECT count(*) FROM sqlite_master"); err != nil {
		if code := sqlite3.Xsqlite3_extended_errcode(c.tls, c.db); code&0xff == sqliteBusy || code&0xff == sqliteLocked {
			return true, nil
		}
		return false, err
	}
	return false, nil
}

// open opens one more connection (tracked for close).
func (s *trendSnap) open() (*rawConn, error) {
	c, err := openRawConn(s.uri)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	s.all = append(s.all, c)
	s.mu.Unlock()
	return c, nil
}

// get returns a connection at the load's state; put gives it back.
func (s *trendSnap) get() (*rawConn, error) {
	s.mu.Lock()
	if n := len(s.free); n > 0 {
		c := s.free[n-1]
		s.free = s.free[:n-1]
		s.mu.Unlock()
		return c, nil
	}
	s.mu.Unlock()
	if s.locked {
		// every worker's connection was opened at the start: a new one
		// could not join the state
		return nil, errors.New("no connection left at the state read")
	}
	return s.open()
}

func (s *trendSnap) put(c *rawConn) {
	s.mu.Lock()
	s.free = append(s.free, c)
	s.mu.Unlock()
}

// close ends every read transaction and closes the connections.
func (s *trendSnap) close() {
	if s == nil {
		return
	}
	if s.snap != 0 {
		sqlite3.Xsqlite3_snapshot_free(s.holder.tls, s.snap)
		s.snap = 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.all {
		c.close() // a read transaction ends with its connection
	}
	s.all, s.free, s.holder = nil, nil, nil
}

// fileState reports whether the database file itself holds the load's
// state, unchanged while the load lasts (trenddb_pagefile.go): immutable;
// rollback-journal mode under the load's shared locks (rollback); WAL
// mode with a log that had no frame when every connection of the load
// began (emptyWAL). Not a WAL snapshot: its pages may be in the log.
func (s *trendSnap) fileState() (file, rollback bool) {
	rollback = s.locked && s.snap == 0 && !s.emptyWAL
	return !s.locked || rollback || s.emptyWAL, rollback
}

// asOf words the state read, for a warning when a writer committed since.
func (s *trendSnap) asOf(rows int) model.TrendAsOf {
	if !s.locked {
		return model.TrendAsOf{}
	}
	return model.TrendAsOf{Locked: true, At: s.at.Format("15:04:05.000"), Rows: rows}
}

// mainSchema is "main" as a C string; the caller frees it.
func mainSchema(tls *libc.TLS) uintptr {
	p, _ := libc.CString("main")
	return p
}

// snapshotGet records the state of the connection's open read transaction
// (WAL mode only: false otherwise).
func (c *rawConn) snapshotGet() (uintptr, bool) {
	pp := c.tls.Alloc(int(ptrSize))
	defer c.tls.Free(int(ptrSize))
	z := mainSchema(c.tls)
	defer libc.Xfree(c.tls, z)
	if rc := sqlite3.Xsqlite3_snapshot_get(c.tls, c.db, z, pp); rc != sqlite3.SQLITE_OK {
		return 0, false
	}
	return libc.AtomicLoadPUintptr(pp), true
}

// inTx reports whether the connection is inside BEGIN.
func (c *rawConn) inTx() bool {
	return c != nil && sqlite3.Xsqlite3_get_autocommit(c.tls, c.db) == 0
}

// exec runs a statement that returns no rows.
func (c *rawConn) exec(q string) error {
	st, err := c.prepare(q, nil)
	if err != nil {
		return err
	}
	defer st.close()
	for {
		ok, err := st.next()
		if err != nil || !ok {
			return err
		}
	}
}

// queryAll runs q with its arguments (int64 or string) and returns every
// row: int64, float64, string, []byte or nil per column. For the small
// queries of a load (schema, lookups, counts).
func (c *rawConn) queryAll(q string, args ...any) ([][]any, error) {
	st, err := c.prepare(q, args)
	if err != nil {
		return nil, err
	}
	defer st.close()
	n := int(sqlite3.Xsqlite3_column_count(c.tls, st.p))
	var out [][]any
	for {
		ok, err := st.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			return out, nil
		}
		row := make([]any, n)
		for i := range row {
			row[i] = st.value(i)
		}
		out = append(out, row)
	}
}

// value is column i as a Go value.
func (s *rawStmt) value(i int) any {
	switch sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)) {
	case sqlite3.SQLITE_INTEGER:
		return sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i))
	case sqlite3.SQLITE_FLOAT:
		return sqlite3.Xsqlite3_column_double(s.c.tls, s.p, int32(i))
	case sqlite3.SQLITE_TEXT:
		return s.text(i)
	case sqlite3.SQLITE_BLOB:
		p := sqlite3.Xsqlite3_column_blob(s.c.tls, s.p, int32(i))
		n := sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i))
		if p == 0 || n <= 0 {
			return []byte{}
		}
		return libc.GoBytes(p, int(n))
	}
	return nil
}
