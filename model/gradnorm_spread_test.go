package model

import (
	"math"
	"testing"
)

// A rank whose norm is NaN is the highest of the spread and is shown as NaN
// (not as +Inf); ranks with no row at the step are left out.
func TestRankSpreadNaNRanksHighest(t *testing.T) {
	g := &GradNorm{
		Ranks:  []int{0, 1, 2, 3},
		Norm:   [][]Float{{2, Float(math.NaN()), 1, 9}},
		Params: [][]int{{3, 3, 3, 0}},
	}
	hi, lo, med, ok := g.RankSpread(0)
	if !ok || hi.Rank != 1 || !math.IsNaN(hi.Norm) {
		t.Fatalf("hi = %+v ok %v, want rank 1 NaN", hi, ok)
	}
	if lo.Rank != 2 || lo.Norm != 1 {
		t.Fatalf("lo = %+v, want rank 2 at 1", lo)
	}
	if med != 2 {
		t.Fatalf("median %v, want 2 (rank 3 has no row)", med)
	}
	g.Params[0] = []int{0, 0, 0, 0}
	if _, _, _, ok := g.RankSpread(0); ok {
		t.Fatal("a step with no rows has a spread")
	}
}
