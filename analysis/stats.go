package analysis

import (
	"math"

	"spikescope/model"
)

// Order statistics shared by the phases: selection, the median and
// interpolated quantiles.

// quickSelect returns the k-th smallest element (0-based) of s, reordering
// s so that s[k] is it, with no larger value before it and no smaller one
// after it. Expected O(len(s)).
//
// It partitions without branching on the data (selectBranchless): on
// noise a comparison's outcome is a coin toss that a branch predictor
// loses half the time, which made the medians and quantiles most of
// Phase 1's time. The value is the k-th smallest whichever way it is
// found, and of finite values without −0 equal values are equal bits, so
// it is the value the pivoting partition (quickSelectHoare) returns; a
// slice holding NaN or −0 keeps that partition, and its order with it.
func quickSelect(s []float64, k int) float64 {
	for _, v := range s {
		if v != v || v == 0 && math.Signbit(v) {
			return quickSelectHoare(s, k)
		}
	}
	return selectBranchless(s, k)
}

// selectSmall is the range selectBranchless finishes by insertion.
const selectSmall = 8

// medianOf3 is the pivot of both selections: the middle of a, b and c.
func medianOf3(a, b, c float64) float64 {
	switch {
	case (a <= b) == (b <= c):
		return b
	case (b <= a) == (a <= c):
		return a
	}
	return c
}

// selectBranchless is quickSelect on values that are not NaN: a
// median-of-three pivot p, then one pass moves the values < p to the
// front by a swap at every position and an index that advances by the
// comparison (a conditional move, no branch); when p is the smallest of
// the range the values equal to it are split off the same way, so that
// every pass shrinks the range.
func selectBranchless(s []float64, k int) float64 {
	if len(s) >= bracketMin {
		return selectBracketed(s, k)
	}
	return selectPartition(s, k)
}

// Bracketed selection (selectBracketed): slices of bracketMin values or
// more; a sample of bracketSample values at an even stride; the bracket
// is bracketReach sample ranks either side of k's.
const (
	bracketMin    = 2048
	bracketSample = 256
	bracketReach  = 16
)

// selectBracketed is selectBranchless on a large slice: two values of an
// even-strided sample, lo and hi, bracket the k-th smallest (about 1/8 of
// the values between them), and two branch-free passes move the values
// < lo to the front and those ≤ hi after them; the k-th smallest is then
// selected among the values between lo and hi alone — or, when the
// sample missed it, among those < lo or those > hi, which holds it all
// the same. The sample only decides how much work is done, never the
// value: s ends partitioned around k as by selectPartition, with the
// value it selects. About 1.6 passes over s, against about 2.5 for the
// partition alone.
func selectBracketed(s []float64, k int) float64 {
	n := len(s)
	var smp [bracketSample]float64
	stride := n / bracketSample
	for i := range smp {
		smp[i] = s[i*stride]
	}
	r := k * bracketSample / n
	a, b := max(r-bracketReach, 0), min(r+bracketReach, bracketSample-1)
	lo := selectPartition(smp[:], a)
	hi := selectPartition(smp[a:], b-a)
	cl := partitionBelow(s, lo)
	if k < cl {
		return selectPartition(s[:cl], k)
	}
	ch := cl + partitionAtMost(s[cl:], hi)
	if k >= ch {
		return selectPartition(s[ch:], k-ch) // no value of s[:ch] is larger
	}
	return selectPartition(s[cl:ch], k-cl)
}

// partitionBelow moves the values < p to the front of s (a swap at every
// position, an index advanced by the comparison) and returns their number.
func partitionBelow(s []float64, p float64) int {
	j := 0
	for i := range s {
		x := s[i]
		s[i] = s[j]
		s[j] = x
		d := 0
		if x < p {
			d = 1
		}
		j += d
	}
	return j
}

// partitionAtMost is partitionBelow for the values ≤ p.
func partitionAtMost(s []float64, p float64) int {
	j := 0
	for i := range s {
		x := s[i]
		s[i] = s[j]
		s[j] = x
		d := 0
		if x <= p {
			d = 1
		}
		j += d
	}
	return j
}

// selectPartition is selectBranchless by repeated partitions alone.
func selectPartition(s []float64, k int) float64 {
	lo, hi := 0, len(s)
	for hi-lo > selectSmall {
		p := medianOf3(s[lo], s[lo+(hi-lo)/2], s[hi-1])
		j := lo + partitionBelow(s[lo:hi], p)
		if k < j {
			hi = j
			continue
		}
		if j > lo {
			lo = j
			continue
		}
		// p is the smallest: [lo, m) == p, [m, hi) > p
		m := j + partitionAtMost(s[j:hi], p)
		if k < m {
			return s[k]
		}
		lo = m
	}
	for i := lo + 1; i < hi; i++ {
		x := s[i]
		j := i
		for ; j > lo && s[j-1] > x; j-- {
			s[j] = s[j-1]
		}
		s[j] = x
	}
	return s[k]
}

// quickSelectHoare is quickSelect by a pivoting (Hoare) partition with a
// median-of-three pivot.
func quickSelectHoare(s []float64, k int) float64 {
	lo, hi := 0, len(s)-1
	for lo < hi {
		// median of three as pivot
		p := medianOf3(s[lo], s[lo+(hi-lo)/2], s[hi])
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
	n, negZero := 0, false
	for _, v := range s {
		if model.Finite(v) {
			s[n] = v
			n++
			negZero = negZero || v == 0 && math.Signbit(v)
		}
	}
	return medianFinite(s[:n], negZero)
}

// medianFinite is medianInPlace of values that are all finite; negZero
// says whether one of them may be −0 (quickSelect without its own look
// for NaN and −0: the caller's pass over the values knows).
func medianFinite(s []float64, negZero bool) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	var hi float64
	if negZero {
		hi = quickSelectHoare(s, n/2)
	} else {
		hi = selectBranchless(s, n/2)
	}
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
