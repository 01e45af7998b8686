package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refSpread is the noise spread of the changes d at steps before first
// selected from a copy: 0 when fewer than need.
func refSpread(d []float64, at []int32, first int32, need int) float64 {
	var pre []float64
	for i := range d {
		if at[i] < first {
			pre = append(pre, d[i])
		}
	}
	if len(pre) < need || len(pre) == 0 {
		return 0
	}
	return lowQuartileSpread(pre)
}

// The streamed scratch — changes at or after the earliest held step so far
// dropped as parameters settle and chunks fill, all of a parameter's while
// nothing is held (computed again, redo, for the run's spread), a held parameter's
// whole-run spread taken when it is held — gives the run's spread and every
// held parameter's own spread equal, bit for bit, to selecting from all
// the changes kept, whatever the order in which the holds come (early,
// late, none, ties) and across several chunks.
func TestTailStreamEqualsAllChanges(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	defer func(k int) { keepEarly = k }(keepEarly)
	for trial := range 90 {
		// while nothing is held: the changes kept, a few, or none
		keepEarly = []int{1 << 20, 3000, 0}[trial%3]
		var ts tailScratch
		var allD []float64
		var allAt []int32
		type held struct {
			lo, hi int // in allD
			step   int32
			k      int // index in ts.pend
		}
		var helds []held
		params := 1 + rng.IntN(40)
		steps := 20 + rng.IntN(400)
		heldShare := rng.Float64() * 0.3
		dup := rng.IntN(3) == 0 // many changes equal (ties in the selection)
		var spans [][2]int      // each parameter's changes in allD
		ts.redo = func(n int) {
			for _, sp := range spans[:n] {
				ts.mark()
				for i := sp[0]; i < sp[1]; i++ {
					ts.add(allD[i], allAt[i])
				}
			}
		}
		// the parameters judged first noisier, or quieter, than the rest
		early := []float64{1, 1, 8, 0.1}[rng.IntN(4)]
		for pi := range params {
			ts.mark()
			lo := len(allD)
			series := 1 + rng.IntN(6)
			for range series {
				for s := range steps {
					if rng.IntN(20) == 0 {
						continue
					}
					d := rng.ExpFloat64() * 0.1
					if dup {
						d = float64(rng.IntN(5)) * 0.05
					}
					if pi < params/3 {
						d *= early
					}
					ts.add(d, int32(s))
					allD = append(allD, d)
					allAt = append(allAt, int32(s))
				}
			}
			hi := len(allD)
			for rng.Float64() < heldShare {
				st := int32(rng.IntN(steps))
				helds = append(helds, held{lo: lo, hi: hi, step: st, k: len(ts.pend)})
				ts.pend = append(ts.pend, pending{})
				ts.cur = min(ts.cur, st)
			}
			ts.settle()
			spans = append(spans, [2]int{lo, hi})
		}
		if len(helds) == 0 {
			if ts.n > keepEarly || ts.n != len(allD)-spans[min(ts.unstored, params-1)][0] && ts.n != 0 {
				t.Fatalf("trial %d: nothing held, %d changes kept of %d (at most %d), %d of %d parameters dropped", trial, ts.n, len(allD), keepEarly, ts.unstored, params)
			}
			continue
		}
		first := ts.cur
		for _, need := range []int{0, 1, minHistory, 5000} {
			want := refSpread(allD, allAt, first, need)
			// selected in one pass and a copy, several passes and a copy,
			// by the bits alone
			for _, cp := range []int{1 << 20, 3, 0} {
				collectCap = cp
				got := ts.runSpread(first, need)
				collectCap = 1 << 20
				if got != want && !(need == 0 && want == 0) {
					t.Fatalf("trial %d need %d copy ≤ %d: run spread %v, from all changes %v", trial, need, cp, got, want)
				}
			}
		}
		for _, h := range helds {
			p := ts.pend[h.k]
			d, at := allD[h.lo:h.hi], allAt[h.lo:h.hi]
			want := refSpread(d, at, first, minOwnChanges)
			if all := refSpread(d, at, math.MaxInt32, minOwnChanges); want > 0 && all > 0 {
				want = min(want, all)
			}
			if got := ts.ownSpread(p.lo, p.hi, first, p.all); got != want {
				t.Fatalf("trial %d: own spread %v, from all changes %v", trial, got, want)
			}
		}
		// compacted, what is kept is exactly what the run's spread uses
		ts.compact()
		var before int
		for _, at := range allAt[spans[ts.unstored][0]:] {
			if at < first {
				before++
			}
		}
		if ts.n != before || slices.ContainsFunc(stepsKept(&ts), func(s int32) bool { return s >= first }) {
			t.Fatalf("trial %d: %d changes kept after compaction, %d before step %d", trial, ts.n, before, first)
		}
	}
}

func stepsKept(ts *tailScratch) []int32 {
	var s []int32
	for i := 0; i < ts.n; i++ {
		s = append(s, ts.step(i))
	}
	return s
}
