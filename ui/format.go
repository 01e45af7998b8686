package ui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"math"
	"strconv"
	"strings"
	"unicode"

	"spikescope/model"
)

// fmtNum formats a statistic compactly (at most 9 cells): four significant
// digits, exponent form for very large or very small magnitudes.
func fmtNum(v float64) string {
	if w, ok := model.NonFiniteWord(v); ok {
		return w
	}
	switch {
	case v == 0:
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e5 || a < 1e-3 {
		// compact exponent ("1.02e-5", not "1.02e-05") so it fits 8 cells
		s := strconv.FormatFloat(v, 'e', 2, 64)
		s = strings.Replace(s, "e+0", "e", 1)
		s = strings.Replace(s, "e+", "e", 1)
		return strings.Replace(s, "e-0", "e-", 1)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// fmtPtr formats an optional value; nil (unaligned, missing) is "-".
func fmtPtr(v *model.Float) string {
	if v == nil {
		return "-"
	}
	return fmtNum(float64(*v))
}

// fmtRatio formats a ratio with three decimals ("1.000"), "-" when nil.
func fmtRatio(v *model.Float) string {
	if v == nil {
		return "-"
	}
	f := float64(*v)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) >= 1e4 {
		return fmtNum(f)
	}
	return strconv.FormatFloat(f, 'f', 3, 64)
}

// fmtOptInt formats an optional int, "-" when nil.
func fmtOptInt(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

// fmtRange formats a sorted int list as "a–b (n)" or the single value.
func fmtRange(v []int) string {
	switch len(v) {
	case 0:
		return "none"
	case 1:
		return strconv.Itoa(v[0])
	}
	return fmt.Sprintf("%d–%d (%d)", v[0], v[len(v)-1], len(v))
}

// coordString names a candidate the way --pin reads it, step first.
func coordString(a *model.Anomaly) string { return a.Coord().Label() }

// coordinateString names a Phase 2 coordinate the same way.
func coordinateString(c *model.Coordinate) string {
	if c == nil {
		return "none"
	}
	return c.Coord().Label()
}

// shortParam shortens a long parameter name from the left, keeping the
// distinctive tail ("…layers.3.mlp.weight").
// Widths are terminal cells (a CJK character takes two).
func shortParam(s string, w int) string {
	sw := ansi.StringWidth(s)
	if sw <= w || w < 2 {
		return s
	}
	// a pipeline stage prefix ("pp1:") is part of the identity: keep it
	if st, base, ok := model.SplitStageName(s); ok {
		pre := model.StageName(st, "")
		if w-len(pre) >= 8 {
			return pre + shortParam(base, w-len(pre))
		}
	}
	return "…" + ansi.TruncateLeft(s, sw-w+1, "")
}

// escapeControl writes control characters of s (an ESC in a path the user
// typed) as \xNN so that they never act on the terminal. Names from the
// data arrive escaped already (ingest.EscapeControl).
func escapeControl(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
