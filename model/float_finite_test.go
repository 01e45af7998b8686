package model

import (
	"math"
	"testing"
)

// TestFiniteByExponentBits: Finite agrees with math.IsNaN/math.IsInf on the
// edges of the exponent range, signed zeros, subnormals and NaNs with any
// payload or sign.
func TestFiniteByExponentBits(t *testing.T) {
	vals := []float64{0, math.Copysign(0, -1), 1, -1, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		math.Float64frombits(0x000fffffffffffff), math.Float64frombits(0x7fefffffffffffff),
		math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff0000000000001), math.Float64frombits(0xfff8000000000000),
		math.Float64frombits(0xffffffffffffffff), math.Float64frombits(0x7ff7ffffffffffff)}
	for _, v := range vals {
		want := !math.IsNaN(v) && !math.IsInf(v, 0)
		if got := Finite(v); got != want {
			t.Errorf("Finite(%v = %#016x) = %v, want %v", v, math.Float64bits(v), got, want)
		}
	}
	// every exponent, with and without a mantissa and a sign
	for e := uint64(0); e <= 0x7ff; e++ {
		for _, m := range []uint64{0, 1, 1 << 51, 1<<52 - 1} {
			for _, sign := range []uint64{0, 1 << 63} {
				v := math.Float64frombits(sign | e<<52 | m)
				if want := !math.IsNaN(v) && !math.IsInf(v, 0); Finite(v) != want {
					t.Fatalf("Finite(%#016x) = %v, want %v", math.Float64bits(v), Finite(v), want)
				}
			}
		}
	}
}
