package pipeline

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// What the TUI's --follow costs to start on the 1,000-rank tree (6 steps):
// "two reads" is Load and then a follower's own first read (FollowSession,
// what F does on an input loaded without --follow); "one read" is
// LoadFollowing, what --follow does.
//
//	go test ./pipeline/ -run '^$' -bench FollowStart1000Ranks -benchmem -count 6
func BenchmarkFollowStart1000Ranks(b *testing.B) {
	const steps = 6
	run := benchRun(steps)
	src := b.TempDir()
	if err := run.WriteCSVTree(src); err != nil {
		b.Fatal(err)
	}
	in := Inputs{Path: src}
	ctx := context.Background()
	// live-MB: the heap the TUI keeps once following (the session and the
	// follower), after a collection
	b.Run("two reads", func(b *testing.B) {
		var live uint64
		for range b.N {
			s, err := Load(ctx, in, nil)
			if err != nil {
				b.Fatal(err)
			}
			f, err := FollowSession(ctx, s, time.Second)
			if err != nil {
				b.Fatal(err)
			}
			live = liveHeap()
			runtime.KeepAlive(s)
			runtime.KeepAlive(f)
		}
		b.ReportMetric(float64(live)/(1<<20), "live-MB")
	})
	b.Run("one read", func(b *testing.B) {
		var live uint64
		for range b.N {
			s, f, err := LoadFollowing(ctx, in, time.Second, nil)
			if err != nil || f == nil {
				b.Fatal(err)
			}
			live = liveHeap()
			runtime.KeepAlive(s)
			runtime.KeepAlive(f)
		}
		b.ReportMetric(float64(live)/(1<<20), "live-MB")
	})
}

// liveHeap is the heap in use after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}
