package model

import (
	"math"
	"reflect"
	"testing"
	"unsafe"
)

func TestTrim(t *testing.T) {
	r := statRows()
	r.Grow(1000)
	if !r.Slack() {
		t.Fatal("grown rows have no slack")
	}
	want := statRows()
	r.Trim()
	if r.Slack() || cap(r.Norm) != 6 || cap(r.Step) != 6 || cap(r.Stats[StatMin]) != 6 || r.Stats[StatMean] != nil {
		t.Fatalf("trimmed: caps %d %d %d", cap(r.Norm), cap(r.Step), cap(r.Stats[StatMin]))
	}
	if !reflect.DeepEqual(r.Step, want.Step) || !reflect.DeepEqual(r.Rank, want.Rank) {
		t.Fatal("trim changed the rows")
	}
	for i := range 6 {
		for s := StatNorm; s < NumStats; s++ {
			if math.Float64bits(r.Value(s, i)) != math.Float64bits(want.Value(s, i)) {
				t.Fatalf("row %d %s: %v, want %v", i, s, r.Value(s, i), want.Value(s, i))
			}
		}
	}
	// a column with little slack is kept as it is
	r.Norm = append(make([]float64, 0, 6400+320), make([]float64, 6400)...)
	p := unsafe.SliceData(r.Norm)
	r.Trim()
	if unsafe.SliceData(r.Norm) != p {
		t.Error("a column with 5% spare (320 of 6400) copied")
	}
}
