// Package report renders the results of the three phases as a GitHub-
// flavoured Markdown report in the layout of the seed's 报告输出格式, in
// Chinese (the seed's headers verbatim) or English, and as one self-contained
// HTML page with the same text plus SVG plots (RenderHTML): one walk over the
// results (render.go) feeds either sink (sink.go, html.go). It only reads
// model values: the pipeline package (or `spikescope report --phase1 …`)
// builds its Input.
package report

import (
	"spikescope/analysis"
	"spikescope/model"
	"spikescope/plan"
)

// Input is everything the report shows. Any phase may be nil: the report
// then says that the phase did not run and lists what was missing.
type Input struct {
	Path         string       // the analysed monitor/dump path (default: P1.DBPath)
	Format       model.Format // its format (default: P1.Format)
	BaselinePath string       // the baseline device's path, "" when none
	P1           *model.Phase1Result
	P1Baseline   *model.Phase1Result
	P2           *model.Phase2Result
	P3           *model.Phase3Result
	Control      string // how C was chosen, or why it was not
	// ControlWhy is what Control says (the Chinese report says it in
	// Chinese); nil for a Control read back from a saved result.
	ControlWhy model.Reason
	Missing    []model.Missing
	// Verdict is the answer of all phases that ran (the report opens with
	// it); nil: none given, then P2's or P3's own, else nothing anomalous.
	Verdict *model.Verdict
	// Series is the root parameter's norm per rank for the HTML report's
	// Phase 1 plots (nil: no monitor data held).
	Series *Series
	// Plan is the next-collection plan (the "next steps" section), nil
	// when none was made.
	Plan *plan.Plan
	// GradNorm is the global gradient norm around the root step (the
	// "where did the grad norm come from" section); nil: not shown.
	GradNorm *model.GradNorm
	// MaxRows caps the candidate tables (0 = DefaultMaxRows).
	MaxRows int
}

// DefaultMaxRows is how many candidate rows a table shows before it says how
// many more there are: enough for the earliest candidates, short enough to read.
const DefaultMaxRows = 20

// maxFullLayers is the largest layer count shown row by row; deeper models
// show only flagged/unaligned layers and their neighbours.
const maxFullLayers = 64

// layerContext is how many layers around a flagged or unaligned layer stay
// visible when a long layer table is shortened.
const layerContext = 2

// Series is one parameter's gradient norm on every rank at every recorded
// step, as the monitor holds it: the data of the Phase 1 plots. Positions
// run in the input's step order (step, then micro-batch).
type Series struct {
	Param  string // the parameter, named as the candidates name it
	Metric string // e.g. grad_unreduced
	Steps  []int  // the input's step number at each position
	// Micro is the 0-based micro-batch position inside its optimizer step at
	// each position, nil when the input numbers micro steps through Steps.
	Micro []int
	Ranks []int
	// Norm[i][p] is rank Ranks[i]'s norm at position p (NaN and ±Inf as
	// recorded); Has[i][p] is false where the rank has no row there.
	Norm [][]float64
	Has  [][]bool
}

// verdict is the verdict the report states: in.Verdict (the pipeline's),
// else the one a saved Phase 3 or Phase 2 result carries, else the rules'
// on the results given (an Input made by hand).
func (in *Input) verdict() *model.Verdict {
	switch {
	case in.Verdict != nil:
		return in.Verdict
	case in.P3 != nil && in.P3.Verdict != nil:
		return in.P3.Verdict
	case in.P2 != nil && in.P2.Verdict != nil:
		return in.P2.Verdict
	}
	p3 := in.P3
	if p3 != nil && p3.Conclusion == nil {
		c := *p3
		c.Conclusion = analysis.ConcludePhase3(p3)
		p3 = &c
	}
	return analysis.Verdict(analysis.VerdictInput{P1: in.P1, P1Baseline: in.P1Baseline, P2: in.P2, P3: p3})
}
