package ingest

import (
	"context"
	"math"
	"testing"

	"spikescope/analysis"
	"spikescope/model"
)

// BenchmarkSpillStats: LoadMonitor of a 2M-row trend.db with min, max and
// mean kept in the heap or spilled (the cost of writing 24 MB out), and
// Phase 1 + 2 on the loaded rows (candidates read min/max/mean from the
// mapping).
func BenchmarkSpillStats(b *testing.B) {
	path := scaleTrendDB(b, 2_000_000)
	for _, spill := range []bool{false, true} {
		name := "heap"
		if spill {
			name = "spill"
		}
		load := func(b *testing.B) *model.MonitorData {
			defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
			SpillStatsMinRows = math.MaxInt
			if spill {
				SpillStatsMinRows = 0
			}
			d, err := LoadMonitor(context.Background(), path, model.FormatAuto, nil)
			if err != nil {
				b.Fatal(err)
			}
			if d.Rows.Mapped != spill {
				b.Fatalf("mapped %v, spill %v", d.Rows.Mapped, spill)
			}
			return d
		}
		b.Run("load/"+name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				load(b)
			}
		})
		b.Run("phase12/"+name, func(b *testing.B) {
			d := load(b)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				p1 := analysis.Phase1(d, analysis.DefaultPhase1Options())
				if _, err := analysis.Phase2(p1, nil, nil, analysis.DefaultPhase2Options()); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
