package ingest

import (
	"errors"
	"fmt"
	"math"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is a read-only SQLite connection driven through the transpiled C
// API of modernc.org/sqlite/lib, for the bulk scan of trend_data only.
//
// Why not database/sql: the driver opens every connection with
// SQLITE_OPEN_FULLMUTEX, and each sqlite3_column_* call then takes the
// connection mutex — in modernc's emulated pthreads that was 60% of the
// scan's CPU time — and it boxes every value into an interface. A rawConn is
// opened with SQLITE_OPEN_NOMUTEX (safe: one goroutine owns it) and reads
// typed values directly. Schema queries still go through database/sql.
type rawConn struct {
	tls *libc.TLS
	db  uintptr
}

const ptrSize = unsafe.Sizeof(uintptr(0))

// openRawConn opens uri (a "file:…?mode=ro[&immutable=1]" URI) read-only.
func openRawConn(uri string) (*rawConn, error) {
	tls := libc.NewTLS()
	db, err := openRawDB(tls, uri)
	if err != nil {
		tls.Close()
		return nil, err
	}
	return &rawConn{tls: tls, db: db}, nil
}

func openRawDB(tls *libc.TLS, uri string) (uintptr, error) {
	s, err := libc.CString(uri)
	if err != nil {
		return 0, err
	}
	defer libc.Xfree(tls, s)
	pp := tls.Alloc(int(ptrSize))
	defer tls.Free(int(ptrSize))
	flags := int32(sqlite3.SQLITE_OPEN_READONLY | sqlite3.SQLITE_OPEN_URI | sqlite3.SQLITE_OPEN_NOMUTEX)
	rc := sqlite3.Xsqlite3_open_v2(tls, s, pp, flags, 0)
	db := libc.AtomicLoadPUintptr(pp) // sqlite3_open_v2 always sets *ppDb
	if rc != sqlite3.SQLITE_OK {
		msg := fmt.Sprintf("sqlite open failed (code %d)", rc)
		if db != 0 {
			msg = libc.GoString(sqlite3.Xsqlite3_errmsg(tls, db))
			sqlite3.Xsqlite3_close_v2(tls, db)
		}
		return 0, errors.New(msg)
	}
	setBusyTimeout(tls, db)
	return db, nil
}

func (c *rawConn) close() {
	sqlite3.Xsqlite3_close_v2(c.tls, c.db)
	c.tls.Close()
}

func (c *rawConn) err(rc int32) error {
	return fmt.Errorf("%s (code %d)", libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)), rc)
}

// prepare compiles q and binds integer or text args (?1, ?2, …).
func (c *rawConn) prepare(q string, args []any) (*rawStmt, error) {
	zq, err := libc.CString(q)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, zq)
	pp := c.tls.Alloc(int(ptrSize))
	defer c.tls.Free(int(ptrSize))
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, zq, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		return nil, c.err(rc)
	}
	st := &rawStmt{c: c, p: libc.AtomicLoadPUintptr(pp)} // prepare sets *ppStmt
	for i, a := range args {
		var rc int32
		switch v := a.(type) {
		case int64:
			rc = sqlite3.Xsqlite3_bind_int64(c.tls, st.p, int32(i+1), v)
		case string:
			z, err := libc.CString(v)
			if err != nil {
				st.close()
				return nil, err
			}
			// SQLITE_TRANSIENT: SQLite copies the text before the call returns
			rc = sqlite3.Xsqlite3_bind_text(c.tls, st.p, int32(i+1), z, int32(len(v)), sqlite3.SQLITE_TRANSIENT)
			libc.Xfree(c.tls, z)
		default:
			st.close()
			return nil, fmt.Errorf("raw bind: argument %d is %T, want int64 or string", i+1, a)
		}
		if rc != sqlite3.SQLITE_OK {
			st.close()
			return nil, c.err(rc)
		}
	}
	return st, nil
}

// rawStmt is a prepared statement of a rawConn.
type rawStmt struct {
	c *rawConn
	p uintptr
}

func (s *rawStmt) close() { sqlite3.Xsqlite3_finalize(s.c.tls, s.p) }

// next steps to the next row: true on a row, false at the end.
func (s *rawStmt) next() (bool, error) {
	switch rc := sqlite3.Xsqlite3_step(s.c.tls, s.p); rc {
	case sqlite3.SQLITE_ROW:
		return true, nil
	case sqlite3.SQLITE_DONE:
		return false, nil
	default:
		return false, s.c.err(rc)
	}
}

// colInt reads an integer column: INTEGER, or an integral REAL. ok is false
// for anything else; then what describes the value.
func (s *rawStmt) colInt(i int) (v int64, ok bool, what string) {
	switch sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)) {
	case sqlite3.SQLITE_INTEGER:
		return sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i)), true, ""
	case sqlite3.SQLITE_FLOAT:
		f := sqlite3.Xsqlite3_column_double(s.c.tls, s.p, int32(i))
		if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return int64(f), true, ""
		}
		return 0, false, fmt.Sprint(f)
	case sqlite3.SQLITE_NULL:
		return 0, false, "NULL"
	case sqlite3.SQLITE_TEXT:
		return 0, false, fmt.Sprintf("text %q", s.text(i))
	}
	return 0, false, fmt.Sprintf("blob of %d bytes", sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i)))
}

// Kinds of a statistic cell (colStat).
const (
	cellNumber  = iota // REAL, INTEGER or NULL (NaN)
	cellNumText        // text that reads as a number: used as that number
	cellBad            // text that is no number, or a blob: not data
)

// colStat reads a statistic with trendValue's rules and says what the cell
// held; a cellBad value is NaN and must not be used as a measurement.
func (s *rawStmt) colStat(i int) (v float64, kind int) {
	switch sqlite3.Xsqlite3_column_type(s.c.tls, s.p, int32(i)) {
	case sqlite3.SQLITE_FLOAT:
		return trendClampValue(sqlite3.Xsqlite3_column_double(s.c.tls, s.p, int32(i))), cellNumber
	case sqlite3.SQLITE_NULL:
		return math.NaN(), cellNumber
	case sqlite3.SQLITE_INTEGER:
		return trendClampValue(float64(sqlite3.Xsqlite3_column_int64(s.c.tls, s.p, int32(i)))), cellNumber
	case sqlite3.SQLITE_TEXT:
		if v, ok := parseTextStatOK(s.text(i)); ok {
			return v, cellNumText
		}
	}
	return math.NaN(), cellBad
}

func (s *rawStmt) text(i int) string {
	p := sqlite3.Xsqlite3_column_text(s.c.tls, s.p, int32(i))
	n := sqlite3.Xsqlite3_column_bytes(s.c.tls, s.p, int32(i))
	if p == 0 || n <= 0 {
		return ""
	}
	return string(libc.GoBytes(p, int(n)))
}
