package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// BenchmarkSeriesScrollRanks is one ↓ on the series screen of a parameter
// on 64 ranks × 4,000 steps (the chart, the shared axis and the heat map
// are redrawn): a frame of scrolling the heat map's ranks.
func BenchmarkSeriesScrollRanks(b *testing.B) { benchSeries(b, "down", "up") }

// BenchmarkSeriesRedraw is m then M on the same screen: the chart of every
// rank and the axis are drawn again (as when the screen opens).
func BenchmarkSeriesRedraw(b *testing.B) { benchSeries(b, "m", "M") }

// BenchmarkSeriesRedrawCold is BenchmarkSeriesRedraw with the curves read
// from the rows again every frame: the first time a metric is shown.
func BenchmarkSeriesRedrawCold(b *testing.B) { benchSeries(b, "m", "M", "cold") }

func benchSeries(b *testing.B, k1, k2 string, cold ...string) {
	const ranks, steps = 64, 4000
	md := &model.MonitorData{Format: model.FormatTrendDB, Targets: []model.Target{{Name: "w"}}, Metrics: []string{"grad_unreduced"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	md.Rows.Grow(ranks * steps)
	for r := int32(0); r < ranks; r++ {
		for s := int32(0); s < steps; s++ {
			v := 1 + float64((int(s)*31+int(r)*7)%17)/10
			md.Rows.Append(r, s, model.NoMicro, 0, 0, [model.NumStats]float64{v, -v, v, 0})
		}
	}
	a := model.Anomaly{Rank: 3, Step: 2000, TargetName: "w", Metric: "grad_unreduced", Norm: 9, BaselineMedian: 1.5, DeviationRatio: 6}
	d := &Data{Monitor: md, P1: &model.Phase1Result{Anomalies: []model.Anomaly{a}}}
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			m := New(Options{Backend: &fakeBackend{data: d}})
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m.Update(loadedMsg{id: m.loadID, data: d})
			press(m, "enter")
			_ = m.View()
			keys := []tea.KeyPressMsg{keyMsg(k1), keyMsg(k2)}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if len(cold) > 0 {
					d.series.cached = nil
				}
				m.Update(keys[i%2])
				_ = m.View()
			}
		})
	}
}
