package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"spikescope/analysis"
	"spikescope/report"
	"spikescope/testdata/synth"
)

// internalWords are texts a user must never read: the method document's
// nickname ("the seed"), sentinel values (a micro step -1, a NaN standing
// for a missing baseline or band), rule and field names shown as prose.
var internalWords = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(?i)\bseed\b|seed's`), "the method document's nickname"},
	{regexp.MustCompile(`(?i)\b(micro[ -]step|ms|step|rank|opt|optimizer step|layer|call|event)[ =:]+-1([^0-9.]|$)`), "-1 as a coordinate"},
	{regexp.MustCompile(`(?i)(median|baseline|IQR|lower|upper|band|中位数|基线|标杆)[^|\n]{0,16}\bNaN\b`), "NaN for a missing baseline"},
	{regexp.MustCompile(`\|\s*NaN\s*\|\s*NaN\s*\|`), "a row of NaN for values never computed"},
	{regexp.MustCompile(`\b(target_rank_norms|uncompared_layers|micro_step_delta|dump_abs_norm|top_targets_per_step)\b`), "a field or rule name"},
	{regexp.MustCompile(`(?i)\bdata kind (micro_step|step|dump)\b|\(trigger: `), "a Go value shown as prose"},
	{regexp.MustCompile(`\bP0\b`), "the analysis' priority tag"},
	{regexp.MustCompile(`(?i)\bbaseline run\b|× baseline\b|\bbaseline median\b|note\(s\)`), "'baseline' for three things (own history / baseline device's monitor data / group B)"},
	{regexp.MustCompile(`\(0-based\)|\bcall \d+ of \d+`), "a call index instead of the micro-batch"},
	{regexp.MustCompile(`\d+ empty columns`), "columns named by their emptiness"},
	{regexp.MustCompile(`^(layer|row) \d+/\d+`), "a row counter read as a layer"},
}

