package ingest

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"spikescope/model"
)

// A -wal file is tied to its database by name only: nothing in the log
// names the file it was written for (fileformat2 §4: the header holds a
// magic, the page size, a checkpoint sequence number, two salts and a
// checksum; a frame is valid when its salts equal the header's and the
// cumulative checksum matches). SQLite replays every valid committed frame
// over whatever file now has the name, even one in rollback-journal mode
// (the pager opens a WAL whenever the -wal file exists). So when a new
// trend.db is renamed over one whose writer left a log (crashed, or still
// running on the old, unlinked inode), a plain read shows the old file's
// rows as the new file's. foreignWAL recognises the cases that can be told
// from the files: the log is then left out by reading the database
// immutable, with a warning.

// ReadModeWithoutWAL is MonitorData.ReadMode when the -wal beside the file
// is another file's (foreignWAL says why).
const ReadModeWithoutWAL = "immutable, without its -wal (the log is another file's; SQLite's locking is skipped)"

// walHeader is the identity of a -wal file, as SQLite's WAL recovery reads
// it.
type walHeader struct {
	valid    bool // magic, version, page size and header checksum are SQLite's
	salt     [2]uint32
	ckptSeq  uint32
	pageSize int
	order    binary.ByteOrder // of the checksum's words
	sum      [2]uint32        // the header's checksum, where the frames' chain starts
}

// same reports whether a and b are the same log generation: SQLite gives
// a log new salts whenever it restarts it, so equal salts and checkpoint
// sequence are the same frames (plus any appended).
func (a walHeader) same(b walHeader) bool {
	return a.valid && b.valid && a.salt == b.salt && a.ckptSeq == b.ckptSeq
}

const (
	walHeaderSize      = 32
	walFrameHeaderSize = 24
	walFormatVersion   = 3007000
)

// readWALHeader reads the header of the log at wal. A missing or invalid
// log is a walHeader with valid false; SQLite ignores such a log.
func readWALHeader(wal string) walHeader {
	var h walHeader
	f, err := openRegular(wal)
	if err != nil {
		return h
	}
	defer f.Close()
	hdr := make([]byte, walHeaderSize)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return h
	}
	be := binary.BigEndian
	magic := be.Uint32(hdr[0:])
	if magic&^1 != 0x377f0682 || be.Uint32(hdr[4:]) != walFormatVersion {
		return h
	}
	ps := be.Uint32(hdr[8:])
	if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
		return h
	}
	// the checksum's words are big-endian when the magic's low bit is set
	h.order = binary.LittleEndian
	if magic&1 == 1 {
		h.order = binary.BigEndian
	}
	h.sum = walChecksum(h.order, [2]uint32{}, hdr[:24])
	if h.sum != [2]uint32{be.Uint32(hdr[24:]), be.Uint32(hdr[28:])} {
		return h
	}
	h.valid, h.pageSize, h.ckptSeq = true, int(ps), be.Uint32(hdr[12:])
	h.salt = [2]uint32{be.Uint32(hdr[16:]), be.Uint32(hdr[20:])}
	return h
}

// walCommitted reports whether the log at wal (header h) holds a valid
// commit frame, i.e. whether SQLite would apply anything of it: it reads
// the frames up to the first one whose salts and cumulative checksum are
// right and that ends a transaction (not the whole log). Only asked when
// the log would be another file's.
func walCommitted(wal string, h walHeader) bool {
	if !h.valid {
		return false
	}
	f, err := openRegular(wal)
	if err != nil {
		return false
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<16)
	if _, err := r.Discard(walHeaderSize); err != nil {
		return false
	}
	be := binary.BigEndian
	s := h.sum
	frame := make([]byte, walFrameHeaderSize+h.pageSize)
	for {
		if _, err := io.ReadFull(r, frame); err != nil {
			return false
		}
		fh := frame[:walFrameHeaderSize]
		if be.Uint32(fh[0:]) == 0 || be.Uint32(fh[8:]) != h.salt[0] || be.Uint32(fh[12:]) != h.salt[1] {
			return false
		}
		s = walChecksum(h.order, s, fh[:8])
		s = walChecksum(h.order, s, frame[walFrameHeaderSize:])
		if s != [2]uint32{be.Uint32(fh[16:]), be.Uint32(fh[20:])} {
			return false
		}
		if be.Uint32(fh[4:]) != 0 { // a commit frame: the database size after it
			return true
		}
	}
}

