package analysis

import (
	"math"
	"strings"
	"testing"

	"spikescope/model"
)

// A whose gradients overflowed (NaN norm) is the top of its tree, not a
// dump without gradients: in a two-rank tree the other rank is still C.
func TestChooseControlNonFiniteA(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		aTree := tTree(1, 2, func(int, int) float64 { return 1 })
		bTree := tTree(1, 2, func(int, int) float64 { return 1 })
		a := aTree.Find(0, 0)
		for i := range a.Ops {
			for j := range a.Ops[i].Params {
				a.Ops[i].Params[j].Stat[model.StatNorm] = bad
			}
		}
		ch := chooseControlT(aTree, a, bTree, nil)
		if ch.C == nil || ch.C.Rank != 1 || ch.D != bTree.Find(0, 1) {
			t.Fatalf("A norm %v: choice %+v", bad, ch)
		}
		c1 := gradNormOver(aTree.Find(0, 1), nil)
		if float64(ch.P75) != c1 || !strings.Contains(ch.Reason, "C = step 0 rank 1") {
			t.Errorf("A norm %v: P75 %v want %v, reason %s", bad, ch.P75, c1, ch.Reason)
		}
	}
	// With two finite norms or more the non-finite ones stay out of the
	// population ([1, 1.01, 20] → P75 10.5: the 20× rank is not normal).
	aTree := tTree(1, 4, func(_, r int) float64 { return []float64{1, 1, 1.01, 20}[r] })
	a := aTree.Find(0, 0)
	for i := range a.Ops {
		for j := range a.Ops[i].Params {
			a.Ops[i].Params[j].Stat[model.StatNorm] = math.NaN()
		}
	}
	ch := chooseControlT(aTree, a, nil, nil)
	n1, n2, n3 := gradNormOver(aTree.Find(0, 1), nil), gradNormOver(aTree.Find(0, 2), nil), gradNormOver(aTree.Find(0, 3), nil)
	if got, want := float64(ch.P75), n2+0.5*(n3-n2); math.Abs(got-want) > 1e-9*want || n1 >= n2 {
		t.Fatalf("P75 %v want %v", got, want)
	}
	for _, c := range ch.Candidates {
		if c.Rank == 3 && c.Accepted {
			t.Errorf("20× rank accepted: %+v", c)
		}
	}
}
