package ingest

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"spikescope/model"
)

// trend_data's pages decoded in Go (the claimed read's row source when the
// table is laid out as expected).
//
// SQLite's scan of a rank range spends most of its time in its virtual
// machine decoding each record column by column. trend_data is a WITHOUT
// ROWID table whose primary key is (rank, step, target_id, metric_id): an
// index b-tree ordered by that key, whose records hold the key columns and
// then the other columns. The pages come from the database file itself
// where SQLite promises that it holds the load's state for the whole load
// (rollback-journal mode under the load's shared locks, immutable, a WAL
// log without frames: trenddb_pagefile.go, read through SQLite's own
// descriptor), else from SQLite (sqlite_dbpage, read through the
// connection's pager inside its read transaction, so each page is the one
// of the load's state: WAL frames, a snapshot opened by
// sqlite3_snapshot_open), and are walked in key order: for a rank
// range, from the first entry whose rank is at least its low bound until
// one past its high bound — the rows SQLite's `WHERE rank >= ? AND rank <=
// ?` gives, in its order.
//
// Anything not handled here — a text or blob cell, a NULL or REAL key, a
// payload spilled to overflow pages, a record shorter than the table, a
// page that is not a b-tree page of an index, a malformed page, keys out of
// order — stops the walk with errNotClean: the load is read again by SQL.

// pagesOff makes the claimed read use SQL (tests compare the two);
// pageLoads counts the loads read from pages (tests).
var (
	pagesOff  bool
	pageLoads atomic.Int64
	// pageCounts counts the table counts taken from pages (tests)
	pageCounts atomic.Int64
	// pageFetchHook runs before each page is read (tests)
	pageFetchHook func()
)

// trendPages is trend_data's b-tree as the page walk needs it.
type trendPages struct {
	root      uint32
	pageSize  int
	usable    int // page size less the reserved bytes
	pageCount uint32
	maxLocal  int // the largest payload an index page keeps in the cell
	// slot maps a record column to what is read from it: -1 nothing,
	// 0–3 rank, step, target_id, metric_id, 4+k the chunk's k-th statistic
	slot  []int8
	nStat int
	// file: the pages are read from the database file (trenddb_pagefile.go);
	// nil: through sqlite_dbpage
	file *pageFile
}

// Slots of the key columns.
const (
	slotRank = iota
	slotStep
	slotTarget
	slotMetric
	slotStats
)

