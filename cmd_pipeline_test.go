package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// TestPipelineStagesEndToEnd: a PP=2 run without VPP (vpp_stage 0 on both
// stages, layer names restarting per stage) with a spike on a rank of
// stage 1, as a monitor CSV tree and as a trend.db: detect's JSON says PP 2
// and names the candidate with its stage and global layer, the report and
// the text summary show the stages, and the root is the spike.
func TestPipelineStagesEndToEnd(t *testing.T) {
	f := &synth.PipelineFault{OptStep: 3, MicroStep: 2, Rank: 3, Layer: 2, Scale: 4}
	r := synth.GeneratePipeline(synth.PipelineConfig{PP: 2, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
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
		if p1.Sharding.PPStages != 2 || p1.Sharding.Pipeline == nil || p1.Sharding.Pipeline.RankStages["3"] != 1 {
			t.Errorf("%s: sharding %+v", path, p1.Sharding)
		}
		if len(p1.Anomalies) == 0 || p1.Anomalies[0].TargetName != r.FaultTarget() || p1.Anomalies[0].GlobalLayer == nil || *p1.Anomalies[0].GlobalLayer != 6 {
			t.Fatalf("%s: candidates %+v", path, p1.Anomalies)
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
