package report

import (
	"html"
	"math"
	"regexp"
	"strconv"
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
	if !strings.Contains(curve, `<title>spike: optimizer step 3, micro step 1, rank 1, decoder.layers.0.self_attention.linear_qkv.weight, norm 40`) {
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

// Phase 2's plot: the growth of each rank across the judged pair (opt_step
// 3 → 4 of the fixture: 1.2→9, 1.0→8.5, 7.5→30) against the 2x threshold.
func TestPhase2GrowthPlot(t *testing.T) {
	g := svgByTitle(t, RenderHTML(fullInput(), "en"), "Growth per rank from optimizer step 3 to 4: 3 of 3 ranks over the threshold 2.0x")
	for _, want := range []string{"<title>rank 0: growth 7.5x</title>", "<title>rank 1: growth 8.5x</title>", "<title>rank 2: growth 4.0x</title>"} {
		if !strings.Contains(g, want) {
			t.Errorf("growth plot lacks %q", want)
		}
	}
	if strings.Count(g, `fill="#D55E00"`) != 4 { // 3 bars + the legend's box
		t.Errorf("%d vermilion marks, want 3 bars over the threshold and the legend's", strings.Count(g, `fill="#D55E00"`))
	}
}

// Phase 3's layer plots: F! layers marked, the control band drawn, each
// metric's start marked, an unaligned layer a gap with its marker.
func TestPhase3LayerPlots(t *testing.T) {
	page := RenderHTML(fullInput(), "en")
	fwd := svgByTitle(t, page, "Anchor self_attention, forward: Norm anomaly degree over 4 layers against the control band")
	if n := strings.Count(fwd, ">F!</text>"); n != 2 {
		t.Errorf("%d F! marks, want 2 (L2, L3)", n)
	}
	for _, want := range []string{"<title>control band [0.97x, 1.03x]</title>", ">Norm start</text>", ">Max start</text>", "<title>L2: anomaly degree 1.515x</title>"} {
		if !strings.Contains(fwd, want) {
			t.Errorf("forward plot lacks %q", want)
		}
	}
	if bwd := svgByTitle(t, page, "Anchor self_attention, backward"); strings.Count(bwd, ">B!</text>") != 2 {
		t.Errorf("backward plot: %d B! marks, want 2", strings.Count(bwd, ">B!</text>"))
	}
	mlp := svgByTitle(t, page, "Anchor mlp|moe, forward")
	if !strings.Contains(mlp, "unaligned, not compared</title>") {
		t.Error("the unaligned layer has no marker")
	}
	if d := regexp.MustCompile(`<path d="([^"]*)"`).FindStringSubmatch(mlp); d == nil || strings.Contains(d[1], "L") {
		t.Errorf("the line runs through the unaligned layer: %v", d)
	}
}

// The drill-down plot marks the origin and its upstream chain.
func TestDrillPlot(t *testing.T) {
	d := svgByTitle(t, RenderHTML(fullInput(), "en"), "Anomaly degree of 2 operators in execution order, origin Functional.softmax.3.forward, upstream chain of 2")
	if !strings.Contains(d, `fill="#D55E00">Functional.softmax.3.forward</text>`) {
		t.Error("the origin is not labelled")
	}
	if !strings.Contains(d, `fill="#E69F00"><title>Module.layers.2.self_attention.linear_qkv.forward.0: anomaly degree 1.0x</title>`) {
		t.Error("the upstream chain's operator is not marked")
	}
}

// A plot of the answer drawn again, larger, in its section keeps the
// answer's number; every other figure has a number of its own, in order.
func TestAnswerPlotsKeepTheirNumberInTheirSections(t *testing.T) {
	for _, lang := range []string{"en", "zh"} {
		page := RenderHTML(seriesInput(3), lang)
		fig := regexp.MustCompile(`<figcaption>(?:Figure|图) (\d+)(, larger|（放大）)? ?— (.*?)</figcaption>`)
		answer := map[string]string{}
		next, again := 1, 0
		for _, m := range fig.FindAllStringSubmatch(page, -1) {
			n, larger, caption := m[1], m[2] != "", m[3]
			if larger {
				again++
				if answer[caption] != n {
					t.Errorf("%s: %q is numbered %s again, the answer's is %q", lang, caption, n, answer[caption])
				}
				continue
			}
			if want := strconv.Itoa(next); n != want {
				t.Errorf("%s: figure %s, want %s", lang, n, want)
			}
			next++
			if _, seen := answer[caption]; seen {
				t.Errorf("%s: %q drawn twice with numbers of its own", lang, caption)
			}
			answer[caption] = n
		}
		if again == 0 || next < 4 {
			t.Errorf("%s: %d figures, %d of the answer's drawn again: the fixture should show both", lang, next-1, again)
		}
	}
}
