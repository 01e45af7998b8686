package analysis

import (
	"encoding/json"
	"testing"

	"spikescope/model"
)

// FuzzStageInference builds runs whose ranks hold arbitrary subsets of
// embedding, final-norm, output-layer, layer and expert parameters (ranks
// far apart too) and checks that stage inference and the split never
// panic, that every row of a rank with a stage names that stage, and that
// the JSON stays valid.
func FuzzStageInference(f *testing.F) {
	f.Add([]byte{0x0f, 0x0e, 0xf0, 0xf1, 0x3c, 0x3d}, uint8(0))
	f.Add([]byte{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80}, uint8(1))
	f.Add([]byte("pipeline stages seed"), uint8(2))
	names := []string{"embedding.word_embeddings.weight", "final_layernorm.weight", "output_layer.weight",
		"layers.0.mlp.linear_fc2.weight", "layers.1.mlp.linear_fc2.weight", "layers.2.self_attention.linear_qkv.weight",
		"layers.0.mlp.experts.local_experts.1.linear_fc1.weight", "model.norm.weight"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		if len(data) > 64 {
			data = data[:64]
		}
		d := &model.MonitorData{Format: model.FormatCSV, Metrics: []string{"grad_unreduced"}, HasStat: [model.NumStats]bool{true}}
		d.ExplicitMicro = mode&1 != 0
		idx := map[string]int32{}
		for rk, b := range data {
			rank := int32(rk)
			if mode&2 != 0 {
				rank = int32(rk) * 1000003 // far apart
			}
			for bit, n := range names {
				if b&(1<<bit) == 0 {
					continue
				}
				vpp := 0
				if mode&4 != 0 && bit%2 == 1 {
					vpp = 1
				}
				key := n + string(rune('0'+vpp))
				tg, ok := idx[key]
				if !ok {
					tg = int32(len(d.Targets))
					idx[key] = tg
					d.Targets = append(d.Targets, model.Target{Name: n, VPPStage: vpp})
				}
				for s := int32(0); s < 4; s++ {
					micro := model.NoMicro
					if d.ExplicitMicro {
						micro = s % 2
					}
					d.Rows.Append(rank, s/2, micro, tg, 0, [model.NumStats]float64{float64(1+int(b)%7) * float64(1+bit), 0, 0, 0})
				}
			}
		}
		res, split := Phase1Data(d, DefaultPhase1Options())
		if _, err := json.Marshal(res); err != nil {
			t.Fatal(err)
		}
		if split.Stages == nil {
			return
		}
		for i := range split.Rows.Len() {
			tg := split.Rows.TargetOf(i)
			st := split.Stages.StageOf(int(split.Rows.RankOf(i)))
			s, _, ok := model.SplitStageName(split.Targets[tg].Name)
			if st >= 0 && (!ok || s != st) {
				t.Fatalf("row %d rank %d (stage %d) names %s", i, split.Rows.RankOf(i), st, split.Targets[tg].Name)
			}
		}
	})
}