// englishOnly are patterns wrong in English output only: Chinese text (the
// reference's tags) and the method's identifiers the Chinese report keeps.
var englishOnly = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\p{Han}`), "Chinese in the English output"},
	{regexp.MustCompile(`\bopt_step\b`), "opt_step as prose"},
	{regexp.MustCompile(`\b(optimizer_step|nonfinite)\b|\biqr\+mad\b|\((step|optimizer_step), ?(micro_step)?\)`), "an identifier of the analysis"},
}

// Every golden screen of the TUI (both sizes, colour and NO_COLOR) and
// every golden report (Markdown and HTML, en and zh) is free of internal
// words: the goldens are what the tests render, so a new screen or report
// text is checked as soon as its golden is written.
func TestNoInternalWords(t *testing.T) {
	files, _ := filepath.Glob("testdata/TestGolden/*.golden")
	reports, _ := filepath.Glob("../report/testdata/*.golden*")
	if len(files) < 60 || len(reports) < 10 {
		t.Fatalf("found %d TUI and %d report goldens: the test would check too little", len(files), len(reports))
	}
	for _, f := range append(files, reports...) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		text := ansi.Strip(string(b))
		if strings.HasSuffix(f, ".html") {
			text = htmlText(text)
		}
		english := !strings.Contains(filepath.Base(f), "_zh")
		for _, l := range strings.Split(text, "\n") {
			for _, w := range internalWords {
				if m := w.re.FindString(l); m != "" {
					t.Errorf("%s: %s (%q) in %q", f, w.what, m, wordsClip(l))
				}
			}
			if !english {
				continue
			}
			for _, w := range englishOnly {
				if m := w.re.FindString(l); m != "" {
					t.Errorf("%s: %s (%q) in %q", f, w.what, m, wordsClip(l))
				}
			}
		}
	}
}

// The patterns catch what they are for (a test of the test).
func TestInternalWordsPatterns(t *testing.T) {
	bad := []string{"the seed's fallback takes the step", "micro step -1", "ms=-1", "rank 3 ms -1 layers",
		"against a baseline median of NaN: deviation Inf", "| Mean | fwd | NaN | NaN | NaN |", "target_rank_norms: final norms",
		"data kind micro_step; thresholds", "(trigger: micro_step_delta)",
		"pass unit: (optimizer_step, micro_step) · window 4", "opt5 r3  iqr+mad  0.5", "3 nonfinite", "(step,)"}
	for _, s := range bad {
		hit := false
		for _, w := range append(append(internalWords[:0:0], internalWords...), englishOnly...) {
			hit = hit || w.re.MatchString(s)
		}
		if !hit {
			t.Errorf("%q passes", s)
		}
	}
	good := []string{"norm -1.312 at rank 2", "first NaN/Inf: L3", "| 1 | NaN | Inf | 2 |", "missing key, NaN, element count",
		"the pass unit", "L2 mlp.linear_fc2.weight", "Δ -1.5"}
	for _, s := range good {
		for _, w := range internalWords {
			if w.re.MatchString(s) {
				t.Errorf("%q flagged as %s", s, w.what)
			}
		}
	}
	if !englishOnly[0].re.MatchString("双端共有") || englishOnly[0].re.MatchString("device-specific") {
		t.Fatal("the Chinese pattern")
	}
}

// htmlText drops the tags, styles and the SVG path data of an HTML page,
// keeping the text a reader sees (titles of plots included).
func htmlText(s string) string {
	s = regexp.MustCompile(`(?s)<style.*?</style>`).ReplaceAllString(s, "")
	s = regexp.MustCompile(`(?s)<[^>]*>`).ReplaceAllString(s, " ")
	return s
}

func wordsClip(s string) string {
	if len(s) > 160 {
		return s[:160] + "…"
	}
	return s
}

// Beyond the goldens: the Phase 1 and Phase 2 screens, the text summary
// (printed when stdout is not a terminal) and the
// reports of several analysed synthetic runs (with and without a
// baseline, pinned, step-level fp16 overflows with a later spike, a NaN
// fault) carry no internal words either; these texts come from the
// analysis' decisions, which the fixtures of the goldens do not cover.
func TestNoInternalWordsOnAnalysedRuns(t *testing.T) {
	runs := map[string]*Data{
		"demo":        phase2Backend(false)().data,
		"demo pinned": phase2Backend(true)().data,
		"fp16":        fp16Backend().data,
	}
	one := *runs["demo"]
	demoRun()
	p2, err := phase2Said(analysis.Phase2(demoP1[0], nil, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		t.Fatal(err)
	}
	one.P1Baseline, one.BaselineMonitor, one.P2 = nil, nil, p2
	runs["demo, one device"] = &one
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = 1, 12, true
	c.Spikes = []synth.Spike{{OptStep: 5, Ranks: []int{2}, Overflow: true, Names: []string{"output_layer.weight"}}}
	r := synth.Generate(c)
	nan := &Data{Monitor: r.Monitor(synth.Anomalous)}
	nan.P1 = analysis.Phase1(nan.Monitor, analysis.DefaultPhase1Options())
	if nan.P2, err = phase2Said(analysis.Phase2(nan.P1, nil, nil, analysis.DefaultPhase2Options())); err != nil {
		t.Fatal(err)
	}
	runs["NaN, one device"] = nan
	for name, d := range runs {
		texts := map[string]string{"text summary": Summary(d)}
		for _, w := range []int{80, 160} {
			p1 := newPhase1Pane(testCommon(d))
			p1.SetSize(w, 60)
			texts[fmt.Sprintf("Phase 1 at %d", w)] = ansi.Strip(strings.Join(p1.View(), "\n"))
			p := newPhase2Pane(testCommon(d))
			p.SetSize(w, 500)
			texts[fmt.Sprintf("Phase 2 at %d", w)] = ansi.Strip(strings.Join(p.lines(), "\n"))
		}
		in := report.Input{P1: d.P1, P1Baseline: d.P1Baseline, P2: d.P2}
		for _, lang := range []string{"en", "zh"} {
			texts["report_"+lang] = report.Render(in, lang)
			texts["html_"+lang] = htmlText(report.RenderHTML(in, lang))
		}
		for what, text := range texts {
			english := !strings.HasSuffix(what, "_zh")
			for _, l := range strings.Split(text, "\n") {
				for _, w := range internalWords {
					if m := w.re.FindString(l); m != "" {
						t.Errorf("%s, %s: %s (%q) in %q", name, what, w.what, m, wordsClip(l))
					}
				}
				for _, w := range englishOnly {
					if m := w.re.FindString(l); english && m != "" {
						t.Errorf("%s, %s: %s (%q) in %q", name, what, w.what, m, wordsClip(l))
					}
				}
			}
		}
	}
}
