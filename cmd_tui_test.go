package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/cliflags"
	"spikescope/pipeline"
	"spikescope/ui"
)

// truthField reads one scalar of testdata/demo/TRUTH.json.
func truthField(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "demo", "TRUTH.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, `"`+name+`":`) {
			v := strings.TrimSpace(strings.TrimPrefix(line, `"`+name+`":`))
			return strings.Trim(strings.TrimSuffix(v, ","), `"`)
		}
	}
	t.Fatalf("%s not in TRUTH.json", name)
	return ""
}

// Not a terminal: the demo run prints the text summary with the planted
// spike first, its coordinate and the planted operator, and exits 0.
func TestTUISummaryWhenNotATerminal(t *testing.T) {
	var out, errb bytes.Buffer
	if code := runTUI(nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	coord := "opt=" + truthField(t, "fault_optimizer_step") + ",ms=" + truthField(t, "fault_micro_step") +
		",rank=" + truthField(t, "fault_rank") + ",param=" + truthField(t, "parameter")
	s := out.String()
	for _, want := range []string{
		"1. " + coord + " ",
		"root-cause coordinate: " + coord,
		"earliest divergence: forward layer " + truthField(t, "expected_fwd_divergence_layer"),
		"first divergent operator: " + truthField(t, "planted_operator"),
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("summary lacks %q:\n%s", want, s)
		}
	}
}

// A pin given on the command line reaches the summary.
func TestTUISummaryWithPin(t *testing.T) {
	var out, errb bytes.Buffer
	pin := "opt=6,ms=0,rank=7,param=layers.5.input_layernorm.weight"
	if code := runTUI([]string{"--pin", pin}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "root-cause coordinate: "+pin+" (pinned)") {
		t.Fatalf("pin not applied:\n%s", out.String())
	}
}

func TestTUIBadInputAndUsage(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope.db")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{missing}, 2, missing},
		{[]string{"a", "b"}, 2, "one PATH at most"},
		{[]string{"--pin", "bogus"}, 2, "--pin"},
		{[]string{"--format", "xml"}, 2, "--format"},
		{[]string{"--nope"}, 2, "flag provided but not defined"},
	} {
		var out, errb bytes.Buffer
		code := runTUI(c.args, &out, &errb)
		msg := errb.String()
		if code != c.code || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") != 1 {
			t.Fatalf("%v: exit %d, stderr %q; want exit %d and one line with %q", c.args, code, msg, c.code, c.want)
		}
	}
	var out, errb bytes.Buffer
	if code := runTUI([]string{"-h"}, &out, &errb); code != 0 || !strings.Contains(out.String(), "usage:") {
		t.Fatalf("-h: exit %d %q", code, out.String())
	}
}

// The UI's backend maps session results and runs pin/unpin/control/report
// on the demo run.
func TestPipelineBackendOnDemo(t *testing.T) {
	in, _, cleanup, err := tuiInputs(nil, &bytes.Buffer{})
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		t.Fatal(err)
	}
	b := &ui.PipelineBackend{In: in, Lang: "en"}
	d, err := b.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.P1.Anomalies) < 4 || d.P3 == nil || d.Pin != nil {
		t.Fatalf("demo: %d candidates, P3 %v, pin %q", len(d.P1.Anomalies), d.P3 != nil, d.Pin)
	}
	a := d.P1.Anomalies[3]
	pd, err := b.Pin(context.Background(), d, &a)
	if err != nil {
		t.Fatal(err)
	}
	want := "opt=" + strconv.Itoa(a.OptStep()) + ",ms=" + strconv.Itoa(a.Micro()) + ",rank=" + strconv.Itoa(a.Rank) + ",param=" + a.TargetName
	c := pd.P2.RootCauseCoordinate
	if pd.Pin.String() != want || !pd.P2.Pinned || c == nil || c.Rank != a.Rank || c.TargetName != a.TargetName {
		t.Fatalf("pin %q (want %q), pinned %v, coordinate %+v", pd.Pin, want, pd.P2.Pinned, c)
	}
	ud, err := b.Pin(context.Background(), pd, nil)
	if err != nil || ud.Pin != nil || ud.P2.Pinned {
		t.Fatalf("unpin: %v %q", err, ud.Pin)
	}
	step, _ := strconv.Atoi(truthField(t, "fault_optimizer_step"))
	cd, err := b.Control(context.Background(), d, step-1, mustAtoi(t, truthField(t, "fault_rank")))
	if err != nil || cd.C == nil || cd.C.Step != step-1 {
		t.Fatalf("control: %v %+v", err, cd.C)
	}
	path := filepath.Join(t.TempDir(), "r.md")
	if err := b.WriteReport(context.Background(), d, path); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(path); !strings.Contains(string(md), truthField(t, "planted_operator")) {
		t.Fatal("the report does not name the planted operator")
	}
}

func mustAtoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// Every screen of the demo run fits every terminal size (long parameter
// and operator names, Chinese text from the analysis).
func TestTUIDemoScreensFitEverySize(t *testing.T) {
	in, _, cleanup, err := tuiInputs(nil, &bytes.Buffer{})
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		t.Fatal(err)
	}
	b := &ui.PipelineBackend{In: in, Lang: "en"}
	d, err := b.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	key := func(s string) tea.KeyPressMsg {
		switch s {
		case "enter":
			return tea.KeyPressMsg{Code: tea.KeyEnter}
		case "tab":
			return tea.KeyPressMsg{Code: tea.KeyTab}
		}
		return tea.KeyPressMsg{Code: []rune(s)[0], Text: s}
	}
	for _, ks := range [][]string{{}, {"enter"}, {"enter", "m"}, {"2"}, {"3"}, {"3", "tab", "m"}, {"3", "enter"}, {"3", "enter", "enter"}, {"?"}, {"3", "c"}} {
		m := ui.NewWithData(ui.Options{Backend: b, Title: "demo run"}, d)
		for _, k := range ks {
			m.Update(key(k))
		}
		for w := 40; w <= 220; w += 20 {
			for h := 10; h <= 60; h += 10 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				v := m.View().Content
				lines := strings.Split(v, "\n")
				if m.PanicText() != "" || len(lines) != h {
					t.Fatalf("%v at %dx%d: %d lines, panic %q", ks, w, h, len(lines), m.PanicText())
				}
				for _, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%v at %dx%d: %d cells: %q", ks, w, h, lw, ansi.Strip(l))
					}
				}
			}
		}
	}
}

// Any layer's operators come from the Phase 3 tracer: the planted layer's
// forward list holds the planted operator, flagged.
func TestPipelineBackendOpsForLayer(t *testing.T) {
	d := tuiData(t, nil)
	if d.OpsForLayer == nil {
		t.Fatal("no OpsForLayer on the demo")
	}
	layer := mustAtoi(t, truthField(t, "fault_layer"))
	ops := d.OpsForLayer("", layer, "fwd")
	found := false
	for _, o := range ops {
		if o.Key == truthField(t, "planted_operator") {
			found = o.Flagged
		}
	}
	if !found {
		t.Fatalf("layer %d fwd: planted operator missing or not flagged among %d ops", layer, len(ops))
	}
	if ops := d.OpsForLayer("", 0, "fwd"); len(ops) == 0 {
		t.Fatal("layer 0 lists no operators")
	}
}

// tuiData is what the TUI's backend loads for the command line args (the
// demo run's copy is removed when the test ends).
func tuiData(t *testing.T, args []string) *ui.Data {
	t.Helper()
	in, _, cleanup, err := tuiInputs(args, &bytes.Buffer{})
	if cleanup != nil {
		t.Cleanup(cleanup)
	}
	if err != nil {
		t.Fatal(err)
	}
	d, err := (&ui.PipelineBackend{In: in, Lang: "en"}).Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// tuiInputs parses the TUI's flags; no PATH and no --dump-a is the demo run.
func tuiInputs(args []string, stdout io.Writer) (in pipeline.Inputs, title string, cleanup func(), err error) {
	var follow cliflags.Follow
	return tuiInputsFollow(args, stdout, &follow)
}
