package ingest

import (
	"bytes"
	"encoding/binary"
	"sync"
	"sync/atomic"
)

// trend_data's pages read from the database file itself.
//
// sqlite_dbpage hands a page out through SQLite's virtual machine, which
// copies it into its result (15% of a large load's CPU). Where SQLite
// promises that the database file holds the load's state, unchanged, for
// as long as the load lasts, the pages are read from the file instead:
//
//   - rollback-journal mode: every connection of the load holds SQLite's
//     SHARED lock until the load ends (trenddb_snap.go). No writer can
//     write the database file without the EXCLUSIVE lock, which waits for
//     every SHARED lock to go; a hot journal was rolled back before the
//     first SHARED lock was granted (a read-only connection that cannot
//     roll one back refuses to read at all). The file is the committed
//     state.
//   - immutable: nothing writes the file (trenddb_mode.go).
//   - WAL mode whose log had no frame when each connection of the load
//     began its read (trendSnap.emptyWAL; every worker's connection
//     checks it): SQLite's walTryBeginRead then takes WAL_READ_LOCK(0),
//     which means the reader ignores the log and reads the database file
//     alone, and a checkpoint cannot copy any frame into the file while
//     that lock is held (walCheckpoint takes it exclusively first). What a
//     writer commits meanwhile stays in the log.
//
// A WAL snapshot with frames keeps sqlite_dbpage: a page of the load's
// state may live in the log.
//
// The pages are read with pread(2) on the descriptor SQLite itself reads
// the database through (the holder connection's): it is the very file
// SQLite reads, and it is never closed here. SQLite's locks are POSIX
// record locks, which belong to the process and the file, and closing any
// descriptor of the file drops all of them — a descriptor of our own would
// have to outlive every connection that holds a lock on the file in this
// process (another load's included); SQLite's own is closed by SQLite when
// its connection closes, when the load is over. A page SQLite's pager
// gives (page 1 and trend_data's root, through sqlite_dbpage) must be the
// file's bytes, and the file's header must give the page size, reserved
// bytes and page count the load uses; else the pages come from
// sqlite_dbpage as before.
//
// pread reads through the page cache: unlike a memory map, nothing read
// stays in the process's resident memory beyond the walk's window.

// pageFile is the database file of one load, for reading pages.
type pageFile struct {
	fd        int // SQLite's descriptor (the holder connection's): never closed here
	pageSize  int
	pageCount uint32
}

// pageFilesOff makes the page walk fetch every page through sqlite_dbpage
// (tests compare the two sources); fileWalks counts the walks that read
// the file (tests).
var (
	pageFilesOff bool
	fileWalks    atomic.Int64
)

// openPageFile returns the database file behind q (the load's holder, in
// its read transaction) when the load's state is the file's contents
// (trendSnap.fileState) and the file agrees with what SQLite reads: p1 and
// root are page 1 and trend_data's root page as sqlite_dbpage gave them;
// rollback: the header must say rollback-journal mode. nil: read through
// sqlite_dbpage.
func openPageFile(q *rawConn, l *trendPages, rollback bool, p1, root []byte) *pageFile {
	if pageFilesOff {
		return nil
	}
	fd, size, ok := sqliteFileFD(q)
	if !ok {
		return nil
	}
	ps := int64(l.pageSize)
	if size < ps*int64(l.pageCount) {
		return nil
	}
	f := &pageFile{fd: fd, pageSize: l.pageSize, pageCount: l.pageCount}
	b := make([]byte, l.pageSize)
	if err := f.read(b, 1); err != nil || !bytes.Equal(b, p1) {
		return nil
	}
	// the header (SQLite's file format, §1.3)
	sz := int(binary.BigEndian.Uint16(b[16:]))
	if sz == 1 {
		sz = 65536
	}
	if sz != l.pageSize || l.pageSize-int(b[20]) != l.usable {
		return nil
	}
	if rollback && (b[18] != 1 || b[19] != 1) {
		return nil // not a rollback-journal database: its pages may be in a log
	}
	// the database's size: the in-header count when it is valid (the
	// change counter equals version-valid-for), else the file's size
	n := uint32((size + ps - 1) / ps)
	if hn := binary.BigEndian.Uint32(b[28:]); hn != 0 && bytes.Equal(b[24:28], b[92:96]) {
		n = hn
	}
	if n != l.pageCount {
		return nil
	}
	if err := f.read(b, l.root); err != nil || !bytes.Equal(b, root) {
		return nil
	}
	return f
}

// read reads page pgno whole into b (len(b) a multiple of the page size:
// that many pages from pgno on).
func (f *pageFile) read(b []byte, pgno uint32) error {
	off := int64(pgno-1) * int64(f.pageSize)
	for len(b) > 0 {
		n, err := pread(f.fd, b, off)
		if err != nil {
			return errNotClean // an I/O error: the SQL read says what it is
		}
		if n == 0 {
			// SQLite's locks keep the file from shrinking; a process that
			// ignores them cut it short
			return errTruncatedWhileReading
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// fileWindow is the most a file fetcher reads at once.
const fileWindow = 256 << 10

var windowPool = sync.Pool{New: func() any { b := make([]byte, fileWindow); return &b }}

// fileFetcher reads one walk's pages from a pageFile, several consecutive
// pages at a time: a b-tree written in key order lies mostly in file
// order, so the pages after a leaf are the leaves that follow it. The
// window grows (to fileWindow) while most of what it read was used and
// shrinks (to one page) while it was not, so a b-tree scattered over the
// file costs at most about twice its pages.
type fileFetcher struct {
	f     *pageFile
	buf   *[]byte
	first uint32 // the window's first page
	n     int    // pages in the window
	used  int    // of them, fetched
	span  int    // pages the next window reads
	max   int
}

func newFileFetcher(f *pageFile) *fileFetcher {
	fileWalks.Add(1)
	m := max(1, fileWindow/f.pageSize)
	return &fileFetcher{f: f, buf: windowPool.Get().(*[]byte), span: min(8, m), max: m}
}

func (ff *fileFetcher) close() {
	if ff.buf != nil {
		windowPool.Put(ff.buf)
		ff.buf = nil
	}
}

// page returns page pgno, valid until the next call.
func (ff *fileFetcher) page(pgno uint32) ([]byte, error) {
	if pageFetchHook != nil {
		pageFetchHook()
	}
	f, ps := ff.f, ff.f.pageSize
	if pgno < 1 || pgno > f.pageCount {
		return nil, errNotClean
	}
	if d := pgno - ff.first; ff.n == 0 || pgno < ff.first || d >= uint32(ff.n) {
		if ff.n > 0 {
			if 2*ff.used >= ff.n {
				ff.span = min(2*ff.span, ff.max)
			} else {
				ff.span = max(ff.span/2, 1)
			}
		}
		k := min(ff.span, int(f.pageCount-pgno)+1)
		ff.n = 0
		if err := f.read((*ff.buf)[:k*ps], pgno); err != nil {
			return nil, err
		}
		ff.first, ff.n, ff.used = pgno, k, 0
	}
	ff.used++
	off := int(pgno-ff.first) * ps
	return (*ff.buf)[off : off+ps : off+ps], nil
}
