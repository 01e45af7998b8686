package pipeline

import (
	"bytes"
	"html"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/report"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// warnedCSVTree writes a small monitor CSV run with the data problems a
// reader warns about but reads through: a header-only file, a CSV that is
// no monitor file, an incomplete last line and a parameter name with a
// control character.
func warnedCSVTree(t *testing.T) string {
	t.Helper()
	c := synth.DefaultConfig()
	c.Ranks, c.OptSteps = 2, 8
	r := synth.Generate(c)
	dir := filepath.Join(t.TempDir(), "monitor_output")
	if err := r.WriteCSVTree(dir); err != nil {
		t.Fatal(err)
	}
	rank0 := filepath.Join(dir, r.RankDir(synth.Anomalous, 0))
	rank1 := filepath.Join(dir, r.RankDir(synth.Anomalous, 1))
	first := filepath.Join(rank0, "grad_unreduced_"+itoa(c.FirstStep)+"-"+itoa(c.FirstStep)+".csv")
	b, err := os.ReadFile(first)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitN(b, []byte("\n"), 3)
	header, row := lines[0], string(lines[1])
	name := strings.Split(row, ",")[1]
	bad := strings.Replace(row, name, name+"\x01", 1)
	write := func(p string, data []byte) {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(first, append(b, []byte(bad+"\n")...))
	write(filepath.Join(rank1, "grad_unreduced_900-900.csv"), append(header, '\n'))
	write(filepath.Join(dir, "notes.csv"), []byte("a,b\n1,2\n"))
	last := filepath.Join(rank1, "grad_unreduced_"+itoa(c.FirstStep+1)+"-"+itoa(c.FirstStep+1)+".csv")
	lb, err := os.ReadFile(last)
	if err != nil {
		t.Fatal(err)
	}
	write(last, append(lb, []byte("0,"+name+",")...))
	return dir
}

func itoa(n int) string { return strconv.Itoa(n) }

// The readers' warnings reach the report as Phase 1's notes: the zh
// reports (Markdown and HTML) say them in Chinese, with the English
// numbers, and the JSON keeps the English.
func TestReaderWarningsZhReport(t *testing.T) {
	s, err := Load(t.Context(), Inputs{Path: warnedCSVTree(t)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"load.csv.header_only": false, "load.csv.not_monitor": false, "load.csv.incomplete_line": false, "load.names.escaped": false}
	for _, r := range s.P1.WarningsReasons {
		if _, ok := want[r.Rule()]; ok {
			want[r.Rule()] = true
		}
	}
	for rule, seen := range want {
		if !seen {
			t.Errorf("no %s warning: %q", rule, s.P1.Warnings)
		}
	}
	if got := words.All(s.P1.WarningsReasons, words.English); !subset(got, s.P1.Warnings) {
		t.Errorf("the JSON warnings %q do not hold the English of the reasons %q", s.P1.Warnings, got)
	}
	md := report.Render(s.ReportInput(), "zh")
	page := html.UnescapeString(report.RenderHTML(s.ReportInput(), "zh"))
	en := report.Render(s.ReportInput(), "en")
	for _, r := range s.P1.WarningsReasons {
		e, z := words.Say(r, words.English), words.Say(r, words.Chinese)
		if x := words.EnglishSentence(z); x != "" {
			t.Errorf("%s: the Chinese warning holds English %q: %q", r.Rule(), x, z)
		}
		sameNumbers(t, r.Rule(), e, z)
		key := afterHead(z)
		if !strings.Contains(md, key) || !strings.Contains(page, key) {
			t.Errorf("%s: the zh reports do not say %q", r.Rule(), key)
		}
		ekey := afterHead(e)
		if strings.Contains(md, ekey) || strings.Contains(page, ekey) {
			t.Errorf("%s: the zh reports say the English %q", r.Rule(), ekey)
		}
		if !strings.Contains(en, ekey) {
			t.Errorf("%s: the en report does not say %q", r.Rule(), ekey)
		}
	}
}

func subset(xs, of []string) bool {
	have := map[string]bool{}
	for _, x := range of {
		have[x] = true
	}
	for _, x := range xs {
		if !have[x] {
			return false
		}
	}
	return true
}

// afterHead is a warning after its first ": " (the path or the "data
// problem" head it may start with), as the report's Markdown keeps it.
func afterHead(s string) string {
	if _, rest, ok := strings.Cut(s, ": "); ok {
		return rest
	}
	return s
}
