package report

import (
	"math"
	"strings"
	"testing"

	"spikescope/model"
)

// The figure highlights the highest rank among those with a row at the
// peak step: a rank without one (its norm NaN by definition) is not "the
// rank that broke"; with no row at all nothing is highlighted.
func TestGradNormFigureHighlightsARankWithRows(t *testing.T) {
	nan := model.Float(math.NaN())
	peak := 11
	g := &model.GradNorm{
		Steps:    []int{10, 11},
		Ranks:    []int{0, 1, 2},
		Norm:     [][]model.Float{{1, 1, 1}, {1, nan, 5}},
		Params:   [][]int{{2, 2, 2}, {2, 0, 2}},
		PeakStep: &peak,
	}
	r := &renderer{}
	svgText := r.gradNormSVG(g)
	if !strings.Contains(svgText, ">rank 2<") {
		t.Fatalf("rank 2 (5 at the peak) not highlighted:\n%s", svgText)
	}
	if strings.Contains(svgText, ">rank 1<") {
		t.Fatal("rank 1 has no row at the peak step yet is highlighted")
	}
	g.Params[1] = []int{0, 0, 0}
	g.Norm[1] = []model.Float{nan, nan, nan}
	if s := r.gradNormSVG(g); strings.Contains(s, ">rank ") {
		t.Fatalf("a step with no rows highlights a rank:\n%s", s)
	}
}
