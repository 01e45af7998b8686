package ingest

import (
	"context"
	"testing"

	"spikescope/model"
)

// Out of core, a bucket's heap — its rows as bucketRows holds them and a
// cursor and a start per series — stays within HeapBytes even when every
// series has a single row (the progress after each bucket tells its rows),
// and the rows come out as SortSeries puts them.
func TestOutOfCoreBucketWithinHeapBytes(t *testing.T) {
	var r model.Rows
	for i := range 5000 {
		r.Append(int32(i%50), 1, model.NoMicro, int32(i/50), 0, [model.NumStats]float64{float64(i), 1, 2, 3})
	}
	want := r
	want.Rank, want.Step, want.Target, want.Metric = append([]int32(nil), r.Rank...), append([]int32(nil), r.Step...), append([]int32(nil), r.Target...), append([]uint8(nil), r.Metric...)
	want.SetMicroColumn(append([]int32(nil), r.MicroColumn()...))
	want.Norm = append([]float64(nil), r.Norm...)
	for st := range r.Stats {
		want.Stats[st] = append([]float32(nil), r.Stats[st]...)
	}
	want.SortSeries()
	for _, dedup := range []bool{false, true} {
		const heap = 40_000
		var placed []int64
		s := newRowSink("test", OutOfCore{Dir: t.TempDir(), HeapBytes: heap, ChunkRows: 700}, func(p model.Progress) { placed = append(placed, p.Done) })
		s.dedup = dedup
		if err := s.add(0, &r, nil, nil, -1); err != nil {
			t.Fatal(err)
		}
		d := &model.MonitorData{HasStat: [model.NumStats]bool{true, true, true, true}, Targets: make([]model.Target, 100), Metrics: []string{"m"}}
		if _, err := s.build(context.Background(), d); err != nil {
			t.Fatal(err)
		}
		sameRows(t, "one-row series", &want, &d.Rows)
		row := int64(28)
		if dedup {
			row += 8
		}
		for i := 1; i < len(placed); i++ {
			n := placed[i] - placed[i-1] // rows, one series each
			if b := n*row + (n+1)*bucketCursorBytes; b > heap {
				t.Errorf("dedup %v: a bucket of %d one-row series takes %d bytes, over HeapBytes %d", dedup, n, b, heap)
			}
		}
		if len(placed) < 3 {
			t.Errorf("dedup %v: %d progress reports, want a bucket at a time", dedup, len(placed))
		}
	}
}
