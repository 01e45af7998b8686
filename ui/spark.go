package ui

import (
	"math"
	"strings"
)

// sparkRunes are the eight bar heights of a block sparkline.
var sparkRunes = []rune("▁▂▃▄▅▆▇█")

// spikeRune marks the spike's column without colour.
const spikeRune = '▲'

// sparkline draws vals into width cells. When there are more values than
// cells, each cell shows the maximum of its bucket (never hide a spike by
// averaging it away); the cell holding index spike is marked. Non-finite
// values draw as a full bar.
func sparkline(vals []float64, spike, width int, st Styles) string {
	if width <= 0 {
		return ""
	}
	if len(vals) == 0 {
		return strings.Repeat(" ", width)
	}
	cells := width
	if len(vals) < cells {
		cells = len(vals)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		lo = math.Min(lo, v)
		hi = math.Max(hi, v)
	}
	// a wide span (the spike's later explosion) would flatten everything
	// else: draw on a log scale then, as the series chart does
	tf := func(v float64) float64 { return v }
	if lo > 0 && hi/lo > logYRatio {
		tf = math.Log
		lo, hi = tf(lo), tf(hi)
	}
	var b strings.Builder
	spikeCell := -1
	if spike >= 0 && spike < len(vals) {
		spikeCell = spike * cells / len(vals)
	}
	for c := 0; c < cells; c++ {
		from, to := c*len(vals)/cells, (c+1)*len(vals)/cells
		if to <= from {
			to = from + 1
		}
		top, nonFinite := math.Inf(-1), false
		for _, v := range vals[from:to] {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				nonFinite = true
				continue
			}
			top = math.Max(top, v)
		}
		level := 0
		switch {
		case nonFinite:
			level = len(sparkRunes) - 1
		case hi > lo:
			level = int((tf(top) - lo) / (hi - lo) * float64(len(sparkRunes)-1))
		}
		r := sparkRunes[level]
		if c == spikeCell {
			if st.NoColor {
				b.WriteRune(spikeRune)
			} else {
				b.WriteString(st.Spike.Render(string(r)))
			}
			continue
		}
		b.WriteRune(r)
	}
	b.WriteString(strings.Repeat(" ", width-cells))
	return b.String()
}
