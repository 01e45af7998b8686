package analysis

import (
	"slices"
	"testing"

	"spikescope/model"
)

// TestSeriesIndexViewMatchesCopy: rows in series order (as the readers
// leave them) are indexed in place, and Phase 1 finds exactly what it finds
// on the same rows in the generator's (rank, step, target) order.
func TestSeriesIndexViewMatchesCopy(t *testing.T) {
	run := accumRun{Ranks: 4, Params: 12, Steps: 120, W: 4, Noise: 0.05, Reduced: true,
		Spike: func(rank, param, opt, ms int) float64 {
			if rank == 2 && param == 5 && opt == 6 && ms == 1 {
				return 6
			}
			return 1
		}}
	plain := run.build().d
	sorted := run.build().d
	sorted.Rows.SortSeries()
	if buildSeriesIndex(plain, 0).order == nil {
		t.Fatal("rows in generator order were indexed in place")
	}
	if ix := buildSeriesIndex(sorted, 0); ix.order != nil || ix.rows == 0 {
		t.Fatalf("rows in series order were copied (%d rows)", ix.rows)
	}
	a, b := Phase1(plain, DefaultPhase1Options()), Phase1(sorted, DefaultPhase1Options())
	if len(a.Anomalies) == 0 {
		t.Fatal("the planted spike was not found")
	}
	if ja, jb := jsn(a.Anomalies), jsn(b.Anomalies); ja != jb {
		t.Fatalf("copied index found\n%s\nthe view found\n%s", ja, jb)
	}
}

// TestSeriesIndexCompactCopies: rows in series order that the index cannot
// view (steps out of order within a series; rank numbers too far apart for
// the counting sort) are copied from the series table, and Phase 1 finds
// what it finds on the same rows in generator order.
func TestSeriesIndexCompactCopies(t *testing.T) {
	run := accumRun{Ranks: 4, Params: 12, Steps: 120, W: 4, Noise: 0.05, Reduced: true,
		Spike: func(rank, param, opt, ms int) float64 {
			if rank == 1 && param == 7 && opt == 9 && ms == 2 {
				return 6
			}
			return 1
		}}
	for _, sparse := range []bool{false, true} {
		plain, sorted := run.build().d, run.build().d
		if sparse {
			for i := range plain.Rows.Rank {
				plain.Rows.Rank[i] <<= 24
			}
		}
		sorted.Rows.SortSeries()
		for k := range sorted.Rows.Table {
			if sparse {
				sorted.Rows.Table[k].Rank <<= 24
			}
		}
		// every series backwards: the index must sort it
		r := &sorted.Rows
		for run := range r.Runs() {
			slices.Reverse(r.Step[run.Lo:run.Hi])
			if r.HasMicro() {
				slices.Reverse(r.MicroColumn()[run.Lo:run.Hi])
			}
			slices.Reverse(r.Norm[run.Lo:run.Hi])
			for s := model.StatMin; s < model.NumStats; s++ {
				if len(r.Stats[s]) == r.Len() {
					slices.Reverse(r.Stats[s][run.Lo:run.Hi])
				}
			}
		}
		if ix := buildSeriesIndex(sorted, 0); ix.order == nil || ix.rows != buildSeriesIndex(plain, 0).rows || len(ix.groups) != 4*12 {
			t.Fatalf("sparse %v: out-of-order series viewed, or %d rows %d groups indexed", sparse, ix.rows, len(ix.groups))
		}
		a, b := Phase1(plain, DefaultPhase1Options()), Phase1(sorted, DefaultPhase1Options())
		if len(a.Anomalies) == 0 {
			t.Fatalf("sparse %v: the planted spike was not found", sparse)
		}
		if ja, jb := jsn(a.Anomalies), jsn(b.Anomalies); ja != jb {
			t.Fatalf("sparse %v: generator order found\n%s\nthe compact copy found\n%s", sparse, ja, jb)
		}
	}
}
