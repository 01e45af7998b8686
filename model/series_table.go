package model

import (
	"iter"
	"sort"
)

// Series is one entry of the series table of rows in series order: the
// rows from Start to the next entry's Start (or the end) all have this
// rank, target and metric.
type Series struct {
	Start  int
	Rank   int32
	Target int32
	Metric uint8
}

// Run is a stretch of consecutive rows Lo..Hi-1 of one series.
type Run struct {
	Lo, Hi int
	Rank   int32
	Target int32
	Metric uint8
}

// Compact reports whether rank, target and metric are held by the series
// table (rows in series order, SortSeries) instead of per-row columns.
func (r *Rows) Compact() bool { return r.Table != nil }

// seriesOf is the table entry holding row i (compact rows).
func (r *Rows) seriesOf(i int) int {
	return sort.Search(len(r.Table), func(k int) bool { return r.Table[k].Start > i }) - 1
}

// RankOf is the rank of row i.
func (r *Rows) RankOf(i int) int32 {
	if r.Table != nil {
		return r.Table[r.seriesOf(i)].Rank
	}
	if r.space != nil {
		rk, _, _ := r.space.series(r.key[i])
		return rk
	}
	return r.Rank[i]
}

// TargetOf is the target (index into MonitorData.Targets) of row i.
func (r *Rows) TargetOf(i int) int32 {
	if r.Table != nil {
		return r.Table[r.seriesOf(i)].Target
	}
	if r.space != nil {
		_, t, _ := r.space.series(r.key[i])
		return t
	}
	return r.Target[i]
}

// MetricOf is the metric (index into MonitorData.Metrics) of row i.
func (r *Rows) MetricOf(i int) uint8 {
	if r.Table != nil {
		return r.Table[r.seriesOf(i)].Metric
	}
	if r.space != nil {
		_, _, m := r.space.series(r.key[i])
		return m
	}
	return r.Metric[i]
}

// Runs yields the rows as maximal stretches of one (rank, target, metric)
// in row order: the series table's entries for compact rows, else found
// by comparing neighbouring rows. Loops over every row go run by run, so
// they read the keys once a series, not once a row.
func (r *Rows) Runs() iter.Seq[Run] {
	return func(yield func(Run) bool) {
		n := r.Len()
		if r.Table != nil {
			for k, s := range r.Table {
				hi := n
				if k+1 < len(r.Table) {
					hi = r.Table[k+1].Start
				}
				if !yield(Run{s.Start, hi, s.Rank, s.Target, s.Metric}) {
					return
				}
			}
			return
		}
		if r.space != nil {
			for lo := 0; lo < n; {
				k := r.key[lo]
				hi := lo + 1
				for hi < n && r.key[hi] == k {
					hi++
				}
				rk, t, m := r.space.series(k)
				if !yield(Run{lo, hi, rk, t, m}) {
					return
				}
				lo = hi
			}
			return
		}
		for lo := 0; lo < n; {
			rk, t, m := r.Rank[lo], r.Target[lo], r.Metric[lo]
			hi := lo + 1
			for hi < n && r.Rank[hi] == rk && r.Target[hi] == t && r.Metric[hi] == m {
				hi++
			}
			if !yield(Run{lo, hi, rk, t, m}) {
				return
			}
			lo = hi
		}
	}
}

// compact replaces the per-row rank, target and metric columns by the
// series table (the rows are in series order).
func (r *Rows) compact() {
	if r.Table != nil {
		return
	}
	table := []Series{}
	for run := range r.Runs() {
		table = append(table, Series{run.Lo, run.Rank, run.Target, run.Metric})
	}
	r.Table, r.Rank, r.Target, r.Metric = table, nil, nil, nil
	r.key, r.space = nil, nil
}

// expand gives compact rows their per-row columns back: rows appended or
// moved after the sort (a followed tree) are no longer in series order.
func (r *Rows) expand() {
	if r.Table == nil {
		return
	}
	n := r.Len()
	rank, target, metric := make([]int32, n, cap(r.Step)), make([]int32, n, cap(r.Step)), make([]uint8, n, cap(r.Step))
	for run := range r.Runs() {
		for i := run.Lo; i < run.Hi; i++ {
			rank[i], target[i], metric[i] = run.Rank, run.Target, run.Metric
		}
	}
	r.Table, r.Rank, r.Target, r.Metric = nil, rank, target, metric
}

// RetargetSeries returns rows sharing r's columns whose targets are
// newTarget of the old ones' rows: run by run, newTarget(run) names the
// target of the whole run (splitting targets by pipeline stage, which
// depends on the rank only).
func (r *Rows) RetargetSeries(newTarget func(Run) int32) Rows {
	if r.space != nil {
		c := *r
		c.Unkey()
		r = &c
	}
	out := *r
	if r.Table != nil {
		out.Table = make([]Series, len(r.Table))
		k := 0
		for run := range r.Runs() {
			out.Table[k] = r.Table[k]
			out.Table[k].Target = newTarget(run)
			k++
		}
		return out
	}
	out.Target = make([]int32, r.Len())
	for run := range r.Runs() {
		t := newTarget(run)
		for i := run.Lo; i < run.Hi; i++ {
			out.Target[i] = t
		}
	}
	return out
}
