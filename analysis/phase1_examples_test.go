package analysis

import (
	"encoding/json"
	"strings"
	"testing"

	"spikescope/model"
)

// Example 1 (reference-scripts.md §10): step-level trend.db, one spike.
func example1() *monBuilder {
	b := newMon(model.FormatTrendDB)
	t0 := []float64{1.0, 1.1, 0.9, 1.0, 1.05, 20.0}
	t1 := []float64{2.0, 2.1, 1.9, 2.0, 2.05, 2.1}
	for s := range t0 {
		b.add(0, s, int(model.NoMicro), fc1, 0, t0[s])
		b.add(0, s, int(model.NoMicro), qkv, 0, t1[s])
	}
	return b
}

func TestExample1StepLevel(t *testing.T) {
	res := example1().run(t)
	sa := res.Sharding
	if sa.AccumulationWindow != 0 || sa.AccumulationDetected || sa.HasMicroStep || sa.PassUnitReason != (model.PassUnit{Kind: model.PassStep}) {
		t.Fatalf("sharding = %+v, want step level", sa)
	}
	if len(res.Anomalies) != 1 {
		t.Fatalf("anomalies = %+v, want 1", res.Anomalies)
	}
	a := res.Anomalies[0]
	// baseline without the spike: [0.9 1 1 1.05 1.1] → median 1.0
	if a.Rank != 0 || a.Step != 5 || a.TargetName != fc1 || a.Trigger != "iqr+mad" ||
		float64(a.BaselineMedian) != 1.0 || float64(a.DeviationRatio) != 20 {
		t.Fatalf("anomaly = %+v", a)
	}
	if res.Summary.TotalRows != 12 || len(res.Summary.Steps) != 6 || res.Summary.AnomalyCount != 1 {
		t.Fatalf("summary = %+v", res.Summary)
	}
	p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if co == nil || co.Rank != 0 || co.TargetName != fc1 || float64(co.Norm) != 20 || pv(co.Step) != 5 || pv(p2.RootOptStep) != 5 {
		t.Fatalf("phase 2 = %+v coord %+v", p2, co)
	}
	if !strings.Contains(p2.Reasoning, "无标杆，取偏离自身基线最大者 (rank=0 step=5, 20×)") {
		t.Fatalf("reasoning = %q", p2.Reasoning)
	}
}

// Example 2: accumulated micro steps in a trend.db (window 4), spikes at
// opt 1 (r0 ms2) and opt 2 (r1 ms3); the cross-step rule gives opt 1.
func example2() *monBuilder {
	b := newMon(model.FormatTrendDB)
	normal := []float64{1, 2, 3, 4, 1, 2, 3, 4, 1, 6, 11, 16}
	for r := 0; r < 3; r++ {
		for s := 0; s < 12; s++ {
			v0 := normal[s]
			if r == 0 && s >= 4 && s < 8 {
				v0 = []float64{1, 2, 22, 23}[s-4]
			}
			if r == 1 && s == 11 {
				v0 = 91
			}
			b.add(r, s, int(model.NoMicro), fc1, 0, v0)
			b.add(r, s, int(model.NoMicro), qkv, 0, normal[s])
		}
	}
	return b
}

