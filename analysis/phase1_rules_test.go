package analysis

import (
	"math"
	"strings"
	"testing"

	"spikescope/model"
)

// Pure noise: 8 ranks × 500 parameters × 64 micro steps, ±10%, window 8 →
// no candidate (the reference flagged 29); a 3× micro-batch hidden in the
// same noise is found at its exact coordinate. Both accumulation models.
func TestNoiseYieldsNothingAndHidden3xSpikeIsFound(t *testing.T) {
	t.Parallel()
	for _, corr := range []bool{false, true} {
		run := accumRun{Ranks: 8, Params: 500, Steps: 64, W: 8, Noise: 0.1, Correlated: corr, Seed: 1}
		res := run.build().run(t)
		if res.Sharding.AccumulationWindow != 8 || res.Sharding.WindowPhase != 0 {
			t.Fatalf("correlated=%v: window %d phase %d", corr, res.Sharding.AccumulationWindow, res.Sharding.WindowPhase)
		}
		if len(res.Anomalies) != 0 {
			t.Fatalf("correlated=%v: pure noise gave %d candidates, first %s", corr, len(res.Anomalies), jsn(res.Anomalies[0]))
		}
		for _, ms := range []int{0, 5, 7} {
			run.Spike = func(r, p, opt, m int) float64 {
				if r == 5 && p == 123 && opt == 3 && m == ms {
					return 3
				}
				return 1
			}
			res = run.build().run(t)
			if len(res.Anomalies) != 1 {
				t.Fatalf("correlated=%v ms=%d: %d candidates: %s", corr, ms, len(res.Anomalies), jsn(res.Anomalies))
			}
			a := res.Anomalies[0]
			if a.Rank != 5 || !strings.HasSuffix(a.TargetName, "param3.weight") || !strings.HasPrefix(a.TargetName, "layers.15.") ||
				pv(a.OptimizerStep) != 3 || pv(a.MicroStep) != ms || a.Step != 3*8+ms {
				t.Fatalf("correlated=%v ms=%d: candidate %s", corr, ms, jsn(a))
			}
		}
	}
}

// A 3–5× spike on a small parameter is found although other parameters
// are naturally far larger (nothing is preselected by absolute norm).
func TestSmallParameterSpikeFoundAmongLargeOnes(t *testing.T) {
	run := accumRun{Ranks: 4, Params: 40, Steps: 48, W: 4, Noise: 0.1, Seed: 3}
	b := run.build()
	// parameter 0 is scaled down 1000×, then spiked 4× at rank 2, opt 5, ms 1
	r := &b.d.Rows
	for i := range r.Len() {
		if r.TargetOf(i) == 0 {
			r.Norm[i] /= 1000
		}
	}
	for i := range r.Len() {
		if r.TargetOf(i) == 0 && r.RankOf(i) == 2 && r.Step[i] >= 21 && r.Step[i] < 24 {
			// rebuild the cumulative norm of opt 5 with micro-batch 1 ×4
			_ = i
		}
	}
	spiked := accumRun{Ranks: 4, Params: 40, Steps: 48, W: 4, Noise: 0.1, Seed: 3, Spike: func(rk, p, opt, ms int) float64 {
		if rk == 2 && p == 0 && opt == 5 && ms == 1 {
			return 4
		}
		return 1
	}}.build()
	sr := &spiked.d.Rows
	for i := range sr.Len() {
		if sr.TargetOf(i) == 0 {
			sr.Norm[i] /= 1000
		}
	}
	res := spiked.run(t)
	if len(res.Anomalies) != 1 || res.Anomalies[0].Rank != 2 || res.Anomalies[0].Step != 21 || res.Anomalies[0].TargetName != spiked.d.Targets[0].Name {
		t.Fatalf("anomalies = %s", jsn(res.Anomalies))
	}
}

