//go:build unix

package synth

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// LargeBenchInputs is the path list in $SPIKESCOPE_DETECT_BENCH (a
// trend.db and a v1 CSV tree written by WriteLargeTrendDB / the large CSV
// writer, through `go run ./testdata/gen -large-trenddb/-large-csv`), which
// the large-run benchmarks read; b is skipped without it.
func LargeBenchInputs(b *testing.B) []string {
	list := os.Getenv("SPIKESCOPE_DETECT_BENCH")
	if list == "" {
		b.Skip("SPIKESCOPE_DETECT_BENCH not set")
	}
	return filepath.SplitList(list)
}

// CPUTime is the process's user + system time so far: a benchmark's
// cpu-ns/op, steadier than the wall time on a shared machine.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
