//go:build unix

package sweeps

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
)

// BenchmarkPhase12Large runs Phase 1 + Phase 2 on the inputs named by
// $SPIKESCOPE_DETECT_BENCH (a path list, as for the root package's
// BenchmarkDetectLarge: a trend.db and a v1 CSV tree written by
// `go run ./testdata/gen -large-trenddb/-large-csv`), loaded once: the
// analysis alone, on the shapes of a real run; skipped without it.
func BenchmarkPhase12Large(b *testing.B) {
	list := os.Getenv("SPIKESCOPE_DETECT_BENCH")
	if list == "" {
		b.Skip("SPIKESCOPE_DETECT_BENCH not set")
	}
	for _, in := range filepath.SplitList(list) {
		b.Run(filepath.Base(in), func(b *testing.B) {
			d, err := ingest.LoadMonitor(context.Background(), in, model.FormatAuto, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cpuTime()
			for b.Loop() {
				p1 := analysis.Phase1(d, analysis.DefaultPhase1Options())
				if _, err := analysis.Phase2(p1, nil, nil, analysis.DefaultPhase2Options()); err != nil {
					b.Fatal(err)
				}
			}
			// the process's CPU time per op: steadier than the wall time
			// on a shared machine (Phase 1–2 run on one goroutine)
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(d.Rows.Len()), "ns/row")
		})
	}
}

// cpuTime is the process's user + system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
