package pipeline

import (
	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/words"
)

// What the faces (package main) need of the readers and the method, so
// that they call the pipeline only (imports_test.go checks it).

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
