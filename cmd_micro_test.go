package main

import (
	"bytes"
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// faultParam is the planted fault's parameter in monitor names (synth
// DefaultConfig: opt 5, micro-batch position 2, rank 3, layer 2).
const faultParam = "layers.2.mlp.linear_fc2.weight"

// detectTo runs detect on path and writes the Phase 1 JSON to a file too.
func detectTo(t *testing.T, path string, args ...string) (*model.Phase1Result, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "p1.json")
	var so, se bytes.Buffer
	if code := run(append([]string{"detect", path, "-o", out}, args...), &so, &se); code != 0 {
		t.Fatalf("detect %s: exit %d %s", path, code, se.String())
	}
	res, code, se2 := detectRun(t, append([]string{path}, args...)...)
	if code != 0 {
		t.Fatalf("detect %s: exit %d %s", path, code, se2)
	}
	return res, out
}

// v2Norm is the norm the monitor v2 file of rank/step writes in the row
// (module_name "0:"+param, scope unreduced, micro_step ms); ok false when
// there is no such row.
func v2Norm(t *testing.T, dir string, rank, step int, param string, ms int) (float64, bool) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "rank_"+strconv.Itoa(rank), "weight_grad_step"+strconv.Itoa(step)+"-"+strconv.Itoa(step)+".csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, r := range recs[1:] {
		if r[col["module_name"]] == "0:"+param && r[col["scope"]] == "unreduced" && r[col["micro_step"]] == strconv.Itoa(ms) {
			v, err := strconv.ParseFloat(r[col["norm"]], 64)
			if err != nil {
				t.Fatal(err)
			}
			return v, true
		}
	}
	return 0, false
}

