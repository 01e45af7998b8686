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
	micro  []int32 // nil: no row has a micro step (read with microAt)
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
// It reads the rows run by run (model.Rows.Runs): rank, target and metric
// once a series.
func buildSeriesIndexOf(d *model.MonitorData, metric, filter int) *seriesIndex {
	r := &d.Rows
	ix := &seriesIndex{minStep: 0, maxStep: -1}
	var runs []model.Run // the metric's runs, in row order
	for run := range r.Runs() {
		if int(run.Metric) == metric {
			runs = append(runs, run)
		}
	}
	// rank range and step range of the metric's rows
	minR, maxR := int32(0), int32(-1)
	cnt := 0
	for _, run := range runs {
		rk := run.Rank
		for i := run.Lo; i < run.Hi; i++ {
			if !keepRow(filter, r.MicroOf(i)) {
				continue
			}
			st := int(r.Step[i])
			if cnt == 0 {
				minR, maxR, ix.minStep, ix.maxStep = rk, rk, st, st
			} else {
				minR, maxR = min(minR, rk), max(maxR, rk)
				ix.minStep, ix.maxStep = min(ix.minStep, st), max(ix.maxStep, st)
			}
			cnt++
		}
	}
	ix.rows = cnt
	nT := len(d.Targets)
	ix.targetFirst = make([]int32, nT+1)
	if cnt == 0 {
		return ix
	}
	if ix.viewOf(r, runs, filter, cnt) {
		ix.finishGroups(nT)
		return ix
	}
	ix.order = make([]int32, cnt)
	ix.step = make([]int32, cnt)
	if r.HasMicro() {
		ix.micro = make([]int32, cnt)
	}
	ix.norm = make([]float64, cnt)
	norm := r.Norm
	rankSpan := int(maxR-minR) + 1
	keys := nT * rankSpan
	if rankSpan > 0 && keys > 0 && keys <= maxDenseKeys && keys <= 8*cnt+1<<16 {
		next := make([]int32, keys+1)
		for _, run := range runs {
			k := int(run.Target)*rankSpan + int(run.Rank-minR) + 1
			for i := run.Lo; i < run.Hi; i++ {
				if keepRow(filter, r.MicroOf(i)) {
					next[k]++
				}
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
		for _, run := range runs {
			k := int(run.Target)*rankSpan + int(run.Rank-minR)
			for i := run.Lo; i < run.Hi; i++ {
				if keepRow(filter, r.MicroOf(i)) {
					p := next[k]
					next[k]++
					ix.order[p], ix.step[p], ix.norm[p] = int32(i), r.Step[i], norm[i]
					if ix.micro != nil {
						ix.micro[p] = r.MicroOf(i)
					}
				}
			}
		}
	} else {
		// runs in (target, rank) order, the input order kept within a key
		slices.SortStableFunc(runs, func(a, b model.Run) int {
			if c := cmp.Compare(a.Target, b.Target); c != 0 {
				return c
			}
			return cmp.Compare(a.Rank, b.Rank)
		})
		j := 0
		for k, run := range runs {
			lo := j
			for i := run.Lo; i < run.Hi; i++ {
				if keepRow(filter, r.MicroOf(i)) {
					ix.order[j], ix.step[j], ix.norm[j] = int32(i), r.Step[i], norm[i]
					if ix.micro != nil {
						ix.micro[j] = r.MicroOf(i)
					}
					j++
				}
			}
			if j == lo {
				continue
			}
			if g := len(ix.groups) - 1; g >= 0 && k > 0 && ix.groups[g].Target == run.Target && ix.groups[g].Rank == run.Rank {
				ix.groups[g].Hi = int32(j)
			} else {
				ix.groups = append(ix.groups, seriesGroup{Target: run.Target, Rank: run.Rank, Lo: int32(lo), Hi: int32(j)})
			}
		}
	}
	for _, g := range ix.groups {
		ix.sortGroup(g)
	}
	ix.finishGroups(nT)
	return ix
}

// viewOf makes the index a view of the rows when the metric's rows (its
// runs, in row order) are one contiguous block in (target, rank, step,
// micro) order and pass the filter; it reports whether they were.
func (ix *seriesIndex) viewOf(r *model.Rows, runs []model.Run, filter, cnt int) bool {
	lo := runs[0].Lo
	hi := lo + cnt
	if hi > r.Len() {
		return false
	}
	var view []model.Run // the runs clipped to lo..hi
	for k, run := range runs {
		if run.Lo >= hi {
			break
		}
		if k > 0 && run.Lo != runs[k-1].Hi {
			return false
		}
		run.Hi = min(run.Hi, hi)
		view = append(view, run)
	}
	if view[len(view)-1].Hi != hi {
		return false
	}
	for k, run := range view {
		same := false // the run continues the previous one's series
		if k > 0 {
			prev := view[k-1]
			if c := cmp.Compare(prev.Target, run.Target); c > 0 || c == 0 && prev.Rank > run.Rank {
				return false
			}
			same = prev.Target == run.Target && prev.Rank == run.Rank
		}
		for i := run.Lo; i < run.Hi; i++ {
			if !keepRow(filter, r.MicroOf(i)) {
				return false
			}
			if (i > run.Lo || same) && (r.Step[i-1] > r.Step[i] || r.Step[i-1] == r.Step[i] && r.MicroOf(i-1) > r.MicroOf(i)) {
				return false
			}
		}
	}
	runs = view
	ix.base = int32(lo)
	ix.step, ix.norm = r.Step[lo:hi], r.Norm[lo:hi]
	if r.HasMicro() {
		ix.micro = r.Micros(lo, hi)
	}
	for _, run := range runs {
		g := len(ix.groups) - 1
		if g >= 0 && ix.groups[g].Target == run.Target && ix.groups[g].Rank == run.Rank {
			ix.groups[g].Hi = int32(run.Hi - lo) // a key split over two runs
			continue
		}
		ix.groups = append(ix.groups, seriesGroup{Target: run.Target, Rank: run.Rank, Lo: int32(run.Lo - lo), Hi: int32(run.Hi - lo)})
	}
	return true
}

// microAt is the micro step at series position p.
func (ix *seriesIndex) microAt(p int) int32 {
	if ix.micro == nil {
		return model.NoMicro
	}
	return ix.micro[p]
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
		if ix.step[k-1] > ix.step[k] || (ix.step[k-1] == ix.step[k] && ix.microAt(k-1) > ix.microAt(k)) {
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
		items[k] = item{ix.order[lo+k], ix.step[lo+k], ix.microAt(lo + k), ix.norm[lo+k]}
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if c := cmp.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	for k, it := range items {
		ix.order[lo+k], ix.step[lo+k], ix.norm[lo+k] = it.o, it.s, it.n
		if ix.micro != nil {
			ix.micro[lo+k] = it.m
		}
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
