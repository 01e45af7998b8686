package ingest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzDumpJSON feeds arbitrary bytes to the dump.json, construct.json and
// stack.json parsers: they must never panic, must fail only with an
// *InputError (dump.json), and must not call valid JSON a syntax error.
func FuzzDumpJSON(f *testing.F) {
	// Small seeds only: the fuzzer minimises every new input, which takes
	// up to a minute for a 20 KB file and stalls the run meanwhile.
	for _, p := range []string{
		layerMappingDir + "/pytorch/dump.json",
		layerMappingDir + "/mindspore/dump.json",
		layerMappingDir + "/pytorch/construct.json",
		visualDir + "/input/step0/rank0/dump.json",
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{}`, `[]`, `{"data": 1}`, `{"data": {"a.0.forward": {"input_args": [[[{"Max": -Infinity}]]]}}}`,
		`{"0": [["a"], ["f"]]}`, `{"x": ["f"]}`, `{"a": [null, 1], "megatron_micro_step_number": 1}`, `"\ud800"`, `-`, `1e999`,
		`{"data": {"M.a.B.backward.0": {"output": [{"type": "torch.Tensor", "shape": [2], "Max": NaN, "Min": -Infinity, "Norm": Infinity}, null]},
		 "M.a.B.parameters_grad.0": {"weight": [{"dtype": "f", "Norm": 1.5e-3}]}}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := parseDumpJSON(context.Background(), b, "f", nil)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error %T %v", err, err)
			}
			var se *scanError
			if json.Valid(b) && errors.As(err, &se) && !strings.Contains(se.Msg, "nesting deeper") {
				t.Fatalf("valid JSON rejected: %v", err)
			}
		} else {
			for i := range d.Ops {
				if d.Ops[i].Order != i {
					t.Fatalf("order %d at %d", d.Ops[i].Order, i)
				}
				if j, ok := d.Index[d.Ops[i].Key]; !ok || j > i {
					t.Fatalf("index of %q", d.Ops[i].Key)
				}
			}
		}
		_, _ = parseConstructJSON(b)
		_, _ = parseStackJSON(b)
	})
}
