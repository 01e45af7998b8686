package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
)

// demoPhase1 writes the Phase 1 JSON of the demo's npu (or gpu) trend.db.
func demoPhase1(t *testing.T, side string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), side+".json")
	var so, se bytes.Buffer
	if code := run([]string{"detect", filepath.Join("testdata/demo", side, "trend.db"), "-o", out}, &so, &se); code != 0 {
		t.Fatalf("detect %s: exit %d %s", side, code, se.String())
	}
	return out
}

func selectRun(t *testing.T, args ...string) (*model.Phase2Result, int, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"select"}, args...), &out, &errb)
	if code != 0 {
		return nil, code, errb.String()
	}
	var res model.Phase2Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("stdout is not pure JSON: %v\n%s", err, out.String())
	}
	return &res, code, errb.String()
}

// The demo: the cross-step rule roots at opt 5 (6 of 8 ranks grow ≥ 2× at
// 5 → 6), the coordinate is the planted fault; with the baseline it is
// device-specific; a pin replaces it.
func TestSelectDemo(t *testing.T) {
	npu, gpu := demoPhase1(t, "npu"), demoPhase1(t, "gpu")
	res, code, se := selectRun(t, "--phase1", npu)
	if code != 0 {
		t.Fatalf("exit %d %s", code, se)
	}
	co := res.RootCauseCoordinate
	if res.RootOptStep == nil || *res.RootOptStep != 5 || co.Rank != 3 || *co.MicroStep != 2 || *co.Step != 22 ||
		co.TargetName != "layers.2.mlp.linear_fc2.weight" || res.Pinned || res.Mode != "单设备" {
		t.Fatalf("select = %+v %+v", res, co)
	}
	if !res.CrossStep[0].Qualifies || res.CrossStep[0].From != 5 || res.CrossStep[0].RanksOver != 6 || !strings.Contains(res.Reasoning, "根因在 opt_step 5") {
		t.Fatalf("cross step %+v reasoning %q", res.CrossStep, res.Reasoning)
	}
	res, _, _ = selectRun(t, "--npu", npu, "--gpu", gpu)
	if *res.RootOptStep != 5 || res.RootCauseCoordinate.Rank != 3 || !strings.Contains(res.CrossDeviceVerification, "NPU 独有") || res.Mode != "NPU (+GPU 标杆)" {
		t.Fatalf("cross device = %+v", res)
	}
	res, _, _ = selectRun(t, "--phase1", npu, "--pin", "opt=6,ms=0,rank=7,param=layers.5.input_layernorm.weight")
	if !res.Pinned || res.Reasoning != "pinned by the user" || *res.RootOptStep != 6 || res.RootCauseCoordinate.Rank != 7 {
		t.Fatalf("pinned = %+v", res)
	}
	// rank-share override: with 0.8 no pair qualifies → the seed's fallback
	res, _, _ = selectRun(t, "--phase1", npu, "--rank-share", "0.8")
	if res.CrossStep[0].Qualifies || !strings.Contains(res.Reasoning, "取异常偏离最大的 opt_step") {
		t.Fatalf("rank share 0.8 = %+v", res)
	}
}

// --lang says every text of the JSON in one language; without it the
// reasoning, mode and cross-device verification are the reference
// scripts' Chinese and the decisions English, as before.
func TestSelectLang(t *testing.T) {
	npu, gpu := demoPhase1(t, "npu"), demoPhase1(t, "gpu")
	han := func(s string) bool {
		for _, r := range s {
			if r >= 0x4e00 && r <= 0x9fff {
				return true
			}
		}
		return false
	}
	def, _, _ := selectRun(t, "--npu", npu, "--gpu", gpu)
	en, _, _ := selectRun(t, "--npu", npu, "--gpu", gpu, "--lang", "en")
	zh, _, _ := selectRun(t, "--npu", npu, "--gpu", gpu, "--lang", "zh")
	if def == nil || en == nil || zh == nil {
		t.Fatal("select failed")
	}
	if !han(def.Reasoning) || !han(def.Mode) || !han(def.CrossDeviceVerification) || han(def.Decisions[0]) {
		t.Errorf("default: reasoning %q mode %q verification %q decision %q", def.Reasoning, def.Mode, def.CrossDeviceVerification, def.Decisions[0])
	}
	texts := func(r *model.Phase2Result) []string {
		out := append([]string{r.Reasoning, r.Mode, r.CrossDeviceVerification}, r.Decisions...)
		for _, c := range r.CrossStep {
			out = append(out, c.Verdict)
		}
		return out
	}
	for _, s := range texts(en) {
		if han(s) {
			t.Errorf("--lang en: %q", s)
		}
	}
	for _, s := range texts(zh) {
		if !han(s) {
			t.Errorf("--lang zh: %q", s)
		}
	}
	if !slices.Equal(def.Decisions, en.Decisions) || len(zh.Decisions) != len(en.Decisions) {
		t.Errorf("decisions: default %q, en %q, zh %q", def.Decisions, en.Decisions, zh.Decisions)
	}
	// the same answer in every language
	if *en.RootOptStep != *zh.RootOptStep || en.RootCauseCoordinate.Rank != zh.RootCauseCoordinate.Rank {
		t.Errorf("en root %d rank %d, zh root %d rank %d", *en.RootOptStep, en.RootCauseCoordinate.Rank, *zh.RootOptStep, zh.RootCauseCoordinate.Rank)
	}
}

