package model

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomRows appends n rows with random keys; the norm is the input
// position.
func randomRows(r *Rows, rng *rand.Rand, n int) {
	for range n {
		r.Append(int32(rng.IntN(4)), int32(rng.IntN(9)), NoMicro, int32(rng.IntN(5)), uint8(rng.IntN(2)),
			[NumStats]float64{float64(r.Len()), 0, 0, 0})
	}
}

// keysOf is every row's (rank, target, metric) by input position (the
// norm), read through the accessors.
func keysOf(r *Rows) map[int][3]int32 {
	out := map[int][3]int32{}
	for i := range r.Len() {
		out[int(r.Norm[i])] = [3]int32{r.RankOf(i), r.TargetOf(i), int32(r.MetricOf(i))}
	}
	return out
}

// TestSeriesTable: sorted rows hold rank, target and metric as one table
// entry per series (no per-row columns), and every accessor and Runs reads
// the same keys as before the sort; rows appended afterwards (a followed
// tree) get per-row columns back with every earlier key kept, and sort into
// a table again.
func TestSeriesTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var r Rows
	randomRows(&r, rng, 3000)
	want := keysOf(&r)
	series := map[[3]int32]bool{}
	for _, k := range want {
		series[k] = true
	}
	r.SortSeries()
	if !r.Compact() || r.Rank != nil || r.Target != nil || r.Metric != nil || len(r.Table) != len(series) {
		t.Fatalf("compact %v, columns %d %d %d, table %d entries for %d series", r.Compact(), len(r.Rank), len(r.Target), len(r.Metric), len(r.Table), len(series))
	}
	if got := keysOf(&r); !maps.Equal(got, want) {
		t.Fatal("the series table changed a row's keys")
	}
	var runs []Run
	rows := 0
	for run := range r.Runs() {
		for i := run.Lo; i < run.Hi; i++ {
			if k := want[int(r.Norm[i])]; k != [3]int32{run.Rank, run.Target, int32(run.Metric)} {
				t.Fatalf("row %d in run %+v has keys %v", i, run, k)
			}
		}
		runs = append(runs, run)
		rows += run.Hi - run.Lo
	}
	if rows != r.Len() || len(runs) != len(series) {
		t.Fatalf("runs cover %d of %d rows, %d runs for %d series", rows, r.Len(), len(runs), len(series))
	}
	// after the sort: more rows (csvMerger.add while following)
	randomRows(&r, rng, 500)
	if r.Compact() || len(r.Rank) != r.Len() {
		t.Fatalf("after appending: compact %v, %d ranks for %d rows", r.Compact(), len(r.Rank), r.Len())
	}
	perRow := slices.Collect(r.Runs())
	if len(perRow) <= len(runs) || perRow[len(runs)-1] != runs[len(runs)-1] {
		t.Fatalf("per-row runs %d (last sorted %+v), want the %d sorted runs then the new rows'", len(perRow), perRow[len(runs)-1], len(runs))
	}
	want = keysOf(&r)
	r.SortSeries()
	if !r.Compact() || r.Len() != 3500 || !maps.Equal(keysOf(&r), want) {
		t.Fatalf("sorted again: compact %v, %d rows", r.Compact(), r.Len())
	}
	// moving and truncating compact rows (compaction) keeps the keys
	r.Move(0, 1)
	r.Truncate(r.Len() - 1)
	if r.Compact() || r.Norm[0] != r.Norm[1] || r.RankOf(0) != r.RankOf(1) || r.TargetOf(0) != r.TargetOf(1) || r.MetricOf(0) != r.MetricOf(1) {
		t.Fatalf("moved: row 0 %v/%d, row 1 %v/%d", r.Norm[0], r.RankOf(0), r.Norm[1], r.RankOf(1))
	}
}

// TestRetargetSeries: a new target per run, the same in both states, the
// source left as it was.
func TestRetargetSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var perRow Rows
	randomRows(&perRow, rng, 2000)
	sorted := perRow
	sorted.Rank, sorted.Target, sorted.Metric = slices.Clone(perRow.Rank), slices.Clone(perRow.Target), slices.Clone(perRow.Metric)
	sorted.Step, sorted.micro, sorted.Norm = slices.Clone(perRow.Step), slices.Clone(perRow.micro), slices.Clone(perRow.Norm)
	sorted.SortSeries()
	newT := func(run Run) int32 { return run.Target*10 + run.Rank }
	for _, r := range []*Rows{&perRow, &sorted} {
		before := keysOf(r)
		out := r.RetargetSeries(newT)
		if !maps.Equal(keysOf(r), before) {
			t.Fatalf("compact %v: the source's targets changed", r.Compact())
		}
		for i := range out.Len() {
			k := before[int(out.Norm[i])]
			if out.TargetOf(i) != k[1]*10+k[0] || out.RankOf(i) != k[0] || int32(out.MetricOf(i)) != k[2] {
				t.Fatalf("compact %v: row %d target %d, want %d", r.Compact(), i, out.TargetOf(i), k[1]*10+k[0])
			}
		}
	}
}
