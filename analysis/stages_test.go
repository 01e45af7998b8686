package analysis

import (
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/words"
)

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
			if (si.info.NoteReason != nil) != tc.note {
				t.Errorf("%s: note %v", tc.name, si.info.NoteReason)
			}
			continue
		}
		if !si.info.Inferred || !equalInts(si.stages, tc.stages) {
			t.Errorf("%s: stages %v (inferred %v, note %v), want %v", tc.name, si.stages, si.info.Inferred, si.info.NoteReason, tc.stages)
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
		t.Fatalf("stages %v chunk layers %d note %v", si.stages, si.info.ChunkLayers, si.info.NoteReason)
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

// TestSplitStagesSparseRanks: rank numbers far apart (no dense table) split
// the same way.
func TestSplitStagesSparseRanks(t *testing.T) {
	d := stageData([][]string{layersOf("", 2, "embedding.word_embeddings.weight"), layersOf("", 2, "final_layernorm.weight")}, nil)
	for i := range d.Rows.Len() {
		if d.Rows.RankOf(i) == 1 {
			d.Rows.Rank[i] = 1 << 24
		}
	}
	res, split := Phase1Data(d, DefaultPhase1Options())
	if res.Sharding.PPStages != 2 || split.Stages.StageOf(1<<24) != 1 {
		t.Fatalf("pp_stages %d, pipeline %+v", res.Sharding.PPStages, split.Stages)
	}
	for i := range split.Rows.Len() {
		tg := split.Rows.TargetOf(i)
		want := "pp0:"
		if split.Rows.RankOf(i) != 0 {
			want = "pp1:"
		}
		if !strings.HasPrefix(split.Targets[tg].Name, want) {
			t.Fatalf("row %d rank %d: %s", i, split.Rows.RankOf(i), split.Targets[tg].Name)
		}
	}
}

// TestRunShapeExperts: Phase 1's note on what a rank holds says what the
// parameter sets show. Without MoE experts (PP=1) every rank holds the
// whole model; when the ranks hold different experts (expert parallelism)
// the note says so instead, and when every rank names its experts alike
// (Megatron's local numbering) that the names cannot tell experts apart.
func TestRunShapeExperts(t *testing.T) {
	emb, fin := "embedding.word_embeddings.weight", "final_layernorm.weight"
	exp := func(ids ...int) []string {
		out := layersOf("", 2, emb, fin)
		for _, e := range ids {
			out = append(out, "layers.0.mlp.experts.local_experts."+string(rune('0'+e))+".linear_fc1.weight")
		}
		return out
	}
	for _, c := range []struct {
		name      string
		ranks     [][]string
		want, not string
	}{
		{"dense", [][]string{exp(), exp()}, "每个 rank 有完整模型", "专家"},
		{"expert parallel", [][]string{exp(0, 1), exp(2, 3)}, "各 rank 持有的 MoE 专家参数 (experts) 不同", "完整模型"},
		{"same expert names", [][]string{exp(0, 1), exp(0, 1)}, "各 rank 上的专家名相同", "完整模型"},
	} {
		res := Phase1(stageData(c.ranks, nil), DefaultPhase1Options())
		got := words.Say(res.Sharding.ConclusionReason, words.Default)
		if !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
			t.Errorf("%s: conclusion %q, want %q and not %q", c.name, got, c.want, c.not)
		}
	}
}
