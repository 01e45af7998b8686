package ui

import (
	"context"
	"fmt"
	"io"
	"os"

	"spikescope/pipeline"
	"spikescope/report"
)

// The program starts the UI through the pipeline (pipeline.RunTUI), so
// that its command line calls the pipeline only.
func init() { pipeline.SetTUI(start) }

// start is the program's terminal UI on st's inputs: when stdout is no
// terminal, the text summary instead (Summary).
func start(ctx context.Context, st pipeline.TUIStart, stdout, stderr io.Writer) (int, error) {
	backend := &PipelineBackend{In: st.In, Lang: report.Lang("")}
	if !IsTerminal(stdout) {
		d, err := backend.Load(context.Background(), nil)
		if err != nil {
			return 0, err
		}
		_, err = io.WriteString(stdout, Summary(d))
		return 0, err
	}
	if err := pipeline.CheckMemoryFor(ctx, st.In, st.Follow); err != nil {
		return 0, err // before the screen is taken
	}
	title, _ := pipeline.EscapeControl(st.Title) // the path as typed may hold control characters
	inputs := backend.Inputs()
	store := DefaultPinStore(inputs, st.Demo)
	e := Run(Options{Backend: backend, Inputs: inputs, NoColor: NoColorFromEnv(), Title: title,
		State: store, Mouse: os.Getenv("SPIKESCOPE_MOUSE") == "1",
		Follow: st.Follow, FollowInterval: st.Interval, Bell: st.Bell}, stdout)
	if e.Panic != "" {
		fmt.Fprintln(stderr, "spikescope: internal error:", e.Panic)
		return 1, nil
	}
	if code, ok := e.SignalCode(); ok {
		return code, nil
	}
	io.WriteString(stdout, e.ReopenText(st.Args, store == nil)) // the terminal is restored: a line to reuse
	return 0, e.Err
}
