package analysis

import (
	"testing"

	"spikescope/model"
)

// benchStages is benchMonitor's CSV run laid out as PP=2 without VPP:
// ranks 0-3 also hold the embedding, ranks 4-7 the final norm, so Phase 1
// splits every parameter in two stages (one pass over the rows, a second
// index).
func benchStages(n int) *model.MonitorData {
	d := benchMonitor(n, true)
	emb, fin := int32(len(d.Targets)), int32(len(d.Targets)+1)
	d.Targets = append(d.Targets, model.Target{Name: "embedding.word_embeddings.weight"}, model.Target{Name: "final_layernorm.weight"})
	for r := int32(0); r < 8; r++ {
		t := emb
		if r >= 4 {
			t = fin
		}
		for s := int32(0); s < 4; s++ {
			d.Rows.Append(r, s, 0, t, 0, [model.NumStats]float64{1, -0.01, 0.01, 0})
		}
	}
	return d
}

// BenchmarkPhase12Stages: Phase 1 + 2 of the same rows as one stage and
// as two inferred stages (alternating, so that machine load hits both),
// and the stage inference alone.
func BenchmarkPhase12Stages(b *testing.B) {
	for _, c := range []struct {
		name string
		d    func() *model.MonitorData
	}{{"pp1-csv-1M", func() *model.MonitorData { return benchMonitor(1_000_000, true) }}, {"pp2-csv-1M", func() *model.MonitorData { return benchStages(1_000_000) }}} {
		b.Run(c.name, func(b *testing.B) {
			d := c.d()
			b.ResetTimer()
			var p1 *model.Phase1Result
			for b.Loop() {
				p1 = Phase1(d, DefaultPhase1Options())
				if _, err := Phase2(p1, nil, nil, DefaultPhase2Options()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Rows.Len()), "ns/row")
			if len(p1.Anomalies) == 0 || p1.Anomalies[0].Rank != 3 {
				b.Fatalf("planted spike not first: %d anomalies", len(p1.Anomalies))
			}
		})
	}
	b.Run("infer-10M", func(b *testing.B) {
		d := benchMonitor(10_000_000, true)
		ix := buildSeriesIndex(d, 0)
		b.ResetTimer()
		for b.Loop() {
			inferStages(d, ix)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Rows.Len()), "ns/row")
	})
}
