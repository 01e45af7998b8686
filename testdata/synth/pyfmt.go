package synth

import (
	"math"
	"strconv"
	"strings"
)

// pyRepr formats v exactly like Python's repr(float): the shortest digits
// that round-trip, scientific notation only below 1e-4 or from 1e16 on, and
// a trailing ".0" for integral values. json.dump and pandas.to_csv both use
// it, so synthetic files match msprobe's byte for byte.
func pyRepr(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	if v == 0 {
		if math.Signbit(v) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(v, 'e', -1, 64) // d.ddde±XX
	i := strings.LastIndexByte(e, 'e')
	exp, _ := strconv.Atoi(e[i+1:])
	if exp < -4 || exp >= 16 {
		return e // Go and Python agree: at least two exponent digits
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// csvNumber formats one cell of a monitor CSV as pandas writes a float
// column that was rounded to ndigits and had NaN filled with "nan".
func csvNumber(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return pyRepr(v)
}

// monitorDigits is msprobe's default ndigits for monitor CSVs.
const monitorDigits = 6

// roundDigits rounds like numpy.around (half to even on the scaled value),
// which DataFrame.round uses.
func roundDigits(v float64, nd int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	p := math.Pow(10, float64(nd))
	return math.RoundToEven(v*p) / p
}

// toBF16 rounds v to the nearest bfloat16 value (round to nearest even),
// as statistics of bf16 tensors are themselves bf16 numbers.
func toBF16(v float64) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	b := math.Float32bits(float32(v))
	b += 0x7FFF + ((b >> 16) & 1)
	b &= 0xFFFF0000
	return float64(math.Float32frombits(b))
}

// toF32 rounds v to float32 precision (stats of fp32 tensors).
func toF32(v float64) float64 { return float64(float32(v)) }

// trendValue is what csv2db stores for a CSV cell: the float clamped to
// ±1e9 (±inf become ±(1e9+1)), NaN as NULL (nil), -0.0 as 0.0.
func trendValue(v float64) any {
	switch {
	case math.IsNaN(v):
		return nil
	case math.IsInf(v, 1):
		return trendInf
	case math.IsInf(v, -1):
		return -trendInf
	case v > trendClamp:
		return trendClamp
	case v < -trendClamp:
		return -trendClamp
	case v == 0:
		return 0.0
	}
	return v
}

const (
	trendClamp = 1e9
	trendInf   = 1e9 + 1
)