// trendPageLayout reads trend_data's layout on q (the load's holder, at the
// load's state); nil when the table is not one the page walk reads. file:
// the database file holds the load's state while it lasts (trendSnap's
// fileState; rollback: in rollback-journal mode), and its pages are read
// from it when it agrees with SQLite (openPageFile).
func trendPageLayout(q *rawConn, stats []model.Stat, file, rollback bool) *trendPages {
	if pagesOff {
		return nil
	}
	rows, err := q.queryAll(`SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = 'trend_data'`)
	if err != nil || len(rows) != 1 || cellInt64(rows[0][0]) != 1 {
		return nil // a rowid table: its b-tree is no index
	}
	rows, err = q.queryAll(`SELECT count(*) FROM pragma_table_xinfo('trend_data') WHERE hidden != 0`)
	if err != nil || len(rows) != 1 || cellInt64(rows[0][0]) != 0 {
		return nil // generated columns are not stored in the record
	}
	rows, err = q.queryAll(`SELECT name FROM pragma_index_list('trend_data') WHERE origin = 'pk'`)
	if err != nil || len(rows) != 1 {
		return nil
	}
	pk, _ := rows[0][0].(string)
	cols, err := q.queryAll(`SELECT seqno, name, desc, key FROM pragma_index_xinfo(?)`, pk)
	if err != nil || len(cols) < 5 {
		return nil
	}
	l := &trendPages{slot: make([]int8, len(cols)), nStat: len(stats)}
	keys := []string{"rank", "step", "target_id", "metric_id"}
	found := 0
	for i, c := range cols {
		name, _ := c[1].(string)
		if cellInt64(c[0]) != int64(i) || cellInt64(c[2]) != 0 {
			return nil
		}
		l.slot[i] = -1
		if i < len(keys) {
			// the key's columns in this order, ascending: SQLite's scan
			// of a rank range follows this order
			if !strings.EqualFold(name, keys[i]) || cellInt64(c[3]) != 1 {
				return nil
			}
			l.slot[i] = int8(i)
			continue
		}
		if cellInt64(c[3]) != 0 {
			return nil // more key columns
		}
		for k, s := range stats {
			if strings.EqualFold(name, model.StatNames[s]) {
				l.slot[i] = int8(slotStats + k)
				found++
			}
		}
	}
	if found != len(stats) {
		return nil
	}
	// the columns after the last one read are not decoded (a record
	// written before a column was added lacks them)
	for len(l.slot) > 0 && l.slot[len(l.slot)-1] < 0 {
		l.slot = l.slot[:len(l.slot)-1]
	}
	rows, err = q.queryAll(`SELECT rootpage FROM sqlite_schema WHERE type = 'table' AND name = 'trend_data'`)
	if err != nil || len(rows) != 1 {
		return nil
	}
	root := cellInt64(rows[0][0])
	rows, err = q.queryAll(`SELECT (SELECT page_size FROM pragma_page_size), (SELECT page_count FROM pragma_page_count)`)
	if err != nil || len(rows) != 1 {
		return nil
	}
	l.pageSize, l.pageCount = int(cellInt64(rows[0][0])), uint32(cellInt64(rows[0][1]))
	if l.pageSize < 512 || l.pageSize > 65536 || root < 1 || root > int64(l.pageCount) {
		return nil
	}
	l.root = uint32(root)
	f, err := newPageFetcher(q, l.pageSize)
	if err != nil {
		return nil
	}
	defer f.close()
	p1, err := f.page(1)
	p1 = slices.Clone(p1)
	// the header: payload fractions 64, 32, 32 (SQLite requires them)
	if err != nil || len(p1) < 100 || p1[21] != 64 || p1[22] != 32 || p1[23] != 32 {
		return nil
	}
	l.usable = l.pageSize - int(p1[20])
	if l.usable < 480 {
		return nil
	}
	l.maxLocal = (l.usable-12)*64/255 - 23
	if file {
		if root, err := f.page(l.root); err == nil {
			l.file = openPageFile(q, l, rollback, p1, root)
		}
	}
	return l
}

func cellInt64(v any) int64 {
	if x, ok := v.(int64); ok {
		return x
	}
	return -1
}

// pageFetcher reads pages through a connection's pager (sqlite_dbpage).
type pageFetcher struct {
	st   *rawStmt
	size int
	buf  []byte // the page last read
	// mapped: the database file is memory-mapped (mapFile), and mapped
	// again every remapEvery bytes of pages
	mapped  int64
	fetches int
	every   int // remapEvery in pages
}

// remapEvery is how many bytes of pages a mapped read touches before it
// maps the file again: the pages touched leave the process's resident
// memory (at most this much a worker stays resident).
const remapEvery = 2 << 20

// mapFile has SQLite map the database file (size bytes) instead of
// reading each page with a system call; pages in the write-ahead log are
// still read from it. SQLite's map covers the whole file and every page
// touched stays resident until unmapped, so the map is dropped and made
// again every remapEvery bytes (a new mmap_size does that).
func (f *pageFetcher) mapFile(size int64) error {
	f.mapped, f.every = size, max(1, remapEvery/f.size)
	return f.st.c.exec(fmt.Sprintf("PRAGMA mmap_size = %d", size))
}

func (f *pageFetcher) unmap() {
	if f.mapped > 0 {
		sqlite3.Xsqlite3_reset(f.st.c.tls, f.st.p)
		f.st.c.exec("PRAGMA mmap_size = 0")
	}
}

func newPageFetcher(c *rawConn, size int) (*pageFetcher, error) {
	st, err := c.prepare(`SELECT data FROM sqlite_dbpage WHERE pgno = ?1`, []any{int64(1)})
	if err != nil {
		return nil, err
	}
	return &pageFetcher{st: st, size: size}, nil
}

func (f *pageFetcher) close() {
	f.unmap()
	f.st.close()
}

