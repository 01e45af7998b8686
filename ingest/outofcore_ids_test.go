package ingest

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// The sink's series ids take memory by the series, not by ranks × targets:
// 2,000 ranks with 50 targets of their own each (pipeline stages, expert
// groups) are 100,000 series; tables indexed from target 0 held 4 kB a
// series (414 MB).
func TestSinkSeriesIDsByTheSeries(t *testing.T) {
	const ranks, targets = 2000, 50
	s := newRowSink("test", OutOfCore{Dir: t.TempDir()}, nil)
	defer s.close()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	for rk := range ranks {
		for tg := range targets {
			s.id(int32(rk), int32(rk*targets+tg), 0)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	per := float64(int64(ms.HeapAlloc)-int64(before)) / (ranks * targets)
	t.Logf("%.1f bytes a series", per)
	if per > 150 {
		t.Errorf("%.0f bytes a series for the series ids, want at most 150", per)
	}
	if len(s.keys) != ranks*targets {
		t.Fatalf("%d series numbered, want %d", len(s.keys), ranks*targets)
	}
}

// Series ids are the first-seen order whatever order the targets come in
// (rising, falling, scattered, negative), the same id for a series seen
// again.
func TestSinkSeriesIDsAnyOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	s := newRowSink("test", OutOfCore{Dir: t.TempDir()}, nil)
	want := map[seriesKey]int32{}
	for range 20000 {
		k := seriesKey{rank: int32(rng.IntN(7)), target: int32(rng.IntN(3000) - 100), metric: uint8(rng.IntN(3))}
		if rng.IntN(3) == 0 {
			k.target = int32(2000 - rng.IntN(2000)) // a falling run
		}
		id := s.id(k.rank, k.target, k.metric)
		if w, ok := want[k]; ok && w != id {
			t.Fatalf("%+v: id %d, was %d", k, id, w)
		} else if !ok {
			if int(id) != len(want) {
				t.Fatalf("%+v: new series numbered %d, want %d", k, id, len(want))
			}
			want[k] = id
		}
		if s.keys[id] != k {
			t.Fatalf("id %d keyed %+v, want %+v", id, s.keys[id], k)
		}
	}
}
