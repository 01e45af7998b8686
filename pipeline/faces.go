package pipeline

import (
	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/plan"
	"spikescope/report"
	"spikescope/words"
)

// What the faces (package main) need of the readers, the method, the
// reports, the plan and the model, so that they call the pipeline only
// (imports_test.go checks it).

// InputError is bad input: the faces exit with code 2.
type InputError = ingest.InputError

// PinError is a pin that matches no data.
type PinError = analysis.PinError

// The phase options the flags set; the zero value of a field is the
// method's default.
type (
	Phase1Options = analysis.Phase1Options
	Phase2Options = analysis.Phase2Options
	Phase3Options = analysis.Phase3Options
)

// DefaultPhase1Options are the method's Phase 1 defaults (detect's flags).
func DefaultPhase1Options() Phase1Options { return analysis.DefaultPhase1Options() }

// DefaultPhase2Options are the method's Phase 2 defaults (select's flags).
func DefaultPhase2Options() Phase2Options { return analysis.DefaultPhase2Options() }

// DefaultPhase3Options are the method's Phase 3 defaults (trace's flags).
func DefaultPhase3Options() Phase3Options { return analysis.DefaultPhase3Options() }

// EscapeControl writes the control characters of text from the input (a
// path, a name) visibly, so that a printed line stays one line; changed
// says whether there were any.
func EscapeControl(s string) (out string, changed bool) { return ingest.EscapeControl(s) }

// Lang is the language of the texts said from a run's reasons (--lang):
// Default is each text's language before --lang (English, except Phase 2's
// reasoning, mode and cross-device check, in the reference scripts'
// Chinese).
type Lang = words.Lang

// The languages of --lang.
const (
	Default = words.Default
	English = words.English
	Chinese = words.Chinese
)

// LangOf maps a --lang value ("en", "zh", "" for the default) to a Lang.
func LangOf(s string) Lang { return words.Of(s) }

// Format is an input's format (--format).
type Format = model.Format

// The formats --format names.
const (
	FormatAuto    = model.FormatAuto
	FormatTrendDB = model.FormatTrendDB
	FormatCSV     = model.FormatCSV
	FormatDump    = model.FormatDump
)

// Coord is a coordinate of the run (a --pin, trace's --step-b/--rank-c).
type Coord = model.Coord

// ParseCoord reads a pin as users and scripts type it (model.ParseCoord).
func ParseCoord(s string) (*Coord, error) { return model.ParseCoord(s) }

// MemBudget is a command's memory budget (--mem-limit).
type MemBudget = memlimit.Budget

// LimitMemory sets the Go runtime's soft memory limit to b while the
// command runs (none for a zero budget or under GOMEMLIMIT); call restore
// when done.
func LimitMemory(b MemBudget) (restore func()) { return memlimit.Apply(b) }

// ReportRenderer is the report renderer that --as and -o choose (the HTML
// page for --as html or -o *.html, else Markdown), nil for an unknown --as;
// it renders a session in lang (--lang; "" from LANG).
func ReportRenderer(as, out string) func(s *Session, lang string) string {
	render := report.Renderer(as, out)
	if render == nil {
		return nil
	}
	return func(s *Session, lang string) string { return render(s.ReportInput(), report.Lang(lang)) }
}

// ReportLang is the language of a report or plan for --lang ("en", "zh",
// "" from LANG): "en" or "zh".
func ReportLang(flag string) string { return report.Lang(flag) }

// PlanFileNames are the names of every file a plan may write.
var PlanFileNames = plan.FileNames
