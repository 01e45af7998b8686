package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// countReads counts the monitor reads of the pipeline by path, full loads
// and follower first reads apart, until the test ends.
func countReads(t *testing.T) (full, follow map[string]int) {
	t.Helper()
	var mu sync.Mutex
	full, follow = map[string]int{}, map[string]int{}
	oldRead, oldFollow := readMonitor, readFollowMonitor
	readMonitor = func(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
		mu.Lock()
		full[path]++
		mu.Unlock()
		return oldRead(ctx, path, f, p)
	}
	readFollowMonitor = func(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (ingest.MonitorFollower, error) {
		mu.Lock()
		follow[path]++
		mu.Unlock()
		return oldFollow(ctx, path, f, p)
	}
	t.Cleanup(func() { readMonitor, readFollowMonitor = oldRead, oldFollow })
	return full, follow
}

// LoadFollowing reads the monitor once, by the follower, and concludes
// what Load concludes on it; its first poll reads nothing old; the spike
// written after the load comes out of the next poll, once.
func TestLoadFollowingReadsTheMonitorOnce(t *testing.T) {
	cfg := synth.DefaultConfig()
	healthy := cfg
	healthy.NoFault = true
	for _, format := range []string{"csv", "trend.db"} {
		t.Run(format, func(t *testing.T) {
			run := synth.Generate(cfg)
			tr := run.Truth()
			dir := t.TempDir()
			path := dir
			var land func() // writes the spike's step
			if format == "csv" {
				src := t.TempDir()
				if err := run.WriteCSVTree(src); err != nil {
					t.Fatal(err)
				}
				fault := fmt.Sprintf("_%d-%d.csv", tr.FaultOptStep, tr.FaultOptStep)
				copyTree(t, src, dir, func(name string) bool { return !strings.HasSuffix(name, fault) })
				land = func() { copyTree(t, src, dir, func(name string) bool { return strings.HasSuffix(name, fault) }) }
			} else {
				path = filepath.Join(dir, "monitor.trend.db")
				if err := synth.Generate(healthy).WriteTrendDB(path); err != nil {
					t.Fatal(err)
				}
				land = func() {
					time.Sleep(10 * time.Millisecond) // a new modification time
					tmp := filepath.Join(dir, ".monitor.trend.db.tmp")
					if err := run.WriteTrendDB(tmp); err != nil {
						t.Fatal(err)
					}
					if err := os.Rename(tmp, path); err != nil {
						t.Fatal(err)
					}
				}
			}
			want, err := Load(context.Background(), Inputs{Path: path}, nil)
			if err != nil {
				t.Fatal(err)
			}
			full, follow := countReads(t)
			var progressed int
			s, fl, err := LoadFollowing(context.Background(), Inputs{Path: path}, time.Second, func(model.Progress) { progressed++ })
			if err != nil || fl == nil {
				t.Fatalf("LoadFollowing: %v, follower %v", err, fl != nil)
			}
			if full[path] != 0 || follow[path] != 1 {
				t.Fatalf("reads of %s: %d full loads and %d follower reads, want the follower's one", path, full[path], follow[path])
			}
			if progressed == 0 {
				t.Errorf("the follower's read reported no progress for the loading screen")
			}
			if s.Monitor.Rows.Len() != want.Monitor.Rows.Len() || len(s.P1.Anomalies) != len(want.P1.Anomalies) {
				t.Errorf("rows %d, candidates %d; Load read %d rows, %d candidates", s.Monitor.Rows.Len(), len(s.P1.Anomalies), want.Monitor.Rows.Len(), len(want.P1.Anomalies))
			}
			for i := range min(len(s.P1.Anomalies), len(want.P1.Anomalies)) {
				if model.IDOf(&s.P1.Anomalies[i]) != model.IDOf(&want.P1.Anomalies[i]) {
					t.Errorf("candidate %d is %+v, Load's %+v", i, model.IDOf(&s.P1.Anomalies[i]), model.IDOf(&want.P1.Anomalies[i]))
				}
			}
			if !sameCoordinate(rootCoord(s), rootCoord(want)) {
				t.Errorf("root %+v, Load's %+v", rootCoord(s), rootCoord(want))
			}
			evs, err := fl.Poll(context.Background())
			if err != nil || len(evs) != 0 || fl.Version != 1 {
				t.Fatalf("the first poll with nothing new: %v, %d lines, version %d; want nothing", err, len(evs), fl.Version)
			}
			if full[path] != 0 || follow[path] != 1 {
				t.Errorf("after the first poll: %d full loads, %d follower reads", full[path], follow[path])
			}

			land()
			evs, err = fl.Poll(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			spikes := 0
			for _, e := range evs {
				if e.Event == EventCandidate && e.Anomaly.Rank == tr.FaultRank && e.Anomaly.OptStep() == tr.FaultOptStep && e.Anomaly.TargetName == tr.Parameter {
					spikes++
				}
			}
			if spikes != 1 {
				t.Errorf("the planted spike came out %d times from the poll after it was written, want once", spikes)
			}
		})
	}
}

// copyTree copies the files of src whose names keep says into dst.
func copyTree(t *testing.T, src, dst string, keep func(name string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !keep(e.Name()) {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func rootCoord(s *Session) *model.Coordinate {
	if s.P2 == nil {
		return nil
	}
	return s.P2.RootCauseCoordinate
}

// A load through the follower is cancelled like Load: the loading
// screen's cancel ends it with the context's error and no follower.
func TestLoadFollowingCancelled(t *testing.T) {
	dir := t.TempDir()
	if err := synth.Generate(synth.DefaultConfig()).WriteCSVTree(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s, fl, err := LoadFollowing(ctx, Inputs{Path: dir}, time.Second, nil)
	if !errors.Is(err, context.Canceled) || s != nil || fl != nil {
		t.Fatalf("cancelled: %v, session %v, follower %v; want context.Canceled and nothing", err, s != nil, fl != nil)
	}
}