func TestExample2MicroStepTrendDB(t *testing.T) {
	res := example2().run(t)
	sa := res.Sharding
	if sa.AccumulationWindow != 4 || sa.WindowPhase != 0 || !sa.AccumulationDetected || sa.OptimizerStepCount != 3 ||
		sa.PassUnitReason != (model.PassUnit{Kind: model.PassAccumWind, Window: 4}) {
		t.Fatalf("sharding = %+v", sa)
	}
	// The reference's two spikes are found, the first one first. Judged
	// against opt 0–1, the increments of opt 2 (curves 1, 6, 11, 16 on
	// every rank and both parameters: 4× final norms, the propagated
	// growth, a common spike that is left out of the baseline) also stand
	// out at ms 2 and 3; the reference, which only compares a curve with
	// itself, cannot see that.
	if len(res.Anomalies) < 2 {
		t.Fatalf("anomalies = %s", jsn(res.Anomalies))
	}
	a := res.Anomalies[0]
	var b model.Anomaly
	for _, x := range res.Anomalies[1:] {
		switch {
		case x.Rank == 1 && x.TargetName == fc1 && pv(x.MicroStep) == 3:
			b = x
		case pv(x.OptimizerStep) != 2 || pv(x.MicroStep) < 2:
			t.Fatalf("extra anomaly %s", jsn(x))
		}
	}
	if a.Rank != 0 || a.Step != 6 || pv(a.OptimizerStep) != 1 || pv(a.MicroStep) != 2 || fpv(a.Delta) != 20 || fpv(a.SuspectFinalNorm) != 23 || a.Trigger != "micro_step_delta" {
		t.Fatalf("first = %s", jsn(a))
	}
	if b.Rank != 1 || b.Step != 11 || pv(b.OptimizerStep) != 2 || pv(b.MicroStep) != 3 || fpv(b.Delta) != 80 || fpv(b.SuspectFinalNorm) != 91 {
		t.Fatalf("second = %s", jsn(b))
	}
	e := res.TargetRankNorms["1"]
	if e.TargetName != fc1 || e.Ranks["0"] != 23 || e.Ranks["1"] != 4 || e.Ranks["2"] != 4 ||
		pv(e.NextStep) != 2 || e.NextRanks["0"] != 16 || e.NextRanks["1"] != 91 || e.NextRanks["2"] != 16 {
		t.Fatalf("target_rank_norms[1] = %s", jsn(e))
	}
	p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if pv(p2.RootOptStep) != 1 || co.Rank != 0 || pv(co.MicroStep) != 2 || fpv(co.Delta) != 20 || pv(co.Step) != 6 || co.TargetName != fc1 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	if len(p2.CrossStep) != 2 || !p2.CrossStep[0].Qualifies || p2.CrossStep[0].RanksOver != 2 || p2.CrossStep[0].RanksTotal != 3 {
		t.Fatalf("cross step = %s", jsn(p2.CrossStep))
	}
	if !strings.Contains(p2.Reasoning, "opt_step 1 → 2 (weight): 2/3 ranks (67%) 的最终 norm >= 2.00x 增长") ||
		!strings.Contains(p2.Reasoning, "根因在 opt_step 1") || !strings.Contains(p2.Reasoning, "无标杆，取偏离自身基线最大者 (rank=0 ms=2, ") {
		t.Fatalf("reasoning = %q", p2.Reasoning)
	}
}

// Example 3 / bug 5: an explicit micro_step CSV keeps every step apart;
// the reference collapsed both steps into optimizer step 0 and reported a
// phantom spike at ms 3 (31 − 4 across steps).
func TestExample3ExplicitMicroCSVKeptPerStep(t *testing.T) {
	b := newMon(model.FormatCSV)
	b.d.ExplicitMicro = true
	for _, r := range []int{0, 1} {
		for _, step := range []int{10, 11} {
			norms := []float64{1, 2, 3, 4}
			if r == 0 && step == 11 {
				norms = []float64{1, 2, 30, 31}
			}
			for ms, n := range norms {
				b.add(r, step, ms, fc1, 0, n)
			}
		}
	}
	res := b.run(t)
	if !res.Sharding.ExplicitMicroStep || res.Sharding.PassUnitReason != (model.PassUnit{Kind: model.PassExplicit}) || res.Sharding.OptimizerStepCount != 2 {
		t.Fatalf("sharding = %+v", res.Sharding)
	}
	if len(res.Anomalies) != 1 {
		t.Fatalf("anomalies = %s", jsn(res.Anomalies))
	}
	a := res.Anomalies[0]
	if a.Rank != 0 || a.Step != 11 || pv(a.OptimizerStep) != 11 || pv(a.MicroStep) != 2 || fpv(a.Delta) != 28 || fpv(a.SuspectFinalNorm) != 31 {
		t.Fatalf("anomaly = %s", jsn(a))
	}
	p2, _ := phase2Said(res, nil, nil, DefaultPhase2Options())
	co := p2.RootCauseCoordinate
	if pv(p2.RootOptStep) != 11 || co.Rank != 0 || pv(co.MicroStep) != 2 || fpv(co.Delta) != 28 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
}

// Monitor v2 micro steps are 1-based in the file (rows hold positions):
// the range and the candidates say the file's numbers, the position stays
// beside them.
func TestExplicitMicroOneBased(t *testing.T) {
	b := newMon(model.FormatCSV)
	b.d.ExplicitMicro, b.d.MicroOneBased = true, map[string]bool{"grad_unreduced": true}
	for r := 0; r < 2; r++ {
		for ms := 0; ms < 4; ms++ {
			b.add(r, 7, ms, fc1, 0, float64(ms+1))
		}
	}
	res := b.run(t)
	sa := res.Sharding
	if got := sa.MicroStepRange; len(got) != 4 || got[0] != 1 || got[3] != 4 || sa.AccumulationWindow != 4 || sa.MicroStepBase != 1 || sa.MicroStepNumberingReason != (model.MicroNumbering{Kind: model.NumberingMonitorV2}) {
		t.Fatalf("micro range = %v, window %d, base %d %v", got, sa.AccumulationWindow, sa.MicroStepBase, sa.MicroStepNumberingReason)
	}
}

