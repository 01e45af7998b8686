package model

import "testing"

// BenchmarkSortSeries sorts 16M rows from trend.db key order (rank, step,
// target, metric) into series order.
func BenchmarkSortSeries(b *testing.B) {
	const ranks, steps, targets, metrics = 8, 3436, 291, 2
	var src Rows
	src.Grow(ranks * steps * targets * metrics)
	for rk := range ranks {
		for st := range steps {
			for t := range targets {
				for m := range metrics {
					src.Append(int32(rk), int32(st), NoMicro, int32(t), uint8(m), [NumStats]float64{float64(st), 1, 2, 3})
				}
			}
		}
	}
	var r Rows
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		r = Rows{}
		r.AppendRows(&src, nil, nil)
		b.StartTimer()
		r.SortSeries()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(src.Len()), "ns/row")
}