// page returns page pgno, valid until the next call.
func (f *pageFetcher) page(pgno uint32) ([]byte, error) {
	if pageFetchHook != nil {
		pageFetchHook()
	}
	tls, p := f.st.c.tls, f.st.p
	sqlite3.Xsqlite3_reset(tls, p)
	if f.mapped > 0 {
		if f.fetches++; f.fetches%f.every == 0 {
			// another size (by one page, alternately) maps the file anew
			size := f.mapped
			if f.fetches/f.every%2 == 1 {
				size += int64(f.size)
			}
			if err := f.st.c.exec(fmt.Sprintf("PRAGMA mmap_size = %d", size)); err != nil {
				return nil, errNotClean
			}
		}
	}
	if rc := sqlite3.Xsqlite3_bind_int64(tls, p, 1, int64(pgno)); rc != sqlite3.SQLITE_OK {
		return nil, errNotClean
	}
	// a page SQLite cannot read (a corrupt file, an I/O error): the SQL
	// read says what it is
	if ok, err := f.st.next(); err != nil || !ok {
		return nil, errNotClean
	}
	b := sqlite3.Xsqlite3_column_blob(tls, p, 0)
	n := int(sqlite3.Xsqlite3_column_bytes(tls, p, 0))
	if b == 0 || n != f.size {
		return nil, errNotClean
	}
	if cap(f.buf) < n {
		f.buf = make([]byte, n)
	}
	f.buf = f.buf[:n]
	copy(f.buf, libc.GoBytes(b, n))
	return f.buf, nil
}

// maxPageDepth bounds the b-tree's depth (SQLite's own bound is 20).
const maxPageDepth = 24

// pageFrame is one b-tree page on the walk's path.
type pageFrame struct {
	buf   []byte
	hdr   int // where the b-tree header starts (100 on page 1)
	n     int // cells
	i     int // interior: the child being walked (n: the right-most); leaf: the next cell
	right uint32
}

// pageWalker walks the entries of one rank range in key order; it is a
// trendRows.
type pageWalker struct {
	l *trendPages
	// fetch returns page pgno: the fetcher's memory, valid until the next
	// fetch, never written here
	fetch  func(pgno uint32) ([]byte, error)
	lo, hi [2]int64 // (rank, step) bounds, both included

	stack   []pageFrame // interior pages from the root (each fetched once per walk)
	bufs    [][]byte    // their copies, by depth
	leaf    pageFrame   // the fetcher's memory
	inLeaf  bool
	descend bool // the top frame's child i is walked next
	done    bool
	fetched uint32
	started bool
	prev    [4]int64
	// interior: entries read from interior cells (tests)
	interior int

	key  [4]int64
	vals [model.NumStats]float64
}

func newPageWalker(l *trendPages, fetch func(uint32) ([]byte, error)) *pageWalker {
	return &pageWalker{l: l, fetch: fetch}
}

// start positions the walk before the first entry whose (rank, step) is
// at least lo; the walk ends past hi.
func (w *pageWalker) start(lo, hi [2]int64) error {
	w.lo, w.hi = lo, hi
	w.stack, w.inLeaf, w.descend, w.done, w.started, w.fetched = w.stack[:0], false, false, false, false, 0
	return w.descendFrom(w.l.root, true)
}

// descendFrom loads the pages from pgno down to a leaf, pushing each
// interior page, and positions each at its first cell — with seek, at the
// first cell whose entry is at w.lo or past it: every entry before it (and
// in the subtrees left of it) is before lo.
func (w *pageWalker) descendFrom(pgno uint32, seek bool) error {
	for {
		f, leaf, err := w.load(pgno, len(w.stack))
		if err != nil {
			return err
		}
		if seek {
			a, b := 0, f.n
			for a < b {
				m := int(uint(a+b) >> 1)
				k, err := w.cellKey(&f, m, leaf)
				if err != nil {
					return err
				}
				if key2Less(k, w.lo) {
					a = m + 1
				} else {
					b = m
				}
			}
			f.i = a
		}
		if leaf {
			w.leaf, w.inLeaf = f, true
			return nil
		}
		w.stack = append(w.stack, f)
		if pgno, err = w.child(&w.stack[len(w.stack)-1]); err != nil {
			return err
		}
	}
}

