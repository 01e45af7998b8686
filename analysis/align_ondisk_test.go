package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/ingest"
	"spikescope/model"
)

// s3WriteDumpFolder writes d as msprobe writes a statistics dump:
// dump.json (forward records with input_args/output, backward with
// input/output) and construct.json (each record's parent).
func s3WriteDumpFolder(t *testing.T, dir string, d *model.Dump) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	typ := "torch.Tensor"
	if d.Framework == "mindspore" {
		typ = "mindspore.Tensor"
	}
	list := func(ts []model.TensorStat) []any {
		out := []any{}
		for _, x := range ts {
			m := map[string]any{"type": typ, "dtype": x.Dtype, "shape": x.Shape}
			for s, name := range []string{"Max", "Min", "Mean", "Norm"} {
				if v := x.Stat[s]; x.Has[s] && !math.IsNaN(v) {
					m[name] = v
				} else {
					m[name] = nil
				}
			}
			out = append(out, m)
		}
		return out
	}
	var data bytes.Buffer
	fmt.Fprintf(&data, `{"task": "statistics", "level": "mix", "framework": %q, "dump_data_dir": null, "data": {`, d.Framework)
	construct := map[string]string{}
	for i, op := range d.Ops {
		rec := map[string]any{"output": list(op.Outputs)}
		if op.Direction == model.Backward {
			rec["input"] = list(op.Inputs)
		} else {
			rec["input_args"], rec["input_kwargs"] = list(op.Inputs), map[string]any{}
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := json.Marshal(op.Key)
		if i > 0 {
			data.WriteString(",\n")
		}
		data.Write(k)
		data.WriteString(": ")
		data.Write(b)
		construct[op.Key] = op.Parent
	}
	data.WriteString("}}\n")
	cj, _ := json.Marshal(construct)
	if err := os.WriteFile(filepath.Join(dir, "dump.json"), data.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "construct.json"), cj, 0o644); err != nil {
		t.Fatal(err)
	}
}

// The MindSpore-vs-PyTorch pair written to disk as msprobe writes it and
// read back by the dump reader (MindSpore's Cell keys, BFloat16 dtypes,
// [b, s, h] against [s, b, h]), with the layer-mapping YAML read by its
// reader: the fault's layer and operator are found with the built-in map
// and with the file; the alignment count says how many records align.
func TestAlignMindSporeVsPyTorchOnDisk(t *testing.T) {
	dir := t.TempDir()
	a, b, c, d := s3CrossQuad(8, s3Legacy, 5, s3FwdFault(5, "fc2", 1.4))
	planted := s3Keys[a]["5/0/forward/fc2"]
	for name, x := range map[string]*model.Dump{"ms_a": a, "pt_b": b, "ms_c": c, "pt_d": d} {
		s3WriteDumpFolder(t, filepath.Join(dir, name), x)
	}
	load := func(name string) *model.Dump {
		tr, err := ingest.LoadDumpTree(context.Background(), filepath.Join(dir, name), nil)
		if err != nil || len(tr.Dumps) != 1 {
			t.Fatalf("%s: %v", name, err)
		}
		return tr.Dumps[0]
	}
	ra, rb, rc, rd := load("ms_a"), load("pt_b"), load("ms_c"), load("pt_d")
	if len(ra.Ops) != len(a.Ops) || frameworkOf(ra) != "mindspore" || frameworkOf(rb) != "pytorch" {
		t.Fatalf("read back %d of %d records, frameworks %s %s", len(ra.Ops), len(a.Ops), frameworkOf(ra), frameworkOf(rb))
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
		r, fwd := msRun(ra, rb, rc, rd, m)
		s := r.DivergenceSummary
		if s.EarliestFwdDivergence == nil || *s.EarliestFwdDivergence != 5 || !fwd.P0 || s.Drilldown == nil || s.Drilldown.Operator != planted {
			t.Errorf("file %v: start %s drill-down %s, want L5 %s", m != nil, fmtIntPtr(s.EarliestFwdDivergence), teDrill(s.Drilldown), planted)
		}
	}
	al := AlignDumps(ra, rb, nil)
	split := 0
	for _, rc := range al.Reasons {
		if strings.Contains(rc.Reason, "split projections") {
			split += rc.Count
		}
	}
	// per layer and pass: q, k, v, gate, up as a module and its matmul
	if al.Records != len(a.Ops) || split != 8*2*10 || al.Aligned < al.Records/2 {
		t.Errorf("alignment %+v (split %d)", al, split)
	}
	if mem := AlignDumps(a, b, nil); mem.Aligned != al.Aligned {
		t.Errorf("%d records align read from disk, %d in memory", al.Aligned, mem.Aligned)
	}
	t.Logf("%d of %d records align", al.Aligned, al.Records)
}