// The window and its phase are found for W = 2, 4, 8, 16 with √k growth
// (resets of only ~√W×), also when the first recorded step is not a window
// start; micro steps then restart at every boundary.
func TestAccumulationWindowAndPhase(t *testing.T) {
	for _, W := range []int{2, 4, 8, 16} {
		for _, c := range []struct{ phase, first int }{{0, 0}, {1, 0}, {W - 1, 3}, {0, 5}} {
			if c.phase >= W {
				continue
			}
			run := accumRun{Ranks: 4, Params: 20, Steps: 6 * W, W: W, Phase: c.phase, First: c.first, Noise: 0.1, Seed: uint64(W)}
			b := run.build()
			ix := buildSeriesIndex(b.d, 0)
			w := accumulationWindow(b.d, ix, 0, 0)
			if w.W != W || w.Phase != c.phase || w.Bounds != nil {
				t.Fatalf("W=%d phase=%d first=%d: got W=%d phase=%d bounds=%v notes=%v", W, c.phase, c.first, w.W, w.Phase, w.Bounds, w.Notes)
			}
			m := stepMapper{W: w.W, Base: w.Base}
			for s := c.first; s < c.first+run.Steps; s++ {
				o, ms := m.mapStep(int32(s), model.NoMicro)
				wantMs := ((s-c.phase)%W + W) % W
				if ms != wantMs || o < 0 {
					t.Fatalf("W=%d phase=%d first=%d: step %d → (%d, %d), want ms %d", W, c.phase, c.first, s, o, ms, wantMs)
				}
				if wantMs == 0 && s > c.first {
					if po, _ := m.mapStep(int32(s-1), model.NoMicro); po != o-1 {
						t.Fatalf("step %d starts opt %d but step %d is in opt %d", s, o, s-1, po)
					}
				}
			}
			if _, ok := reasonOf[model.WindowPartial](w.Notes); c.first != w.Base && !ok {
				t.Fatalf("W=%d: partial window not explained: %v", W, w.Notes)
			}
		}
	}
}

// grad_reduced rows (one per optimizer step, at its first micro step) give
// the window directly and never join the grad_unreduced curves: their
// large values would otherwise break every curve at its first micro step.
func TestGradReducedNeverEntersUnreducedCurve(t *testing.T) {
	run := accumRun{Ranks: 4, Params: 30, Steps: 40, W: 4, Phase: 2, Noise: 0.1, Reduced: true, Seed: 9}
	b := run.build()
	res := b.run(t)
	if res.Metric != "grad_unreduced" || res.Sharding.AccumulationWindow != 4 || res.Sharding.WindowPhase != 2 {
		t.Fatalf("metric %q sharding %s", res.Metric, jsn(res.Sharding))
	}
	if r, ok := reasonOf[model.WindowReduced](res.ReasoningReasons); !ok || r.W != 4 || r.Phase != 2 {
		t.Fatalf("reasoning = %v", res.ReasoningReasons)
	}
	if len(res.Anomalies) != 0 {
		t.Fatalf("anomalies = %s", jsn(res.Anomalies))
	}
	// the curves hold only grad_unreduced rows
	ix := buildSeriesIndex(b.d, 0)
	for _, i := range ix.order {
		if b.d.Rows.MetricOf(int(i)) != 0 {
			t.Fatalf("row %d of metric %d in a grad_unreduced series", i, b.d.Rows.MetricOf(int(i)))
		}
	}
	if ix.rows != 4*30*40 {
		t.Fatalf("rows = %d", ix.rows)
	}
}

// Step-level data (each step a complete gradient, ±10% noise, a slow
// trend) gives no accumulation: window 0 and a step-level pass unit.
func TestStepLevelDataHasNoAccumulation(t *testing.T) {
	for _, trend := range []float64{0, 0.01, -0.01} {
		run := accumRun{Ranks: 4, Params: 20, Steps: 60, W: 1, Noise: 0.1, Seed: 4}
		b := newMon(model.FormatTrendDB)
		rng := newRng(5)
		for r := 0; r < run.Ranks; r++ {
			for p := 0; p < run.Params; p++ {
				for s := 0; s < run.Steps; s++ {
					b.add(r, s, int(model.NoMicro), "p"+itoa12(p), 0, (1+float64(p))*(1+trend*float64(s))*(1+0.1*(2*rng.Float64()-1)))
				}
			}
		}
		res := b.run(t)
		if res.Sharding.AccumulationWindow != 0 || res.Sharding.AccumulationDetected || res.Sharding.PassUnitReason != (model.PassUnit{Kind: model.PassStep}) || res.DataKind != "step" {
			t.Fatalf("trend %v: sharding %s, reasoning %v", trend, jsn(res.Sharding), res.ReasoningReasons)
		}
		if len(res.Anomalies) != 0 {
			t.Fatalf("trend %v: %d anomalies in noise", trend, len(res.Anomalies))
		}
	}
}

