package synth

import (
	"fmt"
	"strings"
	"testing"

	"spikescope/model"
)

// TraceCallCase is a dump of several micro-batches (forward.0..3,
// parameters_grad.0..3) with a fault in micro-batch 2 only, in one record
// order, with or without construct.json, with or without the layer
// module's own records, at one dump level.
type TraceCallCase struct {
	Name           string
	Pre, NoParents bool
	NoLayer        bool // no TransformerLayer records (a dump scope that leaves them out)
	Level          string
	Role           string
	Explicit       bool // the call is given (Phase3Options.Call), not searched
}

// TraceCallCases are every record order × construct.json × site
// (forward, backward, without layer records, the call given), and the
// L1 and L0 levels.
func TraceCallCases() []TraceCallCase {
	var vs []TraceCallCase
	for _, pre := range []bool{false, true} {
		for _, noPa := range []bool{false, true} {
			for _, role := range []string{"swi", "fc1", "g_fc1"} {
				vs = append(vs, TraceCallCase{Name: fmt.Sprintf("pre=%v/noconstruct=%v/%s", pre, noPa, role), Pre: pre, NoParents: noPa, Role: role})
			}
			vs = append(vs, TraceCallCase{Name: fmt.Sprintf("pre=%v/noconstruct=%v/nolayer/swi", pre, noPa), Pre: pre, NoParents: noPa, NoLayer: true, Role: "swi"})
			vs = append(vs, TraceCallCase{Name: fmt.Sprintf("pre=%v/noconstruct=%v/explicit/attn", pre, noPa), Pre: pre, NoParents: noPa, Role: "attn", Explicit: true})
		}
	}
	return append(vs, TraceCallCase{Name: "L1/fc1", Level: "L1", Role: "fc1"}, TraceCallCase{Name: "L0/fc1", Level: "L0", Role: "fc1"})
}

// CallTraceFunc traces a case's dumps (call ≥ 0: that micro-batch is
// compared, as Phase3Options.Call) and returns the drill-down and the
// operator list the TUI shows for layer/dir ("fwd", "bwd") at the default
// anchor.
type CallTraceFunc func(a, b, c, d *model.Dump, call, layer int, dir string) (*model.Drilldown, []model.DrillOp)

// Check builds the case's dumps, traces them and says what is wrong; ""
// = pass. The drill-down must name the planted operator at layer 5 and
// list only call 2's records, and the layer's operator list must compare
// the same call (as many records, the planted one flagged).
func (v TraceCallCase) Check(trace CallTraceFunc) string {
	bwd := strings.HasPrefix(v.Role, "g_")
	q := TraceQuad{Layers: 12, Calls: 4, Noise: 0.005, Bias: 1, Seed: 11, PreOrder: v.Pre, NoParents: v.NoParents, Level: v.Level,
		Fault: TraceFault{On: true, Bwd: bwd, Layer: 5, Role: v.Role, F: 1.5, Call: 2}}
	a, b, c, d := q.Build()
	if v.NoLayer {
		for _, x := range []*model.Dump{a, b, c, d} {
			DropOps(x, func(op *model.Op) bool { return op.Class == "TransformerLayer" })
		}
	}
	call := -1
	if v.Explicit {
		call = 2
	}
	dirName := map[bool]string{false: "fwd", true: "bwd"}[bwd]
	dd, ops := trace(a, b, c, d, call, 5, dirName)
	want := TracePlantedKey(a, q)
	if dd == nil || dd.Layer == nil || *dd.Layer != 5 || dd.Direction != dirName || dd.Operator != want {
		return fmt.Sprintf("drill-down %s, want L5 %s %s", DrillSummary(dd), dirName, want)
	}
	var why []string
	// only call 2's records: module keys end in .forward.2/.backward.2
	for _, o := range dd.Ops {
		if strings.HasPrefix(o.Key, "Module.") && !strings.HasSuffix(o.Key, ".2") {
			why = append(why, "record of another call listed: "+o.Key)
			break
		}
	}
	// the operator list of the layer (the TUI's) compares the same call
	if len(ops) != len(dd.Ops) {
		why = append(why, fmt.Sprintf("OpsForLayer lists %d records, the drill-down %d", len(ops), len(dd.Ops)))
	}
	found := false
	for _, o := range ops {
		if o.Key == want {
			found = o.Flagged
		}
	}
	if !found {
		why = append(why, "OpsForLayer does not flag "+want)
	}
	return strings.Join(why, "; ")
}

// RunTraceCallCases checks every case in a parallel subtest and returns
// how many failed.
func RunTraceCallCases(t *testing.T, cases []TraceCallCase, trace CallTraceFunc) int {
	return RunCases(t, cases, func(c TraceCallCase) string { return c.Name },
		func(_ *testing.T, c TraceCallCase) string { return c.Check(trace) })
}

// DrillSummary is a drill-down in one line for failure messages.
func DrillSummary(dd *model.Drilldown) string {
	if dd == nil {
		return "<none>"
	}
	l := -1
	if dd.Layer != nil {
		l = *dd.Layer
	}
	return fmt.Sprintf("L%d %s %q (%s)", l, dd.Direction, dd.Operator, dd.Note)
}
