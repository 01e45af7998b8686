package report

import (
	"math"

	"spikescope/svg"
)

// chart is one plot being drawn: its canvas and plotting area; a small
// chart (the answer's figures, three side by side) has its legend below.
type chart struct {
	c     *svg.Canvas
	fr    svg.Frame
	small bool
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

// Small plot sizes: a third of the page wide, with larger type (the
// legend goes below the axes and grows the image).
const (
	smallW      = 440.0
	smallH      = 230.0
	smallLeft   = 62.0
	smallRight  = 14.0
	smallTop    = 12.0
	smallBottom = 44.0
	smallFont   = 13.0
)

// newChart starts a plot h units high (plotH: the standard height; a
// small chart has its own) with the text alternative title.
func (r *renderer) newChart(h float64, title string) *chart {
	if r.small {
		if h == plotH {
			h = smallH
		}
		c := svg.New(smallW, h, title)
		c.FontSize = smallFont
		return &chart{c: c, small: true,
			fr: svg.Frame{Left: smallLeft, Top: smallTop, Right: smallW - smallRight, Bottom: h - smallBottom}}
	}
	return &chart{c: svg.New(plotW, h, title),
		fr: svg.Frame{Left: plotLeft, Top: plotTop, Right: plotW - plotRight, Bottom: h - plotBottom}}
}

// ticks is how many axis labels a plot that shows n of them at full
// width shows at its size.
func (r *renderer) ticks(n int) int {
	if r.small {
		return max(3, n/2)
	}
	return n
}

// legend writes the entries (colour, style, text) at the chart's right edge.
type legendEntry struct {
	style svg.Style
	shape string // "line", "box" or "dot"
	text  string
}

func (ch *chart) legend(es []legendEntry) {
	if ch.small {
		ch.legendBelow(es)
		return
	}
	x, y := ch.fr.Right+14, ch.fr.Top+8
	for _, e := range es {
		ch.key(x, y, e)
		y += 18
	}
}

// key draws one legend entry with its sample at (x, y).
func (ch *chart) key(x, y float64, e legendEntry) {
	switch e.shape {
	case "box":
		ch.c.Rect(x, y-8, 18, 10, e.style, "")
	case "dot":
		ch.c.Circle(x+9, y-3, 4, e.style, "")
	default:
		ch.c.Line(x, y-3, x+18, y-3, e.style)
	}
	ch.c.Text(x+24, y+1, e.text, svg.Start, svg.Ink, 0)
}

// legendBelow flows the entries left to right under the axes, wrapping at
// the chart's width, and grows the image to hold them.
func (ch *chart) legendBelow(es []legendEntry) {
	if len(es) == 0 {
		return
	}
	left, right := 8.0, ch.c.W-8
	line := ch.c.FontSize + 6
	x, y := left, ch.c.H+10
	for _, e := range es {
		w := 24 + textWidth(e.text, ch.c.FontSize) + 14
		if x > left && x+w > right {
			x, y = left, y+line
		}
		ch.key(x, y, e)
		x += w
	}
	ch.c.H = y + 8
}

// textWidth estimates the width of s in user units at font size fs: wide
// (CJK) runes a full em, others about 0.6 em.
func textWidth(s string, fs float64) float64 {
	w := 0.0
	for _, c := range s {
		if c >= 0x1100 {
			w += fs
		} else {
			w += 0.6 * fs
		}
	}
	return w
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
