package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"spikescope/outfile"
)

// stdoutWriter records the first failed write to stdout, so that every
// command can report it (a full disk) instead of exiting 0.
type stdoutWriter struct {
	w   io.Writer
	err error
}

// stdoutError is a failed write to stdout; exitCode leaves its wording to
// stdoutFailed, so that it is reported once.
type stdoutError struct{ err error }

func (e *stdoutError) Error() string {
	return "cannot write to standard output: " + outfile.RootCause(e.err)
}
func (e *stdoutError) Unwrap() error { return e.err }

func (s *stdoutWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, &stdoutError{s.err}
	}
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
		return n, &stdoutError{err}
	}
	return n, nil
}

// stdoutFailed turns a recorded stdout failure into the command's exit:
// one line on stderr and exit 1, unless the command failed otherwise.
func stdoutFailed(s *stdoutWriter, code int, stderr io.Writer) int {
	if s.err == nil || code != 0 && code != 1 {
		return code
	}
	fmt.Fprintln(stderr, "spikescope:", (&stdoutError{s.err}).Error())
	return 1
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
	if err := outfile.Write(out, "output", buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "Output written to", out)
	return nil
}
