package model

import (
	"cmp"
	"slices"
)

// Keyed rows: while a reader that knows the ranks, targets and metrics
// before reading (a trend.db's rank range, its monitoring_targets and
// monitoring_metrics) loads its rows, each row holds one 4-byte series key
// instead of rank, target and metric (9 bytes). The key is the series'
// place in series order — (metric·Targets + target)·Ranks + rank−MinRank —
// so the series sort counts keys and the series table follows from them
// exactly as from the three columns.

// KeySpace is the ranks, targets and metrics rows may have while keyed.
type KeySpace struct {
	MinRank int32
	Ranks   int // ranks MinRank .. MinRank+Ranks-1
	Targets int // target indexes 0 .. Targets-1
	Metrics int // metric indexes 0 .. Metrics-1
	// found is the series of a space made as rows come (KeyBySeries), by
	// key: in the order first seen, until the sort renumbers them in
	// series order (orderFound); index finds a series' key. Both nil for
	// a space of known ranks, targets and metrics.
	found []seriesID
	index map[seriesID]int32
	table []int32 // appendKeys' keys by (metric, target), reused
}

// seriesID is one (rank, target, metric).
type seriesID struct {
	rank, target int32
	metric       uint8
}

// Keys is how many series keys the space has.
func (k KeySpace) Keys() int64 {
	if k.index != nil {
		return int64(len(k.found))
	}
	return int64(k.Metrics) * int64(k.Targets) * int64(k.Ranks)
}

// KeyBySeries makes empty rows keyed by series found as rows are appended
// (AppendRows, Place): a reader that learns the ranks, targets and metrics
// only while it reads (a CSV tree's files) still holds one 4-byte key a
// row instead of rank, target and metric. The sort numbers the series in
// series order first. False, and the rows as they were, when they are not
// empty.
func (r *Rows) KeyBySeries() bool {
	if r.Len() != 0 || r.Table != nil || r.space != nil {
		return false
	}
	r.Rank, r.Target, r.Metric = nil, nil, nil
	r.key, r.space = []int32{}, &KeySpace{found: []seriesID{}, index: map[seriesID]int32{}}
	return true
}

// orderFound renumbers the keys of a space made by KeyBySeries in series
// order (metric, target, rank), as a space of known series numbers them:
// one pass over the key column, in place.
func (r *Rows) orderFound() {
	sp := r.space
	if sp == nil || sp.index == nil {
		return
	}
	perm := make([]int32, len(sp.found))
	for i := range perm {
		perm[i] = int32(i)
	}
	slices.SortFunc(perm, func(a, b int32) int {
		x, y := sp.found[a], sp.found[b]
		if c := cmp.Compare(x.metric, y.metric); c != 0 {
			return c
		}
		if c := cmp.Compare(x.target, y.target); c != 0 {
			return c
		}
		return cmp.Compare(x.rank, y.rank)
	})
	pos := make([]int32, len(perm))
	sorted := make([]seriesID, len(perm))
	for p, k := range perm {
		pos[k] = int32(p)
		sorted[p] = sp.found[k]
	}
	for i, k := range r.key {
		r.key[i] = pos[k]
	}
	for p, id := range sorted {
		sp.index[id] = int32(p)
	}
	sp.found = sorted
}

// maxKeyedKeys bounds a key space: keys are int32 and the sort counts
// every key.
const maxKeyedKeys = 1 << 30

// KeyBy makes empty rows keyed by sp (rows appended later hold a series
// key, not rank, target and metric): false, and the rows as they were,
// when they are not empty or sp has no room or too many keys for rows
// (more than 4 a row beyond 64 Ki, what the sort's key counts allow).
func (r *Rows) KeyBy(sp KeySpace, rows int) bool {
	keys := sp.Keys()
	if r.Len() != 0 || r.Table != nil || sp.Ranks <= 0 || sp.Targets <= 0 || sp.Metrics <= 0 || sp.Metrics > 256 ||
		keys > maxKeyedKeys || keys > 4*int64(rows)+1<<16 {
		return false
	}
	r.Rank, r.Target, r.Metric = nil, nil, nil
	r.key, r.space = []int32{}, &sp
	return true
}

// Keyed reports whether the rows hold series keys (KeyBy).
func (r *Rows) Keyed() bool { return r.space != nil }

