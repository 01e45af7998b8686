package model

import "math"

// NonFinite counts the non-finite values of one statistic.
type NonFinite struct {
	NaN    int `json:"nan"`
	PosInf int `json:"pos_inf"`
	NegInf int `json:"neg_inf"`
}

// Total is the number of non-finite values.
func (n NonFinite) Total() int { return n.NaN + n.PosInf + n.NegInf }

// Add counts v when it is NaN or ±Inf.
func (n *NonFinite) Add(v float64) {
	switch {
	case math.IsNaN(v):
		n.NaN++
	case math.IsInf(v, 1):
		n.PosInf++
	case math.IsInf(v, -1):
		n.NegInf++
	}
}

// AddAll32 counts the non-finite values among vals (the finite test
// first: nearly every value is).
func (n *NonFinite) AddAll32(vals []float32) {
	for _, v := range vals {
		if f := float64(v); f != f || f > math.MaxFloat64 || f < -math.MaxFloat64 {
			n.Add(f)
		}
	}
}

// StatCounts are the non-finite counts of min, max and mean of every row,
// by metric: what a summary reports about columns that the analysis
// otherwise reads only at a few rows, counted once while they are at hand
// so that the summary need not read them again (they may have moved out of
// memory, Rows.Mapped).
type StatCounts struct {
	Rows int // the rows counted (Rows.Len at the time)
	// ByMetric is indexed by metric, then by Stat (StatNorm stays zero: the
	// norm is always at hand).
	ByMetric [][NumStats]NonFinite
}

// CountStats counts the non-finite min, max and mean of every row by
// metric, run by run (a statistic the rows lack counts NaN in every row).
func (r *Rows) CountStats() *StatCounts {
	c := &StatCounts{Rows: r.Len()}
	for run := range r.Runs() {
		for int(run.Metric) >= len(c.ByMetric) {
			c.ByMetric = append(c.ByMetric, [NumStats]NonFinite{})
		}
		m := &c.ByMetric[run.Metric]
		for s := StatMin; s < NumStats; s++ {
			if r.Lacks[s] {
				m[s].NaN += run.Hi - run.Lo
				continue
			}
			m[s].AddAll32(r.Stats[s][run.Lo:run.Hi])
		}
	}
	return c
}

// NonFiniteStats is Counted while it still describes the rows, else the
// rows counted now (CountStats).
func (r *Rows) NonFiniteStats() *StatCounts {
	if c := r.Counted; c != nil && c.Rows == r.Len() {
		return c
	}
	return r.CountStats()
}

// allNaN reports whether the counts say statistic s is NaN in every row
// counted (false for nil counts).
func (c *StatCounts) allNaN(s Stat) bool {
	if c == nil || s == StatNorm {
		return false
	}
	n := 0
	for _, m := range c.ByMetric {
		n += m[s].NaN
	}
	return n == c.Rows
}
