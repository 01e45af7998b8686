package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"spikescope/ingest"
	"spikescope/model"
)

// readResultJSON reads a saved result (spikescope's JSON, or the reference
// scripts' with bare NaN/Infinity tokens) into v. Pipes, devices, huge and
// empty files are refused by ingest.ReadResultFile; decoding errors are
// worded for people. what names the kind of file ("Phase 1 JSON"). Before
// the fields are decoded the file is checked to be that phase's result:
// another phase's result is named as such, and a Phase 1 JSON must have an
// "anomalies" list (a package.json or GeoJSON has none). A hand-made file
// without "phase" is accepted.
func readResultJSON(path, what string, v any) error {
	b, err := ingest.ReadResultFile(path, what)
	if err != nil {
		return err
	}
	return decodeResultJSON(path, what, b, v)
}

// decodeResultJSON is readResultJSON on the bytes b of the file path.
func decodeResultJSON(path, what string, b []byte, v any) error {
	b = quoteBareNonFinite(b)
	var want int
	fmt.Sscanf(what, "Phase %d", &want)
	var probe map[string]json.RawMessage
	if want > 0 && json.Unmarshal(b, &probe) == nil {
		var phase int
		if raw, ok := probe["phase"]; ok && json.Unmarshal(raw, &phase) == nil && phase != want && phase != 0 {
			names := map[int]string{1: "a Phase 1 result (detect's output)", 2: "a Phase 2 result (select's output)", 3: "a Phase 3 result (trace's output)"}
			if names[phase] == "" {
				return &ingest.InputError{Path: path, Problem: fmt.Sprintf("not a Phase %d result (\"phase\": %d)", want, phase)}
			}
			return &ingest.InputError{Path: path, Problem: fmt.Sprintf("this is %s, not a Phase %d result", names[phase], want)}
		}
		if raw := bytes.TrimSpace(probe["anomalies"]); want == 1 && (len(raw) == 0 || raw[0] != '[') {
			return &ingest.InputError{Path: path, Problem: "not a Phase 1 result: it has no \"anomalies\" list (its keys: " + jsonKeys(probe) + ")"}
		}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &ingest.InputError{Path: path, Problem: "not a valid " + what + ": " + ingest.JSONProblem(err), Err: err}
	}
	return nil
}

// readPhase1 reads a Phase 1 JSON (see readResultJSON); negative ranks and
// steps are refused.
func readPhase1(path string) (*model.Phase1Result, error) {
	var p1 model.Phase1Result
	if err := readResultJSON(path, "Phase 1 JSON", &p1); err != nil {
		return nil, err
	}
	if err := checkPhase1Coordinates(path, &p1); err != nil {
		return nil, err
	}
	return &p1, nil
}

// checkPhase1Coordinates refuses negative ranks and steps.
func checkPhase1Coordinates(path string, p1 *model.Phase1Result) error {
	for i, a := range p1.Anomalies {
		neg := ""
		switch {
		case a.Rank < 0:
			neg = fmt.Sprintf("rank %d", a.Rank)
		case a.Step < 0:
			neg = fmt.Sprintf("step %d", a.Step)
		case a.OptimizerStep != nil && *a.OptimizerStep < 0:
			neg = fmt.Sprintf("optimizer_step %d", *a.OptimizerStep)
		case a.MicroStep != nil && *a.MicroStep < 0:
			neg = fmt.Sprintf("micro_step %d", *a.MicroStep)
		}
		if neg != "" {
			return &ingest.InputError{Path: path, Problem: fmt.Sprintf("anomaly %d has a negative %s: not a Phase 1 result spikescope or the reference script writes", i+1, neg)}
		}
	}
	return nil
}

// quoteBareNonFinite turns the non-JSON tokens NaN, Infinity and -Infinity
// that Python's json module writes into strings, which model.Float reads.
func quoteBareNonFinite(b []byte) []byte {
	var out []byte
	inStr, esc := false, false
	last := 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		if inStr {
			switch {
			case esc:
				esc = false
			case c == '\\':
				esc = true
			case c == '"':
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
			continue
		}
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if len(b)-i >= len(tok) && string(b[i:i+len(tok)]) == tok {
				out = append(out, b[last:i]...)
				out = append(out, '"')
				out = append(out, tok...)
				out = append(out, '"')
				i += len(tok) - 1
				last = i + 1
				break
			}
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// writeResultJSON writes v as 2-space-indented JSON (non-ASCII kept) to
// the file out, or to stdout when out is empty.
func writeResultJSON(v any, out string, stdout, stderr io.Writer) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	if out == "" {
		_, err := stdout.Write(buf.Bytes())
		return err
	}
	if err := writeOutputFile(out, "output", buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "Output written to", out)
	return nil
}

// jsonKeys lists up to a few keys of a JSON object, sorted, escaped.
func jsonKeys(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		k, _ = ingest.EscapeControl(k)
		keys = append(keys, strconv.Quote(k))
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		return "none"
	}
	if len(keys) > 6 {
		keys = append(keys[:6], "…")
	}
	return strings.Join(keys, ", ")
}
