package analysis

import (
	"testing"

	"spikescope/model"
)

// baselineKey compares a pipeline-stage candidate with the baseline by its
// global layer (sweeps.TestStagesBaselineOtherLayout checks it on runs of
// two layouts).
func TestBaselineKeyGlobalLayer(t *testing.T) {
	if k := baselineKey(&model.Anomaly{TargetName: "pp1:vpp1:layers.2.mlp.w", GlobalLayer: model.IntPtr(14)}); k != "layers.14.mlp.w" {
		t.Errorf("baseline key %q", k)
	}
}
