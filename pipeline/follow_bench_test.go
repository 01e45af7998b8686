package pipeline

import (
	"context"
	"syscall"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// What a poll costs beside a training job of 1,000 ranks (README, "Follow
// a run"): a monitor CSV tree of 1,000 rank folders, 2 files per optimizer
// step (grad_unreduced with 4 micro steps, grad_reduced), 1 layer
// (9 parameters).
//
//	go test ./pipeline/ -run '^$' -bench FollowPoll1000Ranks -benchtime 5x -count 6
const benchRanks = 1000

// benchRun is the 1,000-rank run with steps optimizer steps.
func benchRun(steps int) *synth.Run {
	c := synth.DefaultConfig()
	c.Ranks, c.Layers, c.OptSteps = benchRanks, 1, steps
	c.Fault.Layer, c.ControlRanks = 0, nil
	return synth.Generate(c)
}

// benchFollower follows a copy of the first `first` steps of run.
func benchFollower(b *testing.B, run *synth.Run, src string, first int) (*Follower, *writer) {
	dst := b.TempDir()
	w := &writer{t: b, src: src, dst: dst}
	for r := range benchRanks {
		for s := range first {
			for _, f := range stepFiles(run, src, r, s) {
				w.copyWhole(f)
			}
		}
	}
	f, _, err := StartFollow(context.Background(), dst, model.FormatCSV, FollowOptions{Interval: time.Second}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return f, w
}

// cpuTime is the CPU time (user + system) the process used so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// A poll that finds nothing new: list the tree, stat every file.
func BenchmarkFollowPoll1000RanksIdle(b *testing.B) {
	run := benchRun(6)
	src := b.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		b.Fatal(err)
	}
	f, _ := benchFollower(b, run, src, 6)
	b.ResetTimer()
	cpu := cpuTime()
	for range b.N {
		if evs, err := f.Poll(context.Background()); err != nil || len(evs) > 0 {
			b.Fatalf("idle poll: %v %v", evs, err)
		}
	}
	b.ReportMetric(float64((cpuTime()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
}

// A poll that finds one new optimizer step on every rank (2,000 new files)
// and runs Phase 1 and 2 again on everything read.
func BenchmarkFollowPoll1000RanksNewStep(b *testing.B) {
	const first = 6
	run := benchRun(first + b.N)
	src := b.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		b.Fatal(err)
	}
	f, w := benchFollower(b, run, src, first)
	b.ResetTimer()
	var cpu time.Duration
	for i := range b.N {
		b.StopTimer()
		for r := range benchRanks {
			for _, p := range stepFiles(run, src, r, first+i) {
				w.copyWhole(p)
			}
		}
		b.StartTimer()
		c := cpuTime()
		if _, err := f.Poll(context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c
	}
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
	b.StopTimer()
	if f.Data.Rows.Len() == 0 {
		b.Fatal("no rows")
	}
	b.ReportMetric(float64(f.Data.Rows.Len()), "rows")
}
