package ui

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
)

// TestDotGridMatchesGridPoint: the other ranks' dots land where
// BrailleGrid.GridPoint puts them, for values inside, outside and at the
// edges of the range, NaN, ±Inf, on linear and log axes.
func TestDotGridMatchesGridPoint(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, logY := range []bool{false, true} {
		tf := func(v float64) float64 { return v }
		if logY {
			tf = func(v float64) float64 {
				if v <= 0 {
					return math.Inf(-1)
				}
				return math.Log10(v)
			}
		}
		for _, sz := range [][2]int{{70, 8}, {151, 23}, {3, 1}} {
			n := 1 + rng.IntN(5000)
			vals := make([]float64, n)
			pos := make([]int, n)
			for i := range vals {
				pos[i] = i
				switch rng.IntN(20) {
				case 0:
					vals[i] = math.NaN()
				case 1:
					vals[i] = math.Inf(1 - 2*rng.IntN(2))
				case 2:
					vals[i] = -rng.Float64()
				default:
					vals[i] = math.Exp(rng.NormFloat64() * 3)
				}
			}
			lo, hi := tf(0.01), tf(50)
			maxX := math.Max(1, float64(n-1))
			want := graph.NewBrailleGrid(sz[0], sz[1], 0, maxX, lo, hi)
			for i, v := range vals {
				if math.IsNaN(v) {
					continue
				}
				v = math.Max(lo, math.Min(hi, tf(v)))
				want.Set(want.GridPoint(canvas.Float64Point{X: float64(pos[i]), Y: v}))
			}
			got := graph.NewBrailleGrid(sz[0], sz[1], 0, maxX, lo, hi)
			newDotGrid(got, sz[0], sz[1], maxX, lo, hi, n).plot(pos, vals, tf)
			for y, row := range want.BraillePatterns() {
				if g := got.BraillePatterns()[y]; !slices.Equal(g, row) {
					t.Fatalf("log %v size %v row %d:\n got %q\nwant %q", logY, sz, y, string(g), string(row))
				}
			}
		}
	}
}

// TestCanvasLinesMatchesView: the chart drawn with each (style, rune)
// rendered once is byte for byte what ntcharts draws, colour and plain.
func TestCanvasLinesMatchesView(t *testing.T) {
	for _, st := range []Styles{NewStyles(false), NewStyles(true)} {
		lc := linechart.New(60, 12, 0, 10, 0, 5, linechart.WithStyles(st.Dim, st.Dim, st.Selected))
		lc.DrawXYAxisAndLabel()
		lc.DrawBrailleLineWithStyle(canvas.Float64Point{X: 0, Y: 0}, canvas.Float64Point{X: 10, Y: 5}, st.Selected)
		lc.Canvas.SetCell(canvas.Point{X: 20, Y: 0}, canvas.NewCellWithStyle('▲', st.Spike))
		lc.Canvas.SetCell(canvas.Point{X: 21, Y: 0}, canvas.NewCellWithStyle('─', st.Band))
		want := strings.Split(lc.View(), "\n")
		if got := canvasLines(&lc.Canvas); !slices.Equal(got, want) {
			t.Fatalf("got\n%q\nwant\n%q", got, want)
		}
	}
}
