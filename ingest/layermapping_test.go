package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A layer-mapping file as msprobe's documentation writes it: classes,
// dotted keys and values, comments, quotes, a value with a "(…)" tail kept
// as written (the analysis drops it as msprobe does).
func TestReadLayerMapping(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mapping.yaml")
	text := "# mapping for MindSpore vs PyTorch\r\nTopLayer:\r\n  network_with_loss: module\r\n\r\n" +
		"GPTModel:\n    language_model.embedding: embedding   # cross-layer\n    'language_model.encoder': \"decoder\"\n" +
		"ParallelAttention:\n  flash_attention_score: core_attention_flash.npu_fusion_attention\n" +
		"Empty: {}\nAlsoEmpty:\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	lm, err := ReadLayerMapping(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]string{
		"TopLayer":          {"network_with_loss": "module"},
		"GPTModel":          {"language_model.embedding": "embedding", "language_model.encoder": "decoder"},
		"ParallelAttention": {"flash_attention_score": "core_attention_flash.npu_fusion_attention"},
		"Empty":             {}, "AlsoEmpty": {},
	}
	if len(lm.Rules) != len(want) || lm.Path != p {
		t.Fatalf("rules %v", lm.Rules)
	}
	for c, rs := range want {
		if len(lm.Rules[c]) != len(rs) {
			t.Errorf("%s: %v", c, lm.Rules[c])
		}
		for k, v := range rs {
			if lm.Rules[c][k] != v {
				t.Errorf("%s.%s = %q, want %q", c, k, lm.Rules[c][k], v)
			}
		}
	}
	// msprobe's empty file
	os.WriteFile(p, []byte("{}\n"), 0o644)
	if lm, err := ReadLayerMapping(p); err != nil || len(lm.Rules) != 0 {
		t.Errorf("{}: %v %v", lm, err)
	}
}

// Bad files: one line naming the file, the line and the problem.
func TestReadLayerMappingBad(t *testing.T) {
	dir := t.TempDir()
	for text, want := range map[string]string{
		"TopLayer: module\n":       "line 1: class TopLayer must hold `name: name` pairs",
		"  a: b\n":                 "line 1: indented line before any class",
		"A:\n  - x\n":              "line 2: a list item",
		"A:\n  x:\n":               "line 2: name x below A has no mapped name",
		"A:\n  x: y\n    z: w\n":   "line 3: indentation differs",
		"A:\n\tx: y\n":             "line 2: tab in the indentation",
		"A:\n  x: y\nA:\n  z: w\n": "line 3: class A is given twice",
		"A: {x: y}\n":              "line 1: a flow mapping",
		"A:\n  just text\n":        "line 2: expected `key: value`",
		"\x00\x01binary":           "binary data",
		"A:\n  'unterminated: y\n": "line 2: expected `key: value`",
	} {
		p := filepath.Join(dir, "m.yaml")
		os.WriteFile(p, []byte(text), 0o644)
		_, err := ReadLayerMapping(p)
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	for _, p := range []string{filepath.Join(dir, "missing.yaml"), dir} {
		if _, err := ReadLayerMapping(p); err == nil || !strings.HasPrefix(err.Error(), p+": ") {
			t.Errorf("%s: %v", p, err)
		}
	}
	empty := filepath.Join(dir, "empty.yaml")
	os.WriteFile(empty, nil, 0o644)
	if _, err := ReadLayerMapping(empty); err == nil {
		t.Error("empty file accepted")
	}
}
