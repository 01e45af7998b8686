package model

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// keyedCase is rows as a reader reads them: blocks of rows with their own
// rank, target and metric.
type keyedCase struct {
	name            string
	ranks           []int32 // the ranks rows may have (gaps allowed)
	targets, metric int
	rows, block     int
	micro, dups     bool
}

// blocksOf makes the case's rows in blocks.
func (c keyedCase) blocksOf(rng *rand.Rand) []Rows {
	var out []Rows
	nan := math.NaN()
	for len(out)*c.block < c.rows {
		var b Rows
		for range min(c.block, c.rows-len(out)*c.block) {
			micro := NoMicro
			if c.micro && rng.IntN(2) == 0 {
				micro = int32(rng.IntN(3))
			}
			norm := rng.NormFloat64()
			switch rng.IntN(20) {
			case 0:
				norm = nan
			case 1:
				norm = math.Inf(1)
			case 2:
				norm = math.Copysign(0, -1)
			}
			step := int32(rng.IntN(50))
			if c.dups {
				step = int32(rng.IntN(3))
			}
			b.Append(c.ranks[rng.IntN(len(c.ranks))], step, micro, int32(rng.IntN(c.targets)), uint8(rng.IntN(c.metric)),
				[NumStats]float64{norm, rng.Float64(), nan, float64(float32(rng.NormFloat64()))})
		}
		out = append(out, b)
	}
	return out
}

// sortedForm is everything the series sort leaves, bit for bit, with the
// permutation and the scratch it handed on.
type sortedForm struct {
	table []Series
	step  []int32
	micro []int32
	norm  []uint64
	stats [NumStats][]uint32
	dest  []int32
	also  bool
}

func formOf(r *Rows) sortedForm {
	var f sortedForm
	r.SortSeriesWith(func(dest, scratch []int32) {
		f.dest, f.also = slices.Clone(dest), true
		if len(scratch) != r.Len() {
			panic("scratch length")
		}
	})
	for run := range r.Runs() { // the table, or the runs of rows already in order
		f.table = append(f.table, Series{run.Lo, run.Rank, run.Target, run.Metric})
	}
	f.step = slices.Clone(r.Step)
	for i := range r.Len() {
		f.micro = append(f.micro, r.MicroOf(i))
		f.norm = append(f.norm, math.Float64bits(r.Norm[i]))
		for s := StatMin; s < NumStats; s++ {
			f.stats[s] = append(f.stats[s], math.Float32bits(float32(r.Value(s, i))))
		}
	}
	return f
}

func (f sortedForm) equal(g sortedForm) bool {
	if f.also != g.also || !slices.Equal(f.table, g.table) || !slices.Equal(f.step, g.step) || !slices.Equal(f.micro, g.micro) ||
		!slices.Equal(f.norm, g.norm) || !slices.Equal(f.dest, g.dest) {
		return false
	}
	for s := range f.stats {
		if !slices.Equal(f.stats[s], g.stats[s]) {
			return false
		}
	}
	return true
}

