package analysis

import (
	"math"

	"spikescope/model"
)

// Order statistics shared by the phases: selection, the median and
// interpolated quantiles.

// quickSelect returns the k-th smallest element (0-based) of s, reordering
// s. Expected O(len(s)).
func quickSelect(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// median of three as pivot
		mid := lo + (hi-lo)/2
		a, b, c := s[lo], s[mid], s[hi]
		p := b
		if (a <= b) == (b <= c) {
			p = b
		} else if (b <= a) == (a <= c) {
			p = a
		} else {
			p = c
		}
		i, j := lo, hi
		for i <= j {
			for s[i] < p {
				i++
			}
			for s[j] > p {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return s[k]
		}
	}
	return s[k]
}

// medianInPlace is the true median (mean of the two middle values) of the
// finite values of s; s is reordered. NaN when s has no finite value.
func medianInPlace(s []float64) float64 {
	n := 0
	for _, v := range s {
		if model.Finite(v) {
			s[n] = v
			n++
		}
	}
	s = s[:n]
	if n == 0 {
		return math.NaN()
	}
	hi := quickSelect(s, n/2)
	if n%2 == 1 {
		return hi
	}
	lo := s[0]
	for _, v := range s[:n/2] {
		if v > lo {
			lo = v
		}
	}
	return (lo + hi) / 2
}

// interpQuantile is the linearly interpolated q-quantile of sorted values (the
// usual "type 7" estimator; the reference's upper-index picks are biased on
// small samples).
func interpQuantile(sorted []float64, q float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	if n == 1 {
		return sorted[0]
	}
	h := q * float64(n-1)
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return sorted[lo] + (h-float64(lo))*(sorted[lo+1]-sorted[lo])
}