// Fits reports whether every row of src (rows with their own rank, target
// and metric) lies in r's key space; rows that are not keyed take any.
func (r *Rows) Fits(src *Rows) bool {
	sp := r.space
	if sp == nil {
		return true
	}
	if src.space != nil || src.Table != nil {
		return false
	}
	if sp.index != nil {
		return true // series are added as found
	}
	for i := range src.Len() {
		rk := int64(src.Rank[i]) - int64(sp.MinRank)
		if rk < 0 || rk >= int64(sp.Ranks) || src.Target[i] < 0 || int(src.Target[i]) >= sp.Targets || int(src.Metric[i]) >= sp.Metrics {
			return false
		}
	}
	return true
}

// keyOf is the series key of (rank, target, metric) in sp (a space of
// found series adds it when new).
func (sp *KeySpace) keyOf(rank, target int32, metric uint8) int32 {
	if sp.index != nil {
		id := seriesID{rank, target, metric}
		k, ok := sp.index[id]
		if !ok {
			k = int32(len(sp.found))
			sp.found = append(sp.found, id)
			sp.index[id] = k
		}
		return k
	}
	return int32((int(metric)*sp.Targets+int(target))*sp.Ranks + int(rank-sp.MinRank))
}

// series is (rank, target, metric) of key k.
func (sp *KeySpace) series(k int32) (int32, int32, uint8) {
	if sp.index != nil {
		id := sp.found[k]
		return id.rank, id.target, id.metric
	}
	rk := int(k) % sp.Ranks
	rest := int(k) / sp.Ranks
	return int32(rk) + sp.MinRank, int32(rest % sp.Targets), uint8(rest / sp.Targets)
}

// placeKeys writes the keys of src's rows (their own columns) over keys
// off… (src fits: Fits).
func (r *Rows) placeKeys(off int, src *Rows) {
	sp, dst := r.space, r.key[off:off+src.Len()]
	for i := range dst {
		dst[i] = sp.keyOf(src.Rank[i], src.Target[i], src.Metric[i])
	}
}

// appendKeys appends the keys of src's rows (their own columns), targets
// and metrics renumbered by tmap and mmap (nil: unchanged). Rows of one
// rank (a CSV file's) find their key in a table by (metric, target), one
// look-up a series, not a row.
func (r *Rows) appendKeys(src *Rows, tmap []int32, mmap []uint8) {
	sp, n := r.space, src.Len()
	if n == 0 {
		return
	}
	series := func(i int) (int32, int32, uint8) {
		t, m := src.Target[i], src.Metric[i]
		if tmap != nil {
			t = tmap[t]
		}
		if mmap != nil {
			m = mmap[m]
		}
		return src.Rank[i], t, m
	}
	nt := int64(slices.Max(src.Target)) + 1
	nm := int64(slices.Max(src.Metric)) + 1
	if !constantInt(src.Rank) || slices.Min(src.Target) < 0 || nt*nm > int64(n)+1<<10 {
		for i := range n {
			r.key = append(r.key, sp.keyOf(series(i)))
		}
		return
	}
	if int64(cap(sp.table)) < nt*nm {
		sp.table = make([]int32, nt*nm)
	}
	table := sp.table[:nt*nm]
	for i := range table {
		table[i] = -1
	}
	for i := range n {
		j := int64(src.Metric[i])*nt + int64(src.Target[i])
		k := table[j]
		if k < 0 {
			k = sp.keyOf(series(i))
			table[j] = k
		}
		r.key = append(r.key, k)
	}
}

// Unkey gives keyed rows their rank, target and metric columns back (a
// step that works on them row by row: dropping duplicates, appending).
func (r *Rows) Unkey() {
	sp := r.space
	if sp == nil {
		return
	}
	n, c := len(r.key), cap(r.key)
	r.Rank, r.Target, r.Metric = make([]int32, n, c), make([]int32, n, c), make([]uint8, n, c)
	for i, k := range r.key {
		r.Rank[i], r.Target[i], r.Metric[i] = sp.series(k)
	}
	r.key, r.space = nil, nil
}

// keyedInOrder reports whether keyed rows are in series order (keys do not
// decrease).
func (r *Rows) keyedInOrder() bool {
	for i := 1; i < len(r.key); i++ {
		if r.key[i-1] > r.key[i] {
			return false
		}
	}
	return true
}

// sortKeyed is the counting sort of keyed rows: dest (row i's position in
// series order) takes the key column's place and the series table follows
// from the counts. It has no scratch column to hand on (the caller parks
// the step or allocates one).
func (r *Rows) sortKeyed() (dest []int32) {
	sp := r.space
	keys := int(sp.Keys())
	dest = r.key
	table := placeByKey(dest, keys, func(k int) Series {
		rk, t, m := sp.series(int32(k))
		return Series{Rank: rk, Target: t, Metric: m}
	})
	r.Table, r.key, r.space = table, nil, nil
	return dest
}
