package ingest

import (
	"os"
	"testing"

	"spikescope/model"
)

// BenchmarkSortSeriesParked: the keyed series sort of BenchmarkSortSeries'
// rows (model) with a new scratch column ("scratch"), with the step
// column parked instead — as its runs ("parked": the rows' steps come in
// runs of 582 rows) — and parked in a file of the spill folder
// ("parked-file": a write and a read back of 4 bytes a row more).
func BenchmarkSortSeriesParked(b *testing.B) {
	const ranks, steps, targets, metrics = 8, 3436, 291, 2
	n := ranks * steps * targets * metrics
	var src model.Rows
	src.Grow(n)
	for rk := range ranks {
		for st := range steps {
			for t := range targets {
				for m := range metrics {
					src.Append(int32(rk), int32(st), model.NoMicro, int32(t), uint8(m), [model.NumStats]float64{float64(st), 1, 2, 3})
				}
			}
		}
	}
	sp := model.KeySpace{Ranks: ranks, Targets: targets, Metrics: metrics}
	for _, name := range []string{"scratch", "parked", "parked-file"} {
		parked := name != "scratch"
		b.Run(name, func(b *testing.B) {
			if name == "parked-file" {
				defer func(v int) { parkRunRows = v }(parkRunRows)
				parkRunRows = 0
			}
			f, err := os.CreateTemp(SpillDirFor(""), "spikescope-bench-*.rows")
			if err != nil {
				b.Fatal(err)
			}
			defer os.Remove(f.Name())
			defer f.Close()
			st := &statStream{input: "", f: f, n: n, stride: n}
			for b.Loop() {
				b.StopTimer()
				var r model.Rows
				if !r.KeyBy(sp, n) {
					b.Fatal("not keyed")
				}
				r.Resize(n)
				r.Place(0, &src)
				b.StartTimer()
				var park model.ColumnPark
				if parked {
					park = &stepPark{st: st}
				}
				if err := r.SortSeriesParked(nil, park); err != nil {
					b.Fatal(err)
				}
				if parked && st.parked != n {
					b.Fatal("not parked")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/row")
		})
	}
}
