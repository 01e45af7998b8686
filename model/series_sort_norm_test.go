package model

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSortSeriesNormBits: the norm is moved as all its 64 bits (both
// halves, NaN payloads and -0 included) through the scratch held in its
// own array, for odd and even row counts and for the counting and the
// comparison sort.
func TestSortSeriesNormBits(t *testing.T) {
	for _, sparse := range []bool{false, true} {
		for _, n := range []int{2, 3, 4, 5, 17, 1000, 1001} {
			rng := rand.New(rand.NewPCG(uint64(n), 9))
			var r Rows
			bits := make([]uint64, n)
			for i := range n {
				bits[i] = rng.Uint64()
				switch i % 7 {
				case 3:
					bits[i] = 0x7ff8_0000_dead_beef // a NaN with a payload
				case 5:
					bits[i] = 1 << 63 // -0
				}
				rank := int32(rng.IntN(4))
				if sparse {
					rank *= 1 << 28
				}
				// min records the input position
				r.Append(rank, int32(i), NoMicro, int32(rng.IntN(5)), uint8(rng.IntN(2)),
					[NumStats]float64{0, float64(i), 0, 0})
				r.Norm[i] = math.Float64frombits(bits[i])
			}
			r.SortSeries()
			for i := range n {
				p := int(r.Value(StatMin, i))
				if got := math.Float64bits(r.Norm[i]); got != bits[p] {
					t.Fatalf("sparse %v, %d rows: row %d (input %d) has norm bits %#x, want %#x", sparse, n, i, p, got, bits[p])
				}
			}
		}
	}
}
