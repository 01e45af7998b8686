package model

import (
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// memPark parks a column in memory, as a spill file would: a copy, read
// back in the chunks asked for. refuse makes Park fail; failAt makes the
// read of the chunk starting at or after that row fail (-1: never).
type memPark struct {
	col    []int32
	parks  int
	reads  []int // the offsets read back
	got    int   // rows read back
	refuse bool
	failAt int
}

func (p *memPark) Park(col []int32) bool {
	p.parks++
	if p.refuse {
		return false
	}
	p.col = slices.Clone(col)
	return true
}

func (p *memPark) ReadBack(off int, buf []int32) error {
	if p.failAt >= 0 && off+len(buf) > p.failAt {
		return errors.New("read failed")
	}
	p.reads = append(p.reads, off)
	p.got += copy(buf, p.col[off:off+len(buf)])
	return nil
}

// parkedForm is formOf with the sort parking through p; it also reports
// whether no new array came in: the scratch handed to also and the sorted
// step and micro step columns are all the rows' own step and micro step
// arrays.
func parkedForm(t *testing.T, r *Rows, p ColumnPark) (sortedForm, bool) {
	t.Helper()
	var f sortedForm
	var own []*int32
	if r.Len() > 0 {
		own = append(own, unsafe.SliceData(r.Step))
		if r.micro != nil {
			own = append(own, unsafe.SliceData(r.micro))
		}
	}
	var scratchAt *int32
	if err := r.SortSeriesParked(func(dest, scratch []int32) {
		f.dest, f.also = slices.Clone(dest), true
		if len(scratch) != r.Len() {
			t.Fatalf("scratch of %d, want %d", len(scratch), r.Len())
		}
		scratchAt = unsafe.SliceData(scratch)
	}, p); err != nil {
		t.Fatal(err)
	}
	reused := slices.Contains(own, scratchAt) && slices.Contains(own, unsafe.SliceData(r.Step)) &&
		(r.micro == nil || slices.Contains(own, unsafe.SliceData(r.micro)))
	g := formOfSorted(r)
	g.dest, g.also = f.dest, f.also
	return g, reused
}

// formOfSorted is formOf of rows sorted already.
func formOfSorted(r *Rows) sortedForm {
	f := formOf(r) // in series order: also is not called
	f.dest, f.also = nil, false
	return f
}

// TestSortParksStep: the keyed sort (trend.db's known space and a CSV
// tree's found one) with the step column parked gives the rows, series
// table, permutation and statistics bit for bit of the sort without it —
// the step read back into series order, over several chunks — and hands
// also one of the rows' own arrays as its scratch (no column allocated);
// when parking is refused it allocates the scratch and gives the same
// rows. The per-row sort, and rows in series order already, park nothing.
func TestSortParksStep(t *testing.T) {
	cases := []keyedCase{
		{name: "micro-mixed-nan", ranks: []int32{0, 1, 2}, targets: 4, metric: 2, rows: 3000, block: 100, micro: true},
		{name: "no-micro", ranks: []int32{7, 9, 40}, targets: 3, metric: 2, rows: 2000, block: 64},
		{name: "duplicates", ranks: []int32{2, 3}, targets: 2, metric: 2, rows: 1000, block: 50, dups: true},
		{name: "chunks", ranks: []int32{0, 1, 2, 3}, targets: 50, metric: 2, rows: 2*parkChunk + 777, block: 4096, micro: true},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 5))
			blocks := c.blocksOf(rng)
			sp := KeySpace{MinRank: slices.Min(c.ranks), Ranks: int(slices.Max(c.ranks)-slices.Min(c.ranks)) + 1, Targets: c.targets, Metrics: c.metric}
			keyed := func(found bool) *Rows {
				var r Rows
				if found { // a CSV tree's merge
					r.KeyBySeries()
					for b := range blocks {
						r.AppendRows(&blocks[b], nil, nil)
					}
				} else { // a trend.db's claimed read
					r.KeyBy(sp, c.rows)
					r.Resize(c.rows)
					if c.micro {
						r.MakeMicro()
					}
					off := 0
					for b := range blocks {
						r.Place(off, &blocks[b])
						off += blocks[b].Len()
					}
				}
				if !r.Keyed() {
					t.Fatal("not keyed")
				}
				return &r
			}
			var perRow Rows
			for b := range blocks {
				perRow.AppendRows(&blocks[b], nil, nil)
			}
			want := formOf(&perRow)
			if !want.also {
				t.Fatal("the case's rows are in series order already")
			}
			var inOrder Rows // the sorted rows, with their own columns
			for i := range perRow.Len() {
				var v [NumStats]float64
				for s := range v {
					v[s] = perRow.Value(Stat(s), i)
				}
				inOrder.Append(perRow.RankOf(i), perRow.Step[i], perRow.MicroOf(i), perRow.TargetOf(i), perRow.MetricOf(i), v)
			}
			for _, found := range []bool{false, true} {
				p := &memPark{failAt: -1}
				got, reused := parkedForm(t, keyed(found), p)
				if !got.equal(want) {
					t.Fatalf("found %v: parked sort differs from the sort without parking", found)
				}
				if p.parks != 1 || p.got != c.rows || !reused {
					t.Fatalf("found %v: parked %d times, %d rows read back of %d, scratch reused %v", found, p.parks, p.got, c.rows, reused)
				}
				if wantReads := (c.rows + parkChunk - 1) / parkChunk; len(p.reads) != wantReads {
					t.Fatalf("found %v: %d chunks read back, want %d", found, len(p.reads), wantReads)
				}
				refused := &memPark{refuse: true, failAt: -1}
				got, reused = parkedForm(t, keyed(found), refused)
				if !got.equal(want) || refused.parks != 1 || len(refused.reads) != 0 || reused {
					t.Fatalf("found %v, parking refused: same %v, %d parks, %d reads, scratch reused %v", found, got.equal(want), refused.parks, len(refused.reads), reused)
				}
			}
			// the per-row sort frees a column of its own: nothing parked
			var again Rows
			for b := range blocks {
				again.AppendRows(&blocks[b], nil, nil)
			}
			p := &memPark{failAt: -1}
			if got, _ := parkedForm(t, &again, p); !got.equal(want) || p.parks != 0 {
				t.Fatalf("per-row sort: same %v, parked %d times", got.equal(want), p.parks)
			}
			// in series order already (keyed and per-row): the sort moves
			// nothing and parks nothing
			sorted := formOfSorted(&inOrder)
			var ko Rows
			ko.KeyBy(sp, c.rows)
			ko.Resize(c.rows)
			ko.Place(0, &inOrder)
			if !ko.Keyed() {
				t.Fatal("not keyed")
			}
			p = &memPark{failAt: -1}
			if got, _ := parkedForm(t, &ko, p); !got.equal(sorted) || p.parks != 0 || got.also {
				t.Fatalf("keyed rows in order: same %v, parked %d times, also called %v", got.equal(sorted), p.parks, got.also)
			}
			po := Rows{}
			po.AppendRows(&inOrder, nil, nil)
			if got, _ := parkedForm(t, &po, p); !got.equal(sorted) || p.parks != 0 {
				t.Fatalf("per-row rows in order: same %v, parked %d times", got.equal(sorted), p.parks)
			}
		})
	}
}

// TestSortParkedReadFails: a failed read of the parked steps fails the
// sort with that error and leaves no rows (their steps are gone), whether
// the first chunk or a later one fails.
func TestSortParkedReadFails(t *testing.T) {
	c := keyedCase{ranks: []int32{0, 1}, targets: 3, metric: 2, rows: parkChunk + 500, block: 4096, micro: true}
	blocks := c.blocksOf(rand.New(rand.NewPCG(3, 3)))
	for _, failAt := range []int{0, parkChunk + 1} {
		var r Rows
		r.KeyBySeries()
		for b := range blocks {
			r.AppendRows(&blocks[b], nil, nil)
		}
		p := &memPark{failAt: failAt}
		err := r.SortSeriesParked(nil, p)
		if err == nil || err.Error() != "read failed" {
			t.Fatalf("fail at %d: error %v", failAt, err)
		}
		if r.Len() != 0 || r.Norm != nil || r.Table != nil {
			t.Fatalf("fail at %d: %d rows left after the steps were lost", failAt, r.Len())
		}
	}
}
