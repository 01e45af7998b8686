package analysis

import (
	"slices"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// Several micro-batches in one dump (forward.0..3, parameters_grad.0..3):
// the fault is in micro-batch 2 only. The drill-down compares the call the
// layer table compares, for modules and APIs alike, says which one, and
// lists only that call's records. A few of synth.TraceCallCases (every
// record order, construct.json, layer records and dump level: sweeps'
// TestDrilldown_SeveralMicroBatches).
func TestDrilldown_SeveralMicroBatchesQuick(t *testing.T) {
	t.Parallel()
	quick := []string{"pre=false/noconstruct=false/swi", "pre=true/noconstruct=true/g_fc1", "pre=false/noconstruct=true/nolayer/swi",
		"pre=true/noconstruct=false/explicit/attn", "L1/fc1"}
	var cases []synth.TraceCallCase
	for _, c := range synth.TraceCallCases() {
		if slices.Contains(quick, c.Name) {
			cases = append(cases, c)
		}
	}
	if len(cases) != len(quick) {
		t.Fatalf("%d of the %d quick cases are in synth.TraceCallCases", len(cases), len(quick))
	}
	synth.RunTraceCallCases(t, cases, traceCalls)
}

// traceCalls is the trace of synth.TraceCallCases.
func traceCalls(a, b, c, d *model.Dump, call, layer int, dir string) (*model.Drilldown, []model.DrillOp) {
	opt := DefaultPhase3Options()
	opt.Call = call
	tr := newTracerT(Phase3Input{A: a, B: b, C: c, D: d}, opt)
	return tr.Result().DivergenceSummary.Drilldown, tr.OpsForLayer("", layer, dir)
}

// ddSummary is a drill-down in one line for failure messages.
func ddSummary(dd *model.Drilldown) string { return synth.DrillSummary(dd) }

// The layer ran fewer times than the compared call (a call number from
// Phase 1 beyond this layer's records): call 0 is compared, as the layer
// table's representative does, and the note says so.
func TestDrilldown_CallFallbackSaysSo(t *testing.T) {
	q := synth.TraceQuad{Layers: 12, Calls: 2, Noise: 0.005, Bias: 1, Seed: 11, Fault: synth.TraceFault{On: true, Layer: 5, Role: "swi", F: 1.5, Call: 0}}
	a, b, c, d := q.Build()
	opt := DefaultPhase3Options()
	opt.Call = 3
	dd := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, opt).DivergenceSummary.Drilldown
	if dd == nil || dd.Call == nil || *dd.Call != 0 || dd.Calls != 2 || !strings.Contains(dd.Note, "compared at micro-batch 1") {
		t.Fatalf("drill-down %s call %v/%d", ddSummary(dd), dd.Call, dd.Calls)
	}
	if dd.Operator != synth.TracePlantedKey(a, q) {
		t.Errorf("operator %q, want %q", dd.Operator, synth.TracePlantedKey(a, q))
	}
}
