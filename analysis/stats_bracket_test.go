package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// selectBranchless on large slices (selectBracketed) returns the k-th
// smallest and leaves s partitioned around k, whatever the sample says:
// shapes where the sample brackets k, and strided samples that miss it
// on either side (every value the sample reads far below or far above
// the rest).
func TestSelectBracketedPartitions(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	shapes := []func(s []float64, stride int){
		func(s []float64, _ int) { // noise
			for i := range s {
				s[i] = rng.NormFloat64()
			}
		},
		func(s []float64, _ int) { // few levels: ties everywhere
			for i := range s {
				s[i] = float64(rng.IntN(5))
			}
		},
		func(s []float64, _ int) { // one value
			for i := range s {
				s[i] = 3
			}
		},
		func(s []float64, _ int) { // ascending
			for i := range s {
				s[i] = float64(i)
			}
		},
		func(s []float64, _ int) { // descending
			for i := range s {
				s[i] = -float64(i)
			}
		},
		func(s []float64, stride int) { // the sample reads only the lowest values
			for i := range s {
				s[i] = 1 + rng.Float64()
				if i%stride == 0 {
					s[i] = -1 - rng.Float64()
				}
			}
		},
		func(s []float64, stride int) { // the sample reads only the highest values
			for i := range s {
				s[i] = 1 + rng.Float64()
				if i%stride == 0 {
					s[i] = 10 + rng.Float64()
				}
			}
		},
		func(s []float64, _ int) { // heavy tails and infinities
			for i := range s {
				s[i] = math.Exp(4 * rng.NormFloat64())
				if rng.IntN(100) == 0 {
					s[i] = math.Inf(1 - 2*rng.IntN(2))
				}
			}
		},
	}
	for it := 0; it < 300; it++ {
		n := bracketMin + rng.IntN(6*bracketMin)
		s := make([]float64, n)
		shapes[it%len(shapes)](s, n/bracketSample)
		var k int
		switch rng.IntN(4) {
		case 0:
			k = rng.IntN(n)
		case 1:
			k = []int{0, n - 1, n / 2, n/2 - 1}[rng.IntN(4)]
		default:
			k = n/2 + rng.IntN(n/8) - n/16
		}
		w := slices.Clone(s)
		slices.Sort(w)
		v := selectBranchless(s, k)
		if math.Float64bits(v) != math.Float64bits(w[k]) || math.Float64bits(s[k]) != math.Float64bits(v) {
			t.Fatalf("shape %d n %d: selectBranchless(%d) = %g (s[k] %g), want %g", it%len(shapes), n, k, v, s[k], w[k])
		}
		for i, x := range s {
			if i < k && x > v || i > k && x < v {
				t.Fatalf("shape %d n %d k %d: s[%d] = %g on the wrong side of %g", it%len(shapes), n, k, i, x, v)
			}
		}
		got := slices.Clone(s)
		slices.Sort(got)
		if !slices.Equal(got, w) {
			t.Fatalf("shape %d: s is no longer a permutation of its values", it%len(shapes))
		}
	}
}

// medianFinite of a large slice equals the median of the sorted values,
// bit for bit, odd and even lengths.
func TestMedianFiniteBracketed(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 8))
	for it := 0; it < 200; it++ {
		n := bracketMin + rng.IntN(3*bracketMin)
		s := make([]float64, n)
		for i := range s {
			s[i] = math.Exp(rng.NormFloat64()) * float64(1+rng.IntN(3))
		}
		w := slices.Clone(s)
		slices.Sort(w)
		want := w[n/2]
		if n%2 == 0 {
			want = (w[n/2-1] + w[n/2]) / 2
		}
		if got := medianFinite(s, false); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("n %d: medianFinite = %v, want %v", n, got, want)
		}
	}
}
