package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// BenchmarkScrollPhase2Candidates10k is one frame of moving the Phase 2
// candidate cursor (Update of a `j` key + View) when the root step has
// 10,000 candidates (a run-wide step of a large run) and 200 cross-step
// pairs.
func BenchmarkScrollPhase2Candidates10k(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			d := bigCandidates()
			p2 := &model.Phase2Result{Phase: 2, Mode: modeSingleRef, RootOptStep: model.IntPtr(3),
				Thresholds: map[string]float64{"rank_share": 0.6}}
			for i := 0; i < 10_000; i++ {
				a := d.P1.Anomalies[i]
				p2.Candidates = append(p2.Candidates, model.CandidateVerdict{Anomaly: a, Value: a.Norm, Verdict: "no baseline", Selected: i == 0})
			}
			g := model.Float(1.5)
			for i := 0; i < 200; i++ {
				p2.CrossStep = append(p2.CrossStep, model.CrossStepPair{From: i, To: i + 1, TargetName: d.P1.Anomalies[i].TargetName,
					Threshold: 2, RanksOver: 1, RanksTotal: 8, Share: 0.125, GrowthMedian: &g, GrowthMax: &g, Judged: true, MinCommonRanks: 3, Verdict: "no clear turning point"})
			}
			p2.RootCauseCoordinate = &model.Coordinate{Step: model.IntPtr(3), TargetName: p2.Candidates[0].Anomaly.TargetName}
			d.P2 = p2
			m := New(Options{Backend: &fakeBackend{data: d}})
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m.Update(loadedMsg{id: m.loadID, data: d})
			m.Update(keyMsg("2"))
			down, up := keyMsg("j"), keyMsg("k")
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				k := down
				if (i/5000)%2 == 1 {
					k = up
				}
				m.Update(k)
				_ = m.View()
			}
		})
	}
}
