package analysis

import (
	"testing"

	"spikescope/model"
)

// ConcludePhase3: the verdict follows forward before backward, a flagged
// layer counts as divergent, the start falls back to the direction's own,
// and uncompared layers make "undetermined" rather than "consistent".
func TestConcludePhase3(t *testing.T) {
	dirs := func(fv string, ff []int, bv string, bf []int) []model.DirectionVerdict {
		return []model.DirectionVerdict{
			{Direction: "fwd", Verdict: fv, Flagged: ff, Start: model.IntPtr(2)},
			{Direction: "bwd", Verdict: bv, Flagged: bf, Start: model.IntPtr(4)},
		}
	}
	op := &model.Drilldown{Direction: "fwd", Operator: "NPU.npu_swiglu.2.forward"}
	for _, c := range []struct {
		name      string
		ds        model.DivergenceSummary
		verdict   string
		fwdStart  int
		unsure    bool
		operator  bool
		bwdDiverg bool
	}{
		{"forward, flagged only", model.DivergenceSummary{Directions: dirs("undetermined", []int{2}, "divergent", nil), Drilldown: op}, model.VerdictForward, 2, false, true, true},
		{"earliest wins over the start", model.DivergenceSummary{EarliestFwdDivergence: model.IntPtr(1), Directions: dirs("divergent", nil, "consistent", nil)}, model.VerdictForward, 1, false, false, false},
		{"backward only, forward unsure", model.DivergenceSummary{Directions: dirs("undetermined", nil, "divergent", []int{4})}, model.VerdictBackward, 2, true, false, true},
		{"uncompared", model.DivergenceSummary{Directions: dirs("consistent", nil, "consistent", nil), UncomparedLayers: model.DirLayers{Bwd: []int{0}}}, model.VerdictUndetermined, 2, false, false, false},
		{"consistent", model.DivergenceSummary{Directions: dirs("consistent", nil, "consistent", nil), Drilldown: &model.Drilldown{}}, model.VerdictConsistent, 2, false, false, false},
	} {
		got := ConcludePhase3(&model.Phase3Result{DivergenceSummary: c.ds})
		if got.Verdict != c.verdict || got.FwdStart == nil || *got.FwdStart != c.fwdStart || got.ForwardUnsure != c.unsure ||
			(got.Operator != nil) != c.operator || got.BwdDivergent != c.bwdDiverg {
			t.Errorf("%s: %+v", c.name, got)
		}
	}
	if ConcludePhase3(nil) != nil {
		t.Error("nil result concluded")
	}
}
