package ui

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"spikescope/model"
)

// keyMsg builds the key press the terminal would send for name.
func keyMsg(name string) tea.KeyPressMsg {
	switch name {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "backspace":
		return tea.KeyPressMsg{Code: tea.KeyBackspace}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	case "right":
		return tea.KeyPressMsg{Code: tea.KeyRight}
	case "left":
		return tea.KeyPressMsg{Code: tea.KeyLeft}
	case "pgdown":
		return tea.KeyPressMsg{Code: tea.KeyPgDown}
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	}
	r := []rune(name)[0]
	return tea.KeyPressMsg{Code: r, Text: name}
}

// step is a key to send, a text to wait for on the output, or a resize.
type step struct {
	key, wait string
	resize    [2]int
}

func keys(ks ...string) []step {
	var out []step
	for _, k := range ks {
		out = append(out, step{key: k})
	}
	return out
}

// scenario is one screen reached by keys from the start.
type scenario struct {
	name    string
	backend func() *fakeBackend
	ready   string // text that appears once the screen is loaded
	steps   []step
}

func fixtureBackend() *fakeBackend { return &fakeBackend{data: fixture()} }

func emptyBackend() *fakeBackend {
	d := fixture()
	p1 := *d.P1
	p1.Anomalies, p1.Summary.AnomalyCount = nil, 0
	p1.Reasoning = []string{"no parameter left its robust baseline (IQR×5, MAD×10, ≥1.5× the median)"}
	d.P1, d.P2, d.P3 = &p1, nil, nil
	return &fakeBackend{data: d}
}

var scenarios = []scenario{
	{name: "loading", backend: func() *fakeBackend {
		return &fakeBackend{block: true, progress: []model.Progress{{Input: "/data/run/trend.db", Done: 512 << 10, Total: 1 << 20, Unit: "bytes"}}}
	}, ready: "50%"},
	{name: "load_error", backend: func() *fakeBackend { return &fakeBackend{err: errFixtureLoad} }, ready: "could not load"},
	{name: "phase1", backend: fixtureBackend, ready: "earliest first"},
	{name: "phase1_filter", backend: fixtureBackend, ready: "earliest first", steps: keys("/", "a", "t", "t", "n", "enter")},
	{name: "series", backend: fixtureBackend, ready: "earliest first", steps: keys("enter")},
	{name: "phase2", backend: fixtureBackend, ready: "earliest first", steps: keys("2")},
	{name: "pinned_phase3", backend: fixtureBackend, ready: "earliest first",
		steps: append(keys("j", "p"), step{wait: "PIN"}, step{key: "3"})},
	{name: "phase3", backend: fixtureBackend, ready: "earliest first", steps: keys("3")},
	{name: "phase3_metric_tab", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "tab", "m")},
	{name: "drill_ops", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "enter")},
	{name: "drill_other_layer", backend: fixtureBackend, ready: "earliest first",
		steps: append(keys("3", "k", "enter"), step{wait: "operator 1 of 3"})},
	{name: "op_chain", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "enter", "enter")},
	{name: "help", backend: fixtureBackend, ready: "earliest first", steps: keys("?")},
	{name: "verdict", backend: fixtureBackend, ready: "earliest first", steps: keys("v")},
	// where the global grad norm came from: the peak step, then the step before the root
	{name: "gradnorm", backend: fixtureBackend, ready: "earliest first", steps: keys("t")},
	{name: "gradnorm_reference", backend: fixtureBackend, ready: "earliest first", steps: keys("t", "g")},
	{name: "chooser", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "c")},
	{name: "empty", backend: emptyBackend, ready: "No anomaly"},
	{name: "empty_phase3", backend: emptyBackend, ready: "No anomaly", steps: keys("3")},
	// the `?` legend lists the marks of the screen it was opened on
	{name: "help_phase3", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "?")},
	{name: "help_drill", backend: fixtureBackend, ready: "earliest first", steps: keys("3", "enter", "?")},
	// → past the last column scrolls the layer table to the raw C/D values
	{name: "phase3_scrolled", backend: fixtureBackend, ready: "earliest first",
		steps: keys("3", "right", "right", "right", "right", "right", "right", "right", "right", "right", "right")},
	// long Megatron-core names on PP 2 × VPP 2, shortened from the middle
	{name: "mcore_phase1", backend: mcoreBackend, ready: "candidate 1 of"},
	{name: "mcore_drill", backend: mcoreBackend, ready: "candidate 1 of", steps: keys("3", "enter")},
	{name: "mcore_series", backend: mcoreBackend, ready: "candidate 1 of", steps: keys("enter")},
	// Phase 2 on PP × VPP: the model's layer beside each stage-local name
	{name: "mcore_phase2", backend: mcoreGlobalBackend, ready: "candidate 1 of", steps: keys("2")},
	// a resize mid-session re-lays out the table (fewer groups at 100 columns)
	{name: "resized_phase3", backend: fixtureBackend, ready: "earliest first",
		steps: append(keys("3"), step{resize: [2]int{100, 30}})},
}

var sizes = [][2]int{{80, 24}, {160, 48}}

// TestGolden runs every screen in a real program (teatest) at 80×24 and
// 160×48, with and without NO_COLOR, and compares the final frame with
// testdata/TestGolden/<screen>_<size>_<colour>.golden (go test ./ui -update
// rewrites them). The golden is the final model's View().Content, not the
// renderer's byte stream (teatest.WaitFor drains it, and the cell-diff
// renderer writes only changes): lipgloss v2 styles render to fixed
// true-colour sequences whatever the terminal, so the colour goldens do not
// depend on the environment; the terminal's profile only applies when the
// program writes to a real terminal.
func TestGolden(t *testing.T) {
	for _, sc := range scenarios {
		for _, sz := range sizes {
			for _, noColor := range []bool{false, true} {
				mode := "color"
				if noColor {
					mode = "nocolor"
				}
				t.Run(fmt.Sprintf("%s_%dx%d_%s", sc.name, sz[0], sz[1], mode), func(t *testing.T) {
					fm := runScenario(t, sc, sz[0], sz[1], noColor)
					teatest.RequireEqualOutput(t, []byte(fm.View().Content))
				})
			}
		}
	}
}

// runScenario drives the program and returns the final model.
func runScenario(t *testing.T, sc scenario, w, h int, noColor bool) *Model {
	t.Helper()
	b := sc.backend()
	m := New(Options{Backend: b, Inputs: []Input{{Role: "monitor", Path: "/data/run/trend.db"}}, NoColor: noColor,
		ReportDir: t.TempDir(), Title: "/data/run/trend.db"})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(w, h))
	wait := func(s string) {
		teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte(s)) },
			teatest.WithDuration(10*time.Second), teatest.WithCheckInterval(10*time.Millisecond))
	}
	wait(sc.ready)
	for _, s := range sc.steps {
		if s.wait != "" {
			wait(s.wait)
			continue
		}
		if s.resize[0] > 0 {
			tm.Send(tea.WindowSizeMsg{Width: s.resize[0], Height: s.resize[1]})
			continue
		}
		tm.Send(keyMsg(s.key))
	}
	tm.Send(keyMsg("ctrl+c"))
	fm := tm.FinalModel(t, teatest.WithFinalTimeout(10*time.Second)).(*Model)
	if fm.PanicText() != "" {
		t.Fatalf("panic: %s", fm.PanicText())
	}
	return fm
}
