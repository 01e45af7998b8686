//go:build unix

package main

import (
	"bytes"
	"path/filepath"
	"testing"

	"spikescope/testdata/synth"
)

// BenchmarkDetectLarge runs the whole `spikescope detect` (read, sort into
// series, statistics off the heap, Phase 1–2, JSON) on the inputs named by
// $SPIKESCOPE_DETECT_BENCH (a path list, e.g. a trend.db and a v1 CSV tree
// written by `go run ./testdata/gen -large-trenddb/-large-csv`); skipped
// without it. For profiling the whole command in one process:
//
//	SPIKESCOPE_DETECT_BENCH=/tmp/x/4m.trend.db go test -run '^$' -bench DetectLarge -benchtime 2x -cpuprofile cpu.out
func BenchmarkDetectLarge(b *testing.B) {
	for _, in := range synth.LargeBenchInputs(b) {
		b.Run(filepath.Base(in), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out.json")
			b.ReportAllocs()
			cpu0 := synth.CPUTime()
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				if code := run([]string{"detect", in, "-o", out}, &stdout, &stderr); code != 0 {
					b.Fatalf("detect %s: exit %d: %s", in, code, stderr.String())
				}
			}
			// the process's CPU time (user + sys) per op: steadier than
			// the wall time on a shared machine
			b.ReportMetric(float64(synth.CPUTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
	}
}