// --window overrides the detection (and 1 forces step level).
func TestWindowOverride(t *testing.T) {
	b := accumRun{Ranks: 2, Params: 10, Steps: 32, W: 4, Phase: 1, Noise: 0.1, Seed: 2}.build()
	opt := DefaultPhase1Options()
	opt.Window = 8
	res := Phase1(b.d, opt)
	if res.Sharding.AccumulationWindow != 8 || !res.Sharding.WindowOverridden {
		t.Fatalf("sharding = %s", jsn(res.Sharding))
	}
	opt.Window = 1
	res = Phase1(b.d, opt)
	if res.Sharding.AccumulationWindow != 0 || res.DataKind != "step" {
		t.Fatalf("window 1: %s", jsn(res.Sharding))
	}
}

// A NaN (or Inf) appearing first on one rank is the first candidate, even
// when a larger explosion follows on every rank; Phase 2 roots there.
func TestNonFiniteFirstOnOneRankIsFirstCandidate(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1)} {
		b := accumRun{Ranks: 6, Params: 12, Steps: 48, W: 4, Noise: 0.1, Seed: 11, Spike: func(r, p, opt, ms int) float64 {
			if opt == 7 {
				return 30 // explosion everywhere later
			}
			return 1
		}}.build()
		rows := &b.d.Rows
		for i := range rows.Len() {
			// rank 2, parameter 4: non-finite from opt 4, ms 1 (global step 17) on
			if rows.RankOf(i) == 2 && rows.TargetOf(i) == 4 && rows.Step[i] >= 17 {
				rows.Norm[i] = bad
			}
		}
		res := b.run(t)
		if len(res.Anomalies) == 0 {
			t.Fatal("no candidates")
		}
		a := res.Anomalies[0]
		if !a.NonFinite || a.Trigger != "nonfinite" || a.Rank != 2 || a.Step != 17 || pv(a.OptimizerStep) != 4 || pv(a.MicroStep) != 1 || a.TargetName != b.d.Targets[4].Name {
			t.Fatalf("first = %s", jsn(a))
		}
		nf := 0
		for _, x := range res.Anomalies {
			if x.NonFinite {
				nf++
			}
		}
		if nf != 1 {
			t.Fatalf("%d non-finite candidates, want 1 (the first of the series)", nf)
		}
		p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
		if err != nil {
			t.Fatal(err)
		}
		co := p2.RootCauseCoordinate
		if pv(p2.RootOptStep) != 4 || co.Rank != 2 || pv(co.MicroStep) != 1 || co.TargetName != b.d.Targets[4].Name {
			t.Fatalf("phase 2 = %s", jsn(p2))
		}
	}
}

// Bug 13: NULL norms (NaN) never crash window detection or detection.
func TestNullNormsDoNotCrash(t *testing.T) {
	b := example2()
	rows := &b.d.Rows
	for i := range rows.Len() {
		if rows.Step[i] == 2 && rows.RankOf(i) == 2 {
			rows.Norm[i] = math.NaN()
		}
	}
	res := b.run(t)
	if res.Sharding.AccumulationWindow != 4 {
		t.Fatalf("window = %d", res.Sharding.AccumulationWindow)
	}
	if a := res.Anomalies[0]; !a.NonFinite || a.Rank != 2 || a.Step != 2 || pv(a.OptimizerStep) != 0 || pv(a.MicroStep) != 2 {
		t.Fatalf("first = %s", jsn(a))
	}
	if _, err := jsonRoundTrip(res); err != nil {
		t.Fatal(err)
	}
}

