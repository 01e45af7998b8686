//go:build unix

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkDetectLarge runs the whole `spikescope detect` (read, sort into
// series, statistics off the heap, Phase 1–2, JSON) on the inputs named by
// $SPIKESCOPE_DETECT_BENCH (a path list, e.g. a trend.db and a v1 CSV tree
// written by `go run ./testdata/gen -large-trenddb/-large-csv`); skipped
// without it. For profiling the whole command in one process:
//
//	SPIKESCOPE_DETECT_BENCH=/tmp/x/4m.trend.db go test -run '^$' -bench DetectLarge -benchtime 2x -cpuprofile cpu.out
func BenchmarkDetectLarge(b *testing.B) {
	list := os.Getenv("SPIKESCOPE_DETECT_BENCH")
	if list == "" {
		b.Skip("SPIKESCOPE_DETECT_BENCH not set")
	}
	for _, in := range filepath.SplitList(list) {
		b.Run(filepath.Base(in), func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "out.json")
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				if code := run([]string{"detect", in, "-o", out}, &stdout, &stderr); code != 0 {
					b.Fatalf("detect %s: exit %d: %s", in, code, stderr.String())
				}
			}
			// the process's CPU time (user + sys) per op: steadier than
			// the wall time on a shared machine
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
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
