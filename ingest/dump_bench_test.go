package ingest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// benchOps is the size of the generated benchmark dump.
const benchOps = 10000

// jsonKV is an ordered object member for the indent-1 writer.
type jsonKV struct {
	k string
	v any
}

// writeIndent1 writes v like Python's json.dump(v, indent=1): one-space
// indent per level, every list element and object member on its own line,
// NaN/Infinity as bare tokens.
func writeIndent1(buf *bytes.Buffer, v any, level int) {
	pad := func(l int) {
		buf.WriteByte('\n')
		for i := 0; i < l; i++ {
			buf.WriteByte(' ')
		}
	}
	switch x := v.(type) {
	case nil:
		buf.WriteString("null")
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case int:
		buf.WriteString(strconv.Itoa(x))
	case float64:
		switch {
		case math.IsNaN(x):
			buf.WriteString("NaN")
		case math.IsInf(x, 1):
			buf.WriteString("Infinity")
		case math.IsInf(x, -1):
			buf.WriteString("-Infinity")
		default:
			buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		}
	case string:
		buf.WriteString(strconv.Quote(x))
	case []any:
		if len(x) == 0 {
			buf.WriteString("[]")
			return
		}
		buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			pad(level + 1)
			writeIndent1(buf, e, level+1)
		}
		pad(level)
		buf.WriteByte(']')
	case []jsonKV:
		if len(x) == 0 {
			buf.WriteString("{}")
			return
		}
		buf.WriteByte('{')
		for i, m := range x {
			if i > 0 {
				buf.WriteByte(',')
			}
			pad(level + 1)
			buf.WriteString(strconv.Quote(m.k))
			buf.WriteString(": ")
			writeIndent1(buf, m.v, level+1)
		}
		pad(level)
		buf.WriteByte('}')
	default:
		panic(fmt.Sprintf("writeIndent1: %T", v))
	}
}

// genMegatronDump builds a dump.json of n ops shaped like a Megatron-core
// GPT run at level mix: per micro batch and layer the module and API
// forward entries, their backward entries and parameters_grad.N, with
// bf16 activations, fp32 gradients and an occasional NaN/Infinity.
func genMegatronDump(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	tensor := func(dtype string, shape ...int) []jsonKV {
		sh := make([]any, len(shape))
		for i, d := range shape {
			sh[i] = d
		}
		mx := rng.Float64() * 10
		norm := rng.Float64() * 1000
		if rng.IntN(500) == 0 {
			norm = math.Inf(1)
		}
		mean := rng.NormFloat64() * 1e-3
		if rng.IntN(700) == 0 {
			mean = math.NaN()
		}
		return []jsonKV{{"type", "torch.Tensor"}, {"dtype", dtype}, {"shape", sh}, {"Max", mx}, {"Min", -mx},
			{"Mean", mean}, {"Norm", norm}, {"requires_grad", true}}
	}
	act := func(h int) []jsonKV { return tensor("torch.bfloat16", 4096, 1, h) }
	var data []jsonKV
	apiCount := map[string]int{}
	api := func(name, dir string, in, out []any) {
		c := apiCount[name+dir]
		apiCount[name+dir] = c + 1
		key := fmt.Sprintf("%s.%d.%s", name, c, dir)
		if dir == "forward" {
			data = append(data, jsonKV{key, []jsonKV{{"input_args", in}, {"input_kwargs", []jsonKV{}}, {"output", out}, {"is_recompute", false}}})
		} else {
			data = append(data, jsonKV{key, []jsonKV{{"input", in}, {"output", out}}})
		}
	}
	mod := func(path, class, dir string, micro int, in, out []any, params []jsonKV) {
		key := fmt.Sprintf("Module.module.module.%s.%s.%s.%d", path, class, dir, micro)
		if dir == "forward" {
			data = append(data, jsonKV{key, []jsonKV{{"input_args", in}, {"input_kwargs", []jsonKV{}}, {"output", out}, {"parameters", params}, {"is_recompute", false}}})
		} else {
			data = append(data, jsonKV{key, []jsonKV{{"input", in}, {"output", out}}})
		}
	}
	grad := func(path, class string, micro int, shape ...int) {
		key := fmt.Sprintf("Module.module.module.%s.%s.parameters_grad.%d", path, class, micro)
		data = append(data, jsonKV{key, []jsonKV{{"weight", []any{tensor("torch.float32", shape...)}}}})
	}
	for micro := 0; len(data) < n; micro++ {
		for l := 0; l < 64 && len(data) < n; l++ {
			p := fmt.Sprintf("decoder.layers.%d", l)
			mod(p, "TransformerLayer", "forward", micro, []any{act(4096)}, []any{act(4096), nil}, nil)
			mod(p+".input_layernorm", "RMSNorm", "forward", micro, []any{act(4096)}, []any{act(4096)}, []jsonKV{{"weight", tensor("torch.bfloat16", 4096)}})
			api("NPU.npu_rms_norm", "forward", []any{act(4096), tensor("torch.bfloat16", 4096), map0()}, []any{act(4096), tensor("torch.float32", 4096, 1, 1)})
			mod(p+".self_attention.linear_qkv", "ColumnParallelLinear", "forward", micro, []any{act(4096)}, []any{act(3072), nil}, []jsonKV{{"weight", tensor("torch.bfloat16", 3072, 4096)}})
			api("NPU.npu_fusion_attention", "forward", []any{act(2048), act(512), act(512), map0()}, []any{act(2048), tensor("torch.float32", 1, 16, 4096, 8)})
			mod(p+".self_attention.linear_proj", "RowParallelLinear", "forward", micro, []any{act(2048)}, []any{act(4096), nil}, []jsonKV{{"weight", tensor("torch.bfloat16", 4096, 2048)}})
			mod(p+".mlp.linear_fc1", "ColumnParallelLinear", "forward", micro, []any{act(4096)}, []any{act(11008), nil}, []jsonKV{{"weight", tensor("torch.bfloat16", 11008, 4096)}})
			api("NPU.npu_swiglu", "forward", []any{act(11008)}, []any{act(5504)})
			mod(p+".mlp.linear_fc2", "RowParallelLinear", "forward", micro, []any{act(5504)}, []any{act(4096), nil}, []jsonKV{{"weight", tensor("torch.bfloat16", 4096, 5504)}})
		}
		for l := 63; l >= 0 && len(data) < n; l-- {
			p := fmt.Sprintf("decoder.layers.%d", l)
			grad(p+".mlp.linear_fc2", "RowParallelLinear", micro, 4096, 5504)
			mod(p+".mlp.linear_fc2", "RowParallelLinear", "backward", micro, []any{act(4096), nil}, []any{act(5504)}, nil)
			api("NPU.npu_swiglu", "backward", []any{act(5504)}, []any{act(11008)})
			grad(p+".mlp.linear_fc1", "ColumnParallelLinear", micro, 11008, 4096)
			mod(p+".mlp.linear_fc1", "ColumnParallelLinear", "backward", micro, []any{act(11008), nil}, []any{act(4096)}, nil)
			api("NPU.npu_fusion_attention", "backward", []any{act(2048)}, []any{act(2048), act(512), act(512), nil})
			grad(p+".self_attention.linear_qkv", "ColumnParallelLinear", micro, 3072, 4096)
			mod(p+".self_attention.linear_qkv", "ColumnParallelLinear", "backward", micro, []any{act(3072), nil}, []any{act(4096)}, nil)
		}
	}
	data = data[:n]
	var buf bytes.Buffer
	writeIndent1(&buf, []jsonKV{{"task", "statistics"}, {"level", "mix"}, {"framework", "pytorch"}, {"dump_data_dir", nil}, {"data", data}}, 0)
	return buf.Bytes()
}

