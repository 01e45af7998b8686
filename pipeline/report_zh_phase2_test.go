package pipeline

import (
	"context"
	"html"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/report"
	"spikescope/words"
)

// phase2Part is the Phase 2 section of a report: from its heading to the
// next heading of the same level (Markdown "## ", HTML "<h2>"), tags and
// entities removed.
func phase2Part(t *testing.T, doc string, htmlDoc bool) string {
	t.Helper()
	title := "Phase 2: "
	var start, next string
	if htmlDoc {
		start, next = "<h2>"+title, "<h2>"
	} else {
		start, next = "## "+title, "\n## "
	}
	i := strings.Index(doc, start)
	if i < 0 {
		t.Fatalf("no Phase 2 section (%q)", start)
	}
	part := doc[i+len(start):]
	if j := strings.Index(part, next); j >= 0 {
		part = part[:j]
	}
	if htmlDoc {
		part = regexp.MustCompile(`(?s)<style.*?</style>`).ReplaceAllString(part, "")
		part = regexp.MustCompile(`<[^>]*>`).ReplaceAllString(part, "\n")
		part = html.UnescapeString(part)
	}
	return part
}

// englishLines returns the lines of s that hold an English sentence.
func englishLines(s string) []string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if e := words.EnglishSentence(line); e != "" {
			out = append(out, e+"  ←  "+strings.TrimSpace(line))
		}
	}
	return out
}

// phase2Runs are runs whose Phase 2 takes different paths: the demo (with
// its baseline monitor), the anomalous monitor alone, the demo pinned at
// its own root and at a coordinate no candidate has.
func phase2Runs(t *testing.T) map[string]*Session {
	t.Helper()
	demo := loadDemo(t)
	runs := map[string]*Session{"demo (baseline monitor)": demo}
	alone, err := Load(context.Background(), Inputs{Path: filepath.Join(demoDir, "npu", "trend.db")}, nil)
	if err != nil {
		t.Fatal(err)
	}
	runs["monitor alone"] = alone
	co := demo.P2.RootCauseCoordinate
	if co == nil || co.OptimizerStep == nil {
		t.Fatal("the demo has no root coordinate")
	}
	pinned, err := demo.WithPin(&model.Coord{OptStep: model.IntPtr(*co.OptimizerStep), Rank: model.IntPtr(co.Rank), Param: co.TargetName})
	if err != nil {
		t.Fatal(err)
	}
	runs["pinned"] = pinned
	other := (co.Rank + 1) % 8
	pinnedElsewhere, err := alone.WithPin(&model.Coord{OptStep: model.IntPtr(*co.OptimizerStep), Rank: model.IntPtr(other), Param: co.TargetName})
	if err != nil {
		t.Fatal(err)
	}
	runs["pinned, monitor alone"] = pinnedElsewhere
	return runs
}

// The Chinese report's Phase 2 part says every sentence in Chinese
// (Markdown and HTML), the decisions included; the English report keeps
// the decisions the JSON holds.
func TestPhase2ChineseReportHoldsNoEnglish(t *testing.T) {
	for name, s := range phase2Runs(t) {
		in := s.ReportInput()
		for _, htmlDoc := range []bool{false, true} {
			doc := report.Render(in, "zh")
			if htmlDoc {
				doc = report.RenderHTML(in, "zh")
			}
			part := phase2Part(t, doc, htmlDoc)
			if en := englishLines(part); len(en) > 0 {
				t.Errorf("%s (html %v): the zh report's Phase 2 part holds English:\n%s", name, htmlDoc, strings.Join(en, "\n"))
			}
			if len(s.P2.DecisionsReasons) == 0 {
				t.Fatalf("%s: Phase 2 kept no decision reasons", name)
			}
			// the first decision (the data kind) is there, in Chinese
			if zh := words.Say(s.P2.DecisionsReasons[0], words.Chinese); !htmlDoc && !strings.Contains(part, zh) {
				t.Errorf("%s: the zh report lacks the decision %q", name, zh)
			}
		}
		if d := s.P2.Decisions[0]; !strings.Contains(report.Render(in, "en"), d) {
			t.Errorf("%s: the en report lacks the decision %q", name, d)
		}
	}
}

var numberRE = regexp.MustCompile(`\d+(?:\.\d+)?(?:e[-+]?\d+)?`)

// Every number of a reason's English sentence is in its Chinese one, for
// every reason the runs' Phase 2 kept.
func TestPhase2ReasonsSayTheSameNumbers(t *testing.T) {
	for name, s := range phase2Runs(t) {
		p2 := s.P2
		var rs []model.Reason
		rs = append(rs, p2.DecisionsReasons...)
		rs = append(rs, p2.ReasoningReasons...)
		rs = append(rs, p2.CrossDeviceVerificationReason)
		for _, c := range p2.CrossStep {
			rs = append(rs, c.VerdictReason)
		}
		for _, e := range p2.Events {
			rs = append(rs, e.BaselineReasonReason)
		}
		if co := p2.RootCauseCoordinate; co != nil {
			rs = append(rs, co.ParameterNoteReason)
		}
		for _, r := range rs {
			if r == nil {
				continue
			}
			en, zh := words.Say(r, words.English), words.Say(r, words.Chinese)
			for _, n := range numberRE.FindAllString(en, -1) {
				if !strings.Contains(zh, n) {
					t.Errorf("%s: %s: %s is in the English %q, not in the Chinese %q", name, r.Rule(), n, en, zh)
				}
			}
		}
	}
}