// load fetches page pgno as the walk's page at depth (an interior page
// copied into its depth's buffer, a leaf left in the fetcher's memory)
// and checks its header.
func (w *pageWalker) load(pgno uint32, depth int) (pageFrame, bool, error) {
	var f pageFrame
	if depth >= maxPageDepth || pgno < 1 || pgno > w.l.pageCount {
		return f, false, errNotClean
	}
	if w.fetched++; w.fetched > w.l.pageCount+maxPageDepth {
		return f, false, errNotClean // a loop of pages
	}
	buf, err := w.fetch(pgno)
	if err != nil {
		return f, false, err
	}
	if pgno == 1 {
		f.hdr = 100
	}
	u := w.l.usable
	if len(buf) < u || f.hdr+8 > u {
		return f, false, errNotClean
	}
	h := buf[f.hdr:]
	var leaf bool
	switch h[0] {
	case 0x0a:
		leaf = true
	case 0x02:
		if f.hdr+12 > u {
			return f, false, errNotClean
		}
		f.right = binary.BigEndian.Uint32(h[8:])
	default:
		return f, false, errNotClean
	}
	f.n = int(binary.BigEndian.Uint16(h[3:]))
	ptrs := f.hdr + 8
	if !leaf {
		ptrs += 4
	}
	if ptrs+2*f.n > u {
		return f, false, errNotClean
	}
	// an interior page stays on the path while pages below it are
	// fetched: a copy in its depth's buffer; a leaf is read before the
	// next fetch, in the fetcher's memory
	if !leaf {
		for len(w.bufs) <= depth {
			w.bufs = append(w.bufs, nil)
		}
		w.bufs[depth] = append(w.bufs[depth][:0], buf...)
		buf = w.bufs[depth]
	}
	f.buf = buf
	return f, leaf, nil
}

// child is the page number of frame f's child f.i.
func (w *pageWalker) child(f *pageFrame) (uint32, error) {
	if f.i == f.n {
		return f.right, nil
	}
	off, err := w.cellOffset(f, f.i)
	if err != nil {
		return 0, err
	}
	return binary.BigEndian.Uint32(f.buf[off:]), nil
}

// cellOffset is where cell i of f starts.
func (w *pageWalker) cellOffset(f *pageFrame, i int) (int, error) {
	p := f.hdr + 8
	low := p + 2*f.n
	if f.buf[f.hdr] == 0x02 {
		p += 4
		low += 4
	}
	off := int(binary.BigEndian.Uint16(f.buf[p+2*i:]))
	if off < low || off+4 > w.l.usable {
		return 0, errNotClean
	}
	return off, nil
}

// payload is cell i's record (leaf: payload size, record; interior: child
// page, payload size, record).
func (w *pageWalker) payload(f *pageFrame, i int, leaf bool) ([]byte, error) {
	off, err := w.cellOffset(f, i)
	if err != nil {
		return nil, err
	}
	if !leaf {
		off += 4
	}
	size, k := uvarint(f.buf[off:w.l.usable])
	if k == 0 || size > uint64(w.l.maxLocal) {
		return nil, errNotClean // spilled to overflow pages
	}
	off += k
	end := off + int(size)
	if end > w.l.usable {
		return nil, errNotClean
	}
	return f.buf[off:end], nil
}

// cellKey is the (rank, step) of cell i's entry.
func (w *pageWalker) cellKey(f *pageFrame, i int, leaf bool) ([2]int64, error) {
	var k [2]int64
	rec, err := w.payload(f, i, leaf)
	if err != nil {
		return k, err
	}
	hsize, n := uvarint(rec)
	if n == 0 || hsize > uint64(len(rec)) || int(hsize) <= n {
		return k, errNotClean
	}
	hdr, body := rec[n:hsize], rec[hsize:]
	for c := range k {
		st, n := uvarint(hdr)
		if n == 0 {
			return k, errNotClean
		}
		hdr = hdr[n:]
		size := serialSize(st)
		v, ok := intValue(st, body)
		if !ok || size > len(body) {
			return k, errNotClean
		}
		k[c], body = v, body[size:]
	}
	return k, nil
}

// key2Less orders (rank, step) pairs.
func key2Less(a, b [2]int64) bool {
	return a[0] < b[0] || a[0] == b[0] && a[1] < b[1]
}

