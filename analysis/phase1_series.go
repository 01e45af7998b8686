package analysis

import (
	"cmp"
	"slices"

	"spikescope/model"
)

// seriesGroup is one (target, rank) series of the analysed metric: the row
// indexes order[Lo:Hi] of a seriesIndex, in step (then micro step) order.
type seriesGroup struct {
	Target, Rank int32
	Lo, Hi       int32
}

// seriesIndex groups the rows of one metric by (target, rank), each series
// sorted by (step, micro). Built with one counting sort of row indexes (no
// per-row maps or allocations); rows that arrive in step order (trend.db
// scans do) need no further sorting. Step, micro step and norm are copied
// into series order so that every later pass reads memory sequentially —
// unless the rows already are in series order (model.Rows.SortSeries, as
// the readers leave them): then the index is a view of the rows' columns
// and costs no memory per row.
type seriesIndex struct {
	order  []int32 // row indexes in series order; nil: rows base+p (a view)
	base   int32
	step   []int32 // aligned with order
	micro  []int32
	norm   []float64
	groups []seriesGroup
	// targetFirst[t] is the first group of target t (len = #targets + 1).
	targetFirst []int32
	ranks       []int // distinct ranks, ascending
	minStep     int
	maxStep     int
	rows        int   // rows of the metric
	steps       []int // distinct steps (lazily, distinctSteps)
}

// maxDenseKeys bounds the counting-sort key space relative to the rows.
const maxDenseKeys = 1 << 24

// Row filters of buildSeriesIndexOf by micro step.
const (
	allRows   = iota
	stepRows  // only rows without a micro step (a dump's per-step gradient)
	microRows // only rows with a micro step (a dump's per-call gradients)
)

// keepRow applies a row filter to a row's micro step.
func keepRow(filter int, micro int32) bool {
	switch filter {
	case stepRows:
		return micro == model.NoMicro
	case microRows:
		return micro != model.NoMicro
	}
	return true
}

// buildSeriesIndex indexes the rows whose metric is metric.
func buildSeriesIndex(d *model.MonitorData, metric int) *seriesIndex {
	return buildSeriesIndexOf(d, metric, allRows)
}

// buildSeriesIndexOf indexes the rows of the metric that pass the filter.
func buildSeriesIndexOf(d *model.MonitorData, metric, filter int) *seriesIndex {
	r := &d.Rows
	n := r.Len()
	ix := &seriesIndex{minStep: 0, maxStep: -1}
	// rank range and step range of the metric's rows
	minR, maxR := int32(0), int32(-1)
	cnt := 0
	for i := 0; i < n; i++ {
		if int(r.Metric[i]) != metric || !keepRow(filter, r.Micro[i]) {
			continue
		}
		rk, st := r.Rank[i], int(r.Step[i])
		if cnt == 0 {
			minR, maxR, ix.minStep, ix.maxStep = rk, rk, st, st
		} else {
			minR, maxR = min(minR, rk), max(maxR, rk)
			ix.minStep, ix.maxStep = min(ix.minStep, st), max(ix.maxStep, st)
		}
		cnt++
	}
	ix.rows = cnt
	nT := len(d.Targets)
	ix.targetFirst = make([]int32, nT+1)
	if cnt == 0 {
		return ix
	}
	if ix.viewOf(r, metric, filter, cnt) {
		ix.finishGroups(nT)
		return ix
	}
	ix.order = make([]int32, cnt)
	ix.step = make([]int32, cnt)
	ix.micro = make([]int32, cnt)
	ix.norm = make([]float64, cnt)
	norm := r.Norm
	rankSpan := int(maxR-minR) + 1
	keys := nT * rankSpan
	if rankSpan > 0 && keys > 0 && keys <= maxDenseKeys && keys <= 8*cnt+1<<16 {
		next := make([]int32, keys+1)
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric && keepRow(filter, r.Micro[i]) {
				next[int(r.Target[i])*rankSpan+int(r.Rank[i]-minR)+1]++
			}
		}
		for k := 1; k <= keys; k++ {
			next[k] += next[k-1]
		}
		for k := 0; k < keys; k++ {
			if next[k+1] > next[k] {
				ix.groups = append(ix.groups, seriesGroup{Target: int32(k / rankSpan), Rank: int32(k%rankSpan) + minR, Lo: next[k], Hi: next[k+1]})
			}
		}
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric && keepRow(filter, r.Micro[i]) {
				k := int(r.Target[i])*rankSpan + int(r.Rank[i]-minR)
				p := next[k]
				next[k]++
				ix.order[p], ix.step[p], ix.micro[p], ix.norm[p] = int32(i), r.Step[i], r.Micro[i], norm[i]
			}
		}
	} else {
		j := 0
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric && keepRow(filter, r.Micro[i]) {
				ix.order[j] = int32(i)
				j++
			}
		}
		slices.SortStableFunc(ix.order, func(a, b int32) int {
			if c := cmp.Compare(r.Target[a], r.Target[b]); c != 0 {
				return c
			}
			return cmp.Compare(r.Rank[a], r.Rank[b])
		})
		for p, i := range ix.order {
			ix.step[p], ix.micro[p], ix.norm[p] = r.Step[i], r.Micro[i], norm[i]
		}
		for lo := 0; lo < cnt; {
			t, rk := r.Target[ix.order[lo]], r.Rank[ix.order[lo]]
			hi := lo + 1
			for hi < cnt && r.Target[ix.order[hi]] == t && r.Rank[ix.order[hi]] == rk {
				hi++
			}
			ix.groups = append(ix.groups, seriesGroup{Target: t, Rank: rk, Lo: int32(lo), Hi: int32(hi)})
			lo = hi
		}
	}
	for _, g := range ix.groups {
		ix.sortGroup(g)
	}
	ix.finishGroups(nT)
	return ix
}

