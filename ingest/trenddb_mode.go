package ingest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"spikescope/model"
)

// How a trend.db is opened. SQLite promises a reader a committed state only
// when the reader takes part in its locking: a plain read-only connection
// (mode=ro) sees the committed contents of a write-ahead log, waits while a
// writer commits, and refuses a hot journal left by a crashed writer instead
// of reading its half-written pages. immutable=1 skips all of that and is
// used only where nothing can be writing the file:
//
//   - the folder is not writable and no -journal or -wal file exists (no
//     writer could create one), or
//   - the database is in WAL mode and neither -wal nor -shm exists (no
//     writer is connected; a plain read-only open would create both files
//     next to the user's data).
//
// After the load, a -wal or -journal that appeared meanwhile is reported.

// SQLite read modes, as worded in MonitorData.ReadMode.
const (
	ReadModeReadOnly  = "read-only (SQLite locking: sees committed data only)"
	ReadModeImmutable = "immutable (no writer possible: nothing written next to the file)"
)

// sqliteBusyTimeout is how long a read waits for a writer that is
// committing (it holds the database's exclusive lock).
var sqliteBusyTimeout = 5 * time.Second

// Extended result codes this file tells apart.
const (
	sqliteBusy             = 5
	sqliteLocked           = 6
	sqliteCantOpen         = 14
	sqliteReadOnly         = 8
	sqliteReadOnlyRollback = sqliteReadOnly | 3<<8
)

// sqlitePendingByte is the byte of the database file whose write lock is
// SQLite's pending lock (unix locking; the default sqlite3PendingByte).
const sqlitePendingByte = 0x40000000

// sqliteOpenPlan is the chosen mode of one trend.db.
type sqliteOpenPlan struct {
	uri      string
	mode     string               // ReadModeReadOnly or ReadModeImmutable
	why      string               // for immutable: why nothing can be writing
	whyR     model.TrendImmutable // why, as the warning's reason
	warnings []model.Reason       // a live writer seen at open
	abs      string
	sideAt   map[string]bool // companions present at open: "-journal", "-wal", "-shm"
	stampAt  string          // size and time of the file and its -wal at open
}