// next steps to the next entry of the range.
func (w *pageWalker) next() (bool, error) {
	for !w.done {
		if w.descend {
			if err := w.descendLeft(); err != nil {
				return false, err
			}
		}
		if w.inLeaf && w.leaf.i < w.leaf.n {
			w.leaf.i++
			return w.entry(&w.leaf, w.leaf.i-1, true)
		}
		w.inLeaf = false
		if len(w.stack) == 0 {
			w.done = true
			break
		}
		// a subtree is done: its parent's cell is the next entry (an
		// index b-tree keeps entries in its interior cells), then the
		// next subtree; after the right-most one, the parent is done
		top := &w.stack[len(w.stack)-1]
		if top.i < top.n {
			top.i++
			w.descend = true
			w.interior++
			return w.entry(top, top.i-1, false)
		}
		w.stack = w.stack[:len(w.stack)-1]
	}
	return false, nil
}

// descendLeft goes down to the left-most leaf of the top frame's child i.
func (w *pageWalker) descendLeft() error {
	w.descend = false
	pgno, err := w.child(&w.stack[len(w.stack)-1])
	if err != nil {
		return err
	}
	return w.descendFrom(pgno, false)
}

// count counts the entries of the range (after start) without decoding
// them: a leaf whose last entry is in the range counts its cells, only
// the range's last leaf and the interior entries are looked at. The read
// that follows checks the count (its rows must be as many).
func (w *pageWalker) count() (int, error) {
	n := 0
	for !w.done {
		if w.descend {
			if err := w.descendLeft(); err != nil {
				return 0, err
			}
		}
		if w.inLeaf && w.leaf.i < w.leaf.n {
			last, err := w.cellKey(&w.leaf, w.leaf.n-1, true)
			if err != nil {
				return 0, err
			}
			if !key2Less(w.hi, last) {
				n += w.leaf.n - w.leaf.i
				w.leaf.i = w.leaf.n
				continue
			}
			k, err := w.cellKey(&w.leaf, w.leaf.i, true)
			if err != nil {
				return 0, err
			}
			if key2Less(w.hi, k) {
				break
			}
			n++
			w.leaf.i++
			continue
		}
		w.inLeaf = false
		if len(w.stack) == 0 {
			break
		}
		top := &w.stack[len(w.stack)-1]
		if top.i < top.n {
			k, err := w.cellKey(top, top.i, false)
			if err != nil {
				return 0, err
			}
			if key2Less(w.hi, k) {
				break
			}
			n++
			top.i++
			w.descend = true
			continue
		}
		w.stack = w.stack[:len(w.stack)-1]
	}
	w.done = true
	return n, nil
}

// rootChildren is how many subtrees the root has (0: it is a leaf).
func (w *pageWalker) rootChildren() (int, error) {
	w.stack, w.fetched = w.stack[:0], 0
	f, leaf, err := w.load(w.l.root, 0)
	if err != nil || leaf {
		return 0, err
	}
	return f.n + 1, nil
}

