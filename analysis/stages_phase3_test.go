package analysis

import (
	"strconv"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// TestPhase3LaterStageLayers: A is a rank of pipeline stage 1 whose dump
// numbers its layers from 0. With Phase 1's stages the result says which
// stage A is and every layer row carries its global layer; the divergence
// start stays the dump's own (stage-local) layer.
func TestPhase3LaterStageLayers(t *testing.T) {
	fault := func(dir model.Direction, layer, k int, s model.Stat) float64 {
		if layer >= 2 && dir == model.Forward {
			return 1.5
		}
		return 1
	}
	a, b, c, d := tQuad(4, fault)
	a.Rank, b.Rank = 3, 3
	p1 := &model.Phase1Result{Sharding: model.ShardingAnalysis{PPStages: 2, Stages: &model.StageLayout{
		Stages: 2, Inferred: true, RankStages: map[string]int{"0": 0, "1": 0, "2": 1, "3": 1},
		LayersPerStage: []int{4, 4}, LayerOffsets: []int{0, 4}}}}
	res := phase3T(Phase3Input{A: a, B: b, C: c, D: d, Phase1: p1}, DefaultPhase3Options())
	ds := res.DumpStage
	if ds == nil || ds.Stage == nil || *ds.Stage != 1 || ds.Stages != 2 || ds.LayerOffset == nil || *ds.LayerOffset != 4 {
		t.Fatalf("pipeline stage %+v", ds)
	}
	if s := res.DivergenceSummary.EarliestFwdDivergence; s == nil || *s != 2 {
		t.Errorf("forward divergence %v, want stage-local layer 2", s)
	}
	if len(res.Anchors) == 0 {
		t.Fatal("no anchors")
	}
	for _, row := range res.Anchors[0].Layers {
		if row.GlobalLayer == nil || *row.GlobalLayer != row.Layer+4 {
			t.Errorf("layer %d: global %v, want %d", row.Layer, row.GlobalLayer, row.Layer+4)
		}
	}
	// stage 0: layer numbers are global already, nothing to add
	a.Rank = 1
	res = phase3T(Phase3Input{A: a, B: b, C: c, D: d, Phase1: p1}, DefaultPhase3Options())
	if res.DumpStage == nil || *res.DumpStage.Stage != 0 || res.Anchors[0].Layers[0].GlobalLayer != nil {
		t.Errorf("stage 0: %+v, global %v", res.DumpStage, res.Anchors[0].Layers[0].GlobalLayer)
	}
}

// TestPhase3StageFromDump: without Phase 1 stages, A's own module records
// tell a later stage (final norm, no embedding) — worded with the
// alternative of a limited dump — and a dump of the whole model says
// nothing.
func TestPhase3StageFromDump(t *testing.T) {
	a, b, c, d := tQuad(3, nil)
	addModule := func(x *model.Dump, path, class string) {
		x.Ops = append(x.Ops, model.Op{Key: "Module." + path + "." + class + ".forward.0", Kind: model.KindModule, Prefix: "Module",
			ModulePath: path, Class: class, Direction: model.Forward, Layer: -1, Order: len(x.Ops)})
	}
	if res := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options()); res.DumpStage != nil {
		t.Errorf("the builder's dump (embedding, layers) is the first stage or the whole model: stage %+v", res.DumpStage)
	}
	synth.DropOps(a, func(op *model.Op) bool { return strings.Contains(op.ModulePath, "embedding") })
	addModule(a, "module.module.decoder.final_layernorm", "RMSNorm")
	res := phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options())
	ds := res.DumpStage
	if ds == nil || ds.Position != "last" || ds.Stage != nil || ds.LayerOffset != nil || !strings.Contains(ds.Source, "scope/list") {
		t.Fatalf("stage %+v", ds)
	}
	addModule(a, "module.module.embedding.word_embeddings", "VocabParallelEmbedding")
	if res = phase3T(Phase3Input{A: a, B: b, C: c, D: d}, DefaultPhase3Options()); res.DumpStage != nil {
		t.Errorf("whole model: stage %+v", res.DumpStage)
	}
}

// TestChooseControlSameStage: every dump of the tree numbers its layers
// from 0, so module paths match across stages; with Phase 1's stages (here
// strided: stage = rank mod 2) the control group comes from A's own stage,
// and the other stage's ranks say why they were passed over.
func TestChooseControlSameStage(t *testing.T) {
	scale := func(step, rank int) float64 {
		if rank == 5 {
			return 50
		}
		return 1 + 0.01*float64(rank)
	}
	aTree := tTree(1, 8, scale)
	bTree := tTree(1, 8, func(int, int) float64 { return 1 })
	a := aTree.Find(0, 5)
	p1 := &model.Phase1Result{Anomalies: []model.Anomaly{{Rank: 5, Step: 0}}}
	if ch := chooseControlT(aTree, a, bTree, p1); ch.C == nil || ch.C.Rank%2 != 0 {
		t.Fatalf("without stages the test needs a C of the other stage (an even rank), got %v", ch.Reason)
	}
	p1.Sharding.Stages = &model.StageLayout{Stages: 2, Inferred: true, RankStages: map[string]int{}}
	for r := 0; r < 8; r++ {
		p1.Sharding.Stages.RankStages[strconv.Itoa(r)] = r % 2
	}
	ch := chooseControlT(aTree, a, bTree, p1)
	if ch.C == nil || ch.C.Rank%2 != 1 {
		t.Fatalf("C: %s, want an odd rank (stage 1)", ch.Reason)
	}
	for _, c := range ch.Candidates {
		if c.Rank%2 == 0 && (c.SameLayers || !strings.Contains(c.Reason, "on pipeline stage 0, A on stage 1")) {
			t.Errorf("rank %d: same layers %v, reason %q", c.Rank, c.SameLayers, c.Reason)
		}
	}
}
