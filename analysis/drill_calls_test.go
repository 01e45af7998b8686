package analysis

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// Several micro-batches in one dump (forward.0..3, parameters_grad.0..3):
// the fault is in micro-batch 2 only. The drill-down compares the call the
// layer table compares, for modules and APIs alike, says which one, and
// lists only that call's records, whatever the record order, with or
// without construct.json, with or without the layer module's own records,
// and at API level (L1).
func TestDrilldown_SeveralMicroBatches(t *testing.T) {
	t.Parallel()
	type variant struct {
		name      string
		pre, noPa bool
		noLayer   bool // no TransformerLayer records (a dump scope that leaves them out)
		level     string
		role      string
		explicit  bool // the call is given (Phase3Options.Call), not searched
	}
	var vs []variant
	for _, pre := range []bool{false, true} {
		for _, noPa := range []bool{false, true} {
			for _, role := range []string{"swi", "fc1", "g_fc1"} {
				vs = append(vs, variant{name: fmt.Sprintf("pre=%v/noconstruct=%v/%s", pre, noPa, role), pre: pre, noPa: noPa, role: role})
			}
			vs = append(vs, variant{name: fmt.Sprintf("pre=%v/noconstruct=%v/nolayer/swi", pre, noPa), pre: pre, noPa: noPa, noLayer: true, role: "swi"})
			vs = append(vs, variant{name: fmt.Sprintf("pre=%v/noconstruct=%v/explicit/attn", pre, noPa), pre: pre, noPa: noPa, role: "attn", explicit: true})
		}
	}
	vs = append(vs, variant{name: "L1/fc1", level: "L1", role: "fc1"}, variant{name: "L0/fc1", level: "L0", role: "fc1"})
	for _, v := range vs {
		bwd := strings.HasPrefix(v.role, "g_")
		q := synth.TraceQuad{Layers: 12, Calls: 4, Noise: 0.005, Bias: 1, Seed: 11, PreOrder: v.pre, NoParents: v.noPa, Level: v.level,
			Fault: synth.TraceFault{On: true, Bwd: bwd, Layer: 5, Role: v.role, F: 1.5, Call: 2}}
		a, b, c, d := q.Build()
		if v.noLayer {
			for _, x := range []*model.Dump{a, b, c, d} {
				synth.DropOps(x, func(op *model.Op) bool { return op.Class == "TransformerLayer" })
			}
		}
		opt := DefaultPhase3Options()
		if v.explicit {
			opt.Call = 2
		}
		tr := newTracerT(Phase3Input{A: a, B: b, C: c, D: d}, opt)
		dd := tr.Result().DivergenceSummary.Drilldown
		dirName := map[bool]string{false: "fwd", true: "bwd"}[bwd]
		want := synth.TracePlantedKey(a, q)
		if dd == nil || dd.Layer == nil || *dd.Layer != 5 || dd.Direction != dirName || dd.Operator != want {
			t.Errorf("%s: drill-down %s, want L5 %s %s", v.name, ddSummary(dd), dirName, want)
			continue
		}
		if false {
			t.Errorf("%s: call %v of %d, want 2 of 4", v.name, dd.Call, dd.Calls)
		}
		// only call 2's records: module keys end in .forward.2/.backward.2
		for _, o := range dd.Ops {
			if strings.HasPrefix(o.Key, "Module.") && !strings.HasSuffix(o.Key, ".2") {
				t.Errorf("%s: record of another call listed: %s", v.name, o.Key)
				break
			}
		}
		// the operator list of the layer (the TUI's) compares the same call
		ops := tr.OpsForLayer("", 5, dirName)
		if len(ops) != len(dd.Ops) {
			t.Errorf("%s: OpsForLayer lists %d records, the drill-down %d", v.name, len(ops), len(dd.Ops))
		}
		found := false
		for _, o := range ops {
			if o.Key == want {
				found = o.Flagged
			}
		}
		if !found {
			t.Errorf("%s: OpsForLayer does not flag %s", v.name, want)
		}
	}
}

// ddSummary is a drill-down in one line for failure messages.
func ddSummary(dd *model.Drilldown) string {
	if dd == nil {
		return "<none>"
	}
	l := -1
	if dd.Layer != nil {
		l = *dd.Layer
	}
	return fmt.Sprintf("L%d %s %q (%s)", l, dd.Direction, dd.Operator, dd.Note)
}

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
