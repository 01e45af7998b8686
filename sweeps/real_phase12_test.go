package sweeps

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/pipeline"
)

// Phase 1 and 2 on output written by msprobe itself (testdata/msprobe-real:
// TrainerMon CSVs and their trend.db from msprobe data2db, a dump tree from
// PrecisionDebugger; see testdata/msprobe-real/README.md). No fault is
// planted in monitor_output, db_mon and dump_L0; monitor_spike and
// db_mon_spike multiply the loss by 1000 at step 12 on rank 0.

// realSession runs Phase 1 and 2 on a real input as every face does.
func realSession(t *testing.T, path string) *pipeline.Session {
	t.Helper()
	s, err := pipeline.Load(context.Background(), pipeline.Inputs{Path: path}, nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if s.P1 == nil || s.P2 == nil {
		t.Fatalf("%s: Phase 1/2 did not run", path)
	}
	return s
}

// wantQuiet: a run with no fault gives no candidate and no root.
func wantQuiet(t *testing.T, path string, s *pipeline.Session) {
	t.Helper()
	if n := len(s.P1.Anomalies); n > 0 {
		a := s.P1.Anomalies[0]
		t.Errorf("%s: %d candidate(s) on a run with no fault, first %s step %d rank %d %.3g×", path, n, a.TargetName, a.Step, a.Rank, float64(a.DeviationRatio))
	}
	if c := s.P2.RootCauseCoordinate; c != nil {
		t.Errorf("%s: root %+v on a run with no fault", path, c)
	}
	if len(s.P2.Events) > 0 {
		t.Errorf("%s: %d event(s) on a run with no fault", path, len(s.P2.Events))
	}
}

func TestRealMonitorNoFaultFindsNothing(t *testing.T) {
	for _, in := range []string{"monitor_output", "db_mon/monitor_data.trend.db"} {
		path := filepath.Join(realDir, in)
		s := realSession(t, path)
		if s.P1.Summary.TotalTargets == 0 || len(s.P1.Summary.Steps) != 20 || len(s.P1.Summary.Ranks) != 2 {
			t.Fatalf("%s: read %+v, want 20 steps × 2 ranks", in, s.P1.Summary)
		}
		wantQuiet(t, in, s)
	}
}

// The bad batch (loss ×1000, step 12, rank 0) is the root and the only
// event: every candidate is at that coordinate, none elsewhere.
func TestRealMonitorSpikeFindsStep12Rank0(t *testing.T) {
	for _, in := range []string{"monitor_spike", "db_mon_spike/monitor_data.trend.db"} {
		path := filepath.Join(realDir, in)
		s := realSession(t, path)
		if len(s.P1.Anomalies) == 0 {
			t.Fatalf("%s: no candidate", in)
		}
		a := s.P1.Anomalies[0]
		if a.OptStep() != 12 || a.Rank != 0 {
			t.Errorf("%s: first candidate step %d rank %d, want step 12 rank 0", in, a.OptStep(), a.Rank)
		}
		for _, a := range s.P1.Anomalies {
			if a.OptStep() != 12 || a.Rank != 0 {
				t.Errorf("%s: candidate outside the bad batch: %s step %d rank %d %.3g×", in, a.TargetName, a.Step, a.Rank, float64(a.DeviationRatio))
			}
		}
		c := s.P2.RootCauseCoordinate
		if c == nil || c.Step == nil || *c.Step != 12 || c.Rank != 0 {
			t.Fatalf("%s: root %+v, want step 12 rank 0", in, c)
		}
		if len(s.P2.Events) != 1 {
			t.Errorf("%s: %d events, want the bad batch alone", in, len(s.P2.Events))
		}
	}
}

// A dump tree of 2 steps × 2 ranks (no fault) as Phase 1 input: 4 values
// per parameter are too little history to call a spike; what passed the
// thresholds is reported, not a candidate, and Phase 2 names no root.
func TestRealDumpTwoStepsTooLittleHistory(t *testing.T) {
	path := filepath.Join(realDir, "dump_L0")
	s := realSession(t, path)
	if s.P1.Format != model.FormatDump {
		t.Fatalf("format %s, want dump", s.P1.Format)
	}
	wantQuiet(t, "dump_L0", s)
	if len(s.P1.TooLittleHistory) == 0 {
		t.Fatalf("no too-little-history entry: %v", s.P1.Reasoning)
	}
	for _, h := range s.P1.TooLittleHistory {
		if h.Samples != 4 || h.MinSamples <= h.Samples || !(float64(h.DeviationRatio) >= 1.5) {
			t.Errorf("too little history = %+v, want 4 samples below the minimum and ≥ 1.5×", h)
		}
	}
	if s.P1.Thresholds["min_history"] != float64(s.P1.TooLittleHistory[0].MinSamples) {
		t.Errorf("thresholds.min_history = %v", s.P1.Thresholds["min_history"])
	}
	warned := false
	for _, w := range s.P1.Warnings {
		warned = warned || strings.Contains(w, "too little history") && strings.Contains(w, "4 values")
	}
	if !warned {
		t.Errorf("no warning says how little history there is: %q", s.P1.Warnings)
	}
}

// kitRuns lists the real TrainerMon runs under testdata/msprobe-real/kit:
// folders (or their out/ folder) holding a trend.db or per-rank CSV
// folders. noise selects the runs with no fault planted: names without
// "bad", "spike", "fault", "nan" or "inf" (mon_w2_s3 is noise,
// mon_w2_s4_badbatch is not).
func kitRuns(t *testing.T, noise bool) []string {
	t.Helper()
	root := filepath.Join(realDir, "kit")
	ents, err := os.ReadDir(root)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if st, err := os.Stat(filepath.Join(root, e.Name())); err != nil || !st.IsDir() || !strings.Contains(e.Name(), "mon") {
			continue
		}
		faulty := false
		for _, w := range []string{"bad", "spike", "fault", "nan", "inf"} {
			faulty = faulty || strings.Contains(strings.ToLower(e.Name()), w)
		}
		if faulty == noise {
			continue
		}
		dir := filepath.Join(root, e.Name())
		if st, err := os.Stat(filepath.Join(dir, "out")); err == nil && st.IsDir() {
			dir = filepath.Join(dir, "out")
		}
		if dbs, _ := filepath.Glob(filepath.Join(dir, "*.db")); len(dbs) > 0 {
			out = append(out, dbs...)
			if csvs, _ := filepath.Glob(filepath.Join(dir, "*rank*", "*.csv")); len(csvs) == 0 {
				continue
			}
		}
		out = append(out, dir)
	}
	return out
}

