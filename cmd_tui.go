package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"spikescope/memlimit"
	"spikescope/pipeline"
	"spikescope/report"
	"spikescope/ui"
)

const tuiUsage = `usage:
  spikescope [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
             [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
             [--layer-mapping FILE] [--follow [--interval 2s] [--bell]] [--mem-limit SIZE]

Opens the terminal UI on PATH (a trend.db, a monitor CSV folder or a dump
tree); no PATH opens the embedded demo run. When stdout is not a terminal it
prints a short text summary instead. NO_COLOR=1 turns colours off;
SPIKESCOPE_MOUSE=1 turns mouse reporting on (the wheel scrolls either way).
A pin is kept per input under $XDG_STATE_HOME/spikescope/pins and comes back
when the same input is opened again.
--follow keeps reading what the training job writes (F toggles it in the
UI); --bell rings the terminal bell when the root-cause coordinate changes.
`

// runTUI is spikescope without a subcommand.
func runTUI(args []string, stdout, stderr io.Writer) int {
	var follow followFlags
	in, title, cleanup, err := tuiInputsFollow(args, stdout, &follow)
	if cleanup != nil {
		defer cleanup()
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	defer memlimit.Apply(in.Mem)()
	backend := &ui.PipelineBackend{In: in, Lang: report.Lang("")}
	if !ui.IsTerminal(stdout) {
		if follow.on {
			return exitCode(usageError{"--follow without a terminal: for a pipe or a log, spikescope detect PATH --follow prints JSON lines"}, stderr)
		}
		d, err := backend.Load(context.Background(), nil)
		if err != nil {
			return exitCode(err, stderr)
		}
		_, err = io.WriteString(stdout, ui.Summary(d))
		return exitCode(err, stderr)
	}
	if err := pipeline.CheckMemoryFor(noticeCtx(stderr), in, follow.on); err != nil {
		return exitCode(err, stderr) // before the screen is taken
	}
	title, _ = pipeline.EscapeControl(title) // the path as typed may hold control characters
	inputs := backend.Inputs()
	var store *ui.PinStore
	if dir := ui.DefaultStateDir(); dir != "" {
		store = &ui.PinStore{Dir: dir, Key: ui.StateKey(inputs, cleanup != nil), Inputs: inputs}
	}
	e := ui.Run(ui.Options{Backend: backend, Inputs: inputs, NoColor: ui.NoColorFromEnv(), Title: title,
		State: store, Mouse: os.Getenv("SPIKESCOPE_MOUSE") == "1",
		Follow: follow.on, FollowInterval: follow.interval, Bell: follow.bell}, stdout)
	if e.Panic != "" {
		fmt.Fprintln(stderr, "spikescope: internal error:", e.Panic)
		return 1
	}
	if code, ok := e.SignalCode(); ok {
		return code
	}
	if e.Err == nil && e.Pin != "" { // the terminal is restored: a line to reuse
		why := e.PinNotKept
		if store == nil {
			why = "no folder to keep it in: set XDG_STATE_HOME or HOME"
		}
		io.WriteString(stdout, pinExitText(args, e.Pin, why))
	}
	return exitCode(e.Err, stderr)
}

// pinExitText is what the TUI prints on exit with a pin: the command that
// reopens it, and whether the pin is kept for this input (why not: no
// state folder, neither XDG_STATE_HOME nor HOME set, or the save failed).
func pinExitText(args []string, pin, notKept string) string {
	line, _ := pipeline.EscapeControl(reuseCommand(args, pin))
	if notKept != "" {
		why, _ := pipeline.EscapeControl(notKept)
		return fmt.Sprintf("the pin is not kept (%s); to reopen it:\n  %s\n", why, line)
	}
	return fmt.Sprintf("the pin is kept for this input; to reopen it elsewhere:\n  %s\n", line)
}

// reuseCommand is the command line that reopens the run at pin: args
// without any --pin, then --pin, each word quoted for a POSIX shell.
func reuseCommand(args []string, pin string) string {
	words := []string{"spikescope"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "pin" {
			if !hasValue {
				i++ // the value is the next word
			}
			continue
		}
		words = append(words, shellQuote(a))
	}
	return strings.Join(append(words, "--pin", shellQuote(pin)), " ")
}

// shellQuote quotes s for a POSIX shell unless it is plain.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// tuiInputs parses the flags; no PATH and no --dump-a is the demo run.
func tuiInputs(args []string, stdout io.Writer) (in pipeline.Inputs, title string, cleanup func(), err error) {
	var follow followFlags
	return tuiInputsFollow(args, stdout, &follow)
}

// tuiInputsFollow is tuiInputs with the follow flags read into follow.
func tuiInputsFollow(args []string, stdout io.Writer, follow *followFlags) (in pipeline.Inputs, title string, cleanup func(), err error) {
	var f inputFlags
	fs := flag.NewFlagSet("spikescope", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	follow.register(fs, true)
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, tuiUsage)
		return in, "", nil, err
	}
	if err != nil {
		return in, "", nil, usageError{err.Error() + " (spikescope -h for help)"}
	}
	if err := follow.check("", fs); err != nil {
		return in, "", nil, err
	}
	return f.inputs("", paths)
}
