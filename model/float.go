// Package model holds the plain data types shared by ingest, analysis, ui
// and the report. It does no I/O.
package model

import (
	"math"
	"strconv"
)

// Float is a float64 whose JSON form is always valid JSON: finite values are
// numbers, non-finite ones the strings "NaN", "Inf" and "-Inf" (method.md,
// Phase 1 output). It reads those strings, bare numbers and null (→ NaN).
type Float float64

// NonFiniteWord is how every output names a non-finite value ("NaN",
// "Inf", "-Inf"); ok is false for a finite v.
func NonFiniteWord(v float64) (string, bool) {
	switch {
	case math.IsNaN(v):
		return "NaN", true
	case math.IsInf(v, 1):
		return "Inf", true
	case math.IsInf(v, -1):
		return "-Inf", true
	}
	return "", false
}

// FormatG is v with digits significant digits ('g'), a non-finite value by
// its word: the numbers of every sentence the outputs write.
func FormatG(v float64, digits int) string {
	if w, ok := NonFiniteWord(v); ok {
		return w
	}
	return strconv.FormatFloat(v, 'g', digits, 64)
}

// MarshalJSON writes NaN and ±Inf as strings so that the output stays JSON.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if w, ok := NonFiniteWord(v); ok {
		return []byte(`"` + w + `"`), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

// UnmarshalJSON accepts numbers, null, and the strings written by MarshalJSON
// (also the Python spellings "Infinity"/"-Infinity"/"nan"/"inf").
func (f *Float) UnmarshalJSON(b []byte) error {
	s := string(b)
	if s == "null" {
		*f = Float(math.NaN())
		return nil
	}
	if len(s) >= 2 && s[0] == '"' {
		s = s[1 : len(s)-1]
	}
	switch s {
	case "NaN", "nan", "-nan":
		*f = Float(math.NaN())
		return nil
	case "Inf", "inf", "Infinity", "+Inf", "+inf":
		*f = Float(math.Inf(1))
		return nil
	case "-Inf", "-inf", "-Infinity":
		*f = Float(math.Inf(-1))
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// NaN is a convenience for "no value".
func NaN() float64 { return math.NaN() }

// Finite reports whether v is neither NaN nor ±Inf: its exponent bits are
// not all ones (one mask and compare; the rules call it once a value or
// more, and math.IsNaN and math.IsInf compare three times).
func Finite(v float64) bool { return math.Float64bits(v)&expBits != expBits }

// expBits are a float64's exponent bits.
const expBits = 0x7ff0 << 48
