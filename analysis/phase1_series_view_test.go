package analysis

import "testing"

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
