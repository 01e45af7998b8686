package sweeps

import (
	"context"
	"os"
	"path/filepath"
	"spikescope/words"
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// The MindSpore-vs-PyTorch pair written to disk as msprobe writes it and
// read back by the dump reader (MindSpore's Cell keys, BFloat16 dtypes,
// [b, s, h] against [s, b, h]), with the layer-mapping YAML read by its
// reader: the fault's layer and operator are found with the built-in map
// and with the file; the alignment count says how many records align.
func TestAlignMindSporeVsPyTorchOnDisk(t *testing.T) {
	dir := t.TempDir()
	a, b, c, d := synth.TraceCrossQuad(8, synth.TraceLegacy, 5, synth.TraceFault{On: true, Layer: 5, Role: "fc2", F: 1.4, Call: -1})
	planted := synth.TraceKeysOf(a)["5/0/forward/fc2"]
	for name, x := range map[string]*model.Dump{"ms_a": a, "pt_b": b, "ms_c": c, "pt_d": d} {
		if err := synth.WriteTraceDump(filepath.Join(dir, name), x); err != nil {
			t.Fatal(err)
		}
	}
	load := func(name string) *model.Dump {
		tr, err := ingest.LoadDumpTree(context.Background(), filepath.Join(dir, name), nil)
		if err != nil || len(tr.Dumps) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		return tr.Dumps[0]
	}
	ra, rb, rc, rd := load("ms_a"), load("pt_b"), load("ms_c"), load("pt_d")
	if len(ra.Ops) != len(a.Ops) || strings.ToLower(ra.Framework) != "mindspore" || strings.ToLower(rb.Framework) != "pytorch" {
		t.Fatalf("read back %d of %d records, frameworks %s %s", len(ra.Ops), len(a.Ops), strings.ToLower(ra.Framework), strings.ToLower(rb.Framework))
	}
	yaml := filepath.Join(dir, "mapping.yaml")
	os.WriteFile(yaml, []byte("# MindFormers cells -> ModelLink modules\nTopLayer:\n  network: module\n"+
		"LLamaDecodeLayer:\n  attention_norm: input_norm\n  attention: self_attention\n  ffn_norm: post_attention_norm\n  feed_forward: mlp\n"+
		"LLamaAttention:\n  flash_attention: core_attention_flash\n  wo: dense\nLlamaFeedForward:\n  w2: dense_4h_to_h\n"), 0o644)
	lm, err := ingest.ReadLayerMapping(yaml)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*model.LayerMapping{nil, lm} {
		s := analysis.Phase3(analysis.Phase3Input{A: ra, B: rb, C: rc, D: rd, LayerMapping: m}, analysis.DefaultPhase3Options()).DivergenceSummary
		var fwd model.DirectionVerdict
		for _, v := range s.Directions {
			if v.Direction == "fwd" {
				fwd = v
			}
		}
		if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 5 || !fwd.P0 || s.Drilldown == nil || s.Drilldown.Operator != planted {
			t.Errorf("file %v: start %d drill-down %+v, want L5 %s (-99: none)", m != nil, intOr(s.EarliestFwdDivergence), s.Drilldown, planted)
		}
	}
	al := analysis.AlignDumps(ra, rb, nil)
	split := 0
	for _, rc := range al.Reasons {
		if strings.Contains(words.Say(rc.Why, words.English), "split projections") {
			split += rc.Count
		}
	}
	// per layer and pass: q, k, v, gate, up as a module and its matmul
	if al.Records != len(a.Ops) || split != 8*2*10 || al.Aligned < al.Records/2 {
		t.Errorf("alignment %+v (split %d)", al, split)
	}
	if mem := analysis.AlignDumps(a, b, nil); mem.Aligned != al.Aligned {
		t.Errorf("%d records align read from disk, %d in memory", al.Aligned, mem.Aligned)
	}
	t.Logf("%d of %d records align", al.Aligned, al.Records)
}
