package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// msprobeFixtures are real msprobe files (testdata/msprobe/README.md).
const msprobeFixtures = "../testdata/msprobe"

const (
	quickStart      = msprobeFixtures + "/examples/quick_start/gpu_dump"
	compareDir      = msprobeFixtures + "/test/msprobe_test/mindspore_ut/compare/dump_file"
	layerMappingDir = msprobeFixtures + "/test/msprobe_test/resources/layer_mapping"
	visualDir       = msprobeFixtures + "/test/msprobe_test/visualization_ut"
)

func loadTree(t *testing.T, path string) *model.DumpTree {
	t.Helper()
	tr, err := LoadDumpTree(context.Background(), path, nil)
	if err != nil {
		t.Fatalf("LoadDumpTree(%s): %v", path, err)
	}
	return tr
}

// opCounts counts ops per direction and kind.
type opCounts struct{ fwd, bwd, grad, module, api, tensors int }

func countOps(d *model.Dump) opCounts {
	var c opCounts
	for _, op := range d.Ops {
		switch op.Direction {
		case model.Forward:
			c.fwd++
		case model.Backward:
			c.bwd++
		case model.ParamGrad:
			c.grad++
		}
		if op.Kind == model.KindModule {
			c.module++
		} else {
			c.api++
		}
		c.tensors += len(op.Inputs) + len(op.Outputs) + len(op.Params)
	}
	return c
}

func mustOp(t *testing.T, d *model.Dump, key string) *model.Op {
	t.Helper()
	op := d.Op(key)
	if op == nil {
		t.Fatalf("%s: op %q not found", d.Path, key)
	}
	return op
}

func findTensor(t *testing.T, ts []model.TensorStat, name string) *model.TensorStat {
	t.Helper()
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	t.Fatalf("tensor %q not found among %d", name, len(ts))
	return nil
}

