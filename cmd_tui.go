package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"spikescope/ingest"
	"spikescope/pipeline"
	"spikescope/ui"
)

const tuiUsage = `usage:
  spikescope [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
             [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
             [--layer-mapping FILE]

Opens the terminal UI on PATH (a trend.db, a monitor CSV folder or a dump
tree); no PATH opens the embedded demo run. When stdout is not a terminal it
prints a short text summary instead. NO_COLOR=1 turns colours off.
`

// runTUI is spikescope without a subcommand.
func runTUI(args []string, stdout, stderr io.Writer) (code int) {
	in, title, cleanup, err := tuiInputs(args, stdout)
	if cleanup != nil {
		defer cleanup()
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	backend := &ui.PipelineBackend{In: in, Lang: reportLang("")}
	if !isTerminal(stdout) {
		d, err := backend.Load(context.Background(), nil)
		if err != nil {
			return exitCode(err, stderr)
		}
		_, err = io.WriteString(stdout, ui.Summary(d))
		return exitCode(err, stderr)
	}
	title, _ = ingest.EscapeControl(title) // the path as typed may hold control characters
	m := ui.New(ui.Options{Backend: backend, Inputs: backend.Inputs(), NoColor: ui.NoColorFromEnv(), Title: title, Suspend: suspendSelf})
	// Bubble Tea's own panic handler prints a stack trace; the model
	// recovers panics itself (Update, View, commands) and this recover is
	// the last resort: restore the terminal, print one line, exit 1.
	p := tea.NewProgram(m, tea.WithoutCatchPanics(), tea.WithoutSignalHandler())
	state, _ := term.GetState(os.Stdin.Fd())
	defer func() {
		if r := recover(); r != nil {
			p.Kill()
			restoreTerminal(stdout, state)
			fmt.Fprintln(stderr, "spikescope: internal error:", oneLine(fmt.Sprint(r)))
			code = 1
		}
	}()
	sigs := watchTUISignals(p)
	_, err = p.Run()
	sig := sigs.stop()
	if txt := m.PanicText(); txt != "" {
		fmt.Fprintln(stderr, "spikescope: internal error:", oneLine(txt))
		return 1
	}
	switch {
	case sig != 0: // SIGHUP, SIGTERM, SIGINT: the terminal is restored
		return 128 + int(sig)
	case m.Interrupted(), errors.Is(err, tea.ErrInterrupted): // ctrl+c
		return 130
	case errors.Is(err, tea.ErrProgramKilled):
		return 143
	case err != nil:
		return exitCode(err, stderr)
	}
	if err := m.LoadErr(); err != nil && !errors.Is(err, context.Canceled) {
		return exitCode(err, stderr)
	}
	return 0
}

// tuiInputs parses the flags; no PATH and no --dump-a is the demo run.
func tuiInputs(args []string, stdout io.Writer) (in pipeline.Inputs, title string, cleanup func(), err error) {
	var f inputFlags
	fs := flag.NewFlagSet("spikescope", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, tuiUsage)
		return in, "", nil, err
	}
	if err != nil {
		return in, "", nil, usageError{err.Error() + " (spikescope -h for help)"}
	}
	return f.inputs("", paths)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	if s, ok := w.(*stdoutWriter); ok {
		w = s.w
	}
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(f.Fd())
}

// restoreTerminal leaves the alternate screen, shows the cursor and resets
// the tty mode after a panic escaped the program.
func restoreTerminal(w io.Writer, st *term.State) {
	io.WriteString(w, "\x1b[?1049l\x1b[?25h\x1b[0m\r\n")
	if st != nil {
		_ = term.Restore(os.Stdin.Fd(), st)
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
