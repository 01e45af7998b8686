package report

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// gradNormInput is the report input of a synthetic run with the grad-norm
// view at root (Phase 1 and 2 as the pipeline runs them).
func gradNormInput(t *testing.T, r *synth.Run, root *int) Input {
	t.Helper()
	p1, d := analysis.Phase1Data(r.Monitor(synth.Anomalous), analysis.DefaultPhase1Options())
	p2, err := analysis.Phase2(p1, nil, nil, analysis.DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	g := analysis.GradNormAround(d, p1, root)
	if g == nil {
		t.Fatal("no grad-norm view")
	}
	return Input{P1: p1, P2: p2, GradNorm: g}
}

// gradNormSection is the section of the Markdown report, up to the next
// section.
func gradNormSection(t *testing.T, md, title string) string {
	t.Helper()
	i := strings.Index(md, "## "+title)
	if i < 0 {
		t.Fatalf("no section %q in:\n%s", title, md)
	}
	s := md[i+3:]
	if j := strings.Index(s, "\n## "); j >= 0 {
		s = s[:j]
	}
	return s
}

var pctCell = regexp.MustCompile(`\| (-?[0-9]+\.[0-9])% \|\s*$`)

// tableShares sums the share column of each table of a section.
func tableShares(section string) []float64 {
	var sums []float64
	in := false
	for _, l := range strings.Split(section, "\n") {
		if !strings.HasPrefix(l, "|") {
			in = false
			continue
		}
		m := pctCell.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if !in {
			sums = append(sums, 0)
			in = true
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		sums[len(sums)-1] += v
	}
	return sums
}

func TestGradNormSectionShares(t *testing.T) {
	r := synth.EventsRun(4, 14, synth.Spike{OptStep: 9, Ranks: []int{6}, All: true, Scale: 5})
	in := gradNormInput(t, r, model.IntPtr(9))
	md := Render(in, "en")
	sec := gradNormSection(t, md, "Where did the global grad norm come from")
	for _, want := range []string{"**9 (root)**", "| rank 7 |", "One rank moved: rank 6 holds", "`grad_unreduced`",
		"the cumulative norm at each optimizer step's last micro step", "No pipeline stages were found"} {
		if !strings.Contains(sec, want) {
			t.Errorf("section lacks %q:\n%s", want, sec)
		}
	}
	sums := tableShares(sec)
	if len(sums) != 3 {
		t.Fatalf("%d share tables, want 3 (parameter, layer, rank):\n%s", len(sums), sec)
	}
	for i, s := range sums {
		if math.Abs(s-100) > 0.1*float64(gradNormTop+1) { // each cell rounded to 0.1
			t.Errorf("share table %d sums to %.1f%%, want 100%%", i+1, s)
		}
	}
	// the rank's norm in the table is the view's number, as printed
	g := in.GradNorm
	ri := g.RootIndex()
	if !strings.Contains(sec, "| "+num(float64(g.Norm[ri][6]))+" |") {
		t.Errorf("rank 6's root norm %s not in the table", num(float64(g.Norm[ri][6])))
	}

	zh := gradNormSection(t, Render(in, "zh"), "全局梯度范数从哪里来")
	noCode := regexp.MustCompile("`[^`]*`").ReplaceAllString(zh, "")
	if m := regexp.MustCompile(`[A-Za-z]{3,}( [A-Za-z]{2,}){2,}`).FindString(noCode); m != "" {
		t.Errorf("the Chinese section holds an English sentence %q:\n%s", m, zh)
	}
	for _, n := range []string{num(float64(g.Shares[ri].RefSq)), num(float64(g.Shares[ri].RootSq))} {
		if !strings.Contains(zh, n) || !strings.Contains(sec, n) {
			t.Errorf("number %s not in both languages", n)
		}
	}

	html := RenderHTML(in, "en")
	i := strings.Index(html, "<details>\n<summary><h2>Where did the global grad norm come from</h2></summary>")
	if i < 0 || !strings.Contains(html[i:], "</details>") {
		t.Error("the HTML section is not a folded <details>")
	}
}

// A NaN/Inf at the root, a decrease and no root step each say so, with no
// share table.
func TestGradNormSectionNoShare(t *testing.T) {
	overflow := synth.EventsRun(4, 12, synth.Spike{OptStep: 6, MicroStep: 1, Overflow: true, Names: []string{"output_layer.weight"}})
	drop := synth.EventsRun(1, 12, synth.Spike{OptStep: 8, All: true, Scale: 0.3})
	noise := synth.EventsRun(1, 12)
	for _, c := range []struct {
		name string
		in   Input
		want string
	}{
		{"nan", gradNormInput(t, overflow, model.IntPtr(6)), "a non-finite norm is the answer by itself"},
		{"decrease", gradNormInput(t, drop, model.IntPtr(8)), "did not rise: there is no increase to share out"},
		{"noise", gradNormInput(t, noise, nil), "There is no root step: the table shows the run's latest steps"},
	} {
		sec := gradNormSection(t, Render(c.in, "en"), "Where did the global grad norm come from")
		if !strings.Contains(sec, c.want) {
			t.Errorf("%s: section lacks %q:\n%s", c.name, c.want, sec)
		}
		if strings.Contains(sec, "| share |") || strings.Contains(sec, "moved") {
			t.Errorf("%s: a share without an increase:\n%s", c.name, sec)
		}
	}
}
