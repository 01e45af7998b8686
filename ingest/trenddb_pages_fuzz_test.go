package ingest

import (
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
)

// FuzzTrendPageWalk overwrites bytes of one page of a small trend.db of
// 512-byte pages (three levels of b-tree) and walks a rank range over
// the result: the walk must end — rows in ascending key order, or
// errNotClean — and never panic or loop. Unchanged pages give every row
// of the range.
func FuzzTrendPageWalk(f *testing.F) {
	path := filepath.Join(f.TempDir(), "f.trend.db")
	writeManyPages(f, path, 512, 0)
	var pages [][]byte
	var layout *trendPages
	err := withPagesConn(path, func(conn *rawConn, l *trendPages) error {
		pf, err := newPageFetcher(conn, l.pageSize)
		if err != nil {
			return err
		}
		defer pf.close()
		for p := uint32(1); p <= l.pageCount; p++ {
			b, err := pf.page(p)
			if err != nil {
				return err
			}
			pages = append(pages, slices.Clone(b))
		}
		layout = l
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	full, _ := walkPages(f, layout, pages, 0, 12)
	if len(full) != 13*40*2*60 {
		f.Fatalf("%d rows walked", len(full))
	}
	root := uint16(layout.root - 1)
	f.Add(uint16(0), uint16(0), []byte{}, int64(0), int64(12))
	f.Add(root, uint16(0), []byte{0x0d}, int64(0), int64(12))          // a table page
	f.Add(root, uint16(3), []byte{0xff, 0xff}, int64(3), int64(5))     // cell count
	f.Add(root, uint16(8), []byte{0, 0, 0, 1}, int64(0), int64(12))    // a child is page 1
	f.Add(root, uint16(8), []byte{0xff, 0, 0, 1}, int64(0), int64(12)) // past the file
	f.Add(root+1, uint16(12), []byte{0x00, 0x08}, int64(2), int64(4))  // a cell pointer into the header
	f.Add(root+5, uint16(400), []byte{0x81, 0x81, 0x81}, int64(0), int64(12))
	f.Add(uint16(len(pages)-1), uint16(300), []byte{0x0c, 0x0d}, int64(math.MinInt64), int64(math.MaxInt64))
	f.Fuzz(func(t *testing.T, pg, off uint16, patch []byte, lo, hi int64) {
		mutated := slices.Clone(pages)
		if len(patch) > 0 {
			p := int(pg) % len(pages)
			b := slices.Clone(pages[p])
			copy(b[int(off)%len(b):], patch)
			mutated[p] = b
		}
		rows, counted := walkPages(t, layout, mutated, lo, hi)
		if len(patch) == 0 {
			if counted != len(rows) {
				t.Fatalf("unchanged pages: counted %d, walked %d", counted, len(rows))
			}
			var want [][4]int64
			for _, k := range full {
				if k[0] >= lo && k[0] <= hi {
					want = append(want, k)
				}
			}
			if !slices.Equal(rows, want) {
				t.Fatalf("unchanged pages: %d rows, want %d", len(rows), len(want))
			}
		}
	})
}

// walkPages walks ranks lo..hi over pages held in memory, and counts
// them; it fails on a panic (by not recovering), on rows out of order,
// and on an error that is not errNotClean.
func walkPages(tb testing.TB, l *trendPages, pages [][]byte, lo, hi int64) ([][4]int64, int) {
	fetch := func(pgno uint32) ([]byte, error) {
		if pgno < 1 || int(pgno) > len(pages) {
			return nil, errNotClean
		}
		return pages[pgno-1], nil
	}
	w := newPageWalker(l, fetch)
	var rows [][4]int64
	err := w.start([2]int64{lo, math.MinInt64}, [2]int64{hi, math.MaxInt64})
	for err == nil {
		var ok bool
		if ok, err = w.next(); !ok || err != nil {
			break
		}
		k := w.key
		if n := len(rows); n > 0 && !keyLess(&rows[n-1], &k) || k[0] < lo || k[0] > hi {
			tb.Fatalf("row %d: key %v out of order or range", len(rows), k)
		}
		if len(rows) > 13*40*2*60 {
			tb.Fatal("more rows than the database holds")
		}
		rows = append(rows, k)
	}
	if err != nil && !errors.Is(err, errNotClean) {
		tb.Fatalf("error %v", err)
	}
	// the count must end too (n: what it counted)
	c := newPageWalker(l, fetch)
	n, cerr := 0, c.start([2]int64{lo, math.MinInt64}, [2]int64{hi, math.MaxInt64})
	if cerr == nil {
		n, cerr = c.count()
	}
	if cerr != nil && !errors.Is(cerr, errNotClean) {
		tb.Fatalf("count: error %v", cerr)
	}
	return rows, n
}