// Example 4: single-step dump, deviation against the median of ALL
// parameters (bug 12), single device and cross device.
func example4(side string) *model.Phase1Result {
	b := newMon(model.FormatDump, "grad_norm")
	names := []string{
		"Module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.weight",
		"Module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.weight",
		"Module.decoder.layers.1.mlp.linear_fc1.ColumnParallelLinear.weight",
	}
	vals := map[string][2][3]float64{
		"npu": {{50.0, 2.0, 3.0}, {2.1, 1.9, 3.1}},
		"gpu": {{2.6, 2.0, 3.0}, {2.2, 1.9, 3.0}},
	}[side]
	for r := 0; r < 2; r++ {
		for i, n := range names {
			b.add(r, 0, int(model.NoMicro), n, 0, vals[r][i])
		}
	}
	return Phase1(b.d, DefaultPhase1Options())
}

func TestExample4DumpSingleStep(t *testing.T) {
	npu := example4("npu")
	if npu.Sharding.AccumulationWindow != 0 || npu.DataKind != "dump" || len(npu.Anomalies) != 6 {
		t.Fatalf("npu = %s", jsn(npu))
	}
	wantNorms := []float64{50, 3.1, 3.0, 2.1, 2.0, 1.9}
	for i, a := range npu.Anomalies {
		if float64(a.Norm) != wantNorms[i] || a.Trigger != "dump_abs_norm" || float64(a.BaselineMedian) != 2.55 {
			t.Fatalf("anomaly %d = %s", i, jsn(a))
		}
	}
	if !near(float64(npu.Anomalies[0].DeviationRatio), 50/2.55, 1e-12) {
		t.Fatalf("deviation = %v", npu.Anomalies[0].DeviationRatio)
	}
	p2, _ := phase2Said(npu, nil, nil, DefaultPhase2Options())
	if p2.RootOptStep != nil || p2.RootCauseCoordinate.Rank != 0 || !strings.HasSuffix(p2.RootCauseCoordinate.TargetName, "layers.0.mlp.linear_fc1.ColumnParallelLinear.weight") ||
		float64(p2.RootCauseCoordinate.Norm) != 50 || p2.Reasoning != "dump 数据（单点快照），跳过跨 step 判定; 无标杆，取偏离自身基线最大者 (rank=0 step=0, 19.6×)" {
		t.Fatalf("single device = %s", jsn(p2))
	}
	gpu := example4("gpu")
	x, err := phase2Said(npu, gpu, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if x.Mode != "NPU (+GPU 标杆)" || x.RootCauseCoordinate.Rank != 0 || float64(x.RootCauseCoordinate.Norm) != 50 ||
		!strings.Contains(x.CrossDeviceVerification, "NPU/GPU=19.2x ≥ 2.0x → NPU 设备特异性异常") ||
		!strings.Contains(x.CrossDeviceVerification, "GPU norm=2.6 (rank=0)") {
		t.Fatalf("cross device = %s", jsn(x))
	}
}

// Example 6 / bug 7: a short series with one reset; micro steps restart at
// the boundary (the reference numbered 5..8 as ms 5..8 and said window 6).
func TestExample6ShortSeriesRestartsAtBoundary(t *testing.T) {
	b := newMon(model.FormatTrendDB)
	series := []float64{1, 2, 3, 4, 10, 0.5, 1.5, 2.5, 3.5}
	for s, n := range series {
		b.add(0, s, int(model.NoMicro), fc1, 0, n)
		b.add(0, s, int(model.NoMicro), qkv, 0, n)
	}
	res := b.run(t)
	sa := res.Sharding
	if !sa.AccumulationDetected || sa.ResetBoundary == nil || *sa.ResetBoundary != 5 || sa.AccumulationWindow != 5 || sa.OptimizerStepCount != 2 {
		t.Fatalf("sharding = %s", jsn(sa))
	}
	m := stepMapper{W: 5, Bounds: []int{5}, First: 0}
	want := [][2]int{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {1, 0}, {1, 1}, {1, 2}, {1, 3}}
	for s, w := range want {
		if o, ms := m.mapStep(int32(s), model.NoMicro); o != w[0] || ms != w[1] {
			t.Fatalf("step %d → (%d, %d), want %v", s, o, ms, w)
		}
	}
	// The jump 4 → 10 (delta 6, 6× the usual 1) passes the thresholds in
	// both parameters, but 9 increments are too little history to call a
	// spike below 10× (minHistory): reported, not a candidate.
	if len(res.Anomalies) != 0 || len(res.TooLittleHistory) != 2 {
		t.Fatalf("anomalies = %s, too little history = %s", jsn(res.Anomalies), jsn(res.TooLittleHistory))
	}
	for _, h := range res.TooLittleHistory {
		a := h.Anomaly
		if pv(a.OptimizerStep) != 0 || pv(a.MicroStep) != 4 || fpv(a.Delta) != 6 || h.Samples != len(series) || h.MinSamples != minHistory {
			t.Fatalf("too little history = %s", jsn(h))
		}
	}
}

func jsn(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
