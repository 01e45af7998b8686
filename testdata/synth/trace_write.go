package synth

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"spikescope/model"
)

// WriteTraceDump writes d (a generated dump, or any model.Dump) as msprobe writes a statistics dump:
// dump.json (forward records with input_args/output, backward with
// input/output) and construct.json (each record's parent).
func WriteTraceDump(dir string, d *model.Dump) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
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
			return err
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
		return err
	}
	return os.WriteFile(filepath.Join(dir, "construct.json"), cj, 0o644)
}