// An all-NaN parameter gives one candidate, not one per row or rank.
func TestAllNaNSeriesGivesOneCandidate(t *testing.T) {
	b := example1()
	for r := 0; r < 4; r++ {
		for s := 0; s < 6; s++ {
			b.add(r, s, int(model.NoMicro), "dead.weight", 0, math.NaN())
		}
	}
	res := b.run(t)
	n := 0
	for _, a := range res.Anomalies {
		if a.TargetName == "dead.weight" {
			n++
			if !a.NonFinite || a.Rank != 0 || a.Step != 0 {
				t.Fatalf("candidate = %s", jsn(a))
			}
		}
	}
	if n != 1 || len(res.Anomalies) != 2 {
		t.Fatalf("%d dead candidates, %d total", n, len(res.Anomalies))
	}
	if r, ok := reasonOf[model.NonFiniteOnsets](res.ReasoningReasons); !ok || r.Whole != 1 {
		t.Fatalf("reasoning = %v", res.ReasoningReasons)
	}
}

// Earliest beats largest: a small fault at optimizer step k (one rank, one
// micro step) followed by a larger explosion on most ranks at k+1 → root k,
// at the faulty rank and micro step.
func TestEarliestBeatsLargest(t *testing.T) {
	const k = 6
	b := accumRun{Ranks: 8, Params: 24, Steps: 64, W: 8, Noise: 0.1, Seed: 21, Spike: func(r, p, opt, ms int) float64 {
		switch {
		case opt == k && r == 3 && p == 10 && ms == 5:
			return 4 // the fault
		case opt == k+1 && r != 0 && r != 1:
			return 25 // the propagated explosion: 6 of 8 ranks, every parameter
		}
		return 1
	}}.build()
	res := b.run(t)
	a := res.Anomalies[0]
	if pv(a.OptimizerStep) != k || a.Rank != 3 || pv(a.MicroStep) != 5 || a.TargetName != b.d.Targets[10].Name {
		t.Fatalf("first candidate = %s", jsn(a))
	}
	bigger := 0
	for _, x := range res.Anomalies {
		if pv(x.OptimizerStep) == k+1 && x.DeviationRatio > a.DeviationRatio {
			bigger++
		}
	}
	if bigger == 0 {
		t.Fatal("test data should hold larger candidates at k+1")
	}
	p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if pv(p2.RootOptStep) != k || co.Rank != 3 || pv(co.MicroStep) != 5 || co.TargetName != b.d.Targets[10].Name || pv(co.Step) != k*8+5 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	row := p2.CrossStep[0]
	if row.From != k || row.To != k+1 || row.TargetName != b.d.Targets[10].Name || !row.Qualifies || row.RanksOver != 6 || row.RanksTotal != 8 {
		t.Fatalf("cross step = %s", jsn(p2.CrossStep))
	}
}

// Bug 9: a curve "nan, 1, 2, 30" among normal ones. The reference's
// 10×-upper-median rule on two positive deltas could never fire; here the
// NaN is the first candidate of the series and the jump to 30 is found.
func TestCurveStartingWithNaNStillJudged(t *testing.T) {
	b := newMon(model.FormatCSV)
	b.d.ExplicitMicro = true
	for r := 0; r < 4; r++ {
		for step := 1; step <= 3; step++ {
			norms := []float64{1, 2, 3, 4}
			if r == 2 && step == 2 {
				norms = []float64{math.NaN(), 1, 2, 30}
			}
			for ms, n := range norms {
				b.add(r, step, ms, fc1, 0, n)
			}
		}
	}
	res := b.run(t)
	if len(res.Anomalies) != 2 {
		t.Fatalf("anomalies = %s", jsn(res.Anomalies))
	}
	nf, sp := res.Anomalies[0], res.Anomalies[1]
	if !nf.NonFinite || nf.Rank != 2 || pv(nf.OptimizerStep) != 2 || pv(nf.MicroStep) != 0 {
		t.Fatalf("first = %s", jsn(nf))
	}
	if sp.NonFinite || sp.Rank != 2 || pv(sp.OptimizerStep) != 2 || pv(sp.MicroStep) != 3 || fpv(sp.Delta) != 28 {
		t.Fatalf("second = %s", jsn(sp))
	}
}

