package analysis

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// loadPipeline writes a synthetic PP run without VPP as a monitor CSV tree
// and as a trend.db and reads both back through the real readers.
func loadPipeline(t *testing.T, cfg synth.PipelineConfig) (*synth.PipelineRun, map[string]*model.MonitorData) {
	t.Helper()
	r := synth.GeneratePipeline(cfg)
	dir := t.TempDir()
	csvDir, db := filepath.Join(dir, "monitor_output"), filepath.Join(dir, "monitor_data.trend.db")
	if err := r.WriteCSVTree(csvDir); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteTrendDB(db); err != nil {
		t.Fatal(err)
	}
	out := map[string]*model.MonitorData{}
	for name, p := range map[string]string{"csv": csvDir, "trenddb": db} {
		d, err := ingest.LoadMonitor(context.Background(), p, model.FormatAuto, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return r, out
}

// TestPipelineWithoutVPPSpikeOnLaterStage: PP=2 and PP=4 runs without VPP
// (vpp_stage 0 everywhere, layer names restart per stage) with a spike on a
// rank of the last stage: Phase 1 infers the stages from the parameter
// sets, names the candidate pp<stage>:<local name> with its global layer,
// and Phase 2 roots it on that rank, step and micro step.
func TestPipelineWithoutVPPSpikeOnLaterStage(t *testing.T) {
	for _, pp := range []int{2, 4} {
		const dp = 2
		f := &synth.PipelineFault{OptStep: 3, MicroStep: 2, Rank: (pp-1)*dp + 1, Layer: 2, Scale: 4}
		r, data := loadPipeline(t, synth.PipelineConfig{PP: pp, DP: dp, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 7, Fault: f})
		for format, d := range data {
			res := Phase1(d, DefaultPhase1Options())
			sa := res.Sharding
			if sa.PPStages != pp || sa.Pipeline == nil || !sa.Pipeline.Inferred {
				t.Fatalf("PP=%d %s: pp_stages %d, pipeline %+v", pp, format, sa.PPStages, sa.Pipeline)
			}
			for rk := 0; rk < pp*dp; rk++ {
				if got := sa.Pipeline.StageOf(rk); got != r.StageOf(rk) {
					t.Errorf("PP=%d %s: rank %d in stage %d, want %d", pp, format, rk, got, r.StageOf(rk))
				}
			}
			if want := []int{0, 4, 8, 12}[:pp]; !equalInts(sa.Pipeline.LayerOffsets, want) {
				t.Errorf("PP=%d %s: layer offsets %v, want %v", pp, format, sa.Pipeline.LayerOffsets, want)
			}
			if len(res.Anomalies) == 0 {
				t.Fatalf("PP=%d %s: no candidate", pp, format)
			}
			a := res.Anomalies[0]
			if a.Rank != f.Rank || a.OptStep() != f.OptStep || a.Micro() != f.MicroStep || a.TargetName != r.FaultTarget() {
				t.Errorf("PP=%d %s: first candidate rank %d opt %d ms %d %s, want rank %d opt %d ms %d %s",
					pp, format, a.Rank, a.OptStep(), a.Micro(), a.TargetName, f.Rank, f.OptStep, f.MicroStep, r.FaultTarget())
			}
			if a.PPStage == nil || *a.PPStage != pp-1 || a.GlobalLayer == nil || *a.GlobalLayer != r.FaultGlobalLayer() {
				t.Errorf("PP=%d %s: pp_stage %v global_layer %v, want %d and %d", pp, format, a.PPStage, a.GlobalLayer, pp-1, r.FaultGlobalLayer())
			}
			for _, b := range res.Anomalies {
				if _, _, ok := model.SplitStageName(b.TargetName); !ok {
					t.Errorf("PP=%d %s: candidate %s has no stage in its name", pp, format, b.TargetName)
				}
			}
			p2, err := Phase2(res, nil, nil, DefaultPhase2Options())
			if err != nil {
				t.Fatal(err)
			}
			co := p2.RootCauseCoordinate
			if co == nil || co.Rank != f.Rank || co.TargetName != r.FaultTarget() || co.OptimizerStep == nil || *co.OptimizerStep != f.OptStep {
				t.Errorf("PP=%d %s: root %+v, want rank %d opt %d %s", pp, format, co, f.Rank, f.OptStep, r.FaultTarget())
			}
		}
	}
}

// TestPipelineWithoutVPPNoSpike: the same runs without a fault give no
// candidate. Pooling the stages' same-named parameters (what Phase 1 did
// before stages were inferred, forced here by marking the data as already
// analysed for stages) gives step-0 "spikes" on the first stage: the stage
// split is what removes them.
func TestPipelineWithoutVPPNoSpike(t *testing.T) {
	for _, pp := range []int{2, 4} {
		_, data := loadPipeline(t, synth.PipelineConfig{PP: pp, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 11})
		for format, d := range data {
			res := Phase1(d, DefaultPhase1Options())
			if res.Sharding.PPStages != pp {
				t.Errorf("PP=%d %s: pp_stages %d", pp, format, res.Sharding.PPStages)
			}
			if len(res.Anomalies) != 0 {
				a := res.Anomalies[0]
				t.Errorf("PP=%d %s: %d candidates without a spike, first rank %d opt %d %s %.3g×", pp, format, len(res.Anomalies), a.Rank, a.OptStep(), a.TargetName, float64(a.DeviationRatio))
			}
			pooled := *d
			pooled.Pipeline = &model.PipelineStages{Stages: 1}
			old := Phase1(&pooled, DefaultPhase1Options())
			if len(old.Anomalies) == 0 || old.Anomalies[0].OptStep() != 0 || old.Anomalies[0].Rank >= 2 || !(old.Anomalies[0].DeviationRatio > 3) {
				t.Errorf("PP=%d %s: pooled stages should give a false step-0 candidate on stage 0 (the data must show the problem); got %d", pp, format, len(old.Anomalies))
			}
		}
	}
}

// TestPipelineDataFeedsViewer: Phase1Data returns the stage-split data; a
// second Phase 1 on it infers nothing again and gives the same candidates.
func TestPipelineDataFeedsViewer(t *testing.T) {
	f := &synth.PipelineFault{OptStep: 2, MicroStep: 1, Rank: 3, Layer: 1, Scale: 4}
	r, data := loadPipeline(t, synth.PipelineConfig{PP: 2, DP: 2, LayersPerStage: 3, Window: 4, OptSteps: 6, Seed: 3, Fault: f})
	res, split := Phase1Data(data["csv"], DefaultPhase1Options())
	if split.Pipeline == nil || split == data["csv"] {
		t.Fatal("Phase1Data did not return the split data")
	}
	has := map[string]bool{}
	for _, tg := range split.Targets {
		has[tg.Name] = true
	}
	for _, want := range []string{r.FaultTarget(), "pp0:layers.1.mlp.linear_fc2.weight", "pp0:embedding.word_embeddings.weight", "pp1:output_layer.weight"} {
		if !has[want] {
			t.Errorf("split data lacks %s", want)
		}
	}
	if has["layers.1.mlp.linear_fc2.weight"] || has["pp1:embedding.word_embeddings.weight"] {
		t.Error("split data keeps an unsplit or foreign target")
	}
	again := Phase1(split, DefaultPhase1Options())
	if len(again.Anomalies) != len(res.Anomalies) || len(res.Anomalies) == 0 || again.Anomalies[0].TargetName != res.Anomalies[0].TargetName {
		t.Errorf("second Phase 1: %d candidates, first %d", len(again.Anomalies), len(res.Anomalies))
	}
}

// stageData builds monitor rows: ranks[i] holds names[i], one value per
// step, level lv[i].
func stageData(names [][]string, vpp []int) *model.MonitorData {
	d := &model.MonitorData{Format: model.FormatCSV, Metrics: []string{"grad_unreduced"}, HasStat: [model.NumStats]bool{true}}
	idx := map[[2]any]int32{}
	for rk, ns := range names {
		for _, n := range ns {
			v := 0
			if vpp != nil {
				if c, rest, ok := strings.Cut(n, "|"); ok {
					v = int(c[0] - '0')
					n = rest
				}
			}
			k := [2]any{n, v}
			t, ok := idx[k]
			if !ok {
				t = int32(len(d.Targets))
				idx[k] = t
				d.Targets = append(d.Targets, model.Target{Name: n, VPPStage: v})
			}
			for s := 0; s < 3; s++ {
				d.Rows.Append(int32(rk), int32(s), model.NoMicro, t, 0, [model.NumStats]float64{1, 0, 0, 0})
			}
		}
	}
	return d
}

func layersOf(prefix string, n int, extra ...string) []string {
	var out []string
	for l := 0; l < n; l++ {
		out = append(out, prefix+"layers."+string(rune('0'+l))+".mlp.linear_fc2.weight")
	}
	return append(out, extra...)
}

// TestInferStagesRules: the inference on name families and rank layouts.
func TestInferStagesRules(t *testing.T) {
	emb, fin, out := "embedding.word_embeddings.weight", "final_layernorm.weight", "output_layer.weight"
	cases := []struct {
		name   string
		ranks  [][]string
		stages []int // per rank; nil = one stage, not split
		note   bool  // a note says why stages were not inferred
		layers []int // layer offsets (nil = unknown)
	}{
		{"one stage (every rank holds the whole model)", [][]string{layersOf("", 2, emb, fin, out), layersOf("", 2, emb, fin, out)}, nil, false, nil},
		{"mcore PP=2", [][]string{layersOf("", 2, emb), layersOf("", 2, emb), layersOf("", 2, fin, out), layersOf("", 2, fin, out)}, []int{0, 0, 1, 1}, false, []int{0, 2}},
		{"PP=3 blocked", [][]string{layersOf("", 2, emb), layersOf("", 2), layersOf("", 2, fin)}, []int{0, 1, 2}, false, []int{0, 2, 4}},
		{"PP=4 strided (rank = dp·PP + stage)", [][]string{layersOf("", 1, emb), layersOf("", 1), layersOf("", 1), layersOf("", 1, fin),
			layersOf("", 1, emb), layersOf("", 1), layersOf("", 1), layersOf("", 1, fin)}, []int{0, 1, 2, 3, 0, 1, 2, 3}, false, []int{0, 1, 2, 3}},
		{"legacy, tied embedding on the last stage", [][]string{layersOf("", 2, emb, "embedding.position_embeddings.weight"),
			layersOf("", 2, "module.module.word_embeddings.weight", "final_layernorm.weight")}, []int{0, 1}, false, []int{0, 2}},
		{"HF llama names", [][]string{layersOf("model.", 2, "model.embed_tokens.weight"), layersOf("model.", 3, "model.norm.weight", "lm_head.weight")}, []int{0, 1}, false, []int{0, 2}},
		{"GPT-NeoX names (embed_in first, embed_out last)", [][]string{{"gpt_neox.embed_in.weight", "gpt_neox.layers.0.mlp.dense_h_to_4h.weight"}, {"gpt_neox.layers.0.mlp.dense_h_to_4h.weight", "gpt_neox.final_layer_norm.weight", "embed_out.weight"}}, []int{0, 1}, false, []int{0, 1}},
		{"MindFormers names", [][]string{layersOf("network.model.", 2, "network.model.tok_embeddings.embedding_weight"), layersOf("network.model.", 2, "network.model.norm_out.weight", "network.lm_head.weight")}, []int{0, 1}, false, []int{0, 2}},
		{"filtered targets, same names everywhere", [][]string{layersOf("", 2), layersOf("", 2), layersOf("", 2)}, nil, false, nil},
		{"filtered targets, uneven stages", [][]string{layersOf("", 3), layersOf("", 3), layersOf("", 2), layersOf("", 2)}, []int{0, 0, 1, 1}, false, []int{0, 3}},
		{"first and last stage of unequal size", [][]string{layersOf("", 1, emb), layersOf("", 1, emb), layersOf("", 1), layersOf("", 1, fin)}, nil, true, nil},
		{"ranks of one stage hold other layers", [][]string{layersOf("", 2, emb), layersOf("", 3, emb), layersOf("", 2, fin), layersOf("", 2, fin)}, nil, true, nil},
		{"a rank of a stage lost one parameter", [][]string{layersOf("", 2, emb, "layers.0.attn.w"), layersOf("", 2, emb), layersOf("", 2, fin), layersOf("", 2, fin)}, []int{0, 0, 1, 1}, false, []int{0, 2}},
		{"MoE, expert parallelism: a stage's ranks hold other experts", [][]string{layersOf("", 1, emb, "layers.0.mlp.experts.0.linear_fc1.weight"), layersOf("", 1, emb, "layers.0.mlp.experts.1.linear_fc1.weight"),
			layersOf("", 1, fin, "layers.0.mlp.experts.0.linear_fc1.weight"), layersOf("", 1, fin, "layers.0.mlp.experts.1.linear_fc1.weight")}, []int{0, 0, 1, 1}, false, []int{0, 1}},
		{"one rank lost a parameter (PP=1)", [][]string{layersOf("", 3), layersOf("", 3), layersOf("", 3), layersOf("", 2)}, nil, false, nil},
		{"filtered targets with gaps: layer counts unknown", [][]string{{"layers.0.x", "layers.3.x", emb}, {"layers.0.x", fin}}, []int{0, 1}, false, nil},
	}
	for _, tc := range cases {
		d := stageData(tc.ranks, nil)
		si := inferStages(d, buildSeriesIndex(d, 0))
		if tc.stages == nil {
			if si.info.Inferred && si.info.Stages > 1 {
				t.Errorf("%s: inferred %d stages %v", tc.name, si.info.Stages, si.stages)
			}
			if (si.info.Note != "") != tc.note {
				t.Errorf("%s: note %q", tc.name, si.info.Note)
			}
			continue
		}
		if !si.info.Inferred || !equalInts(si.stages, tc.stages) {
			t.Errorf("%s: stages %v (inferred %v, note %q), want %v", tc.name, si.stages, si.info.Inferred, si.info.Note, tc.stages)
		}
		if !equalInts(si.info.LayerOffsets, tc.layers) {
			t.Errorf("%s: layer offsets %v, want %v", tc.name, si.info.LayerOffsets, tc.layers)
		}
	}
}

// TestInferStagesVPP: PP=2 with two model chunks per rank (distinct
// vpp_stage values): the stages come from the markers of the chunks, and
// the global layer interleaves chunks ((vpp·PP + stage)·chunk + N).
func TestInferStagesVPP(t *testing.T) {
	s0 := []string{"0|embedding.word_embeddings.weight", "0|layers.0.w", "0|layers.1.w", "1|layers.0.w", "1|layers.1.w"}
	s1 := []string{"0|layers.0.w", "0|layers.1.w", "1|layers.0.w", "1|layers.1.w", "1|final_layernorm.weight"}
	d := stageData([][]string{s0, s1}, []int{0})
	si := inferStages(d, buildSeriesIndex(d, 0))
	if !si.info.Inferred || !equalInts(si.stages, []int{0, 1}) || si.info.ChunkLayers != 2 {
		t.Fatalf("stages %v chunk layers %d note %q", si.stages, si.info.ChunkLayers, si.info.Note)
	}
	if g := si.info.GlobalLayer(1, 1, 1); g != 7 { // chunk 1 of stage 1: layers 6, 7
		t.Errorf("global layer of stage 1 chunk 1 layers.1 = %d, want 7", g)
	}
	res, split := Phase1Data(d, DefaultPhase1Options())
	if res.Sharding.PPStages != 2 || !equalInts(res.Sharding.VPPStages, []int{0, 1}) {
		t.Errorf("pp_stages %d vpp_stages %v", res.Sharding.PPStages, res.Sharding.VPPStages)
	}
	names := map[string]bool{}
	for _, tg := range split.Targets {
		names[tg.Name] = true
	}
	for _, want := range []string{"pp0:vpp0:embedding.word_embeddings.weight", "pp0:vpp1:layers.1.w", "pp1:vpp0:layers.0.w", "pp1:vpp1:final_layernorm.weight"} {
		if !names[want] {
			t.Errorf("no target %s in %v", want, names)
		}
	}
	if b := model.StageBaseName("pp1:vpp1:layers.0.w"); b != "layers.0.w" {
		t.Errorf("base name %q", b)
	}
}

func TestStageNameRoundTrip(t *testing.T) {
	n := model.StageName(3, "layers.2.mlp.linear_fc2.weight")
	if n != "pp3:layers.2.mlp.linear_fc2.weight" {
		t.Fatal(n)
	}
	if s, base, ok := model.SplitStageName(n); !ok || s != 3 || base != "layers.2.mlp.linear_fc2.weight" {
		t.Errorf("split %d %q %v", s, base, ok)
	}
	for _, bad := range []string{"layers.2.w", "ppx:layers.2", "pp:w", "pp-1:w", "pp+1:w", "0:layers.1.w"} {
		if _, _, ok := model.SplitStageName(bad); ok {
			t.Errorf("%q split as a stage name", bad)
		}
	}
	for name, want := range map[string]int{"pp1:layers.7.mlp.w": 7, "module.module.decoder.layers.12.x": 12, "network.model.layers.3.attention.wq.weight": 3,
		"layers.2.mlp.experts.local_experts.5.linear_fc1.weight": 2, "embedding.word_embeddings.weight": -1, "transformer.h.4.attn.c_attn.weight": 4} {
		if n, _ := model.LayerIndex(name); n != want {
			t.Errorf("LayerIndex(%q) = %d, want %d", name, n, want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestPipelineStagesFromLevels: a target list limited to the transformer
// layers (no embedding, no final norm) on PP=2 and PP=4: every rank holds
// the same names, the stages' gradient levels (5× apart) tell them, and
// the spike on a later stage is found under its stage's name. Levels only
// 1.3× apart cannot be told from data noise: no stages, no note, and still
// no false candidate; a data-parallel run (PP=1) gets no note either.
func TestPipelineStagesFromLevels(t *testing.T) {
	for _, pp := range []int{2, 4} {
		f := &synth.PipelineFault{OptStep: 3, MicroStep: 1, Rank: (pp-1)*2 + 1, Layer: 1, Scale: 4}
		r, data := loadPipeline(t, synth.PipelineConfig{PP: pp, DP: 2, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 5, Fault: f, LayersOnly: true})
		for format, d := range data {
			res := Phase1(d, DefaultPhase1Options())
			pl := res.Sharding.Pipeline
			if res.Sharding.PPStages != pp || pl == nil || !strings.HasPrefix(pl.Method, "gradient levels") {
				t.Fatalf("PP=%d %s: pp_stages %d pipeline %+v", pp, format, res.Sharding.PPStages, pl)
			}
			if len(res.Anomalies) == 0 || res.Anomalies[0].TargetName != r.FaultTarget() || res.Anomalies[0].Rank != f.Rank {
				t.Errorf("PP=%d %s: candidates %d, want the first at rank %d %s", pp, format, len(res.Anomalies), f.Rank, r.FaultTarget())
			}
		}
	}
	for _, tc := range []struct {
		pp    int
		level float64
	}{{1, 0.2}, {2, 0.77}} {
		_, data := loadPipeline(t, synth.PipelineConfig{PP: tc.pp, DP: 4, LayersPerStage: 4, Window: 4, OptSteps: 6, Seed: 9, LayersOnly: true, StageLevel: tc.level})
		res := Phase1(data["csv"], DefaultPhase1Options())
		if res.Sharding.PPStages != 1 || res.Sharding.Pipeline != nil {
			t.Errorf("PP=%d level %g: pp_stages %d pipeline %+v", tc.pp, tc.level, res.Sharding.PPStages, res.Sharding.Pipeline)
		}
		if len(res.Anomalies) != 0 {
			t.Errorf("PP=%d level %g: %d false candidates", tc.pp, tc.level, len(res.Anomalies))
		}
	}
}

// TestPipelineStagesNotInferred: one rank per stage and no embedding /
// final norm in the targets: the levels differ far beyond data noise but
// nothing tells which ranks share a stage — the output says so.
func TestPipelineStagesNotInferred(t *testing.T) {
	_, data := loadPipeline(t, synth.PipelineConfig{PP: 4, DP: 1, LayersPerStage: 3, Window: 4, OptSteps: 6, Seed: 4, LayersOnly: true})
	res := Phase1(data["trenddb"], DefaultPhase1Options())
	pl := res.Sharding.Pipeline
	if res.Sharding.PPStages != 1 || pl == nil || pl.Inferred || !strings.Contains(pl.Note, "could not be told apart") {
		t.Fatalf("pp_stages %d pipeline %+v", res.Sharding.PPStages, pl)
	}
	found := false
	for _, w := range res.Warnings {
		found = found || strings.Contains(w, "monitor the embedding and the final norm")
	}
	if !found {
		t.Errorf("warnings %v", res.Warnings)
	}
}

// TestSplitStagesSparseRanks: rank numbers far apart (no dense table) split
// the same way.
func TestSplitStagesSparseRanks(t *testing.T) {
	d := stageData([][]string{layersOf("", 2, "embedding.word_embeddings.weight"), layersOf("", 2, "final_layernorm.weight")}, nil)
	for i := range d.Rows.Rank {
		if d.Rows.Rank[i] == 1 {
			d.Rows.Rank[i] = 1 << 24
		}
	}
	res, split := Phase1Data(d, DefaultPhase1Options())
	if res.Sharding.PPStages != 2 || split.Pipeline.StageOf(1<<24) != 1 {
		t.Fatalf("pp_stages %d, pipeline %+v", res.Sharding.PPStages, split.Pipeline)
	}
	for i, tg := range split.Rows.Target {
		want := "pp0:"
		if split.Rows.Rank[i] != 0 {
			want = "pp1:"
		}
		if !strings.HasPrefix(split.Targets[tg].Name, want) {
			t.Fatalf("row %d rank %d: %s", i, split.Rows.Rank[i], split.Targets[tg].Name)
		}
	}
}
