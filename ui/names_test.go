package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestNameShortener shortens the names of one run from the middle: the
// prefix the run's layered names share goes, so do class names; the layer,
// the leaf and the pipeline prefixes stay.
func TestNameShortener(t *testing.T) {
	for _, tc := range []struct {
		name  string
		run   []string
		short map[string]string
	}{
		{"mcore dump", []string{
			"Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.forward.0",
			"Module.module.module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0",
			"Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.backward.1",
			"Module.module.module.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
			"Functional.linear.3.forward",
		}, map[string]string{
			"Module.module.module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0": "L2 mlp.linear_fc1 fwd.0",
			"Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.backward.1":   "L2 mlp.linear_fc2 bwd.1",
			"Module.module.module.embedding.word_embeddings.VocabParallelEmbedding.forward.0":     "embedding.word_embeddings fwd.0",
			"Functional.linear.3.forward": "Functional.linear.3 fwd",
		}},
		{"legacy monitor", []string{
			"module.language_model.encoder.layers.0.self_attention.query_key_value.weight",
			"module.language_model.encoder.layers.11.mlp.dense_4h_to_h.weight",
			"module.language_model.embedding.word_embeddings.weight",
		}, map[string]string{
			"module.language_model.encoder.layers.11.mlp.dense_4h_to_h.weight": "L11 mlp.dense_4h_to_h.weight",
			"module.language_model.embedding.word_embeddings.weight":           "embedding.word_embeddings.weight",
		}},
		{"TE", []string{
			"Module.module.module.decoder.layers.1.self_attention.linear_qkv.TELayerNormColumnParallelLinear.forward.0",
			"Module.module.module.decoder.layers.1.mlp.linear_fc1.TELayerNormColumnParallelLinear.forward.0",
		}, map[string]string{
			"Module.module.module.decoder.layers.1.self_attention.linear_qkv.TELayerNormColumnParallelLinear.forward.0": "L1 self_attention.linear_qkv fwd.0",
		}},
		{"MoE experts", []string{
			"decoder.layers.3.mlp.experts.local_experts.5.linear_fc1.weight",
			"decoder.layers.3.mlp.router.weight",
		}, map[string]string{
			"decoder.layers.3.mlp.experts.local_experts.5.linear_fc1.weight": "L3 mlp.experts.local_experts.5.linear_fc1.weight",
		}},
		{"MindSpore", []string{
			"Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0",
			"Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0",
			"Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
		}, map[string]string{
			"Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0":        "L0 input_norm bwd.0",
			"Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0": "embedding.word_embeddings fwd.0",
		}},
		{"PP x VPP", []string{
			"pp0:vpp0:layers.0.mlp.dense_4h_to_h.weight",
			"pp1:vpp1:layers.0.mlp.dense_4h_to_h.weight",
		}, map[string]string{
			"pp1:vpp1:layers.0.mlp.dense_4h_to_h.weight": "pp1:vpp1:L0 mlp.dense_4h_to_h.weight",
		}},
		{"no layers", []string{
			"Module.conv1.Conv2d.forward.0",
			"Module.fc.Linear.backward.0",
		}, map[string]string{
			"Module.fc.Linear.backward.0": "fc bwd.0",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ns := shortenerOf(tc.run)
			for in, want := range tc.short {
				if got := ns.short(in); got != want {
					t.Errorf("short(%q) = %q, want %q", in, got, want)
				}
			}
		})
	}
}

// TestNameFitKeepsLayerAndLeaf: at the widths of an 80-column table the
// rows of one layer stay distinguishable (qkv/proj/fc1/fc2), every fitted
// name fits, and the layer and leaf survive.
func TestNameFitKeepsLayerAndLeaf(t *testing.T) {
	run := []string{
		"Module.module.module.decoder.layers.2.self_attention.linear_qkv.ColumnParallelLinear.forward.0",
		"Module.module.module.decoder.layers.2.self_attention.linear_proj.RowParallelLinear.forward.0",
		"Module.module.module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0",
		"Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.forward.0",
		"Module.module.module.decoder.layers.2.mlp.experts.local_experts.7.linear_fc2.RowParallelLinear.forward.0",
	}
	ns := shortenerOf(run)
	for _, w := range []int{16, 20, 24, 40} {
		seen := map[string]bool{}
		for _, n := range run {
			got := ns.fit(n, w)
			if ansi.StringWidth(got) > w {
				t.Errorf("fit(%q, %d) = %q: %d cells", n, w, got, ansi.StringWidth(got))
			}
			if !strings.HasPrefix(got, "L2 ") {
				t.Errorf("fit(%q, %d) = %q lost the layer", n, w, got)
			}
			leaf := n[strings.LastIndex(n, "linear_"):]
			leaf = leaf[:strings.IndexByte(leaf, '.')]
			if w >= 24 && !strings.Contains(got, leaf) {
				t.Errorf("fit(%q, %d) = %q lost the leaf %s", n, w, got, leaf)
			}
			if w >= 24 && seen[got] {
				t.Errorf("fit at %d: %q twice", w, got)
			}
			seen[got] = true
		}
	}
	// the expert's number goes after the words in front of it
	if got := ns.fit(run[4], 26); got != "L2 …7.linear_fc2 fwd.0" && !strings.Contains(got, ".7.") {
		t.Errorf("expert fit = %q, want the expert number kept", got)
	}
}

// Whatever the width, a fitted name fits it (CJK names take two cells a
// character) and a name that fits comes back shortened, never cut.
func TestNameFitAnyWidth(t *testing.T) {
	run := []string{
		"pp1:vpp1:Module.module.module.decoder.layers.12.mlp.experts.local_experts.7.linear_fc2.RowParallelLinear.forward.0",
		"Cell.网络.layers.3.注意力.Dense.backward.2",
		"Functional.linear.3.forward",
		"x",
	}
	ns := shortenerOf(run)
	for _, n := range run {
		short := ns.short(n)
		for w := 1; w <= 80; w++ {
			got := ns.fit(n, w)
			if ansi.StringWidth(got) > w {
				t.Errorf("fit(%q, %d) = %q (%d cells)", n, w, got, ansi.StringWidth(got))
			}
			if ansi.StringWidth(short) <= w && got != short {
				t.Errorf("fit(%q, %d) = %q, want the short form %q", n, w, got, short)
			}
		}
	}
}

// shortenerOf is a shortener over a list of names.
func shortenerOf(list []string) *nameShortener {
	return newNameShortener(func(yield func(string) bool) {
		for _, s := range list {
			if !yield(s) {
				return
			}
		}
	})
}
