package report

import (
	"regexp"
	"strings"
	"testing"
)

// answerOf is the answer section of an HTML report.
func answerOf(t *testing.T, page string) string {
	t.Helper()
	i, j := strings.Index(page, `<section class="answer">`), strings.Index(page, "</section>")
	if i < 0 || j < i {
		t.Fatal("no answer section")
	}
	return page[i:j]
}

var figcaption = regexp.MustCompile(`<figcaption>(.*?)</figcaption>`)

// The answer shows the plots that prove the verdict, one per phase that
// has one, and small: Phase 2's growth at the root transition, then Phase
// 3's layer plot of the anchor and direction the verdict traces, and the
// drill-down to fill the third place (this run keeps no Phase 1 series).
func TestAnswerFiguresPerPhase(t *testing.T) {
	ans := answerOf(t, RenderHTML(fullInput(), "en"))
	caps := figcaption.FindAllStringSubmatch(ans, -1)
	if len(caps) != 3 {
		t.Fatalf("%d plots in the answer, want 3", len(caps))
	}
	for i, want := range []string{"Figure 1 — Gradient growth per rank from optimizer step 3 to 4",
		"Figure 2 — Anchor <code>self_attention</code>, forward", "Figure 3 — Drill-down"} {
		if !strings.HasPrefix(caps[i][1], want) {
			t.Errorf("plot %d: %q, want it to start %q", i+1, caps[i][1], want)
		}
	}
	if n := strings.Count(ans, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 440 `); n != 3 {
		t.Errorf("%d small plots (440 wide) in the answer, want 3", n)
	}
	// a verdict traced backward shows the backward plot
	in := fullInput()
	bwd := "bwd"
	v := *in.verdict()
	v.Direction = &bwd
	in.Verdict = &v
	if ans := answerOf(t, RenderHTML(in, "en")); !strings.Contains(ans, "Anchor <code>self_attention</code>, backward") {
		t.Error("a backward verdict's answer lacks the backward layer plot")
	}
}

// A run with one recorded step (a dump's parameter gradients) has no curve
// or heat map to draw: the answer shows Phase 3's plots, and no phase
// shows a one-point plot.
func TestNoOnePointPlots(t *testing.T) {
	in := pinnedInput()
	a := in.P1.Anomalies[0]
	in.P2.RootCauseCoordinate.TargetName = a.TargetName
	in.Verdict = nil
	in.Series = &Series{Param: a.TargetName, Steps: []int{a.Step}, Ranks: []int{a.Rank},
		Norm: [][]float64{{float64(a.Norm)}}, Has: [][]bool{{true}}}
	page := RenderHTML(in, "en")
	if strings.Contains(page, "Gradient norm of <code>") || strings.Contains(page, "heat map of the gradient norm") {
		t.Error("a one-step series is plotted")
	}
	in.Series.Steps, in.Series.Norm[0], in.Series.Has[0] = []int{a.Step, a.Step + 1}, []float64{float64(a.Norm), 1}, []bool{true, true}
	in.Series.Micro = nil
	if page := RenderHTML(in, "en"); !strings.Contains(answerOf(t, page), "Gradient norm of <code>") {
		t.Error("a two-step series is not plotted in the answer")
	}
}

// Everything after the answer is folded: each section's heading is the
// summary of its <details>, closed, and the page holds no script.
func TestSectionsFolded(t *testing.T) {
	for name, f := range fixtures {
		for _, lang := range []string{"en", "zh"} {
			page := RenderHTML(f(), lang)
			rest := page[strings.Index(page, "</section>"):]
			h2 := strings.Count(rest, "<h2>")
			if folded := strings.Count(rest, "<details>\n<summary><h2>"); h2 == 0 || folded != h2 || strings.Count(rest, "</details>") != h2 {
				t.Errorf("%s %s: %d section headings after the answer, %d folded", name, lang, h2, folded)
			}
			if strings.Contains(page, "<details open") || strings.Contains(page, "<script") {
				t.Errorf("%s %s: a section open or a script", name, lang)
			}
			if !strings.HasPrefix(page[strings.Index(page, "<main>"):], "<main>\n<h1>") {
				t.Errorf("%s %s: the page does not open with its title", name, lang)
			}
		}
	}
}

// The Markdown report opens with the same answer: right after the title,
// the verdict's section holds the cause, where, and the next step, before
// any other section.
func TestMarkdownOpensWithTheAnswer(t *testing.T) {
	for name, f := range fixtures {
		for lang, keys := range map[string][]string{"en": {"## Verdict (root cause and what to do)", "Cause:", "**Suggestion:**"},
			"zh": {"## 判定（根因与下一步）", "原因类别:", "**建议:**"}} {
			md := Render(f(), lang)
			first := strings.Index(md, "\n## ")
			second := strings.Index(md[first+1:], "\n## ") + first + 1
			if first < 0 || second <= first || !strings.HasPrefix(md[first+1:], keys[0]) {
				t.Errorf("%s %s: the first section is not the verdict", name, lang)
				continue
			}
			if name == "empty" { // nothing anomalous: that is the answer
				continue
			}
			for _, k := range keys[1:] {
				if !strings.Contains(md[first:second], k) {
					t.Errorf("%s %s: the opening answer lacks %q", name, lang, k)
				}
			}
		}
	}
}
