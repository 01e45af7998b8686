package ui

import (
	"math"

	"spikescope/model"
)

// metricNames is the metric switch order (`m`).
var metricNames = []string{"Norm", "Max", "Min", "Mean"}

// The four-group value columns shared by the layer and operator tables:
// forward then backward, A B C D, A/B, C/D, anomaly degree.
const (
	qFA = iota
	qFB
	qFC
	qFD
	qFAB
	qFCD
	qFAnom
	qBA
	qBB
	qBC
	qBD
	qBAB
	qBCD
	qBAnom
	numQuadCols
)

// quadColumns returns the 14 value columns. get returns the metric row of
// data row i (nil when it has none). When they do not all fit, the two
// anomaly degrees stay and the rest scroll in the order the method reads
// them: the ratios A/B and C/D the degree is made of, then the raw values,
// forward A/B, forward C/D, backward A/B, backward C/D. baseline names the group in the baseline
// column: "C" when the nearby normal sample C stands in for a missing B
// (the column is titled F_C, its ratio F_A/C, and the empty control
// columns are not shown); "" or "B" for B.
func quadColumns(get func(i int) *model.MetricRow, baseline string) []column {
	titles := []string{"F_A", "F_B", "F_C", "F_D", "F_A/B", "F_C/D", "F-anomaly", "B_A", "B_B", "B_C", "B_D", "B_A/B", "B_C/D", "B-anomaly"}
	standIn := baseline == "C"
	if standIn {
		titles[qFB], titles[qFAB], titles[qBB], titles[qBAB] = "F_C", "F_A/C", "B_C", "B_A/C"
	}
	widths := []int{8, 8, 8, 8, 6, 6, 9, 8, 8, 8, 8, 6, 6, 9}
	drops := []int{2, 2, 3, 3, 1, 1, 0, 4, 4, 5, 5, 1, 1, 0}
	cols := make([]column, numQuadCols)
	for c := 0; c < numQuadCols; c++ {
		c := c
		cols[c] = column{title: titles[c], width: widths[c], right: true, drop: drops[c], freeze: c == qFAnom || c == qBAnom,
			less: func(a, b int) bool { return quadValue(get(a), c) < quadValue(get(b), c) }}
		switch c {
		case qFC, qFD, qFCD, qBC, qBD, qBCD:
			cols[c].off = standIn
		}
	}
	return cols
}

// quadPtr returns the value of column c of a metric row (nil = no value).
// The backward columns are the forward ones' order over the backward
// values.
func quadPtr(r *model.MetricRow, c int) *model.Float {
	if r == nil || c < qFA || c >= numQuadCols {
		return nil
	}
	q, ab, cd, anom := r.Fwd, r.FAB, r.FCD, r.FAnomaly
	if c >= qBA {
		q, ab, cd, anom = r.Bwd, r.BAB, r.BCD, r.BAnomaly
		c -= qBA - qFA
	}
	return [...]*model.Float{q.A, q.B, q.C, q.D, ab, cd, anom}[c-qFA]
}

// quadValue is the sort key of a cell: missing values sort first.
func quadValue(r *model.MetricRow, c int) float64 {
	p := quadPtr(r, c)
	if p == nil || math.IsNaN(float64(*p)) {
		return math.Inf(-1)
	}
	return float64(*p)
}

// quadCell renders one cell: "-" for an unaligned or missing value, the
// anomaly degree with F!/B! highlighted when flagged; a non-finite
// divergence (NaN/Inf in A, finite baseline) is F!∞ / B!∞.
func quadCell(r *model.MetricRow, c int, st Styles) string {
	p := quadPtr(r, c)
	switch c {
	case qFAB, qFCD, qBAB, qBCD:
		return fmtRatio(p)
	case qFAnom, qBAnom:
		if r != nil && c == qFAnom && r.FNonFinite {
			return st.Flag.Render("F!∞")
		}
		if r != nil && c == qBAnom && r.BNonFinite {
			return st.Flag.Render("B!∞")
		}
		txt := fmtRatio(p)
		if r != nil && c == qFAnom && r.FFlag {
			return st.Flag.Render(txt + " F!")
		}
		if r != nil && c == qBAnom && r.BFlag {
			return st.Flag.Render(txt + " B!")
		}
		return txt + "   " // the digits line up with the flagged rows' "2.013 F!"
	}
	return fmtPtr(p)
}
