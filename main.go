// spikescope finds the earliest gradient spike of a distributed training run
// and traces it to the first divergent layer and operator. With no
// subcommand it opens the terminal UI; the subcommands print JSON.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

const usage = `spikescope — find the earliest gradient spike and its root cause

usage:
  spikescope [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D] [--pin COORD]
                                     open the terminal UI (no PATH: the embedded demo run)
  spikescope inspect PATH [--json] [--format auto|trenddb|csv|dump]
                                     what was loaded from PATH
  spikescope detect PATH [--format …] [--window N] [-o FILE]
                                     Phase 1: candidate spike coordinates (JSON)
  spikescope select --phase1 P1.json [--baseline P1B.json] [--pin COORD] [-o FILE]
                                     Phase 2: the root-cause coordinate (JSON)
  spikescope trace --dump-a A --dump-b B [--dump-c C --dump-d D] [--phase1 P1.json] [-o FILE]
                                     Phase 3: four-group layer trace (JSON)
  spikescope report PATH [...] [--lang en|zh] [-o FILE]
                                     the Markdown report of all phases
  spikescope plan PATH [...] [--step-offset N] -o DIR
                                     the msprobe configs that collect what is missing

Run 'spikescope COMMAND -h' for the flags of a command.
Exit codes: 0 analysed (even with no anomaly), 2 bad input or usage, 1 internal error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run dispatches to a subcommand and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	out := &outfile.StdoutWriter{W: stdout}
	return outfile.StdoutFailed(out, runCommand(args, out, stderr), stderr)
}

// runCommand runs the command of args.
func runCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "inspect":
			return runInspect(args[1:], stdout, stderr)
		case "detect":
			return runDetect(args[1:], stdout, stderr)
		case "select":
			return runSelect(args[1:], stdout, stderr)
		case "trace":
			return runTrace(args[1:], stdout, stderr)
		case "report":
			return runReport(args[1:], stdout, stderr)
		case "plan":
			return runPlan(args[1:], stdout, stderr)
		case "help", "-h", "--help", "-help":
			fmt.Fprint(stdout, usage)
			return 0
		}
	}
	return runTUI(args, stdout, stderr)
}

// exitCode prints err as one line and maps it to the documented exit code:
// bad input or usage → 2, anything else → 1.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	var se *outfile.StdoutError
	if errors.As(err, &se) {
		return 1 // worded once by outfile.StdoutFailed
	}
	msg, _ := pipeline.EscapeControl(err.Error()) // a path may hold control characters
	fmt.Fprintln(stderr, "spikescope:", msg)
	var ie *pipeline.InputError
	var ue cliflags.UsageError
	if errors.As(err, &ie) || errors.As(err, &ue) {
		return 2
	}
	return 1
}

// noticeCtx carries the load's notices (a run read out of core) to stderr,
// one line each, beside the results rather than in them.
func noticeCtx(stderr io.Writer) context.Context {
	return pipeline.WithNotice(context.Background(), func(line string) {
		msg, _ := pipeline.EscapeControl(line) // a path may hold control characters
		fmt.Fprintln(stderr, "spikescope:", msg)
	})
}
