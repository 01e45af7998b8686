package pipeline

import (
	"context"
	"errors"
	"io"
	"time"
)

// TUIStart is what the command line gives the terminal UI.
type TUIStart struct {
	// Args is the command line as typed, for the command printed on exit.
	Args  []string
	In    Inputs
	Title string // the input as the header names it
	// Demo: the embedded demo run (its pin is not kept for the next start).
	Demo bool
	// --follow, --interval and --bell.
	Follow   bool
	Interval time.Duration
	Bell     bool
}

// TUIFunc starts the terminal UI on stdout (when stdout is no terminal: a
// text summary) and returns the exit code, or an error for the command to
// word and map. ctx carries the notices (pipeline.WithNotice).
type TUIFunc func(ctx context.Context, st TUIStart, stdout, stderr io.Writer) (int, error)

// tui is the terminal UI, set by package ui when the program links it in:
// ui imports the pipeline (its backend), so the pipeline cannot import ui.
var tui TUIFunc

// SetTUI is how package ui gives the pipeline its entry (from its init).
func SetTUI(f TUIFunc) { tui = f }

// RunTUI starts the terminal UI (see TUIFunc): the command's one call for
// it, so that main reaches the UI through the pipeline as every other face.
func RunTUI(ctx context.Context, st TUIStart, stdout, stderr io.Writer) (int, error) {
	if tui == nil {
		return 1, errors.New("this build has no terminal UI")
	}
	return tui(ctx, st, stdout, stderr)
}
