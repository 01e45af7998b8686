package ui

import (
	"context"

	"spikescope/model"
	"spikescope/pipeline"
)

// Data is everything one analysed session shows. The UI never mutates it:
// a pin or a control choice yields a new Data from the Backend.
type Data struct {
	Inputs          []Input // what was loaded (header, loading screen, report path check)
	Monitor         *model.MonitorData
	BaselineMonitor *model.MonitorData
	P1, P1Baseline  *model.Phase1Result
	P2              *model.Phase2Result
	P3              *model.Phase3Result
	// GradNorm is the global gradient norm around the root step (the `t`
	// screen); nil without monitor rows.
	GradNorm   *model.GradNorm
	A, B, C, D *model.Dump
	// Controls are the candidate C dumps when C is missing (the chooser).
	Controls    []ControlOption
	ControlNote string
	Missing     []string     // what was missing, one line each
	Pin         *model.Coord // the pinned coordinate (nil = none), as the header shows it
	// PlanText is the next-collection plan (PLAN.md), PlanFiles its files
	// (none when nothing is missing): `n` shows and writes them.
	PlanText  string
	PlanFiles []pipeline.PlanFile
	// OpsForLayer lists the operators of one layer and pass ("fwd"/"bwd")
	// with the four-group columns; it may be slow the first time, so the UI
	// calls it in a command. nil: only the drill-down layer is available.
	OpsForLayer func(anchor string, layer int, dir string) []model.DrillOp
	// session is the pipeline run behind this Data (PipelineBackend);
	// nil for data made elsewhere (tests).
	session *pipeline.Session

	follow     *followMarks // follow mode: the candidates shown when it began (follow.go)
	series     *seriesIndex // built off the update loop after loading
	baseSeries *seriesIndex // the same for the baseline run
	names      *runNames    // how the run's names are shortened (names.go)
}

// index builds the series indexes (call off the update loop).
func (d *Data) index() {
	if d.names == nil {
		d.names = newRunNames(d)
	}
	if d.series == nil && d.Monitor != nil && d.P1 != nil {
		d.series = buildSeriesIndex(d.Monitor, d.P1.Anomalies)
	}
	if d.baseSeries == nil && d.BaselineMonitor != nil && d.P1 != nil {
		d.baseSeries = buildSeriesIndex(d.BaselineMonitor, d.P1.Anomalies)
	}
}

// Input is one input path and its role ("monitor", "baseline", "A", …).
type Input struct {
	Role, Path string
}

// ControlOption is one candidate C dump.
type ControlOption struct {
	Step, Rank int
	Label      string // path or description
	Reason     string // why it qualifies (or not)
	Usable     bool
}

// Backend does the slow work; every method runs inside a tea.Cmd, never in
// Update. Methods take the current Data and return a new one.
type Backend interface {
	Load(ctx context.Context, progress model.ProgressFunc) (*Data, error)
	Pin(ctx context.Context, cur *Data, a *model.Anomaly) (*Data, error) // a == nil: unpin
	Control(ctx context.Context, cur *Data, step, rank int) (*Data, error)
	WriteReport(ctx context.Context, cur *Data, path string) error // path ending .html: the HTML report, else Markdown
}

// Messages of the async work. Every reply carries the request id it
// answers; replies to superseded requests are dropped.
type (
	progressMsg struct {
		id int
		ps []model.Progress // the latest report of every input so far
	}
	progressDoneMsg struct{ id int }
	loadedMsg       struct {
		id   int
		data *Data
		err  error
	}
	updatedMsg struct { // after Pin / Control
		id   int
		what string
		data *Data
		err  error
	}
	opsMsg struct { // the operators of a layer, for the drill pane that asked
		to  *drillPane
		ops []model.DrillOp
	}
	reportMsg struct {
		id   int
		path string
		err  error
	}
	panicMsg struct{ text string }
)
