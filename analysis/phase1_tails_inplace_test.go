package analysis

import (
	"math/rand/v2"
	"testing"
)

// The run's noise spread selected in place equals the one selected from a
// copy (spreadBefore), for any step bound and any need, including bounds
// that keep none, some or all of the changes.
func TestRunSpreadInPlaceEqualsCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 200 {
		n := rng.IntN(300)
		var ts tailScratch
		for range n {
			ts.diffs = append(ts.diffs, rng.ExpFloat64()*0.1)
			ts.at = append(ts.at, int32(rng.IntN(50)))
		}
		first := int32(rng.IntN(55))
		need := rng.IntN(40)
		want := ts.spreadBefore(0, len(ts.diffs), first, need)
		if got := ts.runSpreadInPlace(first, need); got != want {
			t.Fatalf("trial %d (n=%d first=%d need=%d): in place %v, from a copy %v", trial, n, first, need, got, want)
		}
	}
}
