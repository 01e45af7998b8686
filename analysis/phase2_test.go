package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
)

func fl(v float64) model.Float { return model.Float(v) }

func ranks(vs ...float64) map[string]model.Float {
	m := map[string]model.Float{}
	for i, v := range vs {
		m[itoa12(i)] = fl(v)
	}
	return m
}

func microAnomaly(rank, opt, ms int, name string, norm, delta, final, dev float64) model.Anomaly {
	return model.Anomaly{Rank: rank, Step: opt*4 + ms, OptimizerStep: model.IntPtr(opt), MicroStep: model.IntPtr(ms),
		TargetName: name, Norm: fl(norm), Delta: model.FloatPtr(delta), SuspectFinalNorm: model.FloatPtr(final),
		DeviationRatio: fl(dev), Trigger: "micro_step_delta"}
}

// Bug 11: the cross-step rule compares truly adjacent steps and the same
// parameter. Candidates at opt 2 and opt 5 (not adjacent) are never
// compared with each other; a k+1 entry of another parameter is not
// compared either; with next_ranks the same parameter is.
func TestCrossStepAdjacentPairsSameParameter(t *testing.T) {
	p1 := &model.Phase1Result{DataKind: "micro_step", Sharding: model.ShardingAnalysis{HasMicroStep: true},
		Anomalies: []model.Anomaly{
			microAnomaly(0, 2, 1, fc1, 5, 4, 6, 4),
			microAnomaly(1, 5, 3, fc1, 90, 80, 90, 40),
		},
		TargetRankNorms: map[string]model.TargetRankNorms{
			"2": {TargetName: fc1, Ranks: ranks(6, 1, 1, 1)},
			"5": {TargetName: fc1, Ranks: ranks(30, 90, 30, 30)}, // 5× vs step 2 on every rank
		}}
	p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	// no qualifying pair → fallback: the largest deviation (opt 5)
	if pv(p2.RootOptStep) != 5 || len(p2.CrossStep) != 2 || p2.CrossStep[0].Qualifies || !strings.Contains(p2.CrossStep[0].Verdict, "no data at optimizer step 3") {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	if !strings.Contains(p2.Reasoning, "取异常偏离最大的 opt_step 5") {
		t.Fatalf("reasoning = %q", p2.Reasoning)
	}

	// consecutive steps, but the k+1 entry is another parameter
	p1.TargetRankNorms = map[string]model.TargetRankNorms{
		"2": {TargetName: fc1, Ranks: ranks(6, 1, 1, 1)},
		"3": {TargetName: qkv, Ranks: ranks(30, 90, 30, 30)},
	}
	p1.Anomalies[1] = microAnomaly(1, 3, 3, qkv, 90, 80, 90, 40)
	p2, _ = phase2Said(p1, nil, nil, DefaultPhase2Options())
	if pv(p2.RootOptStep) != 3 || !strings.Contains(p2.CrossStep[0].Verdict, "different parameters are not compared") {
		t.Fatalf("phase 2 = %s", jsn(p2.CrossStep))
	}

	// the same parameter at k+1 (next_ranks): ranks 1 and 2 grow ≥ 2×,
	// ranks 0 and 3 do not: 2/4 = 50% is below the seed's 60% (the
	// reference's 50% would qualify) → fallback to the largest deviation
	e := p1.TargetRankNorms["2"]
	e.NextStep, e.NextRanks = model.IntPtr(3), ranks(6, 5, 5, 1.5)
	p1.TargetRankNorms["2"] = e
	p2, _ = phase2Said(p1, nil, nil, DefaultPhase2Options())
	row := p2.CrossStep[0]
	if pv(p2.RootOptStep) != 3 || row.Qualifies || row.RanksOver != 2 || row.RanksTotal != 4 || row.Share != 0.5 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	opt := DefaultPhase2Options()
	opt.RankShare = 0.5
	p2, _ = phase2Said(p1, nil, nil, opt)
	if pv(p2.RootOptStep) != 2 || p2.RootCauseCoordinate.Rank != 0 || pv(p2.RootCauseCoordinate.MicroStep) != 1 {
		t.Fatalf("rank share 0.5: %s", jsn(p2))
	}
}

// Fewer than 3 common ranks: the pair is reported, not judged.
func TestCrossStepNeedsThreeCommonRanks(t *testing.T) {
	p1 := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{microAnomaly(0, 1, 2, fc1, 5, 4, 6, 4)},
		TargetRankNorms: map[string]model.TargetRankNorms{"1": {TargetName: fc1, Ranks: ranks(6, 1), NextStep: model.IntPtr(2), NextRanks: ranks(60, 10)}}}
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if len(p2.CrossStep) != 1 || p2.CrossStep[0].Qualifies || !strings.Contains(p2.Reasoning, "重叠 rank 不足 (2)") {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
}

// Bug 14: the reference raised KeyError 'delta' when a cross-device run on
// step-level data found every coordinate close. Example 1 as both sides.
func TestCrossDeviceAllCloseStepLevelNoKeyError(t *testing.T) {
	p1 := example1().run(t)
	p2, err := phase2Said(p1, p1, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if co == nil || co.Rank != 0 || float64(co.Norm) != 20 || co.TargetName != fc1 || pv(co.Step) != 5 {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	if !strings.Contains(p2.CrossDeviceVerification, "所有坐标 GPU 侧接近") || p2.Candidates[0].Verdict != "shared" ||
		fpv(p2.Candidates[0].Ratio) != 1 || !p2.Candidates[0].Selected {
		t.Fatalf("verification = %q candidates %s", p2.CrossDeviceVerification, jsn(p2.Candidates))
	}
}

// Step-level cross device: the baseline's same parameter is 10× smaller →
// device-specific; a missing parameter on the baseline → device-specific.
func TestCrossDeviceStepLevel(t *testing.T) {
	npu := example1().run(t)
	gb := example1()
	gb.d.Rows.Norm[10] = 1.02 // the baseline's step 5 fc1 has no spike …
	gpu := gb.run(t)
	if len(gpu.Anomalies) != 0 {
		t.Fatalf("baseline anomalies %s", jsn(gpu.Anomalies))
	}
	p2, _ := phase2Said(npu, gpu, nil, DefaultPhase2Options())
	if p2.RootCauseCoordinate.Rank != 0 || !strings.Contains(p2.CrossDeviceVerification, "GPU 同参数无异常 → NPU 独有") || p2.Candidates[0].Verdict != "device-specific" {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
	// … and when it lists the same parameter 10× smaller at the same rank
	gpu.Anomalies = []model.Anomaly{{Rank: 0, Step: 5, TargetName: fc1, Norm: 2, DeviationRatio: 2, Trigger: "iqr"}}
	p2, _ = phase2Said(npu, gpu, nil, DefaultPhase2Options())
	if fpv(p2.Candidates[0].Ratio) != 10 || !strings.Contains(p2.CrossDeviceVerification, "NPU/GPU=10.0x ≥ 2.0x") {
		t.Fatalf("phase 2 = %s", jsn(p2))
	}
}

// The baseline never moves the root step: the baseline grows at the same
// pair too (shared) — the root stays k; the coordinate walk skips a close
// candidate and takes the device-specific one (matched on rank, bug 16).
func TestBaselineLabelsButNeverMovesRoot(t *testing.T) {
	npu := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{
		microAnomaly(0, 1, 2, fc1, 30, 20, 31, 9),
		microAnomaly(2, 1, 3, qkv, 8, 6, 8, 5),
		microAnomaly(1, 2, 3, fc1, 90, 80, 90, 40),
	}, TargetRankNorms: map[string]model.TargetRankNorms{
		"1": {TargetName: fc1, Ranks: ranks(31, 4, 4, 4), NextStep: model.IntPtr(2), NextRanks: ranks(16, 90, 16, 16)},
	}}
	gpu := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{
		microAnomaly(0, 1, 2, fc1, 28, 19, 30, 9), // same rank: close (20/19)
		microAnomaly(5, 1, 2, fc1, 3, 1, 4, 2),    // other rank: would look device-specific
		microAnomaly(2, 1, 3, qkv, 2, 1, 2, 2),
	}, TargetRankNorms: map[string]model.TargetRankNorms{
		"1": {TargetName: fc1, Ranks: ranks(30, 4, 4, 4), NextStep: model.IntPtr(2), NextRanks: ranks(16, 16, 16, 16)},
	}}
	p2, err := phase2Said(npu, gpu, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	if pv(p2.RootOptStep) != 1 || p2.CrossStep[0].BaselineGrowth == nil || !*p2.CrossStep[0].BaselineGrowth {
		t.Fatalf("root/labels = %s", jsn(p2))
	}
	co := p2.RootCauseCoordinate
	if co.Rank != 2 || co.TargetName != qkv || p2.Candidates[0].Verdict != "shared" || p2.Candidates[1].Verdict != "device-specific" || fpv(p2.Candidates[1].Ratio) != 6 {
		t.Fatalf("coordinate = %s", jsn(p2))
	}
}

// Phase 2 never crashes: no Phase 1, empty anomalies, anomalies without
// target_rank_norms, a reference-made file without data_kind.
func TestPhase2NeverCrashes(t *testing.T) {
	for i, p1 := range []*model.Phase1Result{
		nil,
		{},
		{Anomalies: []model.Anomaly{microAnomaly(0, 1, 2, fc1, 5, 4, 6, 4)}},
		{Anomalies: []model.Anomaly{{Rank: 1, Step: 0, TargetName: fc1, Norm: 5, Trigger: "dump_abs_norm"}}},
		{Anomalies: []model.Anomaly{{Rank: 1, Step: 3, TargetName: fc1, Norm: 5, DeviationRatio: fl(0), Trigger: "iqr"}}},
	} {
		p2, err := phase2Said(p1, &model.Phase1Result{}, nil, DefaultPhase2Options())
		if err != nil || p2 == nil || p2.Reasoning == "" {
			t.Fatalf("case %d: %v %v", i, p2, err)
		}
		if p1 != nil && len(p1.Anomalies) > 0 && p2.RootCauseCoordinate == nil {
			t.Fatalf("case %d: no coordinate: %s", i, jsn(p2))
		}
	}
	p2, _ := phase2Said(&model.Phase1Result{Anomalies: []model.Anomaly{}}, nil, nil, DefaultPhase2Options())
	if p2.RootCauseCoordinate != nil || p2.RootOptStep != nil || p2.Reasoning != "Phase 1 无候选坐标" {
		t.Fatalf("empty = %s", jsn(p2))
	}
}

// A pin replaces the selection (unique suffix resolves the name); a pin
// that matches no data is an error.
func TestPinnedCoordinate(t *testing.T) {
	p1 := example2().run(t)
	pin, _ := model.ParseCoord("opt=2,ms=3,rank=1,param=linear_fc1.weight")
	p2, err := phase2Said(p1, nil, pin, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if !p2.Pinned || p2.Reasoning != "pinned by the user" || co.TargetName != fc1 || co.Rank != 1 || pv(co.MicroStep) != 3 ||
		pv(p2.RootOptStep) != 2 || fpv(co.Delta) != 80 || pv(co.Step) != 11 {
		t.Fatalf("pinned = %s", jsn(p2))
	}
	// a valid coordinate that is no candidate: taken as given
	pin, _ = model.ParseCoord("opt=0,ms=1,rank=2,param=" + qkv)
	if p2, err = phase2Said(p1, nil, pin, DefaultPhase2Options()); err != nil || p2.RootCauseCoordinate.Rank != 2 || pv(p2.RootOptStep) != 0 {
		t.Fatalf("pinned = %v %v", p2, err)
	}
	for _, bad := range []string{"opt=2,rank=9,param=" + fc1, "opt=7,rank=0,param=" + fc1, "opt=1,ms=4,rank=0,param=" + fc1,
		"opt=1,rank=0,param=nosuch.weight", "opt=1,rank=0,param=weight", "step=99"} {
		pin, err := model.ParseCoord(bad)
		if err != nil {
			t.Fatal(err)
		}
		_, err = phase2Said(p1, nil, pin, DefaultPhase2Options())
		var pe *PinError
		if !errors.As(err, &pe) {
			t.Fatalf("pin %q: err = %v", bad, err)
		}
	}
}

// Every candidate of the root step gets its own verdict against the
// baseline, also those after the selected one (the table shows them all).
func TestEveryCandidateGetsABaselineVerdict(t *testing.T) {
	npu := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{
		microAnomaly(0, 1, 2, fc1, 30, 20, 31, 9),
		microAnomaly(2, 1, 3, qkv, 8, 6, 8, 5),
		microAnomaly(3, 1, 1, fc1, 7, 5, 7, 4),
	}}
	gpu := &model.Phase1Result{DataKind: "micro_step", Anomalies: []model.Anomaly{
		microAnomaly(0, 1, 2, fc1, 28, 19, 30, 9), // close: shared
		microAnomaly(2, 1, 3, qkv, 2, 1, 2, 2),    // 6×: device-specific, selected
		microAnomaly(3, 1, 1, fc1, 7, 5, 7, 4),    // equal: shared, after the selection
	}}
	p2, err := phase2Said(npu, gpu, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, c := range p2.Candidates {
		got[c.Anomaly.TargetName+"@"+strconv.Itoa(c.Anomaly.Rank)] = fmt.Sprintf("%s/%v", c.Verdict, c.Selected)
	}
	want := map[string]string{fc1 + "@0": "shared/false", qkv + "@2": "device-specific/true", fc1 + "@3": "shared/false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("verdicts = %v, want %v", got, want)
	}
}
