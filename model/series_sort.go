package model

import (
	"cmp"
	"math"
	"slices"
	"unsafe"
)

// SortSeries puts the rows in series order — by metric, then target, then
// rank — keeping the input order within each series (a stable sort). In
// that order every (metric, target, rank) series is one contiguous run, so
// the analysis indexes it in place instead of copying step, micro step and
// norm (20 bytes a row). While it runs it holds the permutation (in the
// key or rank column's place) and one 4-byte scratch column (a column it
// frees, or a new one for keyed rows unless SortSeriesParked parks one).
func (r *Rows) SortSeries() { r.SortSeriesWith(nil) }

// SortSeriesWith is SortSeries that also lets the caller put columns it
// holds elsewhere (a reader's min, max and mean written to a file as they
// were read) in series order: when the rows move, also is called at the
// end with dest (row i's position in series order) and a scratch column of
// n free int32s, both dropped after it; when they are in series order
// already, also is not called.
func (r *Rows) SortSeriesWith(also func(dest, scratch []int32)) {
	_ = r.SortSeriesParked(also, nil) // nothing parked: no error
}

// ColumnPark holds one int32 column outside the heap while the sort runs,
// so that the sort reuses the column's array as its scratch instead of
// allocating one (4 bytes a row at the load's peak). The model does no
// I/O: its caller writes and reads (a spill file).
type ColumnPark interface {
	// Park writes col out; false when it cannot (nothing written that
	// will be read: col stays in use and the sort allocates its scratch).
	Park(col []int32) bool
	// ReadBack fills buf with the parked column's rows off..off+len(buf)-1.
	ReadBack(off int, buf []int32) error
}

// parkChunk is how many parked values are read back at a time.
const parkChunk = 1 << 18

// SortSeriesParked is SortSeriesWith where, when the sort would allocate
// its scratch column (keyed rows), the step column is parked with park
// (nil: none) while its array serves as the scratch for the other columns
// and also, then read back straight into series order, a chunk at a time.
// When parking fails the scratch is allocated (the same results). While
// the step is parked also must not read r.Step (its array is a scratch
// column then; its length holds). An error reading the step back fails
// the sort: the rows are not usable then (the step's array was reused).
func (r *Rows) SortSeriesParked(also func(dest, scratch []int32), park ColumnPark) error {
	n := r.Len()
	r.orderFound()
	if r.space != nil && (n < 2 || r.keyedInOrder()) {
		r.compact() // the table from the keys
		return nil
	}
	if n < 2 || r.inSeriesOrder() {
		return nil
	}
	// dest[i] is row i's position in series order; i32 is a 4-byte scratch
	// column
	var dest, i32 []int32
	parked := false
	if r.space != nil {
		dest = r.sortKeyed()
		// the step's array is the scratch while the step waits outside
		// (the keyed sort has no column of its own to spare)
		if park != nil && park.Park(r.Step[:n]) {
			i32, parked = r.Step, true
		} else {
			i32 = make([]int32, n)
		}
	} else {
		dest, i32 = r.sortPerRow()
	}
	// The scratch is reused and nothing becomes garbage: an int32 column
	// swaps with the scratch; a float column is scattered as bits and
	// copied back into its own array in order (the norm in two 32-bit
	// halves, the second in the norm's own array: following the
	// permutation's cycles in place instead is ten times slower, one cache
	// miss after another).
	if !parked {
		r.Step, i32 = scatter(r.Step, i32, dest), r.Step
	}
	if r.micro != nil && !constantInt(r.micro) {
		r.micro, i32 = scatter(r.micro, i32, dest), r.micro
	}
	for s := StatMin; s < NumStats; s++ {
		if v := r.Stats[s]; len(v) == n && !constantFloat(v) {
			for i, d := range dest {
				i32[d] = int32(math.Float32bits(v[i]))
			}
			for i, b := range i32 {
				v[i] = math.Float32frombits(uint32(b))
			}
		}
	}
	// The norm, 8 bytes, needs two 4-byte scratch columns: i32 takes its
	// low halves in series order; the norm's own array, seen as 2n 4-byte
	// words, holds its high halves — first packed into words 0..n-1 in
	// row order (word i is written after row i is read, and lies in a
	// row ≤ i), then scattered into words n..2n-1 in series order — and
	// then takes the norm back (row i overwrites words 2i and 2i+1, whose
	// high halves, n+j with j ≤ i, are read already). No column is
	// allocated: a fresh one was 4 bytes a row on top of every column at
	// the load's peak.
	// (one pass scatters the low halves and packs the high ones: row i is
	// read whole before word i, in row i/2, is written)
	words := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(r.Norm))), 2*n)
	for i, d := range dest {
		b := math.Float64bits(r.Norm[i])
		i32[d] = int32(uint32(b))
		words[i] = uint32(b >> 32)
	}
	for i, d := range dest {
		words[n+int(d)] = words[i]
	}
	for i := range n {
		hi := words[n+i]
		r.Norm[i] = math.Float64frombits(uint64(uint32(i32[i])) | uint64(hi)<<32)
	}
	if also != nil {
		// (while parked, r.Step's array is one of the scratch columns;
		// only its length is read: r.Len, r.Runs)
		also(dest, i32[:n])
	}
	if parked {
		// row i's step goes to dest[i] in whatever array is free now (the
		// step's own, or micro's that it swapped with)
		buf := make([]int32, min(parkChunk, n))
		for lo := 0; lo < n; lo += len(buf) {
			b := buf[:min(len(buf), n-lo)]
			if err := park.ReadBack(lo, b); err != nil {
				*r = Rows{} // not usable: no row is left to be read wrongly
				return err
			}
			for j, v := range b {
				i32[dest[lo+j]] = v
			}
		}
		r.Step = i32[:n]
	}
	return nil
}

