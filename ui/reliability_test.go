package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// ctrl+c is an interrupt (exit 130) also on the loading screen, where it
// cancels the load; q is a plain quit.
func TestCtrlCWhileLoadingIsAnInterrupt(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}})
	if c := press(m, "ctrl+c"); c == nil || m.ctx.Err() == nil || !m.Interrupted() {
		t.Fatalf("ctrl+c while loading: cancelled %v, interrupted %v", m.ctx.Err() != nil, m.Interrupted())
	}
	m = New(Options{Backend: &fakeBackend{block: true}})
	if press(m, "q"); m.Interrupted() {
		t.Fatal("q counted as an interrupt")
	}
}

// loadedWithState is a loaded model whose state folder is a fresh temp dir.
func loadedWithState(t *testing.T) (state string, b *fakeBackend, m *Model) {
	state = t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	b = fixtureBackend()
	m = New(Options{Backend: b, NoColor: true, Title: "/data/run 7/monitor.trend.db"})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	return state, b, m
}

// Item 6: `r` writes <run>-<time>.md into the state folder, shows the full
// path, never overwrites an earlier report, and does no file-system work in
// Update (the path is chosen in the command).
func TestReportKeyWritesToStateFolderAndNeverOverwrites(t *testing.T) {
	state, b, m := loadedWithState(t)
	dir := filepath.Join(state, "spikescope", "reports")
	cmd := press(m, "r", "m")
	if _, err := os.Stat(dir); err == nil {
		t.Fatal("the report folder was created inside Update")
	}
	run(t, m, cmd)
	run(t, m, press(m, "r", "m")) // the same second, most likely: a second name
	if len(b.reports) < 2 || b.reports[0] == b.reports[len(b.reports)-1] {
		t.Fatalf("reports %v", b.reports)
	}
	for _, p := range b.reports {
		if filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "monitor-") || !strings.HasSuffix(p, ".md") {
			t.Fatalf("report path %s", p)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Fatalf("%d files in %s, want 2", len(ents), dir)
	}
	last := b.reports[len(b.reports)-1]
	if !strings.Contains(oneLine(shown(m)), "report written to "+last) {
		t.Fatalf("status %q does not show %s", m.status, last)
	}
}

// `r` asks for the format: h writes <run>-<time>.html, any other key
// writes nothing and says so.
func TestReportKeyOffersHTML(t *testing.T) {
	state, b, m := loadedWithState(t)
	if cmd := press(m, "r"); cmd != nil || !strings.Contains(m.status, "h HTML") {
		t.Fatalf("r: status %q, command %v; want the format choice and nothing written yet", m.status, cmd != nil)
	}
	if cmd := press(m, "x"); cmd != nil || len(b.reports) != 0 || m.status != "no report written" {
		t.Fatalf("r x: status %q, reports %v", m.status, b.reports)
	}
	run(t, m, press(m, "r", "h"))
	if len(b.reports) != 1 || !strings.HasSuffix(b.reports[0], ".html") || filepath.Dir(b.reports[0]) != filepath.Join(state, "spikescope", "reports") {
		t.Fatalf("reports %v, want one .html in the state folder", b.reports)
	}
	if !strings.Contains(oneLine(shown(m)), "report written to "+b.reports[0]) {
		t.Fatalf("status %q", m.status)
	}
}

// Item 6: a state folder inside an input folder (here through a symlink) is
// not used: the data folder gets no report.
func TestReportNeverLandsInTheData(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "run")
	os.MkdirAll(filepath.Join(data, "sub"), 0o755)
	db := filepath.Join(data, "trend.db")
	os.WriteFile(db, []byte("x"), 0o644)
	link := filepath.Join(root, "link")
	os.Symlink(filepath.Join(data, "sub"), link)
	b := fixtureBackend()
	inputs := []Input{{Role: "monitor", Path: db}}
	for _, dir := range []string{data, filepath.Join(data, "sub"), link} {
		p, err := writeReportFile(t.Context(), b, fixture(), dir, db, inputs, time.Now(), ".md")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(p, data) || strings.HasPrefix(p, link) {
			t.Fatalf("report in the data: %s", p)
		}
		os.Remove(p)
	}
	p, err := writeReportFile(t.Context(), b, fixture(), filepath.Join(root, "elsewhere"), db, inputs, time.Now(), ".md")
	if err != nil || filepath.Dir(p) != filepath.Join(root, "elsewhere") {
		t.Fatalf("outside the data: %s %v", p, err)
	}
}

func TestDefaultReportDir(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/st")
	if got := DefaultReportDir(); got != "/st/spikescope/reports" {
		t.Fatal(got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultReportDir(); got != "/home/u/.local/state/spikescope/reports" {
		t.Fatal(got)
	}
}

// Item 7: a path with an ESC sequence is shown escaped on the loading
// screen, never sent to the terminal.
func TestLoadingScreenEscapesControlCharacters(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}, NoColor: true, Inputs: []Input{{Role: "monitor", Path: "/data/x\x1b[2Jy.trend.db"}}})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	v := m.View().Content
	if strings.Contains(v, "\x1b[2J") || !strings.Contains(screenText(m), `x\x1b[2Jy.trend.db`) {
		t.Fatalf("loading screen:\n%q", v)
	}
}
