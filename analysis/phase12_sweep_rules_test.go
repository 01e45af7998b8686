package analysis

import (
	"math"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// A decaying warm-up moves every rank together: its steps are the run's
// level, not candidates — in step-level and in accumulated data — while a
// one-rank fault after it is still the first candidate.
func TestEarliestIgnoresWarmup(t *testing.T) {
	t.Parallel()
	for _, w := range []int{1, 4} {
		clean := synth.GenerateSweep(synth.Sweep{W: w, Ranks: 8, Layers: 4, Steps: 16, Warmup: 10, Seed: 3})
		if p1 := Phase1(clean.Monitor(0), DefaultPhase1Options()); len(p1.Anomalies) != 0 {
			a := p1.Anomalies[0]
			t.Errorf("W=%d warm-up only: %d candidates, first opt %d rank %d %s", w, len(p1.Anomalies), a.OptStep(), a.Rank, a.TargetName)
		}
		r := synth.GenerateSweep(synth.Sweep{W: w, Ranks: 8, Layers: 4, Steps: 16, Warmup: 10, Seed: 3, Explode: 1,
			Fault: &synth.SweepFault{T: 4, Micro: w - 1, Rank: 2, Param: "mid", Scale: 4, Rank2: -1}})
		p1 := Phase1(r.Monitor(0), DefaultPhase1Options())
		if len(p1.Anomalies) == 0 {
			t.Fatalf("W=%d: fault after warm-up not found", w)
		}
		a := p1.Anomalies[0]
		if a.OptStep() != 4 || a.Rank != 2 || a.TargetName != r.FaultName() {
			t.Errorf("W=%d: first candidate opt %d rank %d %s, want opt 4 rank 2 %s", w, a.OptStep(), a.Rank, a.TargetName, r.FaultName())
		}
	}
}

// stepLevelFactors: a level that rises and holds (loss-scale doubling, a
// trend) becomes the step's level; a one-step common rise (an explosion)
// keeps the preceding level, so it stays visible.
func TestStepLevelFactorsShiftVersusSpike(t *testing.T) {
	levels := []float64{1, 1, 1, 1, 2, 2, 2, 2, 30, 2, 2, 2}
	var ts []int32
	var vals []float64
	for st, l := range levels {
		for r := 0; r < 4; r++ {
			ts = append(ts, int32(st))
			vals = append(vals, l*(1+0.01*float64(r)))
		}
	}
	var s levelScratch
	fac, jumps := stepLevelFactors(ts, vals, DefaultMinEffect, nil, &s)
	if jumps != 1 {
		t.Fatalf("jumps = %d, want 1 (step 8 only)", jumps)
	}
	// factors are relative to the median reference level (2); step 8 keeps
	// the median of the 8 references before it (1,1,1,1,2,2,2,2 → 1.5)
	want := map[int]float64{0: 0.5, 4: 1, 8: 0.75, 11: 1}
	for st, w := range want {
		if got := fac[4*st]; math.Abs(got-w) > 0.02 {
			t.Errorf("step %d: factor %.3f, want %.3f", st, got, w)
		}
	}
}

// A device that degrades at step 3 and stays degraded: the fallback's
// largest deviation may be any later step; the anomaly starts at 3.
func TestFallbackPersistentStart(t *testing.T) {
	mk := func(step int, dev float64) model.Anomaly {
		return model.Anomaly{Rank: 2, Step: step, TargetName: fc1, Norm: model.Float(dev), DeviationRatio: model.Float(dev),
			OptimizerStep: model.IntPtr(step), MicroStep: model.IntPtr(0), Delta: model.FloatPtr(dev)}
	}
	p1 := &model.Phase1Result{DataKind: kindMicro, Anomalies: []model.Anomaly{mk(3, 2.9), mk(4, 3.1), mk(5, 3.0), mk(6, 3.4), mk(8, 5)}}
	p1.Anomalies[4].Rank = 5 // another rank at step 8, not contiguous
	p1.Anomalies[4].TargetName = qkv
	p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if pv(p2.RootOptStep) != 8 {
		t.Errorf("root %d, want 8 (largest deviation, no run behind it)", pv(p2.RootOptStep))
	}
	p1.Anomalies = p1.Anomalies[:4]
	p2, _ = phase2Said(p1, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || p2.RootCauseCoordinate == nil || pv(p2.RootCauseCoordinate.OptimizerStep) != 3 {
		t.Errorf("root %d, want 3 (start of the persisting anomaly peaking at 6)", pv(p2.RootOptStep))
	}
}

// An explosion at an optimizer-step boundary makes the reset rise on most
// series: such large rises are not evidence against the boundary, so a
// 3-step run still has window 4 (it was read as one window of 8).
func TestWindowExplosionAtBoundary(t *testing.T) {
	r := synth.GenerateSweep(synth.SweepWith("steps3", func(c *synth.Sweep) { c.Steps, c.Fault.T = 3, 1 }))
	p1 := Phase1(r.Monitor(0), DefaultPhase1Options())
	if sa := p1.Sharding; sa.AccumulationWindow != 4 || sa.WindowPhase != 0 || sa.OptimizerStepCount != 3 {
		t.Errorf("window %d phase %d, %d optimizer steps; want 4, 0, 3", sa.AccumulationWindow, sa.WindowPhase, sa.OptimizerStepCount)
	}
}

// prescreenExcept/judgeIn: values left out of the pool are judged against
// the others without any exclusion; with too few others left, the whole
// pool is the baseline again (and says so).
func TestPrescreenExcept(t *testing.T) {
	vals := []float64{1, 1.1, 0.9, 1.05, 0.95, 1.02, 3, 3.2, 3.1}
	skip := []bool{false, false, false, false, false, false, true, true, true}
	j := robustJudge{rule: robustRule{IQRMult: 5, MADMult: 10, MinEffect: 1.5}}
	cand, left := j.prescreenExcept(vals, skip, nil)
	if !left || len(cand) != 3 {
		t.Fatalf("candidates %v left %v, want the three skipped values", cand, left)
	}
	vd := j.judgeIn(3, false)
	if !vd.Flagged || math.Abs(vd.Median-1.01) > 1e-9 {
		t.Errorf("verdict %+v, want flagged against median 1.01", vd)
	}
	// the same values in the pool: the spikes lift its median
	j.prescreen(vals, nil)
	if vd := j.judge(3); !(vd.Median > 1.02) {
		t.Errorf("median %g with the spikes in the pool", vd.Median)
	}
	_, left = j.prescreenExcept([]float64{1, 5, 6}, []bool{false, true, true}, nil)
	if left {
		t.Error("one value left: the whole pool must be the baseline")
	}
}

// Sparse step numbers (a step interval of 1000) index the distinct steps:
// the same levels, jumps and factors as consecutive steps.
func TestStepLevelFactorsSparseSteps(t *testing.T) {
	levels := []float64{10, 5, 2, 1, 1, 1, 30, 1, 1}
	var ts, dense []int32
	var vals []float64
	for st, l := range levels {
		for r := 0; r < 3; r++ {
			ts = append(ts, int32(1000*st))
			dense = append(dense, int32(st))
			vals = append(vals, l)
		}
	}
	var s levelScratch
	fs, js := stepLevelFactors(ts, vals, DefaultMinEffect, nil, &s)
	if len(s.steps) != len(levels) || !s.isJump(6000) || s.isJump(0) || s.isJump(6001) {
		t.Fatalf("distinct steps %v, jump at 6000 %v", s.steps, s.isJump(6000))
	}
	fd, jd := stepLevelFactors(dense, vals, DefaultMinEffect, nil, &s)
	if js != 1 || jd != 1 {
		t.Fatalf("jumps sparse %d dense %d, want 1 (the one-step common rise)", js, jd)
	}
	for j := range fs {
		if fs[j] != fd[j] {
			t.Fatalf("factor %d: sparse %g dense %g", j, fs[j], fd[j])
		}
	}
	// warm-up is its own level; the spike keeps the median reference of the
	// steps before it (10, 5, 2, 1, 1, 1 → 1.5)
	if fs[0] != 10 || fs[18] != 1.5 {
		t.Errorf("factors %v", fs)
	}
}

// One value per step (one rank, no micro steps): the level would be the
// value itself, so levels are not used and a spike stays visible.
func TestStepLevelFactorsNeedSeveralValues(t *testing.T) {
	ts := []int32{0, 1, 2, 3, 4, 5}
	vals := []float64{1, 1.1, 0.9, 4, 1, 1.05}
	var s levelScratch
	f, j := stepLevelFactors(ts, vals, DefaultMinEffect, nil, &s)
	for _, x := range f {
		if x != 1 {
			t.Fatalf("factors %v, want all 1", f)
		}
	}
	if j != 0 || s.isJump(3) {
		t.Errorf("jumps %d", j)
	}
}

// adjacentSteps pairs a step with the next RECORDED one (a monitor with a
// step interval has no k+1); the sweeps package checks the rule on a
// written run.
func TestAdjacentStepsWithInterval(t *testing.T) {
	if p, n := adjacentSteps([]int{0, 5, 10, 15}, 5); p != 0 || n != 10 {
		t.Errorf("adjacentSteps(…, 5) = %d, %d; want 0, 10", p, n)
	}
	if p, n := adjacentSteps([]int{3, 4, 5}, 4); p != 3 || n != 5 {
		t.Errorf("adjacentSteps(…, 4) = %d, %d; want 3, 5", p, n)
	}
}
