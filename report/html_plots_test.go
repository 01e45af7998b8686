package report

import (
	"html"
	"math"
	"regexp"
	"strings"
	"testing"
)

// seriesInput is the full fixture with a monitor series of its earliest
// candidate (rank 1 at source step 13, micro steps counted in the steps):
// rank 0 has a recorded NaN at step 12 and no row at step 14, rank 1 an Inf
// at step 15.
func seriesInput(ranks int) Input {
	in := fullInput()
	s := &Series{Param: "decoder.layers.0.self_attention.linear_qkv.weight", Metric: "grad_unreduced"}
	for st := 10; st < 17; st++ {
		s.Steps = append(s.Steps, st)
	}
	for rk := range ranks {
		row, has := make([]float64, len(s.Steps)), make([]bool, len(s.Steps))
		for j := range row {
			row[j], has[j] = 1+0.1*float64(j+rk), true
		}
		s.Ranks, s.Norm, s.Has = append(s.Ranks, rk), append(s.Norm, row), append(s.Has, has)
	}
	s.Norm[0][2] = math.NaN()
	s.Has[0][4] = false
	s.Norm[1][3] = 40 // the spike
	s.Norm[1][5] = math.Inf(1)
	in.Series = s
	return in
}

// svgByTitle returns the plot whose text alternative starts with prefix.
func svgByTitle(t *testing.T, page, prefix string) string {
	t.Helper()
	for _, m := range regexp.MustCompile(`(?s)<svg .*?</svg>`).FindAllString(page, -1) {
		if strings.Contains(m, "<title>"+html.EscapeString(prefix)) {
			return m
		}
	}
	t.Fatalf("no plot titled %q", prefix)
	return ""
}

// The Phase 1 plots mark the spike, write NaN and Inf as such, and leave a
// missing row as a gap (no cell, a broken line).
func TestPhase1PlotsShowNonFiniteAndGaps(t *testing.T) {
	in := seriesInput(3)
	// the earliest candidate sits at opt 3 ms 1 = source step 13
	in.P1.Anomalies[2].Step = 13
	page := RenderHTML(in, "en")
	curve := svgByTitle(t, page, "Gradient norm of decoder.layers.0.self_attention.linear_qkv.weight per step: rank 1 against 2 other ranks, spike at rank 1, step 13")
	if !strings.Contains(curve, `<title>spike: opt_step 3, ms 1, rank 1, decoder.layers.0.self_attention.linear_qkv.weight, norm 40`) {
		t.Error("the spike is not marked with its norm")
	}
	if !strings.Contains(curve, `fill="#D55E00">Inf</text>`) {
		t.Error("rank 1's Inf is not written on the curve")
	}
	heat := svgByTitle(t, page, "Heat map of the gradient norm")
	for _, want := range []string{"<title>rank 0, step 12: NaN</title>", "<title>rank 1, step 15: Inf</title>", "<title>rank 1, step 13: 40</title>"} {
		if !strings.Contains(heat, want) {
			t.Errorf("heat map lacks cell %q", want)
		}
	}
	if strings.Contains(heat, "rank 0, step 14:") {
		t.Error("a missing row is drawn as a cell")
	}
	if n := strings.Count(heat, "<rect"); n < 3*7-1 {
		t.Errorf("heat map has %d rects, want a cell for each of the 20 recorded values", n)
	}
}

// A spike whose row is not in the series is said, not drawn at a made-up step.
func TestPhase1PlotWithoutSpikeRow(t *testing.T) {
	in := seriesInput(3)
	in.P1.Anomalies[2].Step = 99
	page := RenderHTML(in, "en")
	svgByTitle(t, page, "Gradient norm of decoder.layers.0.self_attention.linear_qkv.weight per step: rank 1 against 2 other ranks (the spike's row of rank 1 is not in the monitor data)")
	if strings.Contains(page, "<title>spike:") {
		t.Error("a spike marker without its row")
	}
}

// A wide run shows a window of ranks around the root rank and says so.
func TestPhase1PlotWindowOnWideRuns(t *testing.T) {
	in := seriesInput(1000)
	in.P1.Anomalies[2].Step = 13
	page := RenderHTML(in, "en")
	if !strings.Contains(page, "(showing steps 10–16 and ranks 0–63 of 1000 ranks)") {
		t.Error("the window of a 1000-rank run is not named in the caption")
	}
	heat := svgByTitle(t, page, "Heat map of the gradient norm")
	if strings.Contains(heat, "rank 64,") || !strings.Contains(heat, "rank 63, step 10") {
		t.Error("the heat map does not show exactly ranks 0–63")
	}
	if len(page) > 2<<20 {
		t.Errorf("page of %d bytes for 1000 ranks", len(page))
	}
}
