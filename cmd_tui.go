package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/pipeline"
	"spikescope/report"
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
	backend := &sessionBackend{in: in, lang: reportLang("")}
	if !isTerminal(stdout) {
		d, err := backend.Load(context.Background(), nil)
		if err != nil {
			return exitCode(err, stderr)
		}
		_, err = io.WriteString(stdout, ui.Summary(d))
		return exitCode(err, stderr)
	}
	title, _ = ingest.EscapeControl(title) // the path as typed may hold control characters
	m := ui.New(ui.Options{Backend: backend, Inputs: backend.inputs(), NoColor: ui.NoColorFromEnv(), Title: title, Suspend: suspendSelf})
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

// sessionBackend runs the analysis session for the UI. Every method is
// called inside a tea.Cmd.
type sessionBackend struct {
	in   pipeline.Inputs
	lang string
}

// inputs lists the paths for the loading screen.
func (b *sessionBackend) inputs() []ui.Input {
	var out []ui.Input
	for _, x := range []struct{ role, path string }{
		{"monitor", b.in.Path}, {"baseline", b.in.Baseline},
		{"A", b.in.DumpA}, {"B", b.in.DumpB}, {"C", b.in.DumpC}, {"D", b.in.DumpD},
	} {
		if x.path != "" {
			out = append(out, ui.Input{Role: x.role, Path: x.path})
		}
	}
	return out
}

func (b *sessionBackend) Load(ctx context.Context, progress model.ProgressFunc) (*ui.Data, error) {
	s, err := pipeline.Load(ctx, b.in, progress)
	if err != nil {
		return nil, err
	}
	return b.data(s), nil
}

func (b *sessionBackend) Pin(ctx context.Context, cur *ui.Data, a *model.Anomaly) (*ui.Data, error) {
	s := cur.Handle.(*pipeline.Session)
	var pin *analysis.Pin
	if a != nil {
		rank := a.Rank
		pin = &analysis.Pin{Rank: &rank, Param: a.TargetName}
		if a.OptimizerStep != nil {
			opt := *a.OptimizerStep
			pin.OptStep = &opt
		} else {
			step := a.Step
			pin.Step = &step
		}
		if a.MicroStep != nil {
			ms := *a.MicroStep
			pin.MicroStep = &ms
		}
	}
	ns, err := s.WithPin(pin)
	if err != nil {
		return nil, err
	}
	return b.data(ns), nil
}

func (b *sessionBackend) Control(ctx context.Context, cur *ui.Data, step, rank int) (*ui.Data, error) {
	ns, err := cur.Handle.(*pipeline.Session).WithControl(step, rank)
	if err != nil {
		return nil, err
	}
	return b.data(ns), nil
}

func (b *sessionBackend) WriteReport(ctx context.Context, cur *ui.Data, path string) error {
	s := cur.Handle.(*pipeline.Session)
	render := report.Render
	if strings.EqualFold(filepath.Ext(path), ".html") {
		render = report.RenderHTML
	}
	md := render(s.ReportInput(), b.lang)
	// O_EXCL: an earlier report is never overwritten (the UI then picks
	// the next name)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &reportFileError{path, err}
	}
	_, err = f.WriteString(md)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return &reportFileError{path, err}
	}
	return nil
}

// layerOps lists the operators of any layer for the drill-down screen from
// the session's own Phase 3 tracer (the dumps are indexed once). The UI
// calls it inside a command, never in Update.
func layerOps(s *pipeline.Session) func(anchor string, layer int, dir string) []model.DrillOp {
	var mu sync.Mutex // two requests may overlap (enter, esc, enter): one at a time
	return func(anchor string, layer int, dir string) []model.DrillOp {
		mu.Lock()
		defer mu.Unlock()
		return s.Tracer.OpsForLayer(anchor, layer, dir)
	}
}

// data maps a session onto what the UI shows.
func (b *sessionBackend) data(s *pipeline.Session) *ui.Data {
	d := &ui.Data{
		Inputs: b.inputs(), Monitor: s.Monitor, BaselineMonitor: s.BaselineMonitor,
		P1: s.P1, P1Baseline: s.P1Baseline, P2: s.P2, P3: s.P3,
		A: s.A, B: s.B, C: s.C, D: s.D, Pin: s.In.Pin, Handle: s,
	}
	if s.C == nil {
		d.ControlNote = s.Control.Reason
	}
	if s.Tracer != nil {
		d.OpsForLayer = layerOps(s)
	}
	src := s.CTree
	if src == nil {
		src = s.ATree
	}
	for _, c := range s.Control.Candidates {
		label := fmt.Sprintf("step %d rank %d", c.Step, c.Rank)
		if src != nil {
			if dd := src.Find(c.Step, c.Rank); dd != nil {
				label = dd.Path
			}
		}
		d.Controls = append(d.Controls, ui.ControlOption{Step: c.Step, Rank: c.Rank, Label: label, Reason: c.Reason, Usable: c.Accepted})
	}
	for _, m := range s.Missing {
		line := m.What
		if m.Next != "" {
			line += " — " + m.Next
		}
		d.Missing = append(d.Missing, line)
	}
	return d
}

// reportFileError is a failed report write: the path and the OS's words,
// still matching fs.ErrExist and the like.
type reportFileError struct {
	path string
	err  error
}

func (e *reportFileError) Error() string { return e.path + ": " + rootCause(e.err) }
func (e *reportFileError) Unwrap() error { return e.err }
