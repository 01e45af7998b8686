package ingest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"spikescope/model"
)

// formats.md §3.3 verbatim (testdata/dump_synthetic/README.md), with the
// Megatron construct.json of §3.4 beside it.
const synthDump = "../testdata/dump_synthetic/step0/rank0"

func TestDumpNonFiniteTokens(t *testing.T) {
	tr := loadTree(t, synthDump)
	d := tr.Dumps[0]
	if d.Step != 0 || d.Rank != 0 || len(d.Ops) != 6 || len(said(tr.WarningsReasons)) != 0 {
		t.Fatalf("step %d rank %d ops %d warnings %v", d.Step, d.Rank, len(d.Ops), said(tr.WarningsReasons))
	}
	bwd := mustOp(t, d, "NPU.npu_fusion_attention.0.backward")
	if len(bwd.Outputs) != 3 || bwd.Outputs[1].Name != "output.1" || bwd.Outputs[2].Name != "output.2" {
		t.Fatalf("outputs %+v", bwd.Outputs)
	}
	o := bwd.Outputs[1]
	if !math.IsNaN(o.Stat[model.StatMax]) || !math.IsInf(o.Stat[model.StatMin], -1) || !math.IsNaN(o.Stat[model.StatMean]) ||
		!math.IsInf(o.Stat[model.StatNorm], 1) || o.Has != [4]bool{true, true, true, true} || o.Elements != 4096*512 {
		t.Errorf("non-finite tensor %+v", o)
	}
	if bwd.Outputs[2].Stat[model.StatNorm] != 0.00855 {
		t.Errorf("tensor after the tokens %+v", bwd.Outputs[2])
	}
	fwd := mustOp(t, d, "NPU.npu_fusion_attention.0.forward")
	// input_args: 3 tensors, int and str args skipped; input_kwargs: only the
	// atten_mask tensor, kept after the positional inputs and marked.
	var names []string
	for _, in := range fwd.Inputs {
		names = append(names, in.Name)
	}
	if strings.Join(names, ",") != "input.0,input.1,input.2,kwargs.atten_mask" {
		t.Errorf("input names %v", names)
	}
	am := fwd.Inputs[3]
	if !am.IsKwarg() || fwd.Inputs[0].IsKwarg() || am.Dtype != "torch.bool" || am.Has != [4]bool{} || am.Elements != 2048*2048 {
		t.Errorf("atten_mask %+v", am)
	}
	if len(fwd.Outputs) != 2 || fwd.Outputs[1].Stat[model.StatMean] != 6.87 || fwd.Outputs[1].Stat[model.StatMin] != 0 {
		t.Errorf("forward outputs %+v", fwd.Outputs)
	}
	qkv := mustOp(t, d, "Module.module.module.decoder.layers.0.self_attention.linear_qkv.ColumnParallelLinear.forward.0")
	if qkv.Layer != 0 || qkv.Class != "ColumnParallelLinear" || len(qkv.Outputs) != 1 || qkv.Params[0].Name != "weight" ||
		qkv.Params[0].Stat[model.StatNorm] != 63.75 || qkv.Recompute {
		t.Errorf("qkv %+v", qkv)
	}
	// Megatron construct.json: [parent, micro_step].
	if qkv.Parent != "Module.module.module.decoder.layers.0.self_attention.SelfAttention.forward.0" || qkv.MicroStep != 0 {
		t.Errorf("qkv parent %q micro %d", qkv.Parent, qkv.MicroStep)
	}
	if fwd.Parent != "Module.module.module.decoder.layers.0.self_attention.core_attention.DotProductAttention.forward.0" {
		t.Errorf("fa parent %q", fwd.Parent)
	}
	g := mustOp(t, d, "Module.module.module.decoder.layers.0.mlp.linear_fc2.RowParallelLinear.parameters_grad.0")
	if g.Direction != model.ParamGrad || g.Layer != 0 || g.Params[0].Stat[model.StatNorm] != 0.0921 || g.Parent != "" || g.MicroStep != -1 {
		t.Errorf("grad %+v", g)
	}
}