// openRegular opens path when it is a regular file: opening a named pipe
// would wait for a writer.
func openRegular(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	return os.Open(path)
}

// walChecksum continues SQLite's WAL checksum s over b (a multiple of 8
// bytes): s0 += x0 + s1, s1 += x1 + s0 for each pair of words.
func walChecksum(order binary.ByteOrder, s [2]uint32, b []byte) [2]uint32 {
	for i := 0; i+8 <= len(b); i += 8 {
		s[0] += order.Uint32(b[i:]) + s[1]
		s[1] += order.Uint32(b[i+4:]) + s[0]
	}
	return s
}

// dbHeaderFacts are the database header's page size and whether it is in
// WAL mode (file format bytes 18 and 19 are 2); ok false when unreadable.
func dbHeaderFacts(path string) (pageSize int, wal, ok bool) {
	f, err := openRegular(path)
	if err != nil {
		return 0, false, false
	}
	defer f.Close()
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 16); err != nil {
		return 0, false, false
	}
	pageSize = int(binary.BigEndian.Uint16(b))
	if pageSize == 1 {
		pageSize = 65536
	}
	return pageSize, b[2] == 2 && b[3] == 2, true
}

// walSeen is, per absolute database path, the file and the log seen at the
// last open in this process: a log generation that was beside another
// file at the same path belongs to that file. This is what tells a log
// left beside a renamed-over database in WAL mode (the follower re-reads
// the same path) from its own.
var walSeen = struct {
	sync.Mutex
	m map[string]walSighting
}{m: map[string]walSighting{}}

// walSighting is one open: the database file, its log, and whether the
// log was found to be another file's.
type walSighting struct {
	db      os.FileInfo
	wal     walHeader
	foreign bool
}

// foreignWAL tells whether abs's -wal holds committed frames that are not
// abs's own, and why ("" when the log is the database's or SQLite would
// apply nothing). Told from the files:
//   - the database is in rollback-journal mode: SQLite checkpoints and
//     deletes the log before it writes that mode into the header, so a
//     log with committed frames beside it was written for another file;
//   - the log's page size is not the database's (a WAL database cannot
//     change its page size);
//   - the same log generation (salts) was beside another file at this path
//     when it was last opened in this process (the file was replaced).
//
// Not told: a log beside a database in WAL mode of the same page size that
// this process never saw before the replacement.
func foreignWAL(abs string) string {
	why, _ := foreignWALWhy(abs)
	return why
}

// foreignWALWhy is foreignWAL with the warning's reason.
func foreignWALWhy(abs string) (string, model.TrendImmutable) {
	var r model.TrendImmutable
	wal := abs + "-wal"
	h := readWALHeader(wal)
	st, err := os.Stat(abs)
	if err != nil {
		return "", r
	}
	walSeen.Lock()
	defer walSeen.Unlock()
	prev, seen := walSeen.m[abs]
	why := ""
	if h.valid {
		ps, walMode, ok := dbHeaderFacts(abs)
		name := filepath.Base(wal)
		switch {
		case !ok:
		case !walMode:
			why = fmt.Sprintf("%s holds committed pages of another file: this database is in rollback-journal mode, which never has a write-ahead log of its own (a file renamed over the one the log was written for)", name)
			r = model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: name, Foreign: model.ForeignRollback}
		case ps != h.pageSize:
			why = fmt.Sprintf("%s holds committed pages of another file: its page size is %d, the database's %d", name, h.pageSize, ps)
			r = model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: name, Foreign: model.ForeignPageSize, WALPage: h.pageSize, DBPage: ps}
		case seen && prev.wal.same(h) && (prev.foreign || !os.SameFile(prev.db, st)):
			why = fmt.Sprintf("%s holds committed pages of another file: it was beside the file read before at this path, which has since been replaced", name)
			r = model.TrendImmutable{Why: model.ImmutableForeignWAL, WAL: name, Foreign: model.ForeignReplaced}
		}
		// a log without a valid commit is ignored by SQLite: nothing to leave out
		if why != "" && !walCommitted(wal, h) {
			why = ""
		}
		if why != "" {
			why += "; SQLite would replay them over this file, so it was read without the log"
		}
	}
	walSeen.m[abs] = walSighting{db: st, wal: h, foreign: why != ""}
	return why, r
}