// TestKeyedRowsSortAsPerRow: rows placed keyed (one series key a row
// instead of rank, target and metric) in blocks landing out of order, as
// the claimed trend.db read places them, sort into the same series table,
// steps, micro steps, norms and statistics bit for bit, with the same
// permutation handed on, as the same rows appended with their own columns;
// the accessors agree before the sort; and rows outside the space do not
// fit.
func TestKeyedRowsSortAsPerRow(t *testing.T) {
	many := make([]int32, 400) // 400 ranks × 300 targets × 2 metrics: >65535 series
	for i := range many {
		many[i] = int32(i)
	}
	cases := []keyedCase{
		{name: "plain", ranks: []int32{0, 1, 2, 3}, targets: 5, metric: 2, rows: 3000, block: 128},
		{name: "micro-mixed-nan", ranks: []int32{0, 1}, targets: 4, metric: 2, rows: 2000, block: 100, micro: true},
		{name: "rank-gaps", ranks: []int32{7, 9, 40, 41}, targets: 3, metric: 1, rows: 1500, block: 64},
		{name: "duplicates", ranks: []int32{2, 3}, targets: 2, metric: 2, rows: 1000, block: 50, dups: true},
		{name: "many-series", ranks: many, targets: 300, metric: 2, rows: 200000, block: 8192},
		{name: "one-row", ranks: []int32{5}, targets: 1, metric: 1, rows: 1, block: 8},
	}
	for k, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(k), 77))
			blocks := c.blocksOf(rng)
			var perRow Rows
			order := rng.Perm(len(blocks)) // blocks land as readers finish
			for _, b := range order {
				perRow.AppendRows(&blocks[b], nil, nil)
			}
			sp := KeySpace{MinRank: slices.Min(c.ranks), Ranks: int(slices.Max(c.ranks)-slices.Min(c.ranks)) + 1, Targets: c.targets, Metrics: c.metric}
			var keyed Rows
			if !keyed.KeyBy(sp, c.rows) {
				t.Fatalf("space %+v refused", sp)
			}
			keyed.Resize(c.rows)
			if c.micro {
				keyed.MakeMicro()
			}
			off := 0
			for _, b := range order {
				if !keyed.Fits(&blocks[b]) {
					t.Fatal("a block in the space does not fit")
				}
				keyed.Place(off, &blocks[b])
				off += blocks[b].Len()
			}
			if !keyed.Keyed() || keyed.Rank != nil || keyed.Target != nil || keyed.Metric != nil {
				t.Fatal("keyed rows hold rank, target or metric columns")
			}
			for i := range perRow.Len() {
				if keyed.RankOf(i) != perRow.RankOf(i) || keyed.TargetOf(i) != perRow.TargetOf(i) || keyed.MetricOf(i) != perRow.MetricOf(i) {
					t.Fatalf("row %d: keys differ before the sort", i)
				}
			}
			var runsK, runsP []Run
			for run := range keyed.Runs() {
				runsK = append(runsK, run)
			}
			for run := range perRow.Runs() {
				runsP = append(runsP, run)
			}
			if !slices.Equal(runsK, runsP) {
				t.Fatal("runs differ before the sort")
			}
			want, got := formOf(&perRow), formOf(&keyed)
			if !got.equal(want) {
				t.Fatalf("sorted keyed rows differ from the per-row form (%d vs %d series)", len(got.table), len(want.table))
			}
			if keyed.Keyed() || keyed.Table == nil && keyed.Len() > 0 {
				t.Fatal("sorted rows are still keyed")
			}
			// already in series order: the table from the keys alone
			var again Rows
			again.KeyBy(sp, c.rows)
			again.Resize(c.rows)
			again.Place(0, &perRow)
			if again.SortSeries(); !slices.Equal(formOf(&again).table, want.table) || again.Keyed() {
				t.Fatal("rows in series order: the table differs")
			}
		})
	}
	var r Rows
	r.KeyBy(KeySpace{MinRank: 2, Ranks: 3, Targets: 4, Metrics: 2}, 10)
	r.Resize(1)
	for _, bad := range [][3]int{{1, 0, 0}, {5, 0, 0}, {2, 4, 0}, {2, -1, 0}, {2, 0, 2}} {
		var b Rows
		b.Append(int32(bad[0]), 0, NoMicro, int32(bad[1]), uint8(bad[2]), [NumStats]float64{})
		if r.Fits(&b) {
			t.Errorf("rank %d target %d metric %d fits", bad[0], bad[1], bad[2])
		}
	}
	if (&Rows{}).KeyBy(KeySpace{Ranks: 1 << 20, Targets: 1 << 10, Metrics: 1}, 100) {
		t.Error("a key space far larger than the rows was taken")
	}
	// appending to keyed rows gives them their columns back
	var b Rows
	b.Append(3, 1, NoMicro, 2, 1, [NumStats]float64{})
	r.Place(0, &b)
	r.Append(4, 2, NoMicro, 3, 0, [NumStats]float64{})
	if r.Keyed() || r.Rank[0] != 3 || r.Target[0] != 2 || r.Metric[0] != 1 || r.Rank[1] != 4 || r.Target[1] != 3 {
		t.Errorf("append to keyed rows: %v %v %v keyed %v", r.Rank, r.Target, r.Metric, r.Keyed())
	}
}

// TestFoundKeysSortAsPerRow: rows keyed by series found as blocks are
// appended (KeyBySeries, a CSV tree's merge), their targets and metrics
// renumbered on the way, sort into the per-row form bit for bit: blocks of
// one rank (a file: the per-block table) and of mixed ranks (a key a row).
func TestFoundKeysSortAsPerRow(t *testing.T) {
	cases := []keyedCase{
		{name: "plain", ranks: []int32{0, 1, 2, 3}, targets: 5, metric: 2, rows: 3000, block: 128},
		{name: "micro-mixed-nan", ranks: []int32{0, 1}, targets: 4, metric: 2, rows: 2000, block: 100, micro: true},
		{name: "rank-gaps", ranks: []int32{7, 9, 40, 41}, targets: 3, metric: 1, rows: 1500, block: 64},
		{name: "duplicates", ranks: []int32{2, 3}, targets: 2, metric: 2, rows: 1000, block: 50, dups: true},
		{name: "one-row", ranks: []int32{5}, targets: 1, metric: 1, rows: 1, block: 8},
	}
	for k, c := range cases {
		for _, oneRank := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(k), 91))
			blocks := c.blocksOf(rng)
			if oneRank {
				for b := range blocks {
					for i := range blocks[b].Rank {
						blocks[b].Rank[i] = c.ranks[b%len(c.ranks)]
					}
				}
			}
			// a block's local targets and metrics map to the tree's
			tmap := make([]int32, c.targets)
			for i, p := range rng.Perm(c.targets) {
				tmap[i] = int32(p)
			}
			mmap := make([]uint8, c.metric)
			for i, p := range rng.Perm(c.metric) {
				mmap[i] = uint8(p)
			}
			var perRow, found Rows
			if !found.KeyBySeries() || found.KeyBySeries() {
				t.Fatal("KeyBySeries: empty rows refused, or keyed twice")
			}
			for b := range blocks {
				perRow.AppendRows(&blocks[b], tmap, mmap)
				found.AppendRows(&blocks[b], tmap, mmap)
			}
			if !found.Keyed() || found.Rank != nil || found.Target != nil || found.Metric != nil {
				t.Fatalf("%s: found-keyed rows hold rank, target or metric columns", c.name)
			}
			for i := range perRow.Len() {
				if found.RankOf(i) != perRow.RankOf(i) || found.TargetOf(i) != perRow.TargetOf(i) || found.MetricOf(i) != perRow.MetricOf(i) {
					t.Fatalf("%s one rank %v: row %d differs before the sort", c.name, oneRank, i)
				}
			}
			if want, got := formOf(&perRow), formOf(&found); !got.equal(want) || found.Keyed() {
				t.Fatalf("%s one rank %v: sorted found-keyed rows differ from the per-row form (%d vs %d series)", c.name, oneRank, len(got.table), len(want.table))
			}
		}
	}
}
