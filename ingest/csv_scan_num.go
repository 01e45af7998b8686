package ingest

import (
	"math"
	"unsafe"
)

// Number cells of monitor CSVs without allocating. msprobe writes short
// decimals ("0.000123", "1.2e-05"); those take the exact fast path below,
// everything else (nan, inf, spaces, long mantissas, huge exponents) goes
// through parseStatCell / parseIntCell as before, on a string view of the
// bytes (strconv does not keep its argument).

// bytesView is b as a string without copying; it must not outlive b's
// contents (only passed to functions that do not keep it).
func bytesView(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseStatBytes is parseStatCell on bytes.
func parseStatBytes(b []byte) (float64, error) {
	if len(b) == 0 {
		return math.NaN(), nil
	}
	if v, ok := fastFloat(b); ok {
		return v, nil
	}
	return parseStatCell(bytesView(b))
}

// fastFloat reads [+-]digits[.digits][(e|E)[+-]digits] when the digits
// form an integer of at most 2⁵³ and the power of ten is within ±22: then
// one IEEE multiplication or division of two exact values gives the
// correctly rounded result (Clinger's fast path), the same bits as
// strconv.ParseFloat (FuzzFastFloat checks it). ok is false otherwise.
func fastFloat(b []byte) (float64, bool) {
	i, neg := 0, false
	if c := b[0]; c == '-' || c == '+' {
		neg = c == '-'
		i = 1
	}
	// at most 19 digits in all, so that mant cannot overflow
	start := i
	i, mant := addDigits(b, i, 0)
	nd, exp := i-start, 0
	if i < len(b) && b[i] == '.' {
		i++
		fs := i
		i, mant = addDigits(b, i, mant)
		nd += i - fs
		exp = fs - i
	}
	if nd == 0 || nd > 19 {
		return 0, false
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return 0, false
		}
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		if i == len(b) {
			return 0, false
		}
		e := 0
		for ; i < len(b); i++ {
			c := b[i]
			if c-'0' > 9 {
				return 0, false
			}
			if e < 100000 {
				e = e*10 + int(c-'0')
			}
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant == 0 {
		if neg {
			return math.Copysign(0, -1), true
		}
		return 0, true
	}
	if mant > 1<<53 {
		return 0, false
	}
	f := float64(mant)
	switch {
	case exp == 0:
	case exp > 0 && exp < len(exactPow10):
		f *= exactPow10[exp]
	case exp < 0 && -exp < len(exactPow10):
		f /= exactPow10[-exp]
	default:
		return 0, false
	}
	if neg {
		f = -f
	}
	return f, true
}

// addDigits appends the decimal digits of b from i to mant; it returns
// where they end. mant may wrap past 19 digits: the caller counts them.
func addDigits(b []byte, i int, mant uint64) (int, uint64) {
	for ; i < len(b); i++ {
		d := b[i] - '0'
		if d > 9 {
			break
		}
		mant = mant*10 + uint64(d)
	}
	return i, mant
}

// parseIntBytes is parseIntCell on bytes.
func parseIntBytes(b []byte) (int, error) {
	if n := len(b); n > 0 && n <= 18 {
		i, neg := 0, b[0] == '-'
		if neg || b[0] == '+' {
			i = 1
		}
		if i < n {
			v := 0
			for ; i < n; i++ {
				c := b[i] - '0'
				if c > 9 {
					break
				}
				v = v*10 + int(c)
			}
			if i == n {
				if neg {
					v = -v
				}
				return v, nil
			}
		}
	}
	return parseIntCell(bytesView(b))
}
