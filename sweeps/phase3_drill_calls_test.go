package sweeps

import (
	"testing"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
	"spikescope/words"
)

// Several micro-batches in one dump (forward.0..3, parameters_grad.0..3):
// the fault is in micro-batch 2 only. The drill-down compares the call the
// layer table compares, for modules and APIs alike, says which one, and
// lists only that call's records, whatever the record order, with or
// without construct.json, with or without the layer module's own records,
// and at API level (L1). (analysis runs a few of the cases.)
func TestDrilldown_SeveralMicroBatches(t *testing.T) {
	t.Parallel()
	cases := synth.TraceCallCases()
	fails := synth.RunTraceCallCases(t, cases, func(a, b, c, d *model.Dump, call, layer int, dir string) (*model.Drilldown, []model.DrillOp) {
		opt := analysis.DefaultPhase3Options()
		opt.Call = call
		tr := analysis.NewTracer(analysis.Phase3Input{A: a, B: b, C: c, D: d}, opt)
		words.Phase3(tr.Result(), words.English)
		return tr.Result().DivergenceSummary.Drilldown, tr.OpsForLayer("", layer, dir)
	})
	t.Logf("%d/%d cases pass", len(cases)-fails, len(cases))
}
