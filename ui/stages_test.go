package ui

import (
	"strings"
	"testing"

	"spikescope/model"
)

// TestStagesOverviewAndNames: with inferred pipeline stages the Phase 1
// overview says PP and which ranks and layers each stage holds, a
// shortened parameter keeps its stage prefix, the text summary names the
// global layer, and the Phase 3 header says A's stage.
func TestStagesOverviewAndNames(t *testing.T) {
	d := fixture()
	d.P1.Sharding.PPStages = 2
	d.P1.Sharding.Stages = &model.StageLayout{Stages: 2, Inferred: true,
		RankStages:     map[string]int{"0": 0, "1": 0, "2": 1, "3": 1},
		LayersPerStage: []int{4, 4}, LayerOffsets: []int{0, 4}}
	d.P1.Anomalies[0].TargetName = "pp1:layers.3.mlp.weight"
	d.P1.Anomalies[0].PPStage, d.P1.Anomalies[0].GlobalLayer = model.IntPtr(1), model.IntPtr(7)
	p := newPhase1Pane(testCommon(d))
	ov := strings.Join(p.overviewLines(), "\n")
	for _, want := range []string{"PP 2", "stage 0: ranks 0-1, layers 0-3", "stage 1: ranks 2-3, layers 4-7"} {
		if !strings.Contains(ov, want) {
			t.Errorf("overview lacks %q:\n%s", want, ov)
		}
	}
	if s := shortParam("pp1:module.module.decoder.layers.3.mlp.linear_fc2.weight", 24); !strings.HasPrefix(s, "pp1:…") || !strings.HasSuffix(s, "linear_fc2.weight") {
		t.Errorf("shortened %q", s)
	}
	sum := Summary(d)
	if !strings.Contains(sum, "pipeline: PP 2 (stage 0: ranks 0-1, layers 0-3; stage 1: ranks 2-3, layers 4-7)") ||
		!strings.Contains(sum, "param=pp1:layers.3.mlp.weight (global layer 7)") {
		t.Errorf("summary:\n%s", sum)
	}
	off := 4
	if ln := stageLine(&model.DumpStage{Stage: model.IntPtr(1), Stages: 2, LayerOffset: &off}); ln != "A: pipeline stage 1 of 2 · L is stage-local: global layer = L + 4" {
		t.Errorf("stage line %q", ln)
	}
	if ln := stageLine(nil); ln != "" {
		t.Errorf("no stage: %q", ln)
	}
}

// TestSeriesRanksOfStage: the heat map of a stage's parameter lists that
// stage's ranks, not every rank of the run.
func TestSeriesRanksOfStage(t *testing.T) {
	md := &model.MonitorData{Metrics: []string{"grad_unreduced"}, Targets: []model.Target{{Name: "pp0:layers.0.w"}, {Name: "pp1:layers.0.w"}}}
	for r := int32(0); r < 4; r++ {
		for s := int32(0); s < 3; s++ {
			md.Rows.Append(r, s, model.NoMicro, r/2, 0, [model.NumStats]float64{1, 0, 0, 0})
		}
	}
	a := model.Anomaly{Rank: 3, TargetName: "pp1:layers.0.w", Metric: "grad_unreduced"}
	ix := buildSeriesIndex(md, []model.Anomaly{a})
	if got := ix.ranksOf(&a); len(got) != 2 || got[0] != 2 || got[1] != 3 {
		t.Errorf("ranks of pp1:layers.0.w: %v, want [2 3]", got)
	}
}