// Every dump.json under testdata/msprobe, read on its own: op counts per
// direction and kind and tensor counts (cross-checked once against an
// independent Python flattening of the same files: 4222 records equal).
func TestDumpEveryFixtureFile(t *testing.T) {
	want := map[string]opCounts{
		"examples/quick_start/gpu_dump/step0/proc2016":                        {410, 243, 107, 373, 387, 2071},
		"examples/quick_start/gpu_dump/step1/proc2016":                        {410, 243, 107, 373, 387, 2071},
		"test/msprobe_test/mindspore_ut/compare/dump_file/mindspore_data":     {11, 2, 0, 4, 9, 32},
		"test/msprobe_test/mindspore_ut/compare/dump_file/pytorch_data":       {11, 1, 0, 4, 8, 39},
		"test/msprobe_test/resources/layer_mapping/mindspore":                 {1, 0, 0, 1, 0, 2},
		"test/msprobe_test/resources/layer_mapping/pytorch":                   {1, 0, 0, 1, 0, 2},
		"test/msprobe_test/visualization_ut/input/step0/rank0":                {1, 0, 0, 0, 1, 1}, // "api": {"input": [{}]}
		"test/msprobe_test/visualization_ut/input/step0/rank1":                {},
		"test/msprobe_test/visualization_ut/input/step1/rank0":                {},
		"test/msprobe_test/visualization_ut/input/step1/step1":                {},
		"test/msprobe_test/visualization_ut/input_format_correct/step0/rank0": {1, 0, 0, 0, 1, 1},
		"test/msprobe_test/visualization_ut/input_format_correct/step0/rank1": {1, 0, 0, 0, 1, 1},
		"test/msprobe_test/visualization_ut/input_format_correct/step1/rank0": {1, 0, 0, 0, 1, 1},
		"test/msprobe_test/visualization_ut/input_format_correct/step2/rank0": {1, 0, 0, 0, 1, 1},
	}
	seen := 0
	err := filepath.WalkDir(msprobeFixtures, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".json") {
			return err
		}
		rel, _ := filepath.Rel(msprobeFixtures, filepath.Dir(p))
		switch e.Name() {
		case "dump.json":
			seen++
			w, ok := want[rel]
			if !ok {
				t.Errorf("%s: no expectation", p)
				return nil
			}
			tr := loadTree(t, p)
			if len(tr.Dumps) != 1 {
				t.Fatalf("%s: %d dumps", p, len(tr.Dumps))
			}
			if got := countOps(tr.Dumps[0]); got != w {
				t.Errorf("%s: counts %+v, want %+v", p, got, w)
			}
		case "construct.json", "stack.json":
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() == "construct.json" {
				_, err = parseConstructJSON(b)
			} else {
				_, err = parseStackJSON(b)
			}
			if err != nil {
				t.Errorf("%s: %v", p, err)
			}
		default: // monitor config samples: JSON, but not dumps
			_, err := LoadDumpTree(context.Background(), p, nil)
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), "not an msprobe dump.json") || ie.Path != p {
				t.Errorf("%s: got %v, want InputError 'not an msprobe dump.json'", p, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if seen != len(want) {
		t.Errorf("saw %d dump.json files, want %d", seen, len(want))
	}
}

func TestDumpQuickStartTree(t *testing.T) {
	var last model.Progress
	tr, err := LoadDumpTree(context.Background(), quickStart, func(p model.Progress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Dumps) != 2 || len(said(tr.WarningsReasons)) != 0 {
		t.Fatalf("dumps %d warnings %v", len(tr.Dumps), said(tr.WarningsReasons))
	}
	if last.Done != 695347+714373 || last.Total != last.Done || last.Unit != "bytes" {
		t.Errorf("final progress %+v", last)
	}
	for i, d := range tr.Dumps {
		// proc2016 (no real rank anywhere) → rank 0 in both steps.
		if d.Step != i || d.Rank != 0 || d.Proc != "proc2016" || d.Task != "statistics" || d.Level != "mix" || d.Framework != "pytorch" {
			t.Errorf("dump %d: step %d rank %d proc %q task %q level %q fw %q", i, d.Step, d.Rank, d.Proc, d.Task, d.Level, d.Framework)
		}
		if !d.HasConstruct || !d.HasStack || len(d.Stacks) != 410 {
			t.Errorf("dump %d: construct %v stack %v stacks %d", i, d.HasConstruct, d.HasStack, len(d.Stacks))
		}
		for j := range d.Ops {
			if d.Ops[j].Order != j || d.Index[d.Ops[j].Key] != j {
				t.Fatalf("op %d order %d", j, d.Ops[j].Order)
			}
			// ResNet "layer1.0" is not a transformer layer segment.
			if d.Ops[j].Layer != -1 {
				t.Fatalf("%s: layer %d", d.Ops[j].Key, d.Ops[j].Layer)
			}
		}
	}
	d0, d1 := tr.Dumps[0], tr.Dumps[1]

	// Largest parameter-gradient norm per step (README of the fixtures).
	bestKey, bestParam, best := "", "", -1.0
	for _, op := range d0.Ops {
		for _, p := range op.Params {
			if op.Direction == model.ParamGrad && p.Stat[model.StatNorm] > best {
				bestKey, bestParam, best = op.Key, p.Name, p.Stat[model.StatNorm]
			}
		}
	}
	if bestKey != "Module.conv1.Conv2d.parameters_grad.0" || bestParam != "weight" || best != 151.2729949951172 {
		t.Errorf("step0 largest grad %s %s %v", bestKey, bestParam, best)
	}
	g := mustOp(t, d1, "Module.layer1.0.conv2.Conv2d.parameters_grad.1")
	if g.Direction != model.ParamGrad || g.CallIndex != 1 || g.ModulePath != "layer1.0.conv2" || g.Class != "Conv2d" ||
		g.Params[0].Name != "weight" || g.Params[0].Stat[model.StatNorm] != 23.41208839416504 {
		t.Errorf("step1 grad op %+v", g)
	}
	fc := mustOp(t, d0, "Module.fc.Linear.parameters_grad.0")
	if fc.Order != 412 || d0.Ops[411].Key != "Functional.linear.0.backward" || d0.Ops[413].Key != "Module.fc.Linear.backward.0" {
		t.Errorf("backward order around fc grad: %d %s %s", fc.Order, d0.Ops[411].Key, d0.Ops[413].Key)
	}
	if b := findTensor(t, fc.Params, "bias"); b.Stat[model.StatNorm] != 0.17590194940567017 || len(b.Shape) != 1 || b.Shape[0] != 1000 {
		t.Errorf("fc bias grad %+v", b)
	}

	// 0-dim int64 tensor with JSON-integer stats; the int arg keeps position 1.
	add := mustOp(t, d0, "Tensor.add_.0.forward")
	if len(add.Inputs) != 1 || add.Inputs[0].Name != "input.0" || add.Inputs[0].Dtype != "torch.int64" ||
		add.Inputs[0].Elements != 1 || len(add.Inputs[0].Shape) != 0 || add.Inputs[0].Has != [4]bool{true, true, true, true} ||
		add.Inputs[0].Stat[model.StatMax] != 0 {
		t.Errorf("Tensor.add_ input %+v", add.Inputs)
	}
	if add.Outputs[0].Stat != [4]float64{1, 1, 1, 1} || add.Kind != model.KindAPI || add.Prefix != "Tensor" || add.ModulePath != "add_" || add.CallIndex != 0 {
		t.Errorf("Tensor.add_ %+v", add)
	}

	// Functional.conv2d: lists of ints are skipped; tensors keep positions.
	conv := mustOp(t, d0, "Functional.conv2d.0.forward")
	if len(conv.Inputs) != 2 || conv.Inputs[1].Name != "input.1" || conv.Inputs[1].Elements != 64*3*7*7 ||
		conv.Outputs[0].Stat[model.StatNorm] != 954.3693237304688 || conv.Parent != "Module.conv1.Conv2d.forward.0" {
		t.Errorf("conv2d %+v", conv)
	}
	// construct.json: null roots, plain parents.
	if p := mustOp(t, d0, "Module.layer1.0.Bottleneck.forward.0").Parent; p != "Module.layer1.Sequential.forward.0" {
		t.Errorf("Bottleneck parent %q", p)
	}
	if op := mustOp(t, d0, "Module.conv1.Conv2d.forward.0"); op.Parent != "" || op.MicroStep != -1 || len(op.Params) != 1 || op.Params[0].Name != "weight" {
		t.Errorf("conv1 root %+v", op)
	}
	// Grouped stack.json: group "0" has 11 frames for Functional.conv2d.0.forward.
	if fr := d0.Stacks["Functional.conv2d.0.forward"]; len(fr) != 11 || !strings.Contains(fr[0], "api_registry.py") {
		t.Errorf("stack frames %d %q", len(fr), fr)
	}
	if tr.Find(1, 0) != d1 || tr.Find(0, 1) != nil {
		t.Error("Find")
	}
}

func TestDumpComparePyTorch(t *testing.T) {
	d := loadTree(t, compareDir+"/pytorch_data").Dumps[0]
	if d.Step != -1 || d.Rank != 0 || d.Framework != "pytorch" {
		t.Errorf("step %d rank %d fw %q", d.Step, d.Rank, d.Framework)
	}
	// bf16 tensor with all four stats null.
	fa := mustOp(t, d, "NPU.npu_fusion_attention.0.forward")
	o3 := findTensor(t, fa.Outputs, "output.3")
	if o3.Dtype != "torch.bfloat16" || o3.Has != [4]bool{} || !math.IsNaN(o3.Stat[model.StatNorm]) {
		t.Errorf("null-stat output.3 %+v", o3)
	}
	// bool tensors: Max/Min true/false are not numbers.
	or := mustOp(t, d, "Tensor.__or__.0.forward")
	if in := or.Inputs[0]; in.Dtype != "torch.bool" || in.Has != [4]bool{} || in.Elements != 4096 {
		t.Errorf("bool input %+v", in)
	}
	// Legacy Megatron module names: layer from "encoder.layers.0.".
	attn := mustOp(t, d, "Module.module.module.language_model.encoder.layers.0.self_attention.ParallelAttention.forward.0")
	if attn.Kind != model.KindModule || attn.Layer != 0 || attn.Class != "ParallelAttention" ||
		attn.ModulePath != "module.module.language_model.encoder.layers.0.self_attention" {
		t.Errorf("attention op %+v", attn)
	}
	// construct.json roots written as "".
	if p := mustOp(t, d, "Tensor.__add__.0.forward").Parent; p != "" {
		t.Errorf("root parent %q", p)
	}
	if p := or.Parent; p != "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0" {
		t.Errorf("__or__ parent %q", p)
	}
	// Old per-op stack.json.
	if len(d.Stacks) != 11 || len(d.Stacks["Tensor.__add__.0.forward"]) != 12 {
		t.Errorf("stacks %d, add frames %d", len(d.Stacks), len(d.Stacks["Tensor.__add__.0.forward"]))
	}
	bwd := mustOp(t, d, "NPU.npu_fusion_attention.0.backward")
	if bwd.Direction != model.Backward || bwd.CallIndex != 0 || bwd.Layer != -1 {
		t.Errorf("backward %+v", bwd)
	}
}

func TestDumpCompareMindSpore(t *testing.T) {
	d := loadTree(t, compareDir+"/mindspore_data").Dumps[0]
	if d.Framework != "mindspore" || len(d.Ops) != 13 {
		t.Fatalf("fw %q ops %d", d.Framework, len(d.Ops))
	}
	cell := mustOp(t, d, "Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.backward.0")
	if cell.Kind != model.KindModule || cell.Prefix != "Cell" || cell.Direction != model.Backward || cell.CallIndex != 0 ||
		cell.Class != "FusedRMSNorm" || cell.ModulePath != "network_with_loss.module.language_model.encoder.layers.0.input_norm" || cell.Layer != 0 {
		t.Errorf("cell %+v", cell)
	}
	prim := mustOp(t, d, "Primitive.norm.RmsNorm.0.forward")
	if prim.Kind != model.KindAPI || prim.ModulePath != "norm.RmsNorm" || prim.CallIndex != 0 ||
		prim.Parent != "Cell.network_with_loss.module.language_model.encoder.layers.0.input_norm.FusedRMSNorm.forward.0" {
		t.Errorf("primitive %+v", prim)
	}
	emb := mustOp(t, d, "Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0")
	if emb.Inputs[0].Dtype != "Int32" || emb.Outputs[0].Dtype != "BFloat16" || emb.Outputs[0].Elements != 4096*6144 || !emb.Outputs[0].Has[model.StatNorm] {
		t.Errorf("mindspore.Tensor records %+v / %+v", emb.Inputs[0], emb.Outputs[0])
	}
	bools := 0
	for _, op := range d.Ops {
		for _, ts := range append(append([]model.TensorStat{}, op.Inputs...), op.Outputs...) {
			if ts.Dtype == "Bool" {
				bools++
				if ts.Has != [4]bool{} {
					t.Errorf("%s %s: Bool stats recorded %+v", op.Key, ts.Name, ts)
				}
			}
		}
	}
	if bools == 0 {
		t.Error("no Bool tensors seen")
	}
	if len(d.Stacks) != 10 {
		t.Errorf("stacks %d", len(d.Stacks))
	}
	if p := mustOp(t, d, "Tensor.__bool__.1.forward").Parent; p != "" {
		t.Errorf("root %q", p)
	}
}

func TestDumpLayerMapping(t *testing.T) {
	for fw, key := range map[string]string{
		"pytorch":   "Module.module.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
		"mindspore": "Cell.network_with_loss.module.language_model.embedding.word_embeddings.VocabParallelEmbedding.forward.0",
	} {
		d := loadTree(t, layerMappingDir+"/"+fw).Dumps[0]
		op := mustOp(t, d, key)
		// Same numbers in both frameworks (README of the fixtures).
		if len(d.Ops) != 1 || op.Class != "VocabParallelEmbedding" || len(op.Inputs) != 1 || len(op.Outputs) != 1 ||
			op.Inputs[0].Elements != 4096 || op.Outputs[0].Elements != 4096*6144 || op.Layer != -1 {
			t.Errorf("%s: %+v", fw, op)
		}
	}
}

func TestDumpVisualizationTrees(t *testing.T) {
	tr := loadTree(t, visualDir+"/input_format_correct")
	type sr struct{ step, rank, ops int }
	var got []sr
	for _, d := range tr.Dumps {
		got = append(got, sr{d.Step, d.Rank, len(d.Ops)})
	}
	want := []sr{{0, 0, 1}, {0, 1, 1}, {1, 0, 1}, {2, 0, 1}}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("dump %d: %v want %v", i, got[i], want[i])
		}
	}
	d := tr.Dumps[0]
	// Toy key "api" is outside the key grammar: kept, warned; its {} record
	// is a tensor without statistics; construct.json toy parent map.
	api := mustOp(t, d, "api")
	if api.Kind != model.KindAPI || len(api.Inputs) != 1 || api.Inputs[0].Name != "input.0" || api.Inputs[0].Elements != -1 || api.Inputs[0].Has != [4]bool{} {
		t.Errorf("toy op %+v", api)
	}
	if d.Framework != "pytorch" || !d.HasStack || len(d.Stacks) != 0 || !d.HasConstruct {
		t.Errorf("toy dump %+v", d)
	}
}

