package pipeline

import (
	"context"
	"math"
	"path/filepath"

	"spikescope/analysis"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/report"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// phase3Part is the Phase 3 section of a Markdown report: from its heading
// to the next section's.
func phase3Part(t *testing.T, md string) string {
	t.Helper()
	i := strings.Index(md, "\n## Phase 3")
	if i < 0 {
		t.Fatalf("no Phase 3 section in\n%s", md)
	}
	rest := md[i+1:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// phase3Texts are the texts of a Phase 3 result its rules say (in the
// result's language), each once.
func phase3Texts(p3 *model.Phase3Result) []string {
	var out []string
	add := func(s ...string) {
		for _, x := range s {
			if x != "" {
				out = append(out, x)
			}
		}
	}
	add(p3.Warnings...)
	add(p3.DegradedNote, p3.ControlChoice)
	for _, c := range p3.ControlCandidates {
		add(c.Reason)
	}
	if w := p3.AnchorWarning; w != nil {
		add(w.Message)
	}
	if ds := p3.DumpStage; ds != nil {
		add(ds.Source)
	}
	bands := func(th map[string]map[string]model.Band) {
		for _, dirs := range th {
			for _, b := range dirs {
				add(b.Note, b.Rule)
			}
		}
	}
	for _, a := range p3.Anchors {
		bands(a.Thresholds)
		for _, l := range a.Layers {
			add(l.Alignment.Reasons...)
		}
	}
	ds := p3.DivergenceSummary
	bands(ds.Thresholds)
	for _, d := range ds.Directions {
		add(d.Note)
	}
	if d := ds.Drilldown; d != nil {
		add(d.Note)
		for _, o := range d.Ops {
			add(o.Why)
		}
	}
	if df := ds.DataFeature; df != nil {
		add(df.Detail)
	}
	return out
}

// The Chinese report (Markdown and HTML) says Phase 3 in Chinese: no text
// of the Phase 3 section is an English sentence, on the demo (A/B/C/D and
// a drill-down), on a run with the anomalous side's dumps only (C in B's
// place) and on a run whose fault is a NaN; the English report still says
// the English texts, and every text Phase 3's rules wrote in English is
// said in Chinese.
func TestChineseReportSaysPhase3InChinese(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the demo and writes dumps")
	}
	runs := map[string]*Session{"demo": loadDemo(t)}
	aOnly, err := Load(context.Background(), Inputs{
		Path:  filepath.Join(demoDir, "npu", "trend.db"),
		DumpA: filepath.Join(demoDir, "npu", "dump"),
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs["anomalous side's dumps only"] = aOnly
	// a NaN in A's layer 3 forward (in memory: dump.json writes a NaN as
	// null), traced as runPhase3 does
	q := synth.TraceQuad{Layers: 6, Noise: 0.005, Bias: 1, Seed: 2, Fault: synth.TraceFwdFault(3, "swi", math.NaN())}
	a, b, c, d := q.Build()
	p3 := analysis.NewTracer(analysis.Phase3Input{A: a, B: b, C: c, D: d}, analysis.DefaultPhase3Options()).Result()
	words.Phase3(p3, words.Default)
	nan := FromResults(Inputs{}, nil, nil, nil, p3)
	runs["NaN fault"] = nan
	for name, s := range runs {
		if s.P3 == nil {
			t.Fatalf("%s: Phase 3 did not run", name)
		}
		if dd := s.P3.DivergenceSummary.Drilldown; name == "NaN fault" && (dd == nil || !dd.NonFinite) {
			t.Errorf("%s: no drill-down", name)
		}
		en := phase3Texts(s.P3)
		if len(en) == 0 {
			t.Fatalf("%s: Phase 3 says nothing", name)
		}
		zh := phase3Texts(words.Phase3In(s.P3, words.Chinese))
		for _, x := range zh {
			if e := words.EnglishSentence(x); e != "" {
				t.Errorf("%s: Phase 3 text %q holds English %q", name, x, e)
			}
		}
		in := s.ReportInput()
		md := report.Render(in, "zh")
		part := phase3Part(t, md)
		for _, line := range strings.Split(part, "\n") {
			if e := words.EnglishSentence(stripCode(line)); e != "" {
				t.Errorf("%s: the Chinese report's Phase 3 holds English %q in\n%s", name, e, line)
			}
		}
		html := report.RenderHTML(in, "zh")
		for _, line := range strings.Split(htmlText(t, html), "\n") {
			if e := words.EnglishSentence(line); e != "" {
				t.Errorf("%s: the Chinese HTML report's Phase 3 holds English %q in\n%s", name, e, line)
			}
		}
		for _, x := range en {
			if strings.Contains(html, htmlEscape(x)) && words.EnglishSentence(x) != "" {
				t.Errorf("%s: the Chinese HTML report holds the English %q", name, x)
			}
		}
	}
}

// stripCode drops `code spans` (names, paths) from a Markdown line.
func stripCode(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		if r == '`' {
			in = !in
			continue
		}
		if !in {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// htmlText is the text of the Phase 3 section of an HTML report, one line
// per element, without code (names, paths), figures or tags.
func htmlText(t *testing.T, h string) string {
	t.Helper()
	i := strings.Index(h, "<h2>Phase 3")
	if i < 0 {
		t.Fatal("no Phase 3 section in the HTML report")
	}
	h = h[i:]
	if j := strings.Index(h[1:], "<h2"); j >= 0 {
		h = h[:j+1]
	}
	for _, el := range []string{"code", "svg", "style"} {
		for {
			a := strings.Index(h, "<"+el)
			if a < 0 {
				break
			}
			b := strings.Index(h[a:], "</"+el+">")
			if b < 0 {
				break
			}
			h = h[:a] + h[a+b+len(el)+3:]
		}
	}
	var out strings.Builder
	in := false
	for _, r := range h {
		switch {
		case r == '<':
			in = true
			out.WriteRune('\n')
		case r == '>':
			in = false
		case !in:
			out.WriteRune(r)
		}
	}
	return strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`).Replace(out.String())
}

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}
