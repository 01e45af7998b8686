package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"spikescope/ingest"
	"spikescope/model"
)

// readResultJSON reads a saved result (spikescope's JSON, or the reference
// scripts' with bare NaN/Infinity tokens) into v. Pipes, devices, huge and
// empty files are refused by ingest.ReadResultFile; decoding errors are
// worded for people. what names the kind of file ("Phase 1 JSON").
func readResultJSON(path, what string, v any) error {
	b, err := ingest.ReadResultFile(path, what)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(quoteBareNonFinite(b), v); err != nil {
		return &ingest.InputError{Path: path, Problem: "not a valid " + what + ": " + ingest.JSONProblem(err), Err: err}
	}
	return nil
}

// readPhase1 reads a Phase 1 JSON and checks that it is not another
// phase's result (a hand-made file without "phase" is accepted).
func readPhase1(path string) (*model.Phase1Result, error) {
	var p1 model.Phase1Result
	if err := readResultJSON(path, "Phase 1 JSON", &p1); err != nil {
		return nil, err
	}
	if p1.Phase != 1 && p1.Phase != 0 {
		return nil, &ingest.InputError{Path: path, Problem: fmt.Sprintf("not a Phase 1 result (\"phase\": %d)", p1.Phase)}
	}
	return &p1, nil
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
