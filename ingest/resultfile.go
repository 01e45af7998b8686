package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// MaxResultFileBytes bounds a saved result (Phase 1/2/3 JSON) read whole: a
// file larger than this is not one of ours, and reading it would only
// exhaust memory.
const MaxResultFileBytes = 2 << 30

// ReadResultFile reads a saved result file (what names it in messages, e.g.
// "Phase 1 JSON") whole. Everything that cannot be one is an InputError
// with its own problem, found before reading: a missing path, a folder, a
// named pipe or device (which would block or never end), an empty file, a
// file over MaxResultFileBytes.
func ReadResultFile(path, what string) ([]byte, error) {
	return ReadInputFile(path, what, MaxResultFileBytes)
}

// JSONProblem words an encoding/json decoding error for people, without Go
// type names: a truncated file, the byte offset of a syntax error, or the
// field holding a value of the wrong kind.
func JSONProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || err != nil && err.Error() == "unexpected end of JSON input":
		return "truncated JSON: the file ends inside a value"
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d: %s", se.Offset, se.Error())
	case errors.As(err, &te):
		field := te.Field
		if field == "" {
			field = "the top-level value"
		} else {
			field = "field " + field
		}
		return fmt.Sprintf("%s holds a JSON %s, expected %s", field, te.Value, jsonKindOf(te.Type.Kind().String()))
	case err == nil:
		return ""
	}
	return oneLine(err.Error())
}

// jsonKindOf names a Go kind as the JSON kind that would fill it.
func jsonKindOf(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64", "float32", "float64":
		return "a number"
	case "string":
		return "a string"
	case "bool":
		return "true or false"
	case "slice", "array":
		return "a list"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "another kind of value"
}

// ReadResult reads a saved result (spikescope's JSON, or the reference
// scripts' with bare NaN/Infinity tokens) into v. Pipes, devices, huge and
// empty files are refused by ReadResultFile; decoding errors are worded for
// people. what names the kind of file ("Phase 1 JSON"). Before the fields
// are decoded the file is checked to be that phase's result: another
// phase's result is named as such, and a Phase 1 JSON must have an
// "anomalies" list (a package.json or GeoJSON has none). A hand-made file
// without "phase" is accepted.
func ReadResult(path, what string, v any) error {
	b, err := ReadResultFile(path, what)
	if err != nil {
		return err
	}
	return DecodeResult(path, what, b, v)
}

// DecodeResult is ReadResult on the bytes b of the file path. Syntax is
// checked by the dump scanner's lenient reader, so a saved result and a
// dump.json accept and word the same JSON.
func DecodeResult(path, what string, b []byte, v any) error {
	b, err := quoteNonFinite(b)
	if err != nil {
		return &InputError{Path: path, Problem: "not a valid " + what + ": " + err.Error(), Err: err}
	}
	var want int
	fmt.Sscanf(what, "Phase %d", &want)
	var probe map[string]json.RawMessage
	if want > 0 && json.Unmarshal(b, &probe) == nil {
		var phase int
		if raw, ok := probe["phase"]; ok && json.Unmarshal(raw, &phase) == nil && phase != want && phase != 0 {
			names := map[int]string{1: "a Phase 1 result (detect's output)", 2: "a Phase 2 result (select's output)", 3: "a Phase 3 result (trace's output)"}
			if names[phase] == "" {
				return &InputError{Path: path, Problem: fmt.Sprintf("not a Phase %d result (\"phase\": %d)", want, phase)}
			}
			return &InputError{Path: path, Problem: fmt.Sprintf("this is %s, not a Phase %d result", names[phase], want)}
		}
		if raw := bytes.TrimSpace(probe["anomalies"]); want == 1 && (len(raw) == 0 || raw[0] != '[') {
			return &InputError{Path: path, Problem: "not a Phase 1 result: it has no \"anomalies\" list (its keys: " + jsonKeys(probe) + ")"}
		}
	}
	if err := json.Unmarshal(b, v); err != nil {
		return &InputError{Path: path, Problem: "not a valid " + what + ": " + JSONProblem(err), Err: err}
	}
	return nil
}

// ReadPhase1 reads a Phase 1 JSON (see ReadResult); negative ranks and
// steps are refused.
func ReadPhase1(path string) (*model.Phase1Result, error) {
	var p1 model.Phase1Result
	if err := ReadResult(path, "Phase 1 JSON", &p1); err != nil {
		return nil, err
	}
	if err := CheckPhase1Coordinates(path, &p1); err != nil {
		return nil, err
	}
	p1.Restage() // names as written → spikescope's stage-qualified names
	return &p1, nil
}

// CheckPhase1Coordinates refuses negative ranks and steps.
func CheckPhase1Coordinates(path string, p1 *model.Phase1Result) error {
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
			return &InputError{Path: path, Problem: fmt.Sprintf("anomaly %d has a negative %s: not a Phase 1 result spikescope or the reference script writes", i+1, neg)}
		}
	}
	return nil
}

// jsonKeys lists up to a few keys of a JSON object, sorted, escaped.
func jsonKeys(m map[string]json.RawMessage) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		k, _ = EscapeControl(k)
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
