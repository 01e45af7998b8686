package pipeline

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/report"
	"spikescope/words"
)

var numberRe = regexp.MustCompile(`\d+(?:\.\d+)?(?:e[-+]?\d+)?`)

// sameNumbers fails when a number of en is missing from zh.
func sameNumbers(t *testing.T, what, en, zh string) {
	t.Helper()
	have := map[string]bool{}
	for _, n := range numberRe.FindAllString(zh, -1) {
		have[n] = true
	}
	for _, n := range numberRe.FindAllString(en, -1) {
		if !have[n] {
			t.Errorf("%s: %s of the English %q is not in the Chinese %q", what, n, en, zh)
		}
	}
}

// checkZhVerdict: the zh reports (Markdown and HTML) of s say the
// verdict's evidence, action and decide in Chinese (no English sentence),
// with every number of the English text.
func checkZhVerdict(t *testing.T, s *Session) {
	t.Helper()
	v := s.Verdict
	if v == nil {
		return
	}
	md := report.Render(s.ReportInput(), "zh")
	page := html.UnescapeString(report.RenderHTML(s.ReportInput(), "zh"))
	type said struct{ what, en, zh string }
	var all []said
	for i := range v.Evidence {
		e := &v.Evidence[i]
		all = append(all, said{"evidence " + e.Rule, words.Evidence(e, words.English), words.Evidence(e, words.Chinese)})
		if e.Text != all[len(all)-1].en {
			t.Errorf("evidence %s: JSON text %q is not the English sentence %q", e.Rule, e.Text, all[len(all)-1].en)
		}
	}
	all = append(all, said{"action " + v.ActionID, words.Action(v, words.English), words.Action(v, words.Chinese)})
	if d := words.Decide(v, words.English); d != "" {
		all = append(all, said{"decide", d, words.Decide(v, words.Chinese)})
	}
	for _, x := range all {
		if x.zh == "" || x.zh == x.en {
			t.Errorf("%s: no Chinese sentence (%q)", x.what, x.en)
			continue
		}
		if s := words.EnglishSentence(x.zh); s != "" {
			t.Errorf("%s: the Chinese sentence holds English %q: %q", x.what, s, x.zh)
		}
		sameNumbers(t, x.what, x.en, x.zh)
		if x.what == "decide" {
			continue // said inside the Chinese action
		}
		if !strings.Contains(md, x.zh) {
			t.Errorf("%s: the zh Markdown report does not say %q", x.what, x.zh)
		}
		if !strings.Contains(page, x.zh) {
			t.Errorf("%s: the zh HTML report does not say %q", x.what, x.zh)
		}
		if strings.Contains(md, x.en) || strings.Contains(page, x.en) {
			t.Errorf("%s: the zh report says the English %q", x.what, x.en)
		}
	}
}

// The demo's verdicts (every input, the monitor alone) are said in Chinese
// in the zh reports, and the same in the JSON language chosen by Lang.
func TestVerdictZhReportDemo(t *testing.T) {
	full := loadDemo(t)
	checkZhVerdict(t, full)
	in := Inputs{Path: demoInputs().Path}
	mon, err := Load(t.Context(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if mon.Verdict == nil || mon.Verdict.Cause != model.CauseUndetermined {
		t.Fatalf("monitor-only demo verdict %s", js(mon.Verdict))
	}
	checkZhVerdict(t, mon)
	// --lang zh: the JSON's texts are the Chinese sentences
	in.Lang = words.Chinese
	zh, err := Load(t.Context(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	if zh.Verdict.Action != words.Action(mon.Verdict, words.Chinese) || zh.Verdict.Decide != words.Decide(mon.Verdict, words.Chinese) ||
		zh.Verdict.Evidence[0].Text != words.Evidence(&mon.Verdict.Evidence[0], words.Chinese) {
		t.Errorf("Lang zh: the JSON verdict is not in Chinese: %s", js(zh.Verdict))
	}
}