// Multi-step dumps use the step-level rule across steps (bug 15: they are
// not sniffed as single-step dumps) and the cross-step rule on steps.
func TestMultiStepDumpUsesStepLevelRule(t *testing.T) {
	b := newMon(model.FormatDump, "grad_norm")
	for step := 0; step < 6; step++ {
		for r := 0; r < 4; r++ {
			for p := 0; p < 5; p++ {
				v := float64(1+p) * (1 + 0.02*float64((r+step+p)%3))
				if step == 3 && r == 1 && p == 2 {
					v *= 6
				}
				if step == 4 {
					v *= 3 // every rank grows after the faulty step
				}
				b.add(r, step, int(model.NoMicro), "Module.layers."+itoa12(p)+".weight", 0, v)
			}
		}
	}
	res := b.run(t)
	if res.DataKind != "dump" || len(res.Anomalies) == 0 {
		t.Fatalf("result = %s", jsn(res))
	}
	a := res.Anomalies[0]
	if a.Step != 3 || a.Rank != 1 || a.TargetName != "Module.layers.2.weight" || a.Trigger == "dump_abs_norm" {
		t.Fatalf("first = %s", jsn(a))
	}
	p2, _ := phase2Said(res, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || p2.RootCauseCoordinate.Rank != 1 || !p2.CrossStep[0].Qualifies || p2.Thresholds["rank_share"] != 0.6 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
}

// Phase 1 never crashes on empty or missing data.
func TestPhase1EmptyData(t *testing.T) {
	for _, d := range []*model.MonitorData{nil, {}, {Metrics: []string{"grad_unreduced"}, Targets: []model.Target{{Name: "w"}}}} {
		res := Phase1(d, DefaultPhase1Options())
		if res == nil || res.Anomalies == nil || len(res.Anomalies) != 0 || len(res.MissingReasons) == 0 {
			t.Fatalf("result = %s", jsn(res))
		}
		if _, err := phase2Said(res, nil, nil, DefaultPhase2Options()); err != nil {
			t.Fatal(err)
		}
	}
}

// Measurement-like noise on the cumulative norms themselves (±10–20%,
// independent per micro step) makes late increments sqrt(N_k²−N_{k−1}²)
// pure noise: per-micro-step pools and the decrease guard keep them from
// becoming candidates, and the window is still found.
func TestNoisyCumulativeNormsGiveNoCandidates(t *testing.T) {
	t.Parallel()
	for _, W := range []int{4, 16} {
		for _, noise := range []float64{0.1, 0.2} {
			b := newMon(model.FormatTrendDB)
			rng := newRng(uint64(W))
			for r := 0; r < 8; r++ {
				for p := 0; p < 50; p++ {
					for s := 0; s < 8*W; s++ {
						m := (s + 3) % W
						b.add(r, s, int(model.NoMicro), "p"+itoa12(p), 0, float64(1+p)*math.Sqrt(float64(m+1))*(1+noise*rng.NormFloat64()))
					}
				}
			}
			res := b.run(t)
			if res.Sharding.AccumulationWindow != W || res.Sharding.WindowPhase != W-3 || len(res.Anomalies) != 0 {
				t.Fatalf("W=%d noise %.1f: window %d phase %d, %d candidates", W, noise, res.Sharding.AccumulationWindow, res.Sharding.WindowPhase, len(res.Anomalies))
			}
		}
	}
}

// The explosion at k+1 may spare the faulty parameter itself: the focus of
// step k then does not grow, but the focus of step k+1 (compared with its
// own norms at k: the same parameter on adjacent steps) does → root k.
func TestEarliestBeatsLargestWhenExplosionSparesFaultyParameter(t *testing.T) {
	const k = 4
	b := accumRun{Ranks: 8, Params: 24, Steps: 56, W: 8, Noise: 0.1, Seed: 5, Spike: func(r, p, opt, ms int) float64 {
		switch {
		case opt == k && r == 6 && p == 10 && ms == 2:
			return 4
		case opt == k+1 && r >= 2 && p != 10:
			return 20
		}
		return 1
	}}.build()
	res := b.run(t)
	p2, err := phase2Said(res, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if pv(p2.RootOptStep) != k || co.Rank != 6 || pv(co.MicroStep) != 2 || co.TargetName != b.d.Targets[10].Name {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	if len(p2.CrossStep) < 2 || p2.CrossStep[0].Qualifies || p2.CrossStep[0].TargetName != b.d.Targets[10].Name ||
		!p2.CrossStep[1].Qualifies || p2.CrossStep[1].From != k || p2.CrossStep[1].TargetName == b.d.Targets[10].Name || p2.CrossStep[1].RanksOver != 6 {
		t.Fatalf("cross step = %s", jsn(p2.CrossStep))
	}
}
