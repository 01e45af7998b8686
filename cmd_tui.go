package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
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
	fs := flag.NewFlagSet("spikescope", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var format, step, rank string
	fs.StringVar(&in.Baseline, "baseline", "", "baseline device's monitor or dump path")
	fs.StringVar(&in.DumpA, "dump-a", "", "dump of the anomalous coordinate (A)")
	fs.StringVar(&in.DumpB, "dump-b", "", "A's baseline dump (B)")
	fs.StringVar(&in.DumpC, "dump-c", "", "nearby normal dump (C)")
	fs.StringVar(&in.DumpD, "dump-d", "", "C's baseline dump (D)")
	fs.StringVar(&step, "step", "", "step of A inside its dump tree")
	fs.StringVar(&rank, "rank", "", "rank of A inside its dump tree")
	fs.StringVar(&in.Pin, "pin", "", "pin the root-cause coordinate, e.g. opt=3,ms=2,rank=5,param=NAME")
	fs.StringVar(&in.LayerMapping, "layer-mapping", "", "msprobe layer-mapping YAML `FILE` for dumps of two frameworks")
	fs.StringVar(&format, "format", "auto", "format of PATH: auto, trenddb, csv or dump")
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, tuiUsage)
		return in, "", nil, err
	}
	if err != nil {
		return in, "", nil, usageError{err.Error() + " (spikescope -h for help)"}
	}
	if len(paths) > 1 {
		return in, "", nil, usageError{"one PATH at most (got " + strconv.Itoa(len(paths)) + "); subcommands: inspect, detect, select, trace, report"}
	}
	if in.StepA, err = optInt("--step", step); err != nil {
		return in, "", nil, err
	}
	if in.RankA, err = optInt("--rank", rank); err != nil {
		return in, "", nil, err
	}
	switch model.Format(format) {
	case model.FormatAuto, model.FormatTrendDB, model.FormatCSV, model.FormatDump:
		in.Format = model.Format(format)
	default:
		return in, "", nil, usageError{"--format must be auto, trenddb, csv or dump (got " + strconv.Quote(format) + ")"}
	}
	if in.Pin != "" {
		if _, err := analysis.ParsePin(in.Pin); err != nil {
			return in, "", nil, usageError{"--pin: " + err.Error()}
		}
	}
	switch {
	case len(paths) == 1:
		in.Path, title = paths[0], paths[0]
	case in.DumpA != "":
		title = in.DumpA
	default:
		dir, clean, err := extractDemo()
		if err != nil {
			return in, "", nil, err
		}
		demo := demoInputs(dir)
		demo.Pin, demo.StepA, demo.RankA, demo.LayerMapping = in.Pin, in.StepA, in.RankA, in.LayerMapping
		in, title, cleanup = demo, "demo run", clean
	}
	in.P1 = analysis.DefaultPhase1Options()
	in.P2 = analysis.DefaultPhase2Options()
	in.P3 = analysis.DefaultPhase3Options()
	return in, title, cleanup, nil
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