// Item 8: a monitor v2 tree (W=4, micro_step 1..4 in the file) reports the
// planted micro-step fault with the file's number — the row a user finds
// holds the reported norm — and its position beside it; the v1 tree of the
// same run stays 0-based. sharding_analysis states the numbering. The old
// 0-based number points at another row of the v2 file.
func TestMicroStepsAsWrittenV2AndV1(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	dir := t.TempDir()
	v1, v2 := filepath.Join(dir, "v1"), filepath.Join(dir, "v2")
	if err := run.WriteCSVTreeFor(v1, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	if err := run.WriteCSVTreeV2For(v2, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	truth := run.Truth()
	for _, c := range []struct {
		path     string
		base     int
		numbered string
	}{{v1, 0, "0..W-1"}, {v2, 1, "1..W"}} {
		res, _ := detectTo(t, c.path)
		sa := res.Sharding
		if sa.MicroStepBase != c.base || !strings.Contains(sa.MicroStepNumbering, c.numbered) || sa.AccumulationWindow != 4 ||
			len(sa.MicroStepRange) != 4 || sa.MicroStepRange[0] != c.base || sa.MicroStepRange[3] != c.base+3 {
			t.Fatalf("%s: sharding %+v", c.path, sa)
		}
		if len(res.Anomalies) == 0 {
			t.Fatalf("%s: no candidate", c.path)
		}
		a := res.Anomalies[0]
		if a.Rank != truth.FaultRank || a.OptStep() != truth.FaultOptStep || a.TargetName != faultParam ||
			a.Micro() != truth.FaultMicroStep+c.base || a.MicroPos() != truth.FaultMicroStep {
			t.Fatalf("%s: first candidate rank %d opt %d ms %d (position %d) %s; want rank %d opt %d ms %d",
				c.path, a.Rank, a.OptStep(), a.Micro(), a.MicroPos(), a.TargetName, truth.FaultRank, truth.FaultOptStep, truth.FaultMicroStep+c.base)
		}
		if c.base == 1 {
			// the row the user looks up by the reported number holds the value
			v, ok := v2Norm(t, v2, a.Rank, a.Step, a.TargetName, a.Micro())
			if !ok || v != float64(a.Norm) {
				t.Fatalf("v2 row micro_step %d: norm %v (found %v), candidate norm %v", a.Micro(), v, ok, a.Norm)
			}
			// negative: the 0-based number (the old report) is another row
			if old, ok := v2Norm(t, v2, a.Rank, a.Step, a.TargetName, a.MicroPos()); !ok || old == float64(a.Norm) {
				t.Fatalf("v2 row micro_step %d (0-based position) should hold another value: %v %v", a.MicroPos(), old, ok)
			}
		}
	}
}

// Item 8, Phase 2 and pins: on the v2 tree the root coordinate carries the
// file's micro step; a pin typed with the file's number selects that
// candidate (its norm, not a coordinate taken as given); the 0-based number
// selects none, and 0 is outside the file's 1..4.
func TestMicroStepPinAsWrittenV2(t *testing.T) {
	run := synth.Generate(synth.DefaultConfig())
	v2 := filepath.Join(t.TempDir(), "v2")
	if err := run.WriteCSVTreeV2For(v2, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	p1, file := detectTo(t, v2)
	fault := p1.Anomalies[0]
	res, code, se := selectRun(t, "--phase1", file)
	if code != 0 {
		t.Fatalf("select: exit %d %s", code, se)
	}
	co := res.RootCauseCoordinate
	if co == nil || co.Rank != 3 || co.TargetName != faultParam || pv(co.MicroStep) != 3 || pv(co.MicroIndex) != 2 || pv(co.OptimizerStep) != 5 {
		t.Fatalf("root coordinate %+v", co)
	}
	pin := "opt=5,ms=3,rank=3,param=" + faultParam
	res, code, se = selectRun(t, "--phase1", file, "--pin", pin)
	if code != 0 {
		t.Fatalf("pin %s: exit %d %s", pin, code, se)
	}
	co = res.RootCauseCoordinate
	if !res.Pinned || pv(co.MicroStep) != 3 || float64(co.Norm) != float64(fault.Norm) || !strings.Contains(strings.Join(res.Decisions, "\n"), "pin agrees with Phase 1 candidate") {
		t.Fatalf("pin %s: %+v", pin, co)
	}
	// the name as the v2 file writes it ("0:" chunk prefix) pins the same
	// parameter; another chunk's prefix matches no candidate
	res, code, se = selectRun(t, "--phase1", file, "--pin", "opt=5,ms=3,rank=3,param=0:"+faultParam)
	if code != 0 || res.RootCauseCoordinate.TargetName != faultParam || float64(res.RootCauseCoordinate.Norm) != float64(fault.Norm) {
		t.Fatalf("pin 0:%s: exit %d %s %+v", faultParam, code, se, res)
	}
	if res, code, _ = selectRun(t, "--phase1", file, "--pin", "opt=5,ms=3,rank=3,param=1:"+faultParam); code == 0 && float64(res.RootCauseCoordinate.Norm) == float64(fault.Norm) {
		t.Fatalf("pin 1:%s took chunk 0's candidate", faultParam)
	}
	// negative: the 0-based number of the same micro-batch is another row
	res, code, _ = selectRun(t, "--phase1", file, "--pin", "opt=5,ms=2,rank=3,param="+faultParam)
	if code != 0 || float64(res.RootCauseCoordinate.Norm) == float64(fault.Norm) {
		t.Fatalf("pin ms=2: exit %d coordinate %+v", code, res.RootCauseCoordinate)
	}
	if _, code, se = selectRun(t, "--phase1", file, "--pin", "opt=5,ms=0,rank=3,param="+faultParam); code != 2 || !strings.Contains(se, "micro step 0 is not in the data (1..4)") {
		t.Fatalf("pin ms=0: exit %d %s", code, se)
	}
}

func pv(p *int) int {
	if p == nil {
		return -99
	}
	return *p
}

// Item 7: a single-step dump tree with parameters_grad.0..3 (cumulative
// main_grad, the fault's increment at call 2) names call 2 as the micro
// step of the faulty parameter's candidate, in Phase 1 and in a pinned
// Phase 2; the control rank's candidates grew evenly and name none. With
// one call per module (the old dumps) nothing names a micro step.
func TestDumpMicroStepOfJump(t *testing.T) {
	for _, nmb := range []int{4, 1} {
		cfg := synth.DefaultConfig()
		cfg.DumpMicroBatches, cfg.DumpPrevStep = nmb, false
		run := synth.Generate(cfg)
		dir := filepath.Join(t.TempDir(), "dump")
		if err := run.WriteDumps(dir, synth.Anomalous); err != nil {
			t.Fatal(err)
		}
		res, file := detectTo(t, dir, "--dump")
		if res.DataKind != "dump" || len(res.Anomalies) == 0 {
			t.Fatalf("W %d: kind %s, %d candidates", nmb, res.DataKind, len(res.Anomalies))
		}
		var fault *model.Anomaly
		for i := range res.Anomalies {
			a := &res.Anomalies[i]
			if a.Rank == 3 && strings.Contains(a.TargetName, "layers.2.mlp.linear_fc2.") {
				fault = a
			}
			if a.Rank != 3 && a.MicroStep != nil {
				t.Errorf("W %d: control rank %d %s names micro step %d", nmb, a.Rank, a.TargetName, *a.MicroStep)
			}
		}
		if fault == nil {
			t.Fatalf("W %d: the faulty parameter is no candidate", nmb)
		}
		if nmb == 1 {
			if fault.MicroStep != nil || res.Sharding.HasMicroStep {
				t.Fatalf("one call per module: micro step %v, sharding %+v", fault.MicroStep, res.Sharding)
			}
			continue
		}
		if pv(fault.MicroStep) != 2 || pv(fault.MicroIndex) != 2 || fault.Increment == nil {
			t.Fatalf("fault candidate %+v", *fault)
		}
		sa := res.Sharding
		if !sa.HasMicroStep || sa.AccumulationWindow != 4 || !strings.Contains(sa.MicroStepNumbering, "parameters_grad.N") || len(sa.MicroStepRange) != 4 {
			t.Fatalf("sharding %+v", sa)
		}
		// Phase 2 without a pin: the candidate that names its jump comes
		// before larger gradients that grew evenly
		p2, code, se := selectRun(t, "--phase1", file)
		if co := p2.RootCauseCoordinate; code != 0 || co == nil || co.Rank != 3 || pv(co.MicroStep) != 2 || !strings.Contains(co.TargetName, "layers.2.mlp.") {
			t.Fatalf("select: exit %d %s %+v", code, se, p2)
		}
		p2, code, se = selectRun(t, "--phase1", file, "--pin", "ms=2,rank=3,param="+fault.TargetName)
		if code != 0 || pv(p2.RootCauseCoordinate.MicroStep) != 2 || float64(p2.RootCauseCoordinate.Norm) != float64(fault.Norm) {
			t.Fatalf("pin: exit %d %s %+v", code, se, p2)
		}
	}
}

// Item 7 with msprobe's counter running on across steps (formats.md §3.2):
// the fault step's calls are parameters_grad.4..7, the micro step is
// reported as dump.json writes it (6), its position (2) beside it.
func TestDumpMicroStepCounterAcrossSteps(t *testing.T) {
	cfg := synth.DefaultConfig()
	cfg.DumpMicroBatches, cfg.DumpPrevStep = 4, true
	run := synth.Generate(cfg)
	dir := filepath.Join(t.TempDir(), "dump")
	if err := run.WriteDumps(dir, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	res, _ := detectTo(t, dir, "--dump")
	for i := range res.Anomalies {
		a := &res.Anomalies[i]
		if a.Rank == 3 && a.OptStep() == 5 && strings.Contains(a.TargetName, "layers.2.mlp.linear_fc2.") && pv(a.MicroIndex) == 2 {
			if pv(a.MicroStep) != 6 {
				t.Fatalf("micro step %d, want parameters_grad.6 as written", pv(a.MicroStep))
			}
			if r := res.Sharding.MicroStepRange; len(r) != 8 || r[0] != 0 || r[7] != 7 {
				t.Fatalf("range %v", r)
			}
			return
		}
	}
	t.Fatalf("no candidate at the fault (%d candidates, kind %s)", len(res.Anomalies), res.DataKind)
}

// Item 8 on the screens a user reads: the TUI's text summary (stdout not a
// terminal) and the Markdown report of a v2 tree show the file's micro
// step and say how micro steps are numbered.
func TestMicroStepsAsWrittenInSummaryAndReport(t *testing.T) {
	run0 := synth.Generate(synth.DefaultConfig())
	v2 := filepath.Join(t.TempDir(), "v2")
	if err := run0.WriteCSVTreeV2For(v2, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	coord := "opt=5,ms=3,rank=3,param=" + faultParam
	var so, se bytes.Buffer
	if code := run([]string{v2}, &so, &se); code != 0 {
		t.Fatalf("tui summary: exit %d %s", code, se.String())
	}
	if s := so.String(); !strings.Contains(s, "1. "+coord+" ") || !strings.Contains(s, "root-cause coordinate: "+coord) {
		t.Fatalf("summary:\n%s", s)
	}
	so.Reset()
	if code := run([]string{"report", v2, "--lang", "en"}, &so, &se); code != 0 {
		t.Fatalf("report: exit %d %s", code, se.String())
	}
	s := so.String()
	for _, want := range []string{"| 5 | 3 | `" + faultParam + "` | 3 |", "| micro-step numbering | 1..4, as in the input |", "optimizer step 5, micro step 3, rank 3"} {
		if !strings.Contains(s, want) {
			t.Fatalf("report lacks %q:\n%s", want, s)
		}
	}
}

// Item 7, noise only: a single-step dump with parameters_grad.0..3 and no
// fault (the gradients grow like √k) names no micro step, while its
// sharding still says the calls are micro steps.
func TestDumpMicroStepNoiseNamesNone(t *testing.T) {
	cfg := synth.DefaultConfig()
	cfg.DumpMicroBatches, cfg.DumpPrevStep, cfg.Fault.Scale = 4, false, 1
	cfg.ControlRanks = []int{1, 5, 6}
	run := synth.Generate(cfg)
	dir := filepath.Join(t.TempDir(), "dump")
	if err := run.WriteDumps(dir, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	res, _ := detectTo(t, dir, "--dump")
	if !res.Sharding.HasMicroStep || len(res.Anomalies) == 0 {
		t.Fatalf("sharding %+v, %d candidates", res.Sharding, len(res.Anomalies))
	}
	for _, a := range res.Anomalies {
		if a.MicroStep != nil {
			t.Fatalf("noise: rank %d %s names micro step %d", a.Rank, a.TargetName, *a.MicroStep)
		}
	}
}

// Item 8, v2 without monitor_mbs_grad: every unreduced row carries
// micro_step W (the step's final gradient), so there are no increments;
// Phase 1 judges the steps (the fault's step, rank and parameter come
// first) instead of finding nothing, and claims no micro steps.
func TestMicroStepsV2FinalOnlyIsStepLevel(t *testing.T) {
	run0 := synth.Generate(synth.DefaultConfig())
	v2 := filepath.Join(t.TempDir(), "v2")
	if err := run0.WriteCSVTreeV2FinalFor(v2, synth.Anomalous); err != nil {
		t.Fatal(err)
	}
	if _, ok := v2Norm(t, v2, 3, 5, faultParam, 4); !ok {
		t.Fatal("the v2 file has no micro_step 4 row")
	}
	res, _ := detectTo(t, v2)
	if res.DataKind != "step" || res.Sharding.HasMicroStep || len(res.Anomalies) == 0 {
		t.Fatalf("kind %s sharding %+v, %d candidates", res.DataKind, res.Sharding, len(res.Anomalies))
	}
	a := res.Anomalies[0]
	if a.Rank != 3 || a.Step != 5 || a.TargetName != faultParam || a.MicroStep != nil {
		t.Fatalf("first candidate %+v", a)
	}
}
