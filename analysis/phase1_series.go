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
// scans do) need no further sorting.
type seriesIndex struct {
	order  []int32
	groups []seriesGroup
	// targetFirst[t] is the first group of target t (len = #targets + 1).
	targetFirst []int32
	ranks       []int // distinct ranks, ascending
	minStep     int
	maxStep     int
	rows        int // rows of the metric
}

// maxDenseKeys bounds the counting-sort key space relative to the rows.
const maxDenseKeys = 1 << 24

// buildSeriesIndex indexes the rows whose metric is metric.
func buildSeriesIndex(d *model.MonitorData, metric int) *seriesIndex {
	r := &d.Rows
	n := r.Len()
	ix := &seriesIndex{minStep: 0, maxStep: -1}
	// rank range and step range of the metric's rows
	minR, maxR := int32(0), int32(-1)
	cnt := 0
	for i := 0; i < n; i++ {
		if int(r.Metric[i]) != metric {
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
	ix.order = make([]int32, cnt)
	rankSpan := int(maxR-minR) + 1
	keys := nT * rankSpan
	if rankSpan > 0 && keys > 0 && keys <= maxDenseKeys && keys <= 8*cnt+1<<16 {
		counts := make([]int32, keys+1)
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric {
				counts[int(r.Target[i])*rankSpan+int(r.Rank[i]-minR)+1]++
			}
		}
		for k := 1; k <= keys; k++ {
			counts[k] += counts[k-1]
		}
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric {
				k := int(r.Target[i])*rankSpan + int(r.Rank[i]-minR)
				ix.order[counts[k]] = int32(i)
				counts[k]++
			}
		}
	} else {
		j := 0
		for i := 0; i < n; i++ {
			if int(r.Metric[i]) == metric {
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
	}
	// cut into groups, sorting a group by (step, micro) only when needed
	rankSeen := map[int32]bool{}
	for lo := 0; lo < cnt; {
		t, rk := r.Target[ix.order[lo]], r.Rank[ix.order[lo]]
		hi := lo + 1
		sorted := true
		for hi < cnt && r.Target[ix.order[hi]] == t && r.Rank[ix.order[hi]] == rk {
			a, b := ix.order[hi-1], ix.order[hi]
			if r.Step[a] > r.Step[b] || (r.Step[a] == r.Step[b] && r.Micro[a] > r.Micro[b]) {
				sorted = false
			}
			hi++
		}
		if !sorted {
			slices.SortStableFunc(ix.order[lo:hi], func(a, b int32) int {
				if c := cmp.Compare(r.Step[a], r.Step[b]); c != 0 {
					return c
				}
				return cmp.Compare(r.Micro[a], r.Micro[b])
			})
		}
		ix.groups = append(ix.groups, seriesGroup{Target: t, Rank: rk, Lo: int32(lo), Hi: int32(hi)})
		rankSeen[rk] = true
		lo = hi
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
	return ix
}

// targetGroups returns the groups of target t.
func (ix *seriesIndex) targetGroups(t int) []seriesGroup {
	if t < 0 || t+1 >= len(ix.targetFirst) {
		return nil
	}
	return ix.groups[ix.targetFirst[t]:ix.targetFirst[t+1]]
}

// rowsOf returns the row indexes of a group.
func (ix *seriesIndex) rowsOf(g seriesGroup) []int32 { return ix.order[g.Lo:g.Hi] }