// Every noise-only real TrainerMon run of the kit (4 ranks, W = 1 and 2,
// several seeds) gives no candidate, no root and no event.
func TestRealKitNoiseRunsFindNothing(t *testing.T) {
	runs := kitRuns(t, true)
	if len(runs) == 0 {
		t.Skip("no noise-only monitor run in testdata/msprobe-real/kit")
	}
	for _, path := range runs {
		s := realSession(t, path)
		if len(s.P1.Summary.Ranks) < 2 || len(s.P1.Summary.Steps) < 10 {
			t.Errorf("%s: read %d ranks × %d steps", path, len(s.P1.Summary.Ranks), len(s.P1.Summary.Steps))
		}
		wantQuiet(t, path, s)
	}
	t.Logf("%d noise-only runs", len(runs))
}

// kitFaults are the planted coordinates of the kit's fault runs
// (testdata/msprobe-real/kit/README.md): optimizer step, micro step (as the
// CSV numbers it; −1 none), rank.
var kitFaults = map[string][3]int{
	"mon_w2_s4_badbatch":      {12, 1, 2},
	"db_mon_w2_s4_badbatch":   {12, 1, 2},
	"mon_w1_s4_badloss":       {12, 0, 3},
	"mon_w2_s5_badloss":       {9, 0, 1},
	"mon_w1_s5_badbatch":      {8, 0, 0},
	"mon_norm_w2_s9_badloss5": {10, 1, 0},
}

// Every kit run with a planted fault (a bad batch, a scaled loss on one
// rank at one step) has one event: all its candidates at one coordinate
// (optimizer step, micro step, rank) — the planted one when the kit's
// README names it — which is the root.
func TestRealKitFaultRunsOneEvent(t *testing.T) {
	runs := kitRuns(t, false)
	if len(runs) == 0 {
		t.Skip("no monitor run with a planted fault in testdata/msprobe-real/kit")
	}
	seen := map[string]bool{}
	defer func() {
		for name := range kitFaults {
			if !seen[name] {
				t.Errorf("kit run %s not found", name)
			}
		}
	}()
	for _, path := range runs {
		s := realSession(t, path)
		if len(s.P1.Anomalies) == 0 {
			t.Errorf("%s: no candidate", path)
			continue
		}
		a0 := s.P1.Anomalies[0]
		for name, want := range kitFaults {
			if strings.Contains(path, "/"+name+"/") || strings.HasSuffix(path, "/"+name) {
				seen[name] = true
				if got := [3]int{a0.OptStep(), a0.Micro(), a0.Rank}; got != want {
					t.Errorf("%s: first candidate at (step, micro, rank) %v, planted %v", path, got, want)
				}
			}
		}
		for _, a := range s.P1.Anomalies {
			if a.OptStep() != a0.OptStep() || a.Micro() != a0.Micro() || a.Rank != a0.Rank {
				t.Errorf("%s: candidate %s step %d micro %d rank %d %.3g× beside the first at step %d micro %d rank %d", path,
					a.TargetName, a.OptStep(), a.Micro(), a.Rank, float64(a.DeviationRatio), a0.OptStep(), a0.Micro(), a0.Rank)
				break
			}
		}
		t.Logf("%s: %d candidates at step %d micro %d rank %d", path, len(s.P1.Anomalies), a0.OptStep(), a0.Micro(), a0.Rank)
		c := s.P2.RootCauseCoordinate
		if c == nil || c.Rank != a0.Rank || c.OptimizerStep == nil || *c.OptimizerStep != a0.OptStep() || len(s.P2.Events) != 1 {
			t.Errorf("%s: root %+v, %d events; want the first candidate's coordinate alone", path, c, len(s.P2.Events))
		}
	}
}
