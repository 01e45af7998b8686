package model

import (
	"math"
	"reflect"
	"testing"
)

// statRows is 6 rows of two metrics (in series order) with NaN and ±Inf in
// min, max and mean; the mean is lacked.
func statRows() Rows {
	var r Rows
	nan, inf := math.NaN(), math.Inf(1)
	r.Append(0, 0, NoMicro, 0, 0, [NumStats]float64{1, nan, inf, nan})
	r.Append(0, 1, NoMicro, 0, 0, [NumStats]float64{nan, -inf, 2, nan})
	r.Append(1, 0, NoMicro, 0, 0, [NumStats]float64{1, -1, 3e38 * 10, nan}) // beyond float32: +Inf
	r.Append(0, 0, NoMicro, 1, 1, [NumStats]float64{2, nan, nan, nan})
	r.Append(0, 1, NoMicro, 1, 1, [NumStats]float64{2, 0, -inf, nan})
	r.Append(1, 1, NoMicro, 1, 1, [NumStats]float64{2, 0, 1, nan})
	r.Lack(StatMean)
	return r
}

func TestCountStats(t *testing.T) {
	r := statRows()
	want := &StatCounts{Rows: 6, ByMetric: [][NumStats]NonFinite{
		{StatMin: {NaN: 1, NegInf: 1}, StatMax: {PosInf: 2}, StatMean: {NaN: 3}},
		{StatMin: {NaN: 1}, StatMax: {NaN: 1, NegInf: 1}, StatMean: {NaN: 3}},
	}}
	for _, compact := range []bool{false, true} {
		if compact {
			r.SortSeries()
			r.compact()
		}
		if got := r.CountStats(); !reflect.DeepEqual(got, want) {
			t.Fatalf("compact %v: counts %+v, want %+v", compact, got, want)
		}
	}
	// kept counts are used while they describe the rows
	r.Counted = &StatCounts{Rows: 6}
	if r.NonFiniteStats() != r.Counted {
		t.Fatal("kept counts not used")
	}
	r.Counted.Rows = 5
	if got := r.NonFiniteStats(); !reflect.DeepEqual(got, want) {
		t.Fatalf("counts of another row count used: %+v", got)
	}
}

// TestChangesDropCounts: every method that changes rows drops the kept
// counts.
func TestChangesDropCounts(t *testing.T) {
	other := statRows()
	for name, change := range map[string]func(*Rows){
		"SetValue":   func(r *Rows) { r.SetValue(StatMin, 0, 1) },
		"Lack":       func(r *Rows) { r.Lack(StatMax) },
		"Grow":       func(r *Rows) { r.Grow(10) },
		"Resize":     func(r *Rows) { r.Resize(7) },
		"Append":     func(r *Rows) { r.Append(0, 0, NoMicro, 0, 0, [NumStats]float64{}) },
		"AppendRows": func(r *Rows) { r.AppendRows(&other, nil, nil) },
		"Place":      func(r *Rows) { r.Place(0, &other) },
		"Move":       func(r *Rows) { r.Move(0, 1) },
		"Truncate":   func(r *Rows) { r.Truncate(3) },
	} {
		r := statRows()
		r.Counted = r.CountStats()
		change(&r)
		if r.Counted != nil {
			t.Errorf("%s kept the counts", name)
		}
	}
}

// Lack keeps the counts only for a statistic they count NaN in every row:
// dropping a column that had numbers changes what the rows hold.
func TestLackKeepsCountsOfAnAllNaNStat(t *testing.T) {
	var r Rows
	nan := math.NaN()
	r.Append(0, 1, NoMicro, 0, 0, [NumStats]float64{1, nan, 2, nan})
	r.Append(0, 2, NoMicro, 0, 0, [NumStats]float64{1, nan, math.Inf(1), nan})
	r.Counted = r.CountStats()
	r.Lack(StatMin)
	if r.Counted == nil {
		t.Fatal("counts dropped for a statistic that was NaN in every row")
	}
	r.Lack(StatMax)
	if r.Counted != nil {
		t.Fatal("counts kept though max had numbers")
	}
}
