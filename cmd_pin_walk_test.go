package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
	"spikescope/ui"
)

// TestPinWalk: a pin typed as scripts and users type it (aliases, any key
// order and case) goes from --pin to the Phase 2 screen and to the JSON
// through one parse and one type. The *model.Coord the flag parsing made
// is the very value the pipeline's inputs and the screen's data hold (no
// text in between to parse again); the Phase 2 JSON's root-cause
// coordinate and its decision, the Phase 2 screen's header and coordinate,
// and the command printed on exit all say its fields.
func TestPinWalk(t *testing.T) {
	typed := "micro=0, optimizer_step=6,RANK=7,name=layers.5.input_layernorm.weight"
	in, _, cleanup, err := tuiInputs([]string{"--pin", typed}, &bytes.Buffer{})
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		t.Fatal(err)
	}
	want := &model.Coord{OptStep: model.IntPtr(6), MicroStep: model.IntPtr(0), Rank: model.IntPtr(7), Param: "layers.5.input_layernorm.weight"}
	if !in.Pin.Equal(want) {
		t.Fatalf("--pin %q parsed to %q, want %q", typed, in.Pin, want)
	}
	b := &ui.PipelineBackend{In: in, Lang: "en"}
	d, err := b.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Pin != in.Pin {
		t.Fatalf("the screen's pin %p is not the value --pin was parsed into %p", d.Pin, in.Pin)
	}
	if !in.Pin.Equal(want) {
		t.Fatalf("Phase 2 changed the pin it was given: %q", in.Pin)
	}

	// the JSON (select's and the pipeline's Phase 2 result as written)
	raw, err := json.Marshal(d.P2.AsWritten())
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Pinned    bool     `json:"pinned"`
		Decisions []string `json:"decisions"`
		Root      struct {
			OptimizerStep *int   `json:"optimizer_step"`
			MicroStep     *int   `json:"micro_step"`
			Rank          int    `json:"rank"`
			TargetName    string `json:"target_name"`
		} `json:"root_cause_coordinate"`
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	r := got.Root
	if !got.Pinned || r.OptimizerStep == nil || *r.OptimizerStep != 6 || r.MicroStep == nil || *r.MicroStep != 0 || r.Rank != 7 || r.TargetName != want.Param {
		t.Fatalf("JSON root-cause coordinate %+v (pinned %v), want %q", r, got.Pinned, want)
	}
	said := false
	for _, dec := range got.Decisions {
		said = said || strings.Contains(dec, "pinned by the user: "+want.String())
	}
	if !said {
		t.Errorf("no JSON decision names the pin %q: %q", want, got.Decisions)
	}

	// the Phase 2 screen
	m := ui.NewWithData(ui.Options{Backend: b, NoColor: true}, d)
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(tea.KeyPressMsg{Code: '2', Text: "2"})
	screen := ansi.Strip(m.View().Content)
	header, _, _ := strings.Cut(screen, "\n")
	if !strings.Contains(header, "PIN "+want.Label()) {
		t.Errorf("header %q lacks PIN %s", header, want.Label())
	}
	if !strings.Contains(screen, "Phase 2") || strings.Count(screen, want.Label()) < 2 {
		t.Errorf("the Phase 2 screen does not show the pinned coordinate %s beside the header:\n%s", want.Label(), screen)
	}

	// on exit: the command that reopens it carries the same coordinate
	back, err := model.ParseCoord(m.Pin())
	reopen := ui.Ending{Pin: back}.ReopenText(nil, false)
	if err != nil || !back.Equal(want) || !strings.Contains(reopen, "spikescope --pin "+want.String()+"\n") {
		t.Errorf("exit pin %q reads %q (%v); on exit: %q", m.Pin(), back, err, reopen)
	}
}
