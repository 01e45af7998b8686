package svg

import (
	"math"
	"strconv"
)

// Scale maps data values to pixels on one axis.
type Scale struct {
	Min, Max float64 // data range (for Log: positive)
	Lo, Hi   float64 // pixel range (Hi < Lo for a y axis)
	Log      bool
}

// Px is the pixel of v; ok is false when v cannot be placed (NaN, ±Inf, or
// not positive on a log axis).
func (s Scale) Px(v float64) (float64, bool) {
	if math.IsNaN(v) || math.IsInf(v, 0) || (s.Log && v <= 0) {
		return 0, false
	}
	a, b, x := s.Min, s.Max, v
	if s.Log {
		a, b, x = math.Log10(a), math.Log10(b), math.Log10(v)
	}
	if b == a {
		return (s.Lo + s.Hi) / 2, true
	}
	return s.Lo + (x-a)/(b-a)*(s.Hi-s.Lo), true
}

// Clamp is Px limited to the pixel range (a value off the chart sits on its edge).
func (s Scale) Clamp(v float64) (float64, bool) {
	p, ok := s.Px(v)
	if !ok {
		return 0, false
	}
	lo, hi := math.Min(s.Lo, s.Hi), math.Max(s.Lo, s.Hi)
	return math.Max(lo, math.Min(hi, p)), true
}

// Ticks are the values to label, about n of them: on a log axis 1-2-5 or
// powers of ten (even steps within one decade), else 1-2-5 steps.
func (s Scale) Ticks(n int) []float64 {
	if s.Log {
		lo, hi := math.Floor(math.Log10(s.Min)), math.Ceil(math.Log10(s.Max))
		decades := func(ms ...float64) []float64 {
			var out []float64
			for e := lo; e <= hi; e++ {
				for _, m := range ms {
					v := m * math.Pow(10, e)
					if v >= s.Min*(1-1e-9) && v <= s.Max*(1+1e-9) {
						out = append(out, v)
					}
				}
			}
			return out
		}
		if out := decades(1, 2, 5); len(out) <= max(n, 8) && len(out) >= 3 {
			return out
		}
		if out := decades(1); len(out) >= 3 {
			return out
		}
		// less than a decade: evenly stepped values, placed on the log scale
		lin := s
		lin.Log = false
		var out []float64
		for _, v := range lin.Ticks(n + 2) {
			if v > 0 {
				out = append(out, v)
			}
		}
		return out
	}
	span := s.Max - s.Min
	if span <= 0 || n < 1 {
		return []float64{s.Min}
	}
	raw := span / float64(n)
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	step := p
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw {
			step = m * p
			break
		}
	}
	var out []float64
	for v := math.Ceil(s.Min/step) * step; v <= s.Max+step*1e-9; v += step {
		out = append(out, math.Round(v/step)*step)
	}
	return out
}

// Label prints a tick value shortly (3 significant digits).
func Label(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }

// Frame is the plotting area of a chart inside its canvas.
type Frame struct {
	Left, Top, Right, Bottom float64 // pixel edges of the area
}

// XAxis draws the bottom axis with ticks at vals labelled by label, and the
// axis title (with its unit) under it.
func (c *Canvas) XAxis(fr Frame, s Scale, vals []float64, label func(float64) string, title string) {
	ink := Style{Stroke: Ink}
	c.Line(fr.Left, fr.Bottom, fr.Right, fr.Bottom, ink)
	for _, v := range vals {
		x, ok := s.Px(v)
		if !ok {
			continue
		}
		c.Line(x, fr.Bottom, x, fr.Bottom+4, ink)
		c.Text(x, fr.Bottom+15, label(v), Middle, Ink, 0)
	}
	c.Text((fr.Left+fr.Right)/2, fr.Bottom+32, title, Middle, Ink, 0)
}

// YAxis draws the left axis with ticks, light grid lines, and its title.
func (c *Canvas) YAxis(fr Frame, s Scale, vals []float64, label func(float64) string, title string) {
	ink := Style{Stroke: Ink}
	c.Line(fr.Left, fr.Top, fr.Left, fr.Bottom, ink)
	for _, v := range vals {
		y, ok := s.Px(v)
		if !ok {
			continue
		}
		c.Line(fr.Left+1, y, fr.Right, y, Style{Stroke: "#E5E5E5"})
		c.Line(fr.Left-4, y, fr.Left, y, ink)
		c.Text(fr.Left-6, y+4, label(v), End, Ink, 0)
	}
	c.Text(fr.Left-44, (fr.Top+fr.Bottom)/2, title, Middle, Ink, -90)
}
