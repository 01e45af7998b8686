package ui

import (
	"fmt"
	"testing"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// bigCandidates builds a monitor of 500 parameters × 8 ranks × 100 steps
// and 100,000 candidates over it.
func bigCandidates() *Data {
	const targets, ranks, steps, cands = 500, 8, 100, 100_000
	md := &model.MonitorData{Format: model.FormatTrendDB, Metrics: []string{"grad_unreduced"}}
	for t := 0; t < targets; t++ {
		md.Targets = append(md.Targets, model.Target{Name: fmt.Sprintf("module.decoder.layers.%d.mlp.linear_fc%d.weight", t/2, t%2+1)})
	}
	md.Rows.Grow(targets * ranks * steps)
	for r := int32(0); r < ranks; r++ {
		for s := int32(0); s < steps; s++ {
			for t := int32(0); t < targets; t++ {
				v := 1 + float64((int(s)*31+int(t)*7+int(r))%17)/10
				md.Rows.Append(r, s, model.NoMicro, t, 0, [model.NumStats]float64{v, -v, v, 0})
			}
		}
	}
	p1 := &model.Phase1Result{Format: model.FormatTrendDB, Summary: model.Phase1Summary{TotalTargets: targets, Steps: seq(0, steps), Ranks: seq(0, ranks)}}
	for i := 0; i < cands; i++ {
		t := i % targets
		p1.Anomalies = append(p1.Anomalies, model.Anomaly{Rank: i % ranks, Step: (i / targets) % steps,
			TargetName: md.Targets[t].Name, Metric: "grad_unreduced", Norm: model.Float(i % 97), DeviationRatio: 2, Trigger: "iqr"})
	}
	return &Data{Monitor: md, P1: p1}
}

// BenchmarkScrollCandidates100k is one frame of scrolling the Phase 1
// table (Update of a `j` key + View) over 100,000 candidates with a
// sparkline per visible row.
func BenchmarkScrollCandidates100k(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			d := bigCandidates()
			m := New(Options{Backend: &fakeBackend{data: d}})
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m.Update(loadedMsg{id: m.loadID, data: d})
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

// bigOps builds one layer of 200,000 operators (a 200k-operator dump
// seen at its worst: every op in the table being scrolled).
func bigOps() *Data {
	const n = 200_000
	d := fixture()
	ops := make([]model.DrillOp, n)
	f := model.FloatPtr
	for i := range ops {
		ms := map[string]model.MetricRow{}
		for j, name := range metricNames {
			v := float64(i%1000+1) * float64(j+1)
			ms[name] = model.MetricRow{Fwd: model.Quad{A: f(v), B: f(v), C: f(v), D: f(v)},
				Bwd: model.Quad{A: f(v), B: f(v), C: f(v), D: f(v)}, FAB: f(1), FCD: f(1), BAB: f(1), BCD: f(1),
				FAnomaly: f(1), BAnomaly: f(1), FFlag: i%5000 == 0}
		}
		ops[i] = model.DrillOp{Key: fmt.Sprintf("Functional.linear.%d.forward", i), Order: i, Metrics: ms, Aligned: true, Flagged: i%5000 == 0}
	}
	d.P3.DivergenceSummary.Drilldown.Ops = ops
	return d
}

// BenchmarkScrollOps200k is one frame of scrolling the operator table of
// a 200,000-operator layer (Update + View).
func BenchmarkScrollOps200k(b *testing.B) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		b.Run(fmt.Sprintf("%dx%d", sz[0], sz[1]), func(b *testing.B) {
			d := bigOps()
			m := New(Options{Backend: &fakeBackend{data: d}})
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			m.Update(loadedMsg{id: m.loadID, data: d})
			press(m, "3", "enter")
			if m.screen != screenDrill || len(m.drill().ops) != 200_000 {
				b.Fatalf("not on the 200k-op table")
			}
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

// BenchmarkSortCandidates100k is one `o` (sort toggle) on 100k rows: a
// key press, not a frame, but it must stay interactive too.
func BenchmarkSortCandidates100k(b *testing.B) {
	d := bigCandidates()
	m := New(Options{Backend: &fakeBackend{data: d}})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(loadedMsg{id: m.loadID, data: d})
	m.p1().tbl.colCur = p1ColNorm
	s := keyMsg("o")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(s)
		_ = m.View()
	}
}

// BenchmarkSeriesIndex100k is the one-off index build after loading
// (off the update loop): 400k monitor rows, 100k candidates.
func BenchmarkSeriesIndex100k(b *testing.B) {
	d := bigCandidates()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buildSeriesIndex(d.Monitor, d.P1.Anomalies)
	}
}

// BenchmarkFilterOps200k is one key typed into the operator filter of a
// 200,000-operator layer (re-filter + draw).
func BenchmarkFilterOps200k(b *testing.B) {
	d := bigOps()
	m := New(Options{Backend: &fakeBackend{data: d}})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(loadedMsg{id: m.loadID, data: d})
	press(m, "3", "enter", "/", "1")
	keys := []tea.KeyPressMsg{keyMsg("2"), keyMsg("backspace")}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(keys[i%2])
		_ = m.View()
	}
}