// countPart counts the entries of part `part` of `parts` of the b-tree,
// as SQLite's COUNT(*) does (every cell of a leaf or interior page is an
// entry), without decoding them: the root's subtrees split into parts
// contiguous runs, the root's own cells in part 0.
func (w *pageWalker) countPart(part, parts int) (int, error) {
	w.stack, w.fetched = w.stack[:0], 0
	f, leaf, err := w.load(w.l.root, 0)
	if err != nil {
		return 0, err
	}
	n := 0
	if part == 0 {
		n = f.n
	}
	if leaf {
		return n, nil
	}
	kids := f.n + 1
	for i := part * kids / parts; i < (part+1)*kids/parts; i++ {
		f.i = i
		pgno, err := w.child(&f)
		if err != nil {
			return 0, err
		}
		c, err := w.countTree(pgno, 1)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// countTree counts the entries of the subtree at pgno (depth below the
// root).
func (w *pageWalker) countTree(pgno uint32, depth int) (int, error) {
	f, leaf, err := w.load(pgno, depth)
	if err != nil || leaf {
		return f.n, err
	}
	n := f.n
	for i := 0; i <= f.n; i++ {
		f.i = i
		pgno, err := w.child(&f)
		if err != nil {
			return 0, err
		}
		c, err := w.countTree(pgno, depth+1)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// entry decodes cell i of f as the current row; false past the range.
func (w *pageWalker) entry(f *pageFrame, i int, leaf bool) (bool, error) {
	rec, err := w.payload(f, i, leaf)
	if err != nil {
		return false, err
	}
	if err := w.record(rec); err != nil {
		return false, err
	}
	k := [2]int64{w.key[slotRank], w.key[slotStep]}
	if key2Less(w.hi, k) {
		w.done = true
		return false, nil
	}
	// keys strictly ascending, the first at lo or past it
	if w.started {
		if !keyLess(&w.prev, &w.key) {
			return false, errNotClean
		}
	} else if key2Less(k, w.lo) {
		return false, errNotClean
	}
	w.started, w.prev = true, w.key
	return true, nil
}

func keyLess(a, b *[4]int64) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// record decodes rec's columns into key and vals.
func (w *pageWalker) record(rec []byte) error {
	hsize, k := uvarint(rec)
	if k == 0 || hsize > uint64(len(rec)) || int(hsize) < k {
		return errNotClean
	}
	hdr, body := rec[k:hsize], rec[hsize:]
	for _, slot := range w.l.slot {
		var st uint64
		if len(hdr) > 0 && hdr[0] < 0x80 {
			st, hdr = uint64(hdr[0]), hdr[1:]
		} else {
			var n int
			if st, n = uvarint(hdr); n == 0 {
				return errNotClean // the record is shorter than the table
			}
			hdr = hdr[n:]
		}
		size := serialSize(st)
		if size < 0 || size > len(body) {
			return errNotClean
		}
		switch {
		case slot < 0:
		case slot < slotStats:
			v, ok := intValue(st, body)
			if !ok {
				return errNotClean // NULL, REAL, text or blob key: SQL's words
			}
			w.key[slot] = v
		default:
			var v float64
			switch {
			case st == 0:
				v = math.NaN()
			case st == 7:
				v = math.Float64frombits(binary.BigEndian.Uint64(body))
				if v != v {
					v = math.NaN() // SQLite reads a stored NaN as NULL
				} else {
					v = trendClampValue(v)
				}
			default:
				x, ok := intValue(st, body)
				if !ok {
					return errNotClean // text or blob: SQL's cell handling
				}
				v = trendClampValue(float64(x))
			}
			w.vals[slot-slotStats] = v
		}
		body = body[size:]
	}
	return nil
}

// colInt is key column i (rank, step, target_id, metric_id).
func (w *pageWalker) colInt(i int) (int64, bool, string) { return w.key[i], true, "" }

// colStat is statistic column i (4 + k: the chunk's k-th statistic).
func (w *pageWalker) colStat(i int) (float64, int) { return w.vals[i-slotStats], cellNumber }

// serialSize is the bytes of a value of serial type st; -1 for the
// reserved types.
func serialSize(st uint64) int {
	switch {
	case st <= 4:
		return int(st)
	case st == 5:
		return 6
	case st == 6 || st == 7:
		return 8
	case st == 8 || st == 9:
		return 0
	case st >= 12:
		if st > 1<<31 {
			return -1
		}
		return int(st-12) / 2
	}
	return -1
}

// intValue is an integer of serial type st at the start of b.
func intValue(st uint64, b []byte) (int64, bool) {
	switch st {
	case 1:
		if len(b) >= 1 {
			return int64(int8(b[0])), true
		}
	case 2:
		if len(b) >= 2 {
			return int64(int16(binary.BigEndian.Uint16(b))), true
		}
	case 3:
		if len(b) >= 3 {
			return int64(int32(uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8) >> 8), true
		}
	case 4:
		if len(b) >= 4 {
			return int64(int32(binary.BigEndian.Uint32(b))), true
		}
	case 5:
		if len(b) >= 6 {
			return int64(uint64(binary.BigEndian.Uint16(b))<<48|uint64(binary.BigEndian.Uint32(b[2:]))<<16) >> 16, true
		}
	case 6:
		if len(b) >= 8 {
			return int64(binary.BigEndian.Uint64(b)), true
		}
	case 8:
		return 0, true
	case 9:
		return 1, true
	}
	return 0, false
}

// uvarint reads SQLite's big-endian varint (up to 9 bytes, the ninth
// whole); n is 0 when b ends first.
func uvarint(b []byte) (v uint64, n int) {
	for i := 0; i < 8; i++ {
		if i >= len(b) {
			return 0, 0
		}
		v = v<<7 | uint64(b[i]&0x7f)
		if b[i] < 0x80 {
			return v, i + 1
		}
	}
	if len(b) < 9 {
		return 0, 0
	}
	return v<<8 | uint64(b[8]), 9
}
