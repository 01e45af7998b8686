package sweeps

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// swFormats writes a case in every format and loads it back through the
// real readers.
var swFormats = []struct {
	name      string
	write     func(r *synth.SweepRun, dir string, dev int) error
	resumed   bool // optimizer steps keep their numbers (First + t)
	dump      bool
	needsMany bool
}{
	{"trenddb-micro", func(r *synth.SweepRun, dir string, dev int) error {
		return r.WriteTrendDB(filepath.Join(dir, "run.trend.db"), dev, true)
	}, false, false, false},
	{"trenddb-nomicro", func(r *synth.SweepRun, dir string, dev int) error {
		return r.WriteTrendDB(filepath.Join(dir, "run.trend.db"), dev, false)
	}, true, false, false},
	{"csv-v1", func(r *synth.SweepRun, dir string, dev int) error { return r.WriteCSV(dir, dev, false) }, true, false, false},
	{"csv-v2", func(r *synth.SweepRun, dir string, dev int) error { return r.WriteCSV(dir, dev, true) }, true, false, false},
	{"dump", func(r *synth.SweepRun, dir string, dev int) error { return r.WriteDumps(dir, dev) }, true, true, false},
	{"dump-micro", func(r *synth.SweepRun, dir string, dev int) error { return r.WriteDumpsMicro(dir, dev) }, true, false, false},
}

func swLoad(t *testing.T, r *synth.SweepRun, format int, dev int) *model.MonitorData {
	t.Helper()
	dir := t.TempDir()
	if err := swFormats[format].write(r, dir, dev); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if strings.HasPrefix(swFormats[format].name, "dump") {
		tree, err := ingest.LoadDumpTree(ctx, dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		return ingest.GradientsFromDumps(tree)
	}
	path := dir
	if strings.HasPrefix(swFormats[format].name, "trenddb") {
		path = filepath.Join(dir, "run.trend.db")
	}
	d, err := loadMonitor(ctx, path, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// loadMonitor reads the monitor inputs of the sweeps (the out-of-core
// identity test reads them through spill files).
var loadMonitor = ingest.LoadMonitor

// TestSweepFormats writes a subset of the matrix in every on-disk format
// and checks the answer through ingest.
func TestSweepFormats(t *testing.T) {
	if testing.Short() {
		t.Skip("writes files in every format")
	}
	want := map[string]bool{"base": true, "W=1": true, "W=3": true, "skip3-resumed1000": true, "pp2-vpp2": true,
		"nan": true, "two-ranks": true, "no-fault": true, "baseline-shared": true, "reduced-skip2": true,
		"warmup-W1": true, "explosion-spares-fault": true, "warmup": true, "no-fault-warmup-W1": true,
		"nan-no-explosion": true, "combo-W8-pp2-vpp2-r16-skip3-warm-base": true, "no-fault-lossscale": true, "fault-first-step": true,
		"pp4-W1-weak2.5": true, "degrade-W1": true, "interval10": true, "interval5-W1": true, "batchnoise25": true, "inf": true, "inf-W1": true, "skip2-fault-first-step-ms3": true, "fault-t0-ms0": true, "W=16": true, "trunc3-skip2-W8": true, "nan-propagates": true, "warmup-interval100-W1-r4": true}
	ran := 0
	for _, c := range swCases() {
		if !want[c.Name] {
			continue
		}
		ran++
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			r := synth.GenerateSweep(c)
			for fi, f := range swFormats {
				a := swLoad(t, r, fi, 0)
				var b *model.MonitorData
				if r.C.Baseline > 0 {
					b = swLoad(t, r, fi, 1)
				}
				msg, p1, _ := swOutcome(r, a, b, f.resumed, f.dump)
				status := "pass"
				// a dump of each step's final gradient dilutes a one-micro-batch
				// fault to sqrt((W−1+s²)/W): below the minimum effect it cannot
				// be seen there (the per-call dump and the monitor see it)
				fc := r.C.Fault
				diluted := f.dump && fc != nil && !fc.NaN && math.Sqrt((float64(r.C.W)-1+fc.Scale*fc.Scale)/float64(r.C.W)) < analysis.DefaultMinEffect
				switch {
				case msg != "" && diluted:
					status = "known limit (fault diluted below the minimum effect in final-gradient dumps): " + msg
				case msg != "" && c.Limit != "":
					status = "known limit (" + c.Limit + "): " + msg
				case msg != "":
					status = "FAIL " + msg
					t.Errorf("%s/%s: %s (window %d; %d candidates)", c.Name, f.name, msg, p1.Sharding.AccumulationWindow, len(p1.Anomalies))
				}
				t.Logf("%-28s %-16s %s", c.Name, f.name, status)
			}
		})
	}
	if ran != len(want) {
		t.Errorf("%d of the %d named cases are in the matrix", ran, len(want))
	}
}