func TestConstructMegatronForm(t *testing.T) {
	nodes, err := parseConstructJSON([]byte(`{"A.forward.0": [null, 0], "B": ["A.forward.0", 3], "C": ["", 1],
		"megatron_micro_step_number": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 || nodes["A.forward.0"] != (constructNode{"", 0}) || nodes["B"] != (constructNode{"A.forward.0", 3}) || nodes["C"] != (constructNode{"", 1}) {
		t.Errorf("nodes %+v", nodes)
	}
	if _, err := parseConstructJSON([]byte(`[1]`)); err == nil || !strings.Contains(err.Error(), "not an object") {
		t.Errorf("array construct: %v", err)
	}
}

func TestStackBothForms(t *testing.T) {
	s, err := parseStackJSON([]byte(`{"0": [["a", "b"], ["f1", "f2"]], "1": [["c"], []],
		"old.op.0.forward": ["g1", "g2", "g3"]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 4 || strings.Join(s["a"], "|") != "f1|f2" || strings.Join(s["b"], "|") != "f1|f2" || len(s["c"]) != 0 ||
		strings.Join(s["old.op.0.forward"], "|") != "g1|g2|g3" {
		t.Errorf("stacks %q", s)
	}
}

// A bad stack.json or construct.json warns but does not fail the load.
func TestDumpBadSideFilesWarn(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "dump.json"), `{"task":"statistics","data":{"Torch.cos.0.forward":{"output":[]}}}`)
	writeFile(t, filepath.Join(dir, "stack.json"), `{"0": [[`)
	writeFile(t, filepath.Join(dir, "construct.json"), `nonsense`)
	tr := loadTree(t, dir)
	d := tr.Dumps[0]
	w := strings.Join(said(tr.WarningsReasons), "\n")
	if len(d.Ops) != 1 || !d.HasStack || !d.HasConstruct || d.Stacks != nil ||
		!strings.Contains(w, "stack.json: ignored: truncated JSON") || !strings.Contains(w, "construct.json: ignored: invalid JSON at byte 0") {
		t.Errorf("warnings %q", w)
	}
}

func parse(t *testing.T, doc string) *model.Dump {
	t.Helper()
	d, err := parseDumpJSON(context.Background(), []byte(doc), "x/dump.json", nil)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	return d
}

func TestDumpTokensInsideStringsUntouched(t *testing.T) {
	d := parse(t, `{"task":"statistics","data":{"Torch.cos.0.forward":{"output":[
		{"type":"torch.Tensor","dtype":"NaN, Infinity","shape":[2],"Max":"-Infinity","Min":-1e-3,"Mean":"nan","Norm":"not a number"}]},
		"Torch.x\"NaN\u00e9.1.forward": {}}}`)
	o := d.Ops[0].Outputs[0]
	// A string is never rewritten; stats given as number strings are read.
	if o.Dtype != "NaN, Infinity" || !math.IsInf(o.Stat[model.StatMax], -1) || o.Stat[model.StatMin] != -0.001 ||
		!math.IsNaN(o.Stat[model.StatMean]) || !o.Has[model.StatMean] || o.Has[model.StatNorm] || o.Elements != 2 {
		t.Errorf("tensor %+v", o)
	}
	if d.Ops[1].Key != "Torch.x\"NaN\u00e9.1.forward" || d.Ops[1].ModulePath != "x\"NaN\u00e9" || d.Ops[1].CallIndex != 1 {
		t.Errorf("escaped key %+v", d.Ops[1])
	}
}

func TestDumpNestedAndOldParamGrad(t *testing.T) {
	tensor := `{"type":"torch.Tensor","dtype":"torch.float32","shape":[2,3],"Max":1,"Min":-1,"Mean":0,"Norm":%s}`
	tt := func(n string) string { return strings.Replace(tensor, "%s", n, 1) }
	d := parse(t, `{"task":"statistics","level":"L0","data":{
	"Functional.cat.0.forward":{"input_args":[null,[`+tt("1")+`,[`+tt("2")+`,{"type":"int","value":1}]],{"x":`+tt("3")+`}],
		"input_kwargs":{"dim":{"type":"int","value":0},"extra":[`+tt("4")+`]},"output":`+tt("5")+`,"is_recompute":true},
	"Module.0.module.module.decoder.layers.7.mlp.experts.local_experts.3.linear_fc1.ColumnParallelLinear.parameters_grad":{
		"weight":[`+tt("6")+`,`+tt("99")+`],"bias":`+tt("7")+`},
	"Module.module.module.decoder.layers.1.mlp.MLP.backward.2":{"input":[`+tt("8")+`],"output":[null,`+tt("9")+`]}}}`)
	cat := d.Ops[0]
	want := map[string]float64{"input.1.0": 1, "input.1.1.0": 2, "input.2.x": 3, "kwargs.extra.0": 4}
	if len(cat.Inputs) != 4 || len(cat.Outputs) != 1 || cat.Outputs[0].Name != "output" || cat.Outputs[0].Stat[model.StatNorm] != 5 || !cat.Recompute {
		t.Fatalf("cat %+v", cat)
	}
	for _, in := range cat.Inputs {
		if want[in.Name] != in.Stat[model.StatNorm] || in.Elements != 6 {
			t.Errorf("input %s = %v", in.Name, in.Stat)
		}
	}
	g := d.Ops[1]
	if g.Direction != model.ParamGrad || g.CallIndex != -1 || g.Layer != 7 || g.Class != "ColumnParallelLinear" ||
		g.ModulePath != "0.module.module.decoder.layers.7.mlp.experts.local_experts.3.linear_fc1" ||
		len(g.Params) != 2 || g.Params[0].Stat[model.StatNorm] != 6 || g.Params[1].Name != "bias" || g.Params[1].Stat[model.StatNorm] != 7 {
		t.Errorf("old parameters_grad %+v", g)
	}
	b := d.Ops[2]
	if b.Direction != model.Backward || b.CallIndex != 2 || b.Layer != 1 || len(b.Inputs) != 1 || len(b.Outputs) != 1 || b.Outputs[0].Name != "output.1" {
		t.Errorf("backward %+v", b)
	}
}

func TestParseOpKey(t *testing.T) {
	cases := []struct {
		key                 string
		kind                model.OpKind
		prefix, path, class string
		dir                 model.Direction
		call, layer         int
		ok                  bool
	}{
		{"Module.module.module.decoder.layers.12.mlp.linear_fc1.ColumnParallelLinear.forward.3", model.KindModule, "Module", "module.module.decoder.layers.12.mlp.linear_fc1", "ColumnParallelLinear", model.Forward, 3, 12, true},
		{"Module.module.module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.parameters_grad.5", model.KindModule, "Module", "module.module.decoder.layers.0.mlp.linear_fc1", "ColumnParallelLinear", model.ParamGrad, 5, 0, true},
		{"Module.module.Float16Module.backward.0", model.KindModule, "Module", "module", "Float16Module", model.Backward, 0, -1, true},
		{"Module.0.module.module.decoder.layers.2.TransformerLayer.forward.0", model.KindModule, "Module", "0.module.module.decoder.layers.2", "TransformerLayer", model.Forward, 0, 2, true},
		{"Module.module.module.decoder.layers.4.mlp.experts.local_experts.9.linear_fc2.RowParallelLinear.forward.0", model.KindModule, "Module", "module.module.decoder.layers.4.mlp.experts.local_experts.9.linear_fc2", "RowParallelLinear", model.Forward, 0, 4, true},
		{"Module.model.transformer.h.11.attn.GPT2Attention.forward.0", model.KindModule, "Module", "model.transformer.h.11.attn", "GPT2Attention", model.Forward, 0, 11, true},
		{"Module.model.encoder.block.3.layer.1.DenseReluDense.T5DenseActDense.forward.0", model.KindModule, "Module", "model.encoder.block.3.layer.1.DenseReluDense", "T5DenseActDense", model.Forward, 0, 3, true},
		{"Module.bert.encoder.layer.11.attention.self.BertSelfAttention.forward.0", model.KindModule, "Module", "bert.encoder.layer.11.attention.self", "BertSelfAttention", model.Forward, 0, 11, true},
		{"Module.model.layers.5.block_sparse_moe.experts.3.w1.Linear.forward.0", model.KindModule, "Module", "model.layers.5.block_sparse_moe.experts.3.w1", "Linear", model.Forward, 0, 5, true},
		{"Module.vit.blocks.5.attn.Attention.forward.1", model.KindModule, "Module", "vit.blocks.5.attn", "Attention", model.Forward, 1, 5, true},
		{"Module.layer1.0.conv2.Conv2d.forward.0", model.KindModule, "Module", "layer1.0.conv2", "Conv2d", model.Forward, 0, -1, true},
		{"Cell.network_with_loss.module.language_model.encoder.layers.0.attention.ParallelAttention.forward.0", model.KindModule, "Cell", "network_with_loss.module.language_model.encoder.layers.0.attention", "ParallelAttention", model.Forward, 0, 0, true},
		{"Functional.linear.12.backward", model.KindAPI, "Functional", "linear", "", model.Backward, 12, -1, true},
		{"Primitive.norm.RmsNorm.0.forward", model.KindAPI, "Primitive", "norm.RmsNorm", "", model.Forward, 0, -1, true},
		{"Tensor.__add__.1.forward", model.KindAPI, "Tensor", "__add__", "", model.Forward, 1, -1, true},
		{"Distributed.all_reduce.0.forward", model.KindAPI, "Distributed", "all_reduce", "", model.Forward, 0, -1, true},
		{"api", model.KindAPI, "", "api", "", model.Forward, -1, -1, false},
		{"Torch.something.weird", model.KindAPI, "Torch", "something.weird", "", model.Forward, -1, -1, false},
	}
	for _, c := range cases {
		op := model.Op{Key: c.key}
		ok := parseOpKey(&op)
		if ok != c.ok || op.Kind != c.kind || op.Prefix != c.prefix || op.ModulePath != c.path || op.Class != c.class ||
			op.Direction != c.dir || op.CallIndex != c.call || op.Layer != c.layer {
			t.Errorf("%s: got ok=%v %+v", c.key, ok, op)
		}
	}
}

func TestDumpStatKinds(t *testing.T) {
	d := parse(t, `{"task":"statistics","data":{"Torch.x.0.forward":{"output":[
		{"type":"torch.Tensor","dtype":"torch.int64","shape":[],"Max":7,"Min":-3,"Mean":null,"Norm":true},
		{"type":"torch.Tensor","dtype":"torch.float32","shape":[3,-1],"Max":1e400,"Min":-1e400,"Mean":1E-2,"Norm":0},
		{"type":"torch.Tensor","dtype":"torch.float32","Max":1}
	]}}}`)
	o := d.Ops[0].Outputs
	if o[0].Stat[model.StatMax] != 7 || o[0].Stat[model.StatMin] != -3 || o[0].Has != [4]bool{false, true, true, false} || o[0].Elements != 1 {
		t.Errorf("int stats %+v", o[0])
	}
	if !math.IsInf(o[1].Stat[model.StatMax], 1) || !math.IsInf(o[1].Stat[model.StatMin], -1) || o[1].Stat[model.StatMean] != 0.01 || o[1].Elements != -1 {
		t.Errorf("overflowing numbers / negative dim %+v", o[1])
	}
	if o[2].Elements != -1 || o[2].Shape != nil {
		t.Errorf("no shape %+v", o[2])
	}
}

func TestDumpEmptyObjectWarns(t *testing.T) {
	d := parse(t, ` { } `)
	if len(d.Ops) != 0 || len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "x/dump.json: dump.json is {}") {
		t.Errorf("warnings %v", said(d.WarningsReasons))
	}
	d = parse(t, `{"task": "statistics", "data": {}}`)
	if len(d.Ops) != 0 || len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], `"data" is empty`) {
		t.Errorf("empty data: %v", said(d.WarningsReasons))
	}
	d = parse(t, `{"task": "structure"}`)
	if len(d.Ops) != 0 || len(said(d.WarningsReasons)) != 2 || !strings.Contains(said(d.WarningsReasons)[0], `no "data" object`) {
		t.Errorf("task only: %v", said(d.WarningsReasons))
	}
}

func TestDumpCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadDumpTree(ctx, quickStart, nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v", err)
	}
	// The parser itself stops at its first check.
	_, err = parseDumpJSON(ctx, []byte(`{"data":{"a.0.forward":{}}}`), "p", nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("parser err %v", err)
	}
}

func TestDumpDuplicateKeysAndBOM(t *testing.T) {
	d := parse(t, "\xEF\xBB\xBF"+`{"task":"statistics","data":{"Torch.a.0.forward":{"output":[{"Norm":1}]},
		"Torch.b.0.forward":{},"Torch.a.0.forward":{"output":[{"Norm":2}]}}}`)
	if len(d.Ops) != 3 || len(d.Index) != 2 || d.Op("Torch.a.0.forward").Outputs[0].Stat[model.StatNorm] != 1 ||
		len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], `1 duplicate data keys (first "Torch.a.0.forward")`) {
		t.Errorf("ops %d index %d warnings %v", len(d.Ops), len(d.Index), said(d.WarningsReasons))
	}
}

// Progress reports are monotonic and end at the total, with ranks read in
// parallel.
func TestDumpTreeProgress(t *testing.T) {
	dir := t.TempDir()
	var total int64
	for r := 0; r < 6; r++ {
		doc := string(genMegatronDump(3000 + 100*r))
		total += int64(len(doc))
		writeFile(t, filepath.Join(dir, "step0", fmt.Sprintf("rank%d", r), "dump.json"), doc)
	}
	var mu sync.Mutex
	var seen []model.Progress
	tr, err := LoadDumpTree(context.Background(), dir, func(p model.Progress) {
		mu.Lock()
		seen = append(seen, p)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dumps) != 6 || len(tr.Dumps[5].Ops) != 3500 {
		t.Fatalf("dumps %d", len(tr.Dumps))
	}
	if len(seen) < 8 || seen[0].Done != 0 || seen[len(seen)-1].Done != total {
		t.Fatalf("%d reports, first %+v last %+v, total %d", len(seen), seen[0], seen[len(seen)-1], total)
	}
	for i := 1; i < len(seen); i++ {
		if seen[i].Done <= seen[i-1].Done || seen[i].Total != total || seen[i].Input != dir {
			t.Fatalf("report %d: %+v after %+v", i, seen[i], seen[i-1])
		}
	}
}

func TestDumpNoStatisticsWarns(t *testing.T) {
	d := parse(t, `{"task":"statistics","data":{"Torch.a.0.forward":{"output":[
		{"type":"torch.Tensor","dtype":"torch.float32","shape":[2],"md5":"0x00000000deadbeef","requires_grad":false}]}}}`)
	if len(d.Ops[0].Outputs) != 1 || d.Ops[0].Outputs[0].Elements != 2 || len(said(d.WarningsReasons)) != 1 ||
		!strings.Contains(said(d.WarningsReasons)[0], "none of its 1 tensor records has Max/Min/Mean/Norm") {
		t.Errorf("warnings %v", said(d.WarningsReasons))
	}
}
