package analysis

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"spikescope/model"
)

// benchMonitor generates rows ≈ n monitor rows of 8 ranks, window 8,
// √k cumulative norms with ±10% noise and one planted spike: as a trend.db
// (global micro-step index + grad_reduced at window starts) or as a CSV
// tree (explicit micro steps). The rows end in series order, as
// ingest.LoadMonitor leaves them.
func benchMonitor(n int, csv bool) *model.MonitorData {
	const ranks, W = 8, 8
	P := 500
	if n >= 5_000_000 {
		P = 1000
	}
	steps := n / (ranks * P)
	d := &model.MonitorData{Format: model.FormatTrendDB, Metrics: []string{"grad_unreduced", "grad_reduced"}}
	if csv {
		d.Format, d.ExplicitMicro = model.FormatCSV, true
	}
	d.HasStat = [model.NumStats]bool{true, true, true, true}
	for p := 0; p < P; p++ {
		d.Targets = append(d.Targets, model.Target{Name: "decoder.layers." + strconv.Itoa(p/8) + ".param" + strconv.Itoa(p%8) + ".weight"})
	}
	d.Rows.Grow(n + n/W)
	rng := rand.New(rand.NewPCG(1, 2))
	acc := make([]float64, P)
	for r := 0; r < ranks; r++ {
		for s := 0; s < steps; s++ {
			ms := s % W
			for p := 0; p < P; p++ {
				if ms == 0 {
					acc[p] = 0
				}
				g := 0.01 * float64(1+p%37) * (1 + 0.1*(2*rng.Float64()-1))
				if r == 3 && p == P/2 && s == steps/2 {
					g *= 4
				}
				acc[p] += g * g
				v := math.Sqrt(acc[p])
				vals := [model.NumStats]float64{v, -v / 100, v / 100, 0}
				if csv {
					d.Rows.Append(int32(r), int32(s/W), int32(ms), int32(p), 0, vals)
				} else {
					d.Rows.Append(int32(r), int32(s), model.NoMicro, int32(p), 0, vals)
					if ms == 0 {
						d.Rows.Append(int32(r), int32(s), model.NoMicro, int32(p), 1, vals)
					}
				}
			}
		}
	}
	d.Rows.SortSeries()
	return d
}

// BenchmarkPhase12 runs Phase 1 + Phase 2 on in-memory runs of 1M to 16M
// rows; ns/row is per monitor row.
func BenchmarkPhase12(b *testing.B) {
	for _, c := range []struct {
		name string
		rows int
		csv  bool
	}{{"trenddb-1M", 1_000_000, false}, {"csv-1M", 1_000_000, true}, {"trenddb-10M", 10_000_000, false}, {"csv-10M", 10_000_000, true},
		{"trenddb-2M", 2_000_000, false}, {"csv-2M", 2_000_000, true}, {"trenddb-16M", 16_000_000, false}, {"csv-16M", 16_000_000, true}} {
		b.Run(c.name, func(b *testing.B) {
			d := benchMonitor(c.rows, c.csv)
			b.ReportAllocs()
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
}
