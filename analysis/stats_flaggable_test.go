package analysis

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// flaggablePool is a pool of n values of a few shapes Phase 1 judges:
// normal and half-normal noise of several widths, heavy tails, ties
// (quantised values), spikes, a few non-finite values and zeros.
func flaggablePool(rng *rand.Rand) []float64 {
	n := 8 + rng.IntN(40)
	if rng.IntN(3) == 0 {
		n = 8 + rng.IntN(2000)
	}
	noise := []float64{1e-6, 0.01, 0.05, 0.1, 0.3, 1}[rng.IntN(6)]
	shape := rng.IntN(4)
	vs := make([]float64, n)
	for i := range vs {
		z := rng.NormFloat64()
		switch shape {
		case 0:
			vs[i] = 1 + noise*z
		case 1:
			vs[i] = math.Abs(z) * noise
		case 2:
			vs[i] = math.Exp(noise * 3 * z)
		case 3:
			vs[i] = math.Round((1+noise*z)*8) / 8
		}
		switch rng.IntN(60) {
		case 0:
			vs[i] *= 1 + 20*rng.Float64() // a spike
		case 1:
			vs[i] = math.NaN()
		case 2:
			vs[i] = 0
		case 3:
			vs[i] *= 1.5 + rng.Float64()
		}
	}
	return vs
}

// TestCannotFlagHidesNoFlag: whenever prescreenFlaggable returns no
// candidate where prescreenExcept returns some, judgeIn flags none of
// them (in the pool or left out of it); and the candidates it does return
// are prescreenExcept's, judged the same. The random pools reach both
// outcomes often.
func TestCannotFlagHidesNoFlag(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 4))
	rule := robustRule{IQRMult: 5, MADMult: 10, MinEffect: 1.5}
	var fj, ej robustJudge
	fj.rule, ej.rule = rule, rule
	var fc, ec []int
	proven, sorted := 0, 0
	for k := 0; k < 20000; k++ {
		vals := flaggablePool(rng)
		var skip []bool
		if rng.IntN(3) == 0 {
			skip = make([]bool, len(vals))
			for i := range skip {
				skip[i] = rng.IntN(10) == 0
			}
		}
		var fl, el bool
		fc, fl = fj.prescreenFlaggable(vals, skip, fc)
		ec, el = ej.prescreenExcept(vals, skip, ec)
		if fl != el || fj.poolN != ej.poolN {
			t.Fatalf("pool of %v: left %v / %v, pool %d / %d", vals, fl, el, fj.poolN, ej.poolN)
		}
		if len(ec) == 0 {
			continue
		}
		if len(fc) == 0 {
			proven++
			for _, ci := range ec {
				v := vals[ci]
				for _, in := range []bool{!el || !skip[ci], false} {
					if vd := ej.judgeIn(v, in); vd.Flagged {
						t.Fatalf("pool of %d values: %g (in pool %v) flagged %+v, but no candidate was returned", len(vals), v, in, vd)
					}
				}
			}
			continue
		}
		sorted++
		if !slices.Equal(fc, ec) || !slices.EqualFunc(fj.pool.sorted, ej.pool.sorted, sameBits) {
			t.Fatalf("pool of %v: candidates %v, want %v", vals, fc, ec)
		}
		for _, ci := range ec {
			in := !el || !skip[ci]
			if g, w := fj.judgeIn(vals[ci], in), ej.judgeIn(vals[ci], in); !sameVerdict(g, w) {
				t.Fatalf("judge %v: got %+v, want %+v", vals[ci], g, w)
			}
		}
	}
	if proven < 2000 || sorted < 2000 {
		t.Errorf("%d pools proven unflaggable, %d judged: the random pools miss a path", proven, sorted)
	}
	t.Logf("%d pools proven unflaggable, %d judged", proven, sorted)
}

// quickSelect leaves s partitioned around k (cannotFlag selects within
// the two sides of screen's selection).
func TestQuickSelectPartitions(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 5))
	for it := 0; it < 5000; it++ {
		n := 1 + rng.IntN(300)
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(rng.IntN(1 + rng.IntN(50)))
		}
		k := rng.IntN(n)
		v := quickSelect(s, k)
		w := slices.Clone(s)
		slices.Sort(w)
		if v != w[k] || s[k] != v {
			t.Fatalf("quickSelect(%d) = %g (s[k] %g), want %g", k, v, s[k], w[k])
		}
		for i, x := range s {
			if i < k && x > v || i > k && x < v {
				t.Fatalf("s[%d] = %g on the wrong side of s[%d] = %g", i, x, k, v)
			}
		}
	}
}

// quickSelect returns the bits quickSelectHoare returns, and leaves the
// same order where it falls back to it (NaN, −0); ties, zeros and small
// and large slices.
func TestQuickSelectSameAsHoare(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 6))
	for it := 0; it < 20000; it++ {
		n := 1 + rng.IntN(40)
		if rng.IntN(4) == 0 {
			n = 1 + rng.IntN(3000)
		}
		s := make([]float64, n)
		levels := 1 + rng.IntN(100)
		for i := range s {
			switch rng.IntN(4) {
			case 0:
				s[i] = float64(rng.IntN(levels)) / 4
			default:
				s[i] = rng.NormFloat64()
			}
			if rng.IntN(500) == 0 {
				s[i] = math.Copysign(0, -1)
			}
		}
		k := rng.IntN(n)
		h := slices.Clone(s)
		g, w := quickSelect(s, k), quickSelectHoare(h, k)
		if !sameBits(g, w) {
			t.Fatalf("quickSelect(%v, %d) = %g, want %g", h, k, g, w)
		}
		if slices.ContainsFunc(h, func(v float64) bool { return v == 0 && math.Signbit(v) }) &&
			!slices.EqualFunc(s, h, sameBits) {
			t.Fatalf("with −0: order %v, want %v", s, h)
		}
	}
}

// medianInPlace returns the bits of the median by the pivoting partition
// (ties, −0, NaN and ±Inf left out).
func TestMedianInPlaceSameAsHoare(t *testing.T) {
	rng := rand.New(rand.NewPCG(25, 7))
	for it := 0; it < 20000; it++ {
		n := rng.IntN(40)
		s := make([]float64, n)
		for i := range s {
			switch rng.IntN(12) {
			case 0:
				s[i] = math.Copysign(0, -1)
			case 1:
				s[i] = 0
			case 2:
				s[i] = math.NaN()
			case 3:
				s[i] = math.Inf(1)
			case 4, 5:
				s[i] = float64(rng.IntN(4))
			default:
				s[i] = rng.NormFloat64()
			}
		}
		var f []float64
		for _, v := range s {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				f = append(f, v)
			}
		}
		want := math.NaN()
		if m := len(f); m > 0 {
			hi := quickSelectHoare(f, m/2)
			want = hi
			if m%2 == 0 {
				lo := f[0]
				for _, v := range f[:m/2] {
					if v > lo {
						lo = v
					}
				}
				want = (lo + hi) / 2
			}
		}
		if got := medianInPlace(slices.Clone(s)); !sameBits(got, want) {
			t.Fatalf("medianInPlace(%v) = %g, want %g", s, got, want)
		}
	}
}
