package ingest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// FuzzSideFiles feeds arbitrary bytes to construct.json and stack.json the
// way a dump tree reads them: through the checked opener (a real file),
// both parsers, the join onto a dump's operators and the escaping of names.
// Nothing may panic; valid JSON is never called a syntax error; a construct
// node's micro step is -1 or a real one; the dump's index stays consistent.
func FuzzSideFiles(f *testing.F) {
	for _, p := range []string{layerMappingDir + "/pytorch/construct.json"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{`{}`, `[]`, `{"0": [["a.0.forward", "b"], ["File x, line 1", "f()"]]}`, `{"a.0.forward": ["f"]}`,
		`{"a": [null, 1], "megatron_micro_step_number": 1}`, `{"a": "b", "b": null, "c": ""}`, `{"a": ["p", -5]}`,
		`{"0": [[{"x": 1}], [[1, 2]]]}`, "{\"a\x1b[2J\": \"b\x07\"}", `{"a": [`, `null`, `{"a": {"b": [1, {"c": []}]}}`} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(dir, "construct.json")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		got, present, err := readSideFile(p)
		if !present {
			t.Fatal("side file not found")
		}
		if err != nil {
			if len(b) != 0 {
				t.Fatalf("read: %v", err)
			}
			return
		}
		nodes, cerr := parseConstructJSON(got)
		stacks, serr := parseStackJSON(got)
		for _, e := range []error{cerr, serr} {
			var se *scanError
			if e != nil && json.Valid(b) && errors.As(e, &se) && !strings.Contains(se.Msg, "nesting deeper") {
				t.Fatalf("valid JSON rejected: %v", e)
			}
		}
		d := &model.Dump{Index: map[string]int{}}
		for k, n := range nodes {
			if n.Micro < -1 {
				t.Fatalf("micro step %d for %q", n.Micro, k)
			}
			if len(d.Ops) < 64 {
				d.Index[k] = len(d.Ops)
				d.Ops = append(d.Ops, model.Op{Key: k, Order: len(d.Ops), MicroStep: -1})
			}
		}
		applyConstruct(d, nodes)
		d.Stacks = stacks
		escapeDumpNames(d)
		for i := range d.Ops {
			if j, ok := d.Index[d.Ops[i].Key]; !ok || j > i {
				t.Fatalf("index of %q: %d %v", d.Ops[i].Key, j, ok)
			}
			if strings.ContainsAny(d.Ops[i].Key+d.Ops[i].Parent, "\x1b\x07\x00") {
				t.Fatalf("control character left in %q / %q", d.Ops[i].Key, d.Ops[i].Parent)
			}
		}
	})
}
