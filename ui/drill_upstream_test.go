package ui

import (
	"slices"
	"testing"

	"spikescope/model"
)

// The chain of an operator other than the drill-down's lists the records
// computed before it, nearest first, and never the modules containing it.
func TestUpstreamOpsLeaveOutContainers(t *testing.T) {
	const l = "Module.layers.3.TransformerLayer.forward.0"
	const mlp = "Module.layers.3.mlp.MLP.forward.0"
	const fc1 = "Module.layers.3.mlp.linear_fc1.ColumnParallelLinear.forward.0"
	const fc2 = "Module.layers.3.mlp.linear_fc2.RowParallelLinear.forward.0"
	ops := []model.DrillOp{
		{Key: "Tensor.__add__.6.forward", Within: l},
		{Key: "Functional.linear.7.forward", Within: fc1},
		{Key: fc1, Within: mlp},
		{Key: "NPU.npu_swiglu.3.forward", Within: mlp},
		{Key: "Functional.linear.8.forward", Within: fc2},
		{Key: fc2, Within: mlp},
		{Key: mlp, Within: l},
		{Key: l},
	}
	got := upstreamOps(ops, &ops[4])
	want := []string{"NPU.npu_swiglu.3.forward", fc1, "Functional.linear.7.forward", "Tensor.__add__.6.forward"}
	if !slices.Equal(got, want) {
		t.Errorf("upstream of fc2's linear: %v", got)
	}
	for _, k := range upstreamOps(ops, &ops[5]) {
		if k == mlp || k == l {
			t.Errorf("container %s listed upstream of fc2", k)
		}
	}
}
