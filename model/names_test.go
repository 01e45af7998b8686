package model

import "testing"

// The name grammar read back: every part a name is made of comes out of
// the name as it was put in, and names without a part keep it as it is.
func TestNameGrammar(t *testing.T) {
	for _, tc := range []struct {
		name, prefix, base string
		stage, vpp         int // -1: none
		layer              int // -1: none
		layerAt            int
	}{
		{"pp1:vpp0:decoder.layers.12.mlp.weight", "pp1:vpp0:", "decoder.layers.12.mlp.weight", 1, 0, 12, 17},
		{"pp3:layers.0.x", "pp3:", "layers.0.x", 3, -1, 0, 4},
		{"vpp2:h.4.attn.weight", "vpp2:", "h.4.attn.weight", -1, -1, 4, 5},
		{"transformer.h.4.attn.c_attn.weight", "", "transformer.h.4.attn.c_attn.weight", -1, -1, 4, 12},
		{"ppx:layers.1.w", "", "ppx:layers.1.w", -1, -1, 1, 4},
		{"pp+1:layers.1.w", "", "pp+1:layers.1.w", -1, -1, 1, 5},
		{"pp:blocks.0.norm", "", "pp:blocks.0.norm", -1, -1, 0, 3},
		{"embedding.weight", "", "embedding.weight", -1, -1, -1, 0},
		{"model.layers.3a.mlp", "", "model.layers.3a.mlp", -1, -1, -1, 0},
		{"layers.3", "", "layers.3", -1, -1, 3, 0},
	} {
		pre, base := SplitNamePrefixes(tc.name)
		if pre != tc.prefix || base != tc.base || StageBaseName(tc.name) != tc.base {
			t.Errorf("%q: prefixes %q + %q, want %q + %q", tc.name, pre, base, tc.prefix, tc.base)
		}
		st, v, own, ok := StageParts(tc.name)
		if ok != (tc.stage >= 0) || st != tc.stage || (ok && v != tc.vpp) || (ok && own != tc.base) {
			t.Errorf("%q: StageParts %d %d %q %v, want stage %d chunk %d", tc.name, st, v, own, ok, tc.stage, tc.vpp)
		}
		if ok && QualifiedName(st, v, v >= 0, own) != tc.name {
			t.Errorf("%q: QualifiedName gives %q", tc.name, QualifiedName(st, v, v >= 0, own))
		}
		n, lok := LayerIndex(tc.name)
		at, end, sn, sok := LayerSpan(tc.name)
		if lok != (tc.layer >= 0) || n != tc.layer || sok != lok || (sok && (sn != n || at != tc.layerAt)) {
			t.Errorf("%q: layer %d %v, span %d..%d %d %v, want layer %d at %d", tc.name, n, lok, at, end, sn, sok, tc.layer, tc.layerAt)
		}
		if lok {
			moved := WithLayerIndex(tc.name, n+7)
			if m, _ := LayerIndex(moved); m != n+7 || len(moved) < len(tc.name) {
				t.Errorf("%q: WithLayerIndex %q reads %d", tc.name, moved, m)
			}
		} else if WithLayerIndex(tc.name, 5) != tc.name {
			t.Errorf("%q: WithLayerIndex changed a name without a layer", tc.name)
		}
	}
}

func TestWithChunk(t *testing.T) {
	for _, tc := range []struct {
		in     string
		vpp    int
		chunks bool
		want   string
	}{
		{"layers.0.mlp.weight", 1, true, "vpp1:layers.0.mlp.weight"},
		{"pp1:layers.0.mlp.weight", 1, true, "pp1:vpp1:layers.0.mlp.weight"},
		{"pp1:vpp1:layers.0.mlp.weight", 1, true, "pp1:vpp1:layers.0.mlp.weight"},
		{"layers.0.mlp.weight", 1, false, "layers.0.mlp.weight"},
	} {
		if got := WithChunk(tc.in, tc.vpp, tc.chunks); got != tc.want {
			t.Errorf("WithChunk(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestChunkPrefix(t *testing.T) {
	for _, tc := range []struct {
		in   string
		vpp  int
		own  string
		want bool
	}{
		{"vpp1:layers.0.w", 1, "layers.0.w", true},
		{"1:layers.0.w", 1, "layers.0.w", true},
		{"vppx:layers.0.w", -1, "vppx:layers.0.w", false},
		{"layers.0.w", -1, "layers.0.w", false},
		{":layers.0.w", -1, ":layers.0.w", false},
		{"vpp-1:w", -1, "vpp-1:w", false},
	} {
		v, own, ok := ChunkPrefix(tc.in)
		if v != tc.vpp || own != tc.own || ok != tc.want {
			t.Errorf("ChunkPrefix(%q) = %d %q %v, want %d %q %v", tc.in, v, own, ok, tc.vpp, tc.own, tc.want)
		}
	}
}
