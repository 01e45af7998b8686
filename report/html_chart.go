package report

import (
	"math"

	"spikescope/svg"
)

// chart is one plot being drawn: its canvas and plotting area.
type chart struct {
	c  *svg.Canvas
	fr svg.Frame
}

// Plot sizes in user units (the page scales them down on narrow windows).
const (
	plotW      = 1000.0
	plotH      = 320.0
	plotLeft   = 80.0
	plotRight  = 170.0 // room for the legend
	plotTop    = 20.0
	plotBottom = 50.0
)

func newChart(h float64, title string) *chart {
	return &chart{c: svg.New(plotW, h, title),
		fr: svg.Frame{Left: plotLeft, Top: plotTop, Right: plotW - plotRight, Bottom: h - plotBottom}}
}

// legend writes the entries (colour, style, text) at the chart's right edge.
type legendEntry struct {
	style svg.Style
	shape string // "line", "box" or "dot"
	text  string
}

func (ch *chart) legend(es []legendEntry) {
	x, y := ch.fr.Right+14, ch.fr.Top+8
	for _, e := range es {
		switch e.shape {
		case "box":
			ch.c.Rect(x, y-8, 18, 10, e.style, "")
		case "dot":
			ch.c.Circle(x+9, y-3, 4, e.style, "")
		default:
			ch.c.Line(x, y-3, x+18, y-3, e.style)
		}
		ch.c.Text(x+24, y+1, e.text, svg.Start, svg.Ink, 0)
		y += 18
	}
}

// positiveRange is the smallest and largest finite positive value of vs
// (ok false when there is none), widened when they are equal.
func positiveRange(vs ...[]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range vs {
		for _, v := range s {
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > hi {
		return 0, 0, false
	}
	if lo == hi {
		lo, hi = lo/2, hi*2
	}
	return lo, hi, true
}

// indexTicks picks about n evenly spaced indices of 0..count-1, always
// including keep (when in range).
func indexTicks(count, n, keep int) []float64 {
	if count <= 0 {
		return nil
	}
	step := max(1, (count+n-1)/n)
	var out []float64
	for i := 0; i < count; i += step {
		if keep >= 0 && i != keep && abs(i-keep) < step/2 {
			continue
		}
		out = append(out, float64(i))
	}
	if keep >= 0 && keep < count {
		out = append(out, float64(keep))
	}
	return out
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