// Reference-made Phase 1 files (bare NaN/Infinity tokens, no data_kind)
// and empty ones are read; nothing crashes.
func TestSelectReferenceJSONAndEmpty(t *testing.T) {
	dir := t.TempDir()
	ref := filepath.Join(dir, "ref.json")
	os.WriteFile(ref, []byte(`{"phase": 1, "db_path": "x.db", "sharding_analysis": {"has_micro_step": false, "accumulation_window": 1, "reset_boundary": null},
 "target_rank_norms": null, "summary": {"steps": [0,1,2,3,4,5], "ranks": [0], "anomaly_count": 2},
 "anomalies": [{"rank": 0, "step": 5, "target_id": 0, "target_name": "fc1.weight", "metric": "grad_unreduced", "norm": 20.0, "baseline_median": 0.0, "deviation_ratio": Infinity, "z_score_like": NaN, "trigger": "iqr+mad"},
  {"rank": 0, "step": 3, "target_name": "qkv \"NaN\" weight", "norm": 3.0, "deviation_ratio": 3.0, "trigger": "iqr"}]}`), 0o644)
	res, code, se := selectRun(t, "--phase1", ref)
	if code != 0 {
		t.Fatalf("exit %d %s", code, se)
	}
	// step-level data: the root is the earliest event (step 3), not the
	// seed's largest deviation (step 5, which stays listed as event 2)
	if res.RootCauseCoordinate == nil || *res.RootOptStep != 3 || res.RootCauseCoordinate.TargetName != `qkv "NaN" weight` ||
		!strings.Contains(res.Reasoning, "取异常偏离最大的 opt_step 5") || !strings.Contains(res.Reasoning, "取最早的异常事件 opt_step 3") {
		t.Fatalf("ref = %+v %+v", res, res.RootCauseCoordinate)
	}
	empty := filepath.Join(dir, "empty.json")
	os.WriteFile(empty, []byte(`{"phase": 1, "anomalies": []}`), 0o644)
	if e := res.Events; len(e) != 2 || e[1].RootStep != 5 || float64(e[1].MaxDeviation) < 1e308 || e[1].Coordinate.TargetName != "fc1.weight" {
		t.Fatalf("events = %+v", e)
	}
	res, code, _ = selectRun(t, "--phase1", empty, "--baseline", empty)
	if code != 0 || res.RootCauseCoordinate != nil || res.RootOptStep != nil {
		t.Fatalf("empty = %d %+v", code, res)
	}
}

func TestSelectErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"phase": 1, "anomalies": [`), 0o644)
	p3 := filepath.Join(dir, "p3.json")
	os.WriteFile(p3, []byte(`{"phase": 3}`), 0o644)
	npu := demoPhase1(t, "npu")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"select"}, "--phase1"},
		{[]string{"select", "--phase1", bad}, bad + ": not a valid Phase 1 JSON"},
		{[]string{"select", "--phase1", p3}, "not a Phase 1 result"},
		{[]string{"select", "--phase1", filepath.Join(dir, "missing.json")}, "missing.json: does not exist"},
		{[]string{"select", "--phase1", npu, "--baseline", bad}, bad},
		{[]string{"select", "--phase1", npu, "--pin", "opt=x"}, "not a non-negative integer"},
		{[]string{"select", "--phase1", npu, "--pin", "opt=5,rank=3,param=no.such.weight"}, "matches no parameter"},
		{[]string{"select", "--phase1", npu, "--pin", "opt=99,rank=3"}, "optimizer step 99 is not in the data"},
		{[]string{"select", "--phase1", npu, "--rank-share", "1.5"}, "--rank-share"},
		{[]string{"select", "--phase1", npu, "--lang", "fr"}, "--lang"},
	} {
		var out, errb bytes.Buffer
		if code := run(c.args, &out, &errb); code != 2 || !strings.Contains(errb.String(), c.want) || out.Len() != 0 {
			t.Fatalf("%v: exit %d, stderr %q", c.args, code, errb.String())
		}
	}
}

// The reference script's own Phase 1 output of worked example 2 (its keys,
// no data_kind, no next_ranks): select gives the reference's answer, root
// opt 1 at rank 0, ms 2, delta 20 — the k+1 entry lists the same parameter,
// so the pair 1 → 2 is compared.
func TestSelectReferenceExample2(t *testing.T) {
	p := filepath.Join(t.TempDir(), "ref2.json")
	os.WriteFile(p, []byte(`{"phase": 1, "db_path": "ex2.db",
"sharding_analysis": {"pp_stages": 1, "vpp_stages": [0], "has_micro_step": true, "micro_step_range": [0,1,2,3],
  "accumulation_window": 4, "optimizer_step_count": 3, "accumulation_detected": true, "reset_boundary": null,
  "pass_unit": "(optimizer_step, micro_step), 累积窗口=4", "conclusion": "…"},
"target_rank_norms": {"1": {"target_name": "decoder.layers.0.mlp.linear_fc1.weight", "ranks": {"0": 23.0, "1": 4.0, "2": 4.0}},
                      "2": {"target_name": "decoder.layers.0.mlp.linear_fc1.weight", "ranks": {"0": 16.0, "1": 91.0, "2": 16.0}}},
"summary": {"total_targets": 2, "total_rows": 72, "steps": [0,1,2,3,4,5,6,7,8,9,10,11], "ranks": [0,1,2], "pass_unit": "…", "anomaly_count": 2},
"anomalies": [
 {"rank": 0, "step": 6, "micro_step": 2, "optimizer_step": 1, "target_id": 0, "target_name": "decoder.layers.0.mlp.linear_fc1.weight", "metric": "grad_unreduced", "norm": 22.0, "delta": 20.0, "min": -2.2, "max": 2.2, "mean": 0.0, "group_delta_median": 1.0, "group_delta_iqr": 19.0, "deviation_ratio": 20.0, "trigger": "micro_step_delta", "suspect_final_norm": 23.0},
 {"rank": 1, "step": 11, "micro_step": 3, "optimizer_step": 2, "target_id": 0, "target_name": "decoder.layers.0.mlp.linear_fc1.weight", "metric": "grad_unreduced", "norm": 91.0, "delta": 80.0, "min": -9.1, "max": 9.1, "mean": 0.0, "group_delta_median": 5.0, "group_delta_iqr": 75.0, "deviation_ratio": 16.0, "trigger": "micro_step_delta", "suspect_final_norm": 91.0}]}`), 0o644)
	res, code, se := selectRun(t, "--phase1", p)
	if code != 0 {
		t.Fatalf("exit %d %s", code, se)
	}
	co := res.RootCauseCoordinate
	if *res.RootOptStep != 1 || co.Rank != 0 || *co.MicroStep != 2 || float64(*co.Delta) != 20 || *co.Step != 6 ||
		!strings.Contains(res.Reasoning, "opt_step 1 → 2 (weight): 2/3 ranks (67%) 的最终 norm >= 2.00x 增长") {
		t.Fatalf("select = %+v %+v", res, co)
	}
	if tt := res.TopTargetsPerStep["2"]; tt.TargetName != "decoder.layers.0.mlp.linear_fc1.weight" || float64(tt.MaxFinalNorm) != 91 {
		t.Fatalf("top targets = %+v", res.TopTargetsPerStep)
	}
}

// A saved result that is truncated is named as such, without Go's decoder
// wording, and a folder given as the Phase 1 JSON is refused.
func TestSelectResultFileWording(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "cut.json")
	os.WriteFile(bad, []byte(`{"phase": 1, "anomalies": [`), 0o644)
	for _, c := range []struct{ path, want string }{
		{bad, "truncated JSON"},
		{dir, "is a folder"},
	} {
		var out, errb bytes.Buffer
		code := run([]string{"select", "--phase1", c.path}, &out, &errb)
		if code != 2 || !strings.Contains(errb.String(), c.want) || strings.Contains(errb.String(), "unexpected end") {
			t.Fatalf("%s: exit %d, stderr %q", c.path, code, errb.String())
		}
	}
}
