package ui

import (
	"testing"

	"spikescope/model"
)

// A stage-local layer keeps its chunk: pp1 L2 of chunk 1 and of chunk 0
// are different layers of the model.
func TestGradNormLayerWordKeepsChunk(t *testing.T) {
	for _, c := range []struct {
		part model.GradNormPart
		want string
	}{
		{model.GradNormPart{Layer: 2, Stage: 1, VPP: 1}, "pp1 vpp1:L2"},
		{model.GradNormPart{Layer: 2, Stage: 1}, "pp1 L2"},
		{model.GradNormPart{Layer: 7, GlobalLayer: true, Stage: 1, VPP: 1}, "L7"},
		{model.GradNormPart{Layer: -1, Stage: 1}, "outside layers"},
		{model.GradNormPart{Layer: 3, Stage: -1}, "L3"},
	} {
		if got := layerWord(&c.part); got != c.want {
			t.Errorf("%+v: %q, want %q", c.part, got, c.want)
		}
	}
}
