package report

import (
	"testing"

	"spikescope/model"
)

// BenchmarkRenderLarge renders a run with 100k candidates and 4 anchors of
// 96 layers: the tables are capped, so the cost is the sort of candidates.
func BenchmarkRenderLarge(b *testing.B) {
	in := fullInput()
	base := in.P1.Anomalies[1]
	in.P1.Anomalies = nil
	for i := 0; i < 100000; i++ {
		a := base
		a.OptimizerStep = model.IntPtr(i % 997)
		a.MicroStep = model.IntPtr(i % 8)
		in.P1.Anomalies = append(in.P1.Anomalies, a)
	}
	an := in.P3.Anchors[0]
	var layers []model.LayerRow
	for i := 0; i < 96; i++ {
		l := an.Layers[i%len(an.Layers)]
		l.Layer = i
		layers = append(layers, l)
	}
	in.P3.Anchors = nil
	for i := 0; i < 4; i++ {
		in.P3.Anchors = append(in.P3.Anchors, model.AnchorTable{Name: an.Name, Layers: layers})
	}
	b.ResetTimer()
	for b.Loop() {
		Render(in, "zh")
	}
}