// sortPerRow is the sort of rows with their own rank, target and metric
// columns: dest, the table, and a free int32 scratch column.
func (r *Rows) sortPerRow() (dest, i32 []int32) {
	n := r.Len()
	minR, maxR := slices.Min(r.Rank), slices.Max(r.Rank)
	minT, maxT := slices.Min(r.Target), slices.Max(r.Target)
	rSpan, tSpan := int64(maxR)-int64(minR)+1, int64(maxT)-int64(minT)+1
	mSpan := int64(slices.Max(r.Metric)) + 1
	if keys := mSpan * tSpan * rSpan; keys <= 4*int64(n)+1<<16 && keys <= math.MaxInt32 {
		// one counting pass over a dense (metric, target, rank) key: every
		// read sequential
		// the key columns end here: dest takes the rank column's place (row
		// i's key is read before dest[i] is written), the target column
		// becomes the scratch, and the series table follows from the key
		// runs — the sort allocates no column
		dest = r.Rank
		for i := range n {
			dest[i] = int32((int(r.Metric[i])*int(tSpan)+int(r.Target[i]-minT))*int(rSpan) + int(r.Rank[i]-minR))
		}
		table := placeByKey(dest, int(keys), func(k int) Series {
			return Series{Rank: int32(k%int(rSpan)) + minR, Target: int32(k/int(rSpan)%int(tSpan)) + minT, Metric: uint8(k / int(rSpan*tSpan))}
		})
		i32 = r.Target
		r.Table, r.Rank, r.Target, r.Metric = table, nil, nil, nil
	} else {
		perm := make([]int32, n)
		for i := range perm {
			perm[i] = int32(i)
		}
		slices.SortStableFunc(perm, func(a, b int32) int {
			if c := cmp.Compare(r.Metric[a], r.Metric[b]); c != 0 {
				return c
			}
			if c := cmp.Compare(r.Target[a], r.Target[b]); c != 0 {
				return c
			}
			return cmp.Compare(r.Rank[a], r.Rank[b])
		})
		dest = make([]int32, n)
		for p, i := range perm {
			dest[i] = int32(p)
		}
		i32 = perm
		r.Rank, i32 = scatter(r.Rank, i32, dest), r.Rank
		r.Target, i32 = scatter(r.Target, i32, dest), r.Target
		r.Metric = scatter(r.Metric, make([]uint8, n), dest)
		r.compact()
	}
	return dest, i32
}

// constantInt and constantFloat report whether every value equals the
// first (floats bitwise: NaN equals NaN, -0 differs from 0): such a column
// needs no reordering.
func constantInt(v []int32) bool {
	for _, x := range v {
		if x != v[0] {
			return false
		}
	}
	return true
}

func constantFloat(v []float32) bool {
	for _, x := range v {
		if math.Float32bits(x) != math.Float32bits(v[0]) {
			return false
		}
	}
	return true
}

// inSeriesOrder reports whether the rows already are in series order.
func (r *Rows) inSeriesOrder() bool {
	if r.Table != nil {
		return true
	}
	if r.space != nil {
		return r.keyedInOrder()
	}
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

// placeByKey is the stable counting sort of both sorts: key holds each
// row's key (below keys) and becomes row i's position in key order, and
// the series table follows from the key runs (series names key k's
// series). The key is in a column, not a function of the row: a call per
// row made the sort half as slow again.
func placeByKey(key []int32, keys int, series func(k int) Series) []Series {
	next := make([]int32, keys+1)
	for _, k := range key {
		next[k+1]++
	}
	for k := 1; k <= keys; k++ {
		next[k] += next[k-1]
	}
	for i, k := range key {
		key[i] = next[k]
		next[k]++
	}
	table := []Series{}
	start := int32(0)
	for k, end := range next[:keys] {
		if end > start {
			sr := series(k)
			sr.Start = int(start)
			table = append(table, sr)
		}
		start = end
	}
	return table
}

// scatter returns dst with dst[dest[i]] = src[i] (dst reused).
func scatter[T any](src, dst []T, dest []int32) []T {
	dst = dst[:len(dest)]
	for i, d := range dest {
		dst[d] = src[i]
	}
	return dst
}
