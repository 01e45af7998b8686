//go:build unix

package sweeps

import (
	"context"
	"path/filepath"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// BenchmarkPhase12Large runs Phase 1 + Phase 2 on the inputs named by
// $SPIKESCOPE_DETECT_BENCH (a path list, as for the root package's
// BenchmarkDetectLarge: a trend.db and a v1 CSV tree written by
// `go run ./testdata/gen -large-trenddb/-large-csv`), loaded once: the
// analysis alone, on the shapes of a real run; skipped without it.
func BenchmarkPhase12Large(b *testing.B) {
	for _, in := range synth.LargeBenchInputs(b) {
		b.Run(filepath.Base(in), func(b *testing.B) {
			d, err := ingest.LoadMonitor(context.Background(), in, model.FormatAuto, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := synth.CPUTime()
			for b.Loop() {
				p1 := analysis.Phase1(d, analysis.DefaultPhase1Options())
				if _, err := analysis.Phase2(p1, nil, nil, analysis.DefaultPhase2Options()); err != nil {
					b.Fatal(err)
				}
			}
			// the process's CPU time per op: steadier than the wall time
			// on a shared machine (Phase 1–2 run on one goroutine)
			b.ReportMetric(float64(synth.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Rows.Len()), "ns/row")
		})
	}
}
