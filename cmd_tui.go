package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"spikescope/cliflags"
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
	var follow cliflags.Follow
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
		if follow.On {
			return exitCode(cliflags.UsageError{Msg: "--follow without a terminal: for a pipe or a log, spikescope detect PATH --follow prints JSON lines"}, stderr)
		}
		d, err := backend.Load(context.Background(), nil)
		if err != nil {
			return exitCode(err, stderr)
		}
		_, err = io.WriteString(stdout, ui.Summary(d))
		return exitCode(err, stderr)
	}
	if err := pipeline.CheckMemoryFor(noticeCtx(stderr), in, follow.On); err != nil {
		return exitCode(err, stderr) // before the screen is taken
	}
	title, _ = pipeline.EscapeControl(title) // the path as typed may hold control characters
	inputs := backend.Inputs()
	store := ui.DefaultPinStore(inputs, cleanup != nil)
	e := ui.Run(ui.Options{Backend: backend, Inputs: inputs, NoColor: ui.NoColorFromEnv(), Title: title,
		State: store, Mouse: os.Getenv("SPIKESCOPE_MOUSE") == "1",
		Follow: follow.On, FollowInterval: follow.Interval, Bell: follow.Bell}, stdout)
	if e.Panic != "" {
		fmt.Fprintln(stderr, "spikescope: internal error:", e.Panic)
		return 1
	}
	if code, ok := e.SignalCode(); ok {
		return code
	}
	io.WriteString(stdout, e.ReopenText(args, store == nil)) // the terminal is restored: a line to reuse
	return exitCode(e.Err, stderr)
}

// tuiInputsFollow is tuiInputs with the follow flags read into follow.
func tuiInputsFollow(args []string, stdout io.Writer, follow *cliflags.Follow) (in pipeline.Inputs, title string, cleanup func(), err error) {
	var f inputFlags
	fs := flag.NewFlagSet("spikescope", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	follow.Register(fs, true)
	paths, err := cliflags.ParseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, tuiUsage)
		return in, "", nil, err
	}
	if err != nil {
		return in, "", nil, cliflags.UsageError{Msg: err.Error() + " (spikescope -h for help)"}
	}
	if err := follow.Check("", fs); err != nil {
		return in, "", nil, err
	}
	return f.inputs("", paths)
}
