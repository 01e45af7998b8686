package pipeline

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"spikescope/report"
	"spikescope/words"
)

var (
	codeSpan = regexp.MustCompile("`[^`]*`|<code>[^<]*</code>|<svg[\\s\\S]*?</svg>|<style>[\\s\\S]*?</style>")
	tagRe    = regexp.MustCompile(`<[^>]+>`)
)

// englishInPage is the lines of a zh report (code spans, SVG and tags
// aside) that hold an English sentence.
func englishInPage(page string) []string {
	var out []string
	for _, l := range strings.Split(codeSpan.ReplaceAllString(page, " "), "\n") {
		l = html.UnescapeString(tagRe.ReplaceAllString(l, " "))
		if s := words.EnglishSentence(l); s != "" {
			out = append(out, s+"  ← "+strings.TrimSpace(l))
		}
	}
	return out
}

// Issue 27 item 8: every sentence of the zh report is Chinese — the whole
// page, Markdown and HTML, not only the phases' notes: the answer, the
// summary, every phase, the grad-norm section, what is missing and the
// next steps; on the demo with every input and on its monitor alone.
func TestChineseReportHoldsNoEnglishSentence(t *testing.T) {
	full := loadDemo(t)
	mon, err := Load(t.Context(), Inputs{Path: demoInputs().Path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, s := range map[string]*Session{"demo": full, "monitor alone": mon} {
		in := s.ReportInput()
		for kind, page := range map[string]string{"Markdown": report.Render(in, "zh"), "HTML": report.RenderHTML(in, "zh")} {
			if lines := englishInPage(page); len(lines) > 0 {
				t.Errorf("%s, %s: %d English sentence(s) in the zh report, first: %s", name, kind, len(lines), lines[0])
			}
			// the check reads English where there is some
			if en := englishInPage(strings.ReplaceAll(page, "结论", "the root cause is")); len(en) == 0 {
				t.Fatalf("%s, %s: the check found no English in a page with English put in", name, kind)
			}
		}
	}
}
