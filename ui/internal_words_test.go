package ui

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
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
}

// englishOnly are patterns wrong in English output only: Chinese text (the
// reference's tags) and the method's identifiers the Chinese report keeps.
var englishOnly = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`\p{Han}`), "Chinese in the English output"},
	{regexp.MustCompile(`\bopt_step\b`), "opt_step as prose"},
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
		"data kind micro_step; thresholds", "(trigger: micro_step_delta)"}
	for _, s := range bad {
		hit := false
		for _, w := range internalWords {
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
