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

// MarshalJSON writes NaN and ±Inf as strings so that the output stays JSON.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	switch {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
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

// Finite reports whether v is neither NaN nor ±Inf.
func Finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
