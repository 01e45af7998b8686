package report

import (
	"strings"
	"testing"

	"spikescope/model"
)

// The report's drill-down says which call its operators were compared at
// when the layer ran several times, in both languages; not with one call.
func TestDrilldownCallLine(t *testing.T) {
	dd := &model.Drilldown{Direction: "fwd", Layer: model.IntPtr(5), Operator: "NPU.npu_swiglu.22.forward", Metric: "Norm",
		Call: model.IntPtr(2), Calls: 4}
	in := Input{P3: &model.Phase3Result{Phase: 3, DivergenceSummary: model.DivergenceSummary{Drilldown: dd}}}
	if out := Render(in, "en"); !strings.Contains(out, "operators compared at micro-batch 3 of 4") {
		t.Errorf("en: no call line:\n%s", out)
	}
	if out := Render(in, "zh"); !strings.Contains(out, "第 3 个微批次（共 4 个") {
		t.Errorf("zh: no call line:\n%s", out)
	}
	dd.Call, dd.Calls = model.IntPtr(0), 1
	if out := Render(in, "en"); strings.Contains(out, "operators compared at micro-batch") {
		t.Errorf("one call: call line printed")
	}
}
