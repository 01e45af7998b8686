package model

import (
	"math"
	"testing"
)

// TestLackedStatistic: a statistic the input lacks costs no storage and
// reads NaN through every operation, until a row brings a number: then the
// earlier rows read NaN and the new one its value.
func TestLackedStatistic(t *testing.T) {
	var r Rows
	r.Lack(StatMin)
	nan := math.NaN()
	for i := range 4 {
		r.Append(int32(3-i), 0, NoMicro, 0, 0, [NumStats]float64{float64(i), nan, float64(i), 0})
	}
	if r.Stats[StatMin] != nil || !math.IsNaN(r.Value(StatMin, 2)) {
		t.Fatalf("lacked min stored: %v", r.Stats[StatMin])
	}
	var other Rows
	other.Lack(StatMin)
	other.Lack(StatMax)
	other.Append(9, 0, NoMicro, 0, 0, [NumStats]float64{9, nan, nan, 0})
	r.AppendRows(&other, nil, nil) // both lack min; only other lacks max
	if r.Len() != 5 || r.Stats[StatMin] != nil || len(r.Stats[StatMax]) != 5 || !math.IsNaN(r.Value(StatMax, 4)) {
		t.Fatalf("appended: rows %d min %v max %v", r.Len(), r.Stats[StatMin], r.Stats[StatMax])
	}
	r.SortSeries() // by rank: norms 3 2 1 0 9
	r.Move(0, 1)   // norms 2 2 1 0 9
	r.Truncate(4)  // norms 2 2 1 0
	for i, want := range []float64{2, 2, 1, 0} {
		if r.Norm[i] != want || r.Value(StatMax, i) != want || !math.IsNaN(r.Value(StatMin, i)) {
			t.Fatalf("row %d: norm %v max %v min %v, want norm = max = %v, min NaN", i, r.Norm[i], r.Value(StatMax, i), r.Value(StatMin, i), want)
		}
	}
	if r.Len() != 4 || r.Stats[StatMin] != nil {
		t.Fatalf("rows %d, min stored %v", r.Len(), r.Stats[StatMin])
	}
	r.Append(7, 0, NoMicro, 0, 0, [NumStats]float64{7, -7, 7, 0})
	if r.Lacks[StatMin] || len(r.Stats[StatMin]) != 5 || !math.IsNaN(r.Value(StatMin, 0)) || r.Value(StatMin, 4) != -7 {
		t.Fatalf("min after a number: lacks %v %v", r.Lacks[StatMin], r.Stats[StatMin])
	}
}