// input/: step1 holds rank0 and a step1 folder where a rank folder should
// be; dumps that are {} load with 0 ops and a warning each.
func TestDumpOddStepLayout(t *testing.T) {
	tr := loadTree(t, visualDir+"/input")
	if len(tr.Dumps) != 3 {
		t.Fatalf("%d dumps", len(tr.Dumps))
	}
	if d := tr.Find(1, 0); d == nil || !strings.HasSuffix(d.Path, filepath.Join("step1", "rank0")) || len(d.Ops) != 0 {
		t.Errorf("step1 rank0: %+v", d)
	}
	if d := tr.Dumps[0]; d.Framework != "" || len(d.Ops) != 1 { // toy dump without "framework"
		t.Errorf("step0 rank0 framework %q ops %d", d.Framework, len(d.Ops))
	}
	joined := strings.Join(said(tr.WarningsReasons), "\n")
	for _, w := range []string{
		filepath.Join("input", "step1", "step1") + ": skipped: a step folder where a rank folder should be",
		filepath.Join("step0", "rank1", "dump.json") + ": dump.json is {}",
		filepath.Join("step1", "rank0", "dump.json") + ": dump.json is {}",
	} {
		if !strings.Contains(joined, w) {
			t.Errorf("warning %q missing in\n%s", w, joined)
		}
	}
	// Given the step folder itself, the odd folder is the only candidate
	// besides rank0; with rank0 removed it is read as rank 0.
	dir := t.TempDir()
	copyFile(t, visualDir+"/input/step1/step1/dump.json", filepath.Join(dir, "step4", "step4", "dump.json"))
	tr = loadTree(t, dir)
	if len(tr.Dumps) != 1 || tr.Dumps[0].Step != 4 || tr.Dumps[0].Rank != 0 ||
		!strings.Contains(strings.Join(said(tr.WarningsReasons), "\n"), "read as rank 0") {
		t.Errorf("step4/step4: %+v %v", tr.Dumps, said(tr.WarningsReasons))
	}
}

func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, string(b))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