// fileStamp is the size and modification time of path and its -wal: a
// commit by another process changes one of them.
func fileStamp(abs string) string {
	var b strings.Builder
	for _, p := range []string{abs, abs + "-wal"} {
		if st, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%d@%d;", st.Size(), st.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}

// sqliteSide reports which companion files of abs exist (-journal counts
// only when not empty: an empty one is no transaction).
func sqliteSide(abs string) map[string]bool {
	side := map[string]bool{}
	for _, suf := range []string{"-journal", "-wal", "-shm"} {
		if st, err := os.Lstat(abs + suf); err == nil && (suf != "-journal" || st.Size() > 0) {
			side[suf] = true
		}
	}
	return side
}

// sqliteWALMode reports whether the database header says WAL (file format
// bytes 18 and 19 are 2).
func sqliteWALMode(path string) bool {
	f, _, err := OpenInputFile(path, "database", 0)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, 2)
	if _, err := f.ReadAt(b, 18); err != nil {
		return false
	}
	return b[0] == 2 && b[1] == 2
}

// folderWritable reports whether the process may create files in dir.
func folderWritable(dir string) bool {
	return syscall.Access(dir, 2 /* W_OK */) == nil
}

// planSQLiteOpen chooses the read mode of path (abs: its absolute path) and
// probes it once, so that a hot journal or a busy writer is worded here.
func planSQLiteOpen(path, abs string) (*sqliteOpenPlan, error) {
	side := sqliteSide(abs)
	p := &sqliteOpenPlan{abs: abs, sideAt: side, stampAt: fileStamp(abs)}
	switch {
	case !side["-journal"] && !side["-wal"] && !folderWritable(filepath.Dir(abs)):
		p.why = "its folder is not writable and it has no journal or write-ahead log"
		p.whyR = model.TrendImmutable{Why: model.ImmutableNotWritable}
	case !side["-wal"] && !side["-shm"] && sqliteWALMode(abs):
		p.why = "it is in WAL mode with no -wal or -shm file: no writer is connected"
		p.whyR = model.TrendImmutable{Why: model.ImmutableWALNoWriter}
	}
	if p.why != "" {
		p.mode, p.uri = ReadModeImmutable, sqliteURI(abs, true)
		return p, nil
	}
	p.mode, p.uri = ReadModeReadOnly, sqliteURI(abs, false)
	code, msg := probeSQLite(p.uri)
	switch {
	case code == 0:
	case code == sqliteReadOnlyRollback:
		return nil, inputErr(path, nil, "has a hot journal (%s): a writer crashed in the middle of a transaction and a read-only reader cannot roll it back, so its half-written changes are not analysed; to recover the last committed state, copy both files to another folder and open the copy once with sqlite3", filepath.Base(abs)+"-journal")
	case code&0xff == sqliteBusy || code&0xff == sqliteLocked:
		return nil, inputErr(path, nil, "another process is committing a write to it and held its lock for over %v; try again when the writer has finished", sqliteBusyTimeout)
	case !side["-journal"] && !side["-wal"] && (code&0xff == sqliteCantOpen || code&0xff == sqliteReadOnly):
		// a WAL database whose -shm cannot be created here, and the like:
		// with no journal or log, no writer's changes can be missed
		p.mode, p.uri = ReadModeImmutable, sqliteURI(abs, true)
		p.why = fmt.Sprintf("a read-only open failed (%s) and it has no journal or write-ahead log", oneLine(msg))
		p.whyR = model.TrendImmutable{Why: model.ImmutableReadOnlyFail, Message: oneLine(msg)}
		return p, nil
	default:
		return nil, sqliteProblem(path, fmt.Errorf("%s", msg))
	}
	if side["-journal"] {
		p.warnings = append(p.warnings, model.TrendWriteTransaction{Journal: filepath.Base(abs) + "-journal"})
	}
	if side["-wal"] && sqliteWALMode(abs) {
		p.warnings = append(p.warnings, model.TrendWAL{WAL: filepath.Base(abs) + "-wal"})
	}
	return p, nil
}

// probeSQLite opens uri and reads the schema once; it returns SQLite's
// extended result code (0: fine) and message.
func probeSQLite(uri string) (int32, string) {
	c, err := openRawConn(uri)
	if err != nil {
		return sqliteCantOpen, err.Error()
	}
	defer c.close()
	st, err := c.prepare("SELECT count(*) FROM sqlite_master", nil)
	if err != nil {
		return sqlite3.Xsqlite3_extended_errcode(c.tls, c.db), err.Error()
	}
	defer st.close()
	if _, err := st.next(); err != nil {
		return sqlite3.Xsqlite3_extended_errcode(c.tls, c.db), err.Error()
	}
	return 0, ""
}

// after reports what happened to the database while it was read at
// snap's state (rows: the data rows it held then): companions that
// appeared (a writer that started meanwhile: an immutable read did not
// see its changes), or commits since the state was taken, which are not
// in the analysis.
func (p *sqliteOpenPlan) after(snap *trendSnap, rows int) []model.Reason {
	now := sqliteSide(p.abs)
	var out []model.Reason
	for _, suf := range []string{"-journal", "-wal"} {
		if now[suf] && !p.sideAt[suf] {
			out = append(out, model.TrendAppeared{File: filepath.Base(p.abs) + suf, AsOf: snap.asOf(rows)})
		}
	}
	if len(out) == 0 && fileStamp(p.abs) != snap.stamp {
		out = append(out, model.TrendCommitted{AsOf: snap.asOf(rows)})
	}
	return out
}

// sqliteURI builds the "file:" URI for an absolute path, escaping the
// characters that a URI would otherwise interpret. mode=ro makes SQLite fail
// instead of creating a missing file; immutable=1 (see above) skips locking.
func sqliteURI(abs string, immutable bool) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	u := "file:" + r.Replace(filepath.ToSlash(abs)) + "?mode=ro"
	if immutable {
		u += "&immutable=1"
	}
	return u
}

// setBusyTimeout makes a raw connection wait for a committing writer.
func setBusyTimeout(tls *libc.TLS, db uintptr) {
	sqlite3.Xsqlite3_busy_timeout(tls, db, int32(sqliteBusyTimeout/time.Millisecond))
}
