package model

import (
	"math/rand/v2"
	"testing"
)

// TestSortSeriesStable: series order by (metric, target, rank), the input
// order kept within each series, every row kept with all its columns —
// through the counting passes and through the sort for sparse ranks.
func TestSortSeriesStable(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		rng := rand.New(rand.NewPCG(3, 4))
		var r Rows
		const n = 5000
		for i := range n {
			rank := int32(rng.IntN(5))
			if sparse {
				rank *= 1 << 28
			}
			// the norm records the input position: stability is checkable
			r.Append(rank, int32(rng.IntN(9)), NoMicro, int32(rng.IntN(7)), uint8(rng.IntN(3)),
				[NumStats]float64{float64(i), float64(-i), float64(i) / 2, float64(rank)})
		}
		r.SortSeries()
		if r.Len() != n || !r.inSeriesOrder() {
			t.Fatalf("sparse %v: %d rows, in series order %v", sparse, r.Len(), r.inSeriesOrder())
		}
		seen := make([]bool, n)
		for i := range n {
			p := int(r.Norm[i])
			if seen[p] || r.Value(StatMin, i) != float64(-p) || r.Value(StatMean, i) != float64(r.RankOf(i)) {
				t.Fatalf("sparse %v: row %d lost its columns (input %d)", sparse, i, p)
			}
			seen[p] = true
			if i > 0 && cmpKeys(&r, i-1, i) > 0 {
				t.Fatalf("sparse %v: rows %d and %d out of series order", sparse, i-1, i)
			}
			if i > 0 && r.MetricOf(i) == r.MetricOf(i-1) && r.TargetOf(i) == r.TargetOf(i-1) && r.RankOf(i) == r.RankOf(i-1) && r.Norm[i] < r.Norm[i-1] {
				t.Fatalf("sparse %v: rows %d and %d of one series swapped", sparse, i-1, i)
			}
		}
	}
}

// cmpKeys compares the (metric, target, rank) of rows a and b.
func cmpKeys(r *Rows, a, b int) int {
	ka := [3]int32{int32(r.MetricOf(a)), r.TargetOf(a), r.RankOf(a)}
	kb := [3]int32{int32(r.MetricOf(b)), r.TargetOf(b), r.RankOf(b)}
	for k := range ka {
		if ka[k] != kb[k] {
			return int(ka[k] - kb[k])
		}
	}
	return 0
}
