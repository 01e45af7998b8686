package outfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/charmbracelet/x/term"
)

// StdoutWriter records the first failed write to stdout, so that every
// command can report it (a full disk) instead of exiting 0.
type StdoutWriter struct {
	W   io.Writer
	err error
}

// StdoutError is a failed write to stdout; the exit code leaves its wording to
// StdoutFailed, so that it is reported once.
type StdoutError struct{ err error }

func (e *StdoutError) Error() string {
	return "cannot write to standard output: " + RootCause(e.err)
}
func (e *StdoutError) Unwrap() error { return e.err }

func (s *StdoutWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, &StdoutError{s.err}
	}
	n, err := s.W.Write(p)
	if err != nil {
		s.err = err
		return n, &StdoutError{err}
	}
	return n, nil
}

// StdoutFailed turns a recorded stdout failure into the command's exit:
// one line on stderr and exit 1, unless the command failed otherwise.
func StdoutFailed(s *StdoutWriter, code int, stderr io.Writer) int {
	if s.err == nil || code != 0 && code != 1 {
		return code
	}
	fmt.Fprintln(stderr, "spikescope:", (&StdoutError{s.err}).Error())
	return 1
}

// WriteJSON writes v as 2-space-indented JSON (non-ASCII kept) to
// the file out, or to stdout when out is empty.
func WriteJSON(v any, out string, stdout, stderr io.Writer) error {
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
	if err := Write(out, "output", buf.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(stderr, "Output written to", out)
	return nil
}

// IsTerminal reports whether w (or the writer a StdoutWriter wraps) is a
// terminal: the TUI draws there, else the command prints a text summary.
func IsTerminal(w io.Writer) bool {
	if s, ok := w.(*StdoutWriter); ok {
		w = s.W
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}
