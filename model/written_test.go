package model

import "testing"

func TestWrittenText(t *testing.T) {
	for in, want := range map[string]string{
		"rank 10 pp1:vpp1:layers.0.w: the baseline has none": "rank 10 layers.0.w on pipeline stage 1 chunk 1: the baseline has none",
		"(rank 3, pp1:layers.2.mlp.fc2.weight) at step 3":    "(rank 3, layers.2.mlp.fc2.weight on pipeline stage 1) at step 3",
		"named pp12:final_layernorm.weight.":                 "named final_layernorm.weight on pipeline stage 12.",
		"vpp1:layers.0.w and app2:x stay":                    "vpp1:layers.0.w and app2:x stay",
		"no name here":                                       "no name here",
	} {
		if got := WrittenText(in); got != want {
			t.Errorf("WrittenText(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOwnNameAndQualified(t *testing.T) {
	for _, c := range []struct {
		q, own  string
		st, vpp int
	}{{"pp1:vpp0:layers.0.w", "layers.0.w", 1, 0}, {"pp3:layers.2.w", "layers.2.w", 3, -1}} {
		st, v, own, ok := StageParts(c.q)
		if !ok || st != c.st || v != c.vpp || own != c.own || OwnName(c.q) != c.own {
			t.Errorf("%s: %d %d %q %v", c.q, st, v, own, ok)
		}
		if back := QualifiedName(st, max(v, 0), v >= 0, own); back != c.q {
			t.Errorf("%s: qualified again %s", c.q, back)
		}
	}
	for _, n := range []string{"layers.0.w", "0:module.x", "vpp1:layers.0.w", "ppx:a"} {
		if OwnName(n) != n {
			t.Errorf("OwnName(%q) = %q: not a stage-qualified name, kept", n, OwnName(n))
		}
	}
}
