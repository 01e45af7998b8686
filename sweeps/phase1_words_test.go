package sweeps

import (
	"context"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/report"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// phase1Part is the Phase 1 section of a Markdown report: from its heading
// to the next one, code spans (names as the input writes them) left out.
func phase1Part(md string) string {
	i := strings.Index(md, "\n## Phase 1")
	if i < 0 {
		return ""
	}
	part := md[i+1:]
	if j := strings.Index(part[1:], "\n## "); j >= 0 {
		part = part[:j+1]
	}
	return codeSpan.ReplaceAllString(part, "`…`")
}

var (
	codeSpan = regexp.MustCompile("`[^`\n]*`")
	htmlTag  = regexp.MustCompile(`<[^>]*>`)
	htmlCode = regexp.MustCompile(`(?s)<code>.*?</code>`)
	htmlSVG  = regexp.MustCompile(`(?s)<svg.*?</svg>`)
	h2       = regexp.MustCompile(`<h2[ >]`)
)

// phase1PartHTML is the Phase 1 section of an HTML report as text: from
// the heading that names Phase 1 to the next section heading.
func phase1PartHTML(page string) string {
	heads := h2.FindAllStringIndex(page, -1)
	for k, h := range heads {
		end := len(page)
		if k+1 < len(heads) {
			end = heads[k+1][0]
		}
		part := page[h[0]:end]
		title, _, _ := strings.Cut(htmlTag.ReplaceAllString(part[:min(len(part), 200)], ""), "\n")
		if !strings.HasPrefix(strings.TrimSpace(title), "Phase 1") {
			continue
		}
		part = htmlSVG.ReplaceAllString(part, " ")
		part = htmlCode.ReplaceAllString(part, " ")
		return htmlTag.ReplaceAllString(part, "\n")
	}
	return ""
}

// englishLines lists the lines of text holding an English sentence.
func englishLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if s := words.EnglishSentence(l); s != "" {
			out = append(out, s+"  ←  "+l)
		}
	}
	return out
}

// The Chinese report's Phase 1 section (Markdown and HTML) says what Phase 1
// found in Chinese — the run shape, the reasoning, the warnings — on the
// demo, pipeline runs (PP×VPP, PP inferred from the markers, PP that could
// not be inferred), micro-step inputs numbered by the input and a real
// msprobe dump; the English report keeps the English texts.
func TestPhase1ChineseReport(t *testing.T) {
	dir := t.TempDir()
	vpp := synth.GenerateSweep(synth.SweepWith("pp2-vpp2", func(c *synth.Sweep) { c.PP = 2; c.VPP = 2 }))
	vppDir := filepath.Join(dir, "pp2vpp2")
	if err := vpp.WriteCSV(vppDir, 0, true); err != nil {
		t.Fatal(err)
	}
	markers := synth.GenerateStages(synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 5,
		Fault: &synth.StageFault{OptStep: 3, MicroStep: 1, Rank: 3, Layer: 1, Scale: 4}})
	markersDB := filepath.Join(dir, "markers.trend.db")
	if err := markers.WriteTrendDB(markersDB); err != nil {
		t.Fatal(err)
	}
	hidden := synth.GenerateStages(synth.StagesConfig{PP: 4, DP: 1, LayersPerStage: 3, Window: 4, OptSteps: 6, Seed: 4, LayersOnly: true})
	hiddenDB := filepath.Join(dir, "hidden.trend.db")
	if err := hidden.WriteTrendDB(hiddenDB); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, path string
		want       []string // rules some Phase 1 reason of the run must have
	}{
		{"demo", "../testdata/demo/npu/trend.db", []string{"phase1.window.reduced", "phase1.micro.rule", "phase1.tails.dropped"}},
		{"pp2-vpp2", vppDir, []string{"phase1.micro.numbering.note", "phase1.micro.explicit"}},
		{"pp2 markers", markersDB, []string{"phase1.pp.inferred", "phase1.window.reduced"}},
		{"pp4 hidden", hiddenDB, []string{"phase1.pp.note", "phase1.pp.levels.unseparable"}},
		{"monitor v2 csv", "../testdata/monitor/csv_v2", []string{"phase1.micro.numbering.note"}},
		{"real dump", filepath.Join(realDir, "dump_L0"), []string{"phase1.history.warning", "phase1.dump.shape", "phase1.steplevel.rule"}},
	} {
		s, err := pipeline.Load(context.Background(), pipeline.Inputs{Path: c.path}, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		p1 := s.P1
		if p1 == nil || p1.ReasoningReasons == nil || p1.Sharding.ConclusionReason == nil {
			t.Fatalf("%s: Phase 1 holds no reasons", c.name)
		}
		rules := map[string]bool{}
		all := append(append([]model.Reason{p1.Sharding.ConclusionReason}, p1.ReasoningReasons...), p1.WarningsReasons...)
		for _, r := range all {
			rules[r.Rule()] = true
		}
		for _, w := range c.want {
			if !rules[w] {
				t.Errorf("%s: no %s among Phase 1's reasons %v", c.name, w, rules)
			}
		}
		in := s.ReportInput()
		md, page := report.Render(in, "zh"), report.RenderHTML(in, "zh")
		part, partHTML := phase1Part(md), phase1PartHTML(page)
		if part == "" || partHTML == "" {
			t.Fatalf("%s: no Phase 1 section", c.name)
		}
		if e := englishLines(part); len(e) > 0 {
			t.Errorf("%s: the zh report's Phase 1 section holds English:\n%s", c.name, strings.Join(e, "\n"))
		}
		if e := englishLines(partHTML); len(e) > 0 {
			t.Errorf("%s: the zh HTML report's Phase 1 section holds English:\n%s", c.name, strings.Join(e, "\n"))
		}
		// the run shape and the first notes are there, said in Chinese
		for _, r := range all[:min(len(all), 4)] {
			zh := words.Say(r, words.Chinese)
			if !strings.Contains(part, zh) {
				t.Errorf("%s: the zh report's Phase 1 section does not say %q", c.name, zh)
			}
			if !strings.Contains(partHTML, html.EscapeString(zh)) {
				t.Errorf("%s: the zh HTML report's Phase 1 section does not say %q", c.name, zh)
			}
		}
		en := report.Render(in, "en")
		for _, r := range p1.ReasoningReasons[:min(len(p1.ReasoningReasons), 3)] {
			if e := words.Say(r, words.English); !strings.Contains(en, e) {
				t.Errorf("%s: the en report does not say %q", c.name, e)
			}
		}
	}
}
