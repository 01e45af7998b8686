package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// On a pipeline stage, a candidate's stage-local layer has the model's
// layer beside it on the Phase 1 table, under it and in titles.
func TestGlobalLayerBesideStageLocalName(t *testing.T) {
	d := fixture()
	a := &d.P1.Anomalies[0]
	a.TargetName, a.GlobalLayer = "pp1:vpp1:layers.0.mlp.dense_4h_to_h.weight", model.IntPtr(3)
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	txt := screenText(m)
	if !strings.Contains(txt, "L0 (L3) mlp.dense_4h_to_h") {
		t.Fatalf("Phase 1 table lacks the model layer:\n%s", txt)
	}
	if !strings.Contains(txt, "· model layer 3") {
		t.Fatalf("the selected row's full name lacks the model layer:\n%s", txt)
	}
	if got := namesOf(m.data).title(a, 200); !strings.Contains(got, "(L3 of the model)") {
		t.Fatalf("title %q", got)
	}
	// the model's own numbering needs no second number
	a.TargetName = "layers.3.mlp.dense_4h_to_h.weight"
	if g := globalMark(a); g != "" {
		t.Fatalf("global mark %q on a name that already is the model's layer", g)
	}
}

// A C chosen for the user is marked so on Phase 3 and points at c.
func TestAutomaticCIsMarked(t *testing.T) {
	for _, w := range []int{80, 160} {
		d := fixture()
		d.P3.ControlCandidates = []model.ControlCandidate{{Step: 9, Rank: 2}}
		m := loaded(t, fixtureBackend(), d, w, 24, true)
		press(m, "3")
		txt := screenText(m)
		want := "C step9/rank2 (chosen for you: c shows why)"
		if w == 80 {
			want = "C step9/rank2 (auto: c)"
		}
		if !strings.Contains(txt, want) {
			t.Fatalf("at %d columns the automatic C is not marked %q:\n%s", w, want, txt)
		}
	}
	d := fixture() // C given by the user: no mark
	m := loaded(t, fixtureBackend(), d, 160, 24, true)
	press(m, "3")
	if strings.Contains(screenText(m), "chosen for you") {
		t.Fatal("a C the user gave is marked as chosen for them")
	}
}

// Phase 2's root coordinate on a pipeline stage names the model's layer.
func TestPhase2CoordinateModelLayer(t *testing.T) {
	d := fixture()
	c := *d.P2.RootCauseCoordinate
	c.TargetName, c.GlobalLayer = "layers.0.mlp.dense_4h_to_h.weight", model.IntPtr(3)
	d.P2.RootCauseCoordinate = &c
	m := loaded(t, fixtureBackend(), d, 160, 48, true)
	press(m, "2")
	if !strings.Contains(screenText(m), "model layer 3") {
		t.Fatalf("Phase 2 lacks the model layer:\n%s", screenText(m))
	}
}

// Phase 2's cross-step and candidate tables name the model's layer beside
// the stage-local name on PP × VPP; a pair whose parameter no candidate
// names takes it from the stage layout.
func TestPhase2TablesModelLayer(t *testing.T) {
	d := mcoreGlobalFixture()
	for _, w := range []int{80, 160} {
		p := newPhase2Pane(testCommon(d))
		p.SetSize(w, 200)
		txt := strings.Join(p.lines(), "\n")
		if n := strings.Count(txt, "pp1:vpp1:L2 (L11) "); n < 3 {
			t.Fatalf("at %d columns %d names carry the model layer, want the pair and both candidates:\n%s", w, n, txt)
		}
	}
	// a pair of stage 0, chunk 1, layer 1 without a candidate: (1·2+0)·3+1 = 7
	p2 := *d.P2
	zero, one := 0, 1
	p2.CrossStep = []model.CrossStepPair{{From: 9, To: 10, TargetName: "pp0:vpp1:module.decoder.layers.1.mlp.linear_fc2.weight",
		PPStage: &zero, VPPStage: &one, Threshold: 2, RanksTotal: 4, Judged: true}}
	d.P2 = &p2
	p := newPhase2Pane(testCommon(d))
	p.SetSize(160, 200)
	if txt := strings.Join(p.lines(), "\n"); !strings.Contains(txt, "pp0:vpp1:L1 (L7) mlp.linear_fc2.weight") {
		t.Fatalf("the pair lacks the model layer from the stage layout:\n%s", txt)
	}
	// without a layout nothing is guessed
	p1 := *d.P1
	p1.Sharding.Stages = nil
	d.P1 = &p1
	if g := pairLayer(d, &p2.CrossStep[0]); g != nil {
		t.Fatalf("model layer %d without a stage layout", *g)
	}
}
