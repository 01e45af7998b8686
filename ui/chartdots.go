package ui

import (
	"math"

	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
)

// dotGrid sets the dots of the other ranks' curves on a braille grid: the
// same points BrailleGrid.GridPoint gives (its arithmetic, x and y taken
// apart), with each axis position's column worked out once for all ranks
// instead of once per point of every rank.
type dotGrid struct {
	g          *graph.BrailleGrid
	gx         []int   // grid column of each axis position
	lo, hi, ys float64 // the chart's y range and grid rows per unit
	gh         int     // grid rows
}

func newDotGrid(g *graph.BrailleGrid, w, h int, maxX, lo, hi float64, n int) dotGrid {
	d := dotGrid{g: g, gx: make([]int, n), lo: lo, hi: hi, gh: h * 4}
	if maxX > 0 {
		xs := float64(w*2-1) / maxX
		for p := range d.gx {
			d.gx[p] = int(math.Round(float64(p) * xs))
		}
	}
	if hi-lo > 0 {
		d.ys = float64(d.gh-1) / (hi - lo)
	}
	return d
}

// plot sets a dot for every value of vals at axis positions pos (NaN: no
// dot; ±Inf clipped to the frame, as the chart does).
func (d dotGrid) plot(pos []int, vals []float64, tf func(float64) float64) {
	prev := canvas.Point{X: -1, Y: -1}
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		v = tf(v)
		var sy float64
		if d.ys > 0 {
			sy = (math.Max(d.lo, math.Min(d.hi, v)) - d.lo) * d.ys
		}
		p := canvas.Point{X: d.gx[pos[i]], Y: d.gh - 1 - int(math.Round(sy))}
		if p != prev {
			d.g.Set(p)
			prev = p
		}
	}
}
