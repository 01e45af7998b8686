package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/testdata/synth"
)

// TestStagesEndToEnd: a PP=2 run without VPP (vpp_stage 0 on both
// stages, layer names restarting per stage) with a spike on a rank of
// stage 1, as a monitor CSV tree and as a trend.db: detect's JSON says PP 2
// and names the candidate with its stage and global layer, the report and
// the text summary show the stages, and the root is the spike.
func TestStagesEndToEnd(t *testing.T) {
	f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r := synth.GenerateStages(synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	dir := t.TempDir()
	csvDir, db := filepath.Join(dir, "monitor_output"), filepath.Join(dir, "monitor_data.trend.db")
	if err := r.WriteCSVTree(csvDir); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTrendDB(db); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{csvDir, db} {
		var out, errb bytes.Buffer
		if code := run([]string{"detect", path}, &out, &errb); code != 0 {
			t.Fatalf("detect %s: %d %s", path, code, errb.String())
		}
		var p1 model.Phase1Result
		if err := json.Unmarshal(out.Bytes(), &p1); err != nil {
			t.Fatal(err)
		}
		if p1.Sharding.PPStages != 2 || p1.Sharding.Stages == nil || p1.Sharding.Stages.RankStages["3"] != 1 {
			t.Errorf("%s: sharding %+v", path, p1.Sharding)
		}
		// the JSON names the parameter as the input wrote it; the stage and
		// the global layer have their own keys
		own := "layers.2.mlp.linear_fc2.weight"
		if len(p1.Anomalies) == 0 || p1.Anomalies[0].TargetName != own || pv(p1.Anomalies[0].PPStage) != 1 || pv(p1.Anomalies[0].GlobalLayer) != 6 {
			t.Fatalf("%s: candidates %+v", path, p1.Anomalies)
		}
		if bytes.Contains(out.Bytes(), []byte(`"pp1:`)) || bytes.Contains(out.Bytes(), []byte(`"pp0:`)) {
			t.Errorf("%s: detect's JSON carries a stage-prefixed name", path)
		}
		if len(p1.TargetStages) != 2 || len(p1.Targets) == 0 || slices.ContainsFunc(p1.Targets, func(n string) bool { return strings.HasPrefix(n, "pp") }) {
			t.Errorf("%s: targets %v, target_stages %d", path, p1.Targets, len(p1.TargetStages))
		}
		// select on the saved JSON: the root is the spike, named as written,
		// stage and global layer in their own keys
		p1File := filepath.Join(t.TempDir(), "p1.json")
		if err := os.WriteFile(p1File, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		res, code, se := selectRun(t, "--phase1", p1File)
		if code != 0 {
			t.Fatalf("select: %d %s", code, se)
		}
		co := res.RootCauseCoordinate
		if co == nil || co.Rank != 3 || co.TargetName != own || pv(co.PPStage) != 1 || pv(co.GlobalLayer) != 6 || co.VPPStage != nil {
			t.Fatalf("%s: root %+v", path, co)
		}
		// a pin copied from the JSON (own name + rank) and the screens' name
		// both pin that parameter; a stage that is not the rank's is refused
		for _, pin := range []string{"opt=3,ms=2,rank=3,param=" + own, "opt=3,ms=2,rank=3,param=pp1:" + own} {
			pr, code, se := selectRun(t, "--phase1", p1File, "--pin", pin)
			if code != 0 || !pr.Pinned || pr.RootCauseCoordinate.TargetName != own || pv(pr.RootCauseCoordinate.PPStage) != 1 ||
				pr.RootCauseCoordinate.Norm != co.Norm {
				t.Errorf("pin %s: exit %d %s %+v", pin, code, se, pr)
			}
		}
		if _, code, se := selectRun(t, "--phase1", p1File, "--pin", "opt=3,rank=3,param=pp0:"+own); code != 2 || !strings.Contains(se, "stage 0, rank 3 is on stage 1") {
			t.Errorf("pin of another stage: exit %d %s", code, se)
		}
		out.Reset()
		if code := run([]string{"inspect", path}, &out, &errb); code != 0 || !strings.Contains(out.String(), "pipeline:    PP 2 (stage 0: ranks 0-1, layers 0-3; stage 1: ranks 2-3, layers 4-7)") {
			t.Errorf("inspect %s: %d\n%s", path, code, out.String())
		}
		out.Reset()
		if code := run([]string{"report", path, "--lang", "en"}, &out, &errb); code != 0 {
			t.Fatalf("report %s: %d %s", path, code, errb.String())
		}
		md := out.String()
		for _, want := range []string{"| PP stages | 2 (inferred from each rank's parameters: stage 0: ranks 0-1, layers 0-3; stage 1: ranks 2-3, layers 4-7) |",
			"`pp1:layers.2.mlp.linear_fc2.weight` (global layer 6)"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s: report lacks %q", path, want)
			}
		}
		out.Reset()
		if code := run([]string{path}, &out, &errb); code != 0 {
			t.Fatalf("summary %s: %d %s", path, code, errb.String())
		}
		sum := out.String()
		if !strings.Contains(sum, "pipeline: PP 2") || !strings.Contains(sum, "root-cause coordinate: opt=3,ms=2,rank=3,param=pp1:layers.2.mlp.linear_fc2.weight") ||
			!strings.Contains(sum, "rank 3 is on pipeline stage 1 of 2: dump the control group on another rank of that stage (2)") {
			t.Errorf("%s: summary\n%s", path, sum)
		}
	}
}

// detect --follow on a PP=2 run writes candidates and the root by the
// input's own names, the stage in pp_stage: no JSON line carries a
// stage-prefixed name.
func TestStagesFollowNamesAsWritten(t *testing.T) {
	f := &synth.StageFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r := synth.GenerateStages(synth.StagesConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
	dir := filepath.Join(t.TempDir(), "monitor_output")
	if err := r.WriteCSVTree(dir); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	if code := detectFollowCtx(ctx, dir, model.FormatAuto, pipeline.FollowOptions{Interval: 200 * time.Millisecond}, &out, &errb); code != 0 {
		t.Fatalf("exit %d %s", code, errb.String())
	}
	var cands, roots int
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if strings.Contains(line, `"pp0:`) || strings.Contains(line, `"pp1:`) {
			t.Errorf("line with a stage-prefixed name: %s", line)
		}
		var e struct {
			Event      string            `json:"event"`
			TargetName string            `json:"target_name"`
			PPStage    *int              `json:"pp_stage"`
			Root       *model.Coordinate `json:"root_cause_coordinate"`
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		switch e.Event {
		case "candidate":
			cands++
			if e.PPStage == nil || strings.HasPrefix(e.TargetName, "pp") {
				t.Errorf("candidate line: %s", line)
			}
		case "root":
			roots++
			if e.Root == nil || e.Root.TargetName != "layers.2.mlp.linear_fc2.weight" || pv(e.Root.PPStage) != 1 || pv(e.Root.GlobalLayer) != 6 {
				t.Errorf("root line: %s", line)
			}
		}
	}
	if cands == 0 || roots == 0 {
		t.Fatalf("%d candidate and %d root lines:\n%s", cands, roots, out.String())
	}
}
