package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
	_ "spikescope/ui" // the terminal UI: pipeline.RunTUI starts it
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
	defer pipeline.LimitMemory(in.Mem)()
	if follow.On && !outfile.IsTerminal(stdout) {
		return exitCode(cliflags.CmdError("", "--follow without a terminal: for a pipe or a log, spikescope detect PATH --follow prints JSON lines"), stderr)
	}
	code, err := pipeline.RunTUI(noticeCtx(stderr), pipeline.TUIStart{Args: args, In: in, Title: title, Demo: cleanup != nil,
		Follow: follow.On, Interval: follow.Interval, Bell: follow.Bell}, stdout, stderr)
	if err != nil {
		return exitCode(err, stderr)
	}
	return code
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
		return in, "", nil, cliflags.CmdError("", err.Error()+" (spikescope -h for help)")
	}
	if err := follow.Check("", fs); err != nil {
		return in, "", nil, err
	}
	return f.inputs("", paths)
}
