package model

import (
	"cmp"
	"slices"
)

// SortSeries puts the rows in series order — by metric, then target, then
// rank — keeping the input order within each series (a stable sort). In
// that order every (metric, target, rank) series is one contiguous run, so
// the analysis indexes it in place instead of copying step, micro step and
// norm (20 bytes a row). It costs one permutation (4 bytes a row) and one
// column at a time of scratch while it runs.
func (r *Rows) SortSeries() {
	n := r.Len()
	if n < 2 || r.inSeriesOrder() {
		return
	}
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	tmp := make([]int32, n)
	minR, maxR := slices.Min(r.Rank), slices.Max(r.Rank)
	minT, maxT := slices.Min(r.Target), slices.Max(r.Target)
	dense := func(span int64) bool { return span <= 4*int64(n)+1<<16 }
	if dense(int64(maxR)-int64(minR)+1) && dense(int64(maxT)-int64(minT)+1) {
		// least significant key first: each pass is a stable counting sort
		perm, tmp = countingPass(perm, tmp, int(maxR-minR)+1, func(i int32) int { return int(r.Rank[i] - minR) })
		perm, tmp = countingPass(perm, tmp, int(maxT-minT)+1, func(i int32) int { return int(r.Target[i] - minT) })
		perm, tmp = countingPass(perm, tmp, 256, func(i int32) int { return int(r.Metric[i]) })
	} else {
		slices.SortStableFunc(perm, func(a, b int32) int {
			if c := cmp.Compare(r.Metric[a], r.Metric[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(r.Target[a], r.Target[b]); c != 0 {
				return c
			}
			return cmp.Compare(r.Rank[a], r.Rank[b])
		})
	}
	r.Rank, tmp = gather(r.Rank, tmp, perm), r.Rank
	r.Step, tmp = gather(r.Step, tmp, perm), r.Step
	r.Micro, tmp = gather(r.Micro, tmp, perm), r.Micro
	r.Target, _ = gather(r.Target, tmp, perm), r.Target
	r.Metric = gather(r.Metric, make([]uint8, n), perm)
	r.Norm = gather(r.Norm, make([]float64, n), perm)
	var buf []float32
	for s := StatMin; s < NumStats; s++ {
		if len(r.Stats[s]) == n {
			if buf == nil {
				buf = make([]float32, n)
			}
			r.Stats[s], buf = gather(r.Stats[s], buf, perm), r.Stats[s]
		}
	}
}

// inSeriesOrder reports whether the rows already are in series order.
func (r *Rows) inSeriesOrder() bool {
	for i := 1; i < r.Len(); i++ {
		if c := cmp.Compare(r.Metric[i-1], r.Metric[i]); c != 0 {
			if c > 0 {
				return false
			}
			continue
		}
		if c := cmp.Compare(r.Target[i-1], r.Target[i]); c != 0 {
			if c > 0 {
				return false
			}
			continue
		}
		if r.Rank[i-1] > r.Rank[i] {
			return false
		}
	}
	return true
}

// countingPass stably sorts perm by key (0 ≤ key < span) into tmp and
// returns (sorted, the other buffer).
func countingPass(perm, tmp []int32, span int, key func(int32) int) ([]int32, []int32) {
	count := make([]int32, span+1)
	for _, i := range perm {
		count[key(i)+1]++
	}
	for k := 1; k <= span; k++ {
		count[k] += count[k-1]
	}
	for _, i := range perm {
		k := key(i)
		tmp[count[k]] = i
		count[k]++
	}
	return tmp, perm
}

// gather returns dst[i] = src[perm[i]] (dst reused).
func gather[T any](src, dst []T, perm []int32) []T {
	dst = dst[:len(perm)]
	for i, p := range perm {
		dst[i] = src[p]
	}
	return dst
}