// viewOf makes the index a view of the rows when the metric's rows are one
// contiguous block in (target, rank, step, micro) order and pass the
// filter; it reports whether they were.
func (ix *seriesIndex) viewOf(r *model.Rows, metric, filter, cnt int) bool {
	n := r.Len()
	lo := 0
	for lo < n && int(r.Metric[lo]) != metric {
		lo++
	}
	hi := lo + cnt
	if hi > n {
		return false
	}
	for i := lo; i < hi; i++ {
		if int(r.Metric[i]) != metric || !keepRow(filter, r.Micro[i]) {
			return false
		}
		if i > lo {
			if c := cmp.Compare(r.Target[i-1], r.Target[i]); c > 0 {
				return false
			} else if c == 0 {
				if c := cmp.Compare(r.Rank[i-1], r.Rank[i]); c > 0 {
					return false
				} else if c == 0 && (r.Step[i-1] > r.Step[i] || r.Step[i-1] == r.Step[i] && r.Micro[i-1] > r.Micro[i]) {
					return false
				}
			}
		}
	}
	ix.base = int32(lo)
	ix.step, ix.micro, ix.norm = r.Step[lo:hi], r.Micro[lo:hi], r.Norm[lo:hi]
	for a := lo; a < hi; {
		b := a + 1
		for b < hi && r.Target[b] == r.Target[a] && r.Rank[b] == r.Rank[a] {
			b++
		}
		ix.groups = append(ix.groups, seriesGroup{Target: r.Target[a], Rank: r.Rank[a], Lo: int32(a - lo), Hi: int32(b - lo)})
		a = b
	}
	return true
}

// row is the row index of series position p.
func (ix *seriesIndex) row(p int) int32 {
	if ix.order == nil {
		return ix.base + int32(p)
	}
	return ix.order[p]
}

// finishGroups derives the distinct ranks and targetFirst from the groups.
func (ix *seriesIndex) finishGroups(nT int) {
	rankSeen := map[int32]bool{}
	for _, g := range ix.groups {
		rankSeen[g.Rank] = true
	}
	for rk := range rankSeen {
		ix.ranks = append(ix.ranks, int(rk))
	}
	slices.Sort(ix.ranks)
	// targetFirst: groups are ordered by target
	g := 0
	for t := 0; t <= nT; t++ {
		for g < len(ix.groups) && int(ix.groups[g].Target) < t {
			g++
		}
		ix.targetFirst[t] = int32(g)
	}
}

// sortGroup puts a series in (step, micro) order when it is not already.
func (ix *seriesIndex) sortGroup(g seriesGroup) {
	lo, hi := int(g.Lo), int(g.Hi)
	sorted := true
	for k := lo + 1; k < hi; k++ {
		if ix.step[k-1] > ix.step[k] || (ix.step[k-1] == ix.step[k] && ix.micro[k-1] > ix.micro[k]) {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	type item struct {
		o, s, m int32
		n       float64
	}
	items := make([]item, hi-lo)
	for k := range items {
		items[k] = item{ix.order[lo+k], ix.step[lo+k], ix.micro[lo+k], ix.norm[lo+k]}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if c := cmp.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	for k, it := range items {
		ix.order[lo+k], ix.step[lo+k], ix.micro[lo+k], ix.norm[lo+k] = it.o, it.s, it.m, it.n
	}
}

// targetGroups returns the groups of target t.
func (ix *seriesIndex) targetGroups(t int) []seriesGroup {
	if t < 0 || t+1 >= len(ix.targetFirst) {
		return nil
	}
	return ix.groups[ix.targetFirst[t]:ix.targetFirst[t+1]]
}

// block returns the positions [lo, hi) of all series of target t.
func (ix *seriesIndex) block(t int) (lo, hi int) {
	gs := ix.targetGroups(t)
	if len(gs) == 0 {
		return 0, 0
	}
	return int(gs[0].Lo), int(gs[len(gs)-1].Hi)
}

// distinctSteps returns the distinct steps of the indexed rows, ascending.
func (ix *seriesIndex) distinctSteps(d *model.MonitorData) []int {
	if ix.steps != nil {
		return ix.steps
	}
	ix.steps = []int{}
	span := ix.maxStep - ix.minStep + 1
	if ix.rows == 0 {
		return ix.steps
	}
	if span > 0 && span <= 4*ix.rows+1024 {
		seen := make([]bool, span)
		for _, st := range ix.step {
			seen[int(st)-ix.minStep] = true
		}
		for k, ok := range seen {
			if ok {
				ix.steps = append(ix.steps, k+ix.minStep)
			}
		}
		return ix.steps
	}
	set := map[int]bool{}
	for _, st := range ix.step {
		set[int(st)] = true
	}
	for k := range set {
		ix.steps = append(ix.steps, k)
	}
	slices.Sort(ix.steps)
	return ix.steps
}