// map0 is a non-tensor argument as msprobe writes it.
func map0() []jsonKV { return []jsonKV{{"type", "float"}, {"value", 1e-6}} }

// benchDumpFile generates the benchmark dump.json into a temp dir and reads
// it back, as a real load would.
func benchDumpFile(b *testing.B) []byte {
	b.Helper()
	p := filepath.Join(b.TempDir(), "dump.json")
	if err := os.WriteFile(p, genMegatronDump(benchOps), 0o644); err != nil {
		b.Fatal(err)
	}
	buf, err := os.ReadFile(p)
	if err != nil {
		b.Fatal(err)
	}
	return buf
}

func BenchmarkDumpJSON10k(b *testing.B) {
	buf := benchDumpFile(b)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d, err := parseDumpJSON(context.Background(), buf, "bench", nil)
		if err != nil || len(d.Ops) != benchOps {
			b.Fatalf("err %v ops %d", err, len(d.Ops))
		}
	}
}

// BenchmarkDumpJSON10kStdlib is the reference the scanner replaces:
// encoding/json into generic values (after turning the NaN/Infinity tokens
// into null so that it accepts the file), without keeping key order.
func BenchmarkDumpJSON10kStdlib(b *testing.B) {
	buf := benchDumpFile(b)
	for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
		buf = bytes.ReplaceAll(buf, []byte(": "+tok), []byte(": null"))
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		var v map[string]any
		if err := json.Unmarshal(buf, &v); err != nil {
			b.Fatal(err)
		}
	}
}

// The generator's output is a valid dump with the expected shape: the
// benchmark measures what it claims to.
func TestGenMegatronDump(t *testing.T) {
	buf := genMegatronDump(500)
	d, err := parseDumpJSON(context.Background(), buf, "gen", nil)
	if err != nil {
		t.Fatal(err)
	}
	c := countOps(d)
	if len(d.Ops) != 500 || c.fwd != 500 || d.Ops[0].Key != "Module.module.module.decoder.layers.0.TransformerLayer.forward.0" || d.Ops[0].Layer != 0 ||
		d.Ops[495].Layer != 55 || d.Ops[499].Layer != -1 || !bytes.HasPrefix(buf, []byte("{\n \"task\": \"statistics\",\n \"level\": \"mix\"")) {
		t.Errorf("ops %d %+v first %q", len(d.Ops), c, d.Ops[0].Key)
	}
}

// BenchmarkDumpJSONQuickStart reads the real 695 KB quick-start dump.json.
func BenchmarkDumpJSONQuickStart(b *testing.B) {
	buf, err := os.ReadFile(filepath.Join(quickStart, "step0", "proc2016", "dump.json"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseDumpJSON(context.Background(), buf, "bench", nil); err != nil {
			b.Fatal(err)
		}
	}
}
