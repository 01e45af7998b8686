package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

	"spikescope/model"
)

// The analysis names its triggers and pass units with identifiers
// ("micro_step_delta", "(optimizer_step, micro_step)"); a user reads what
// they mean about the run instead.

// triggerWord is a trigger in a table cell: short (≤ 8 cells, narrow
// screens) and long (≤ 16 cells).
var triggerWord = map[string][2]string{
	"iqr+mad":          {"IQR+MAD", "IQR and MAD"},
	"iqr":              {"IQR", "IQR band"},
	"mad":              {"MAD", "MAD band"},
	"micro_step_delta": {"ms jump", "micro-step jump"},
	"nonfinite":        {"NaN/Inf", "NaN/Inf"},
	"dump_abs_norm":    {"dump", "dump norm"},
}

// triggerSentence is why a candidate was flagged, as a clause that stands
// after its numbers.
var triggerSentence = map[string]string{
	"iqr+mad":          "outside its IQR and MAD bands",
	"iqr":              "outside its IQR band",
	"mad":              "outside its MAD band",
	"micro_step_delta": "a jump between micro steps",
	"nonfinite":        "the gradient is not finite (NaN/Inf)",
	"dump_abs_norm":    "the dump's gradient norm off its baseline",
}

// triggerLongW is the width from which a trigger cell takes its long
// word (the longest fits): one column never mixes the two forms.
const triggerLongW = 15

// triggerText is a's trigger in w cells: the long word when it fits, else
// the short one.
func triggerText(t string, w int) string {
	ws, ok := triggerWord[t]
	switch {
	case !ok:
		return t
	case w >= triggerLongW:
		return ws[1]
	}
	return ws[0]
}

// triggerWhy is why a candidate was flagged: "flagged: outside its IQR
// band".
func triggerWhy(t string) string {
	if s, ok := triggerSentence[t]; ok {
		return "flagged: " + s
	}
	return "flagged by " + t
}

// passUnitText says what one pass of the run is: a step, or one micro step
// of an optimizer step (with the window and how it was found).
func passUnitText(sa model.ShardingAnalysis) string {
	if !sa.HasMicroStep || sa.AccumulationWindow <= 0 {
		return "one gradient per step (no micro steps)"
	}
	how := "detected"
	switch {
	case sa.WindowOverridden:
		how = "set by --window"
	case sa.ExplicitMicroStep:
		how = "as the input numbers them"
	}
	unit := "optimizer step"
	if sa.ExplicitMicroStep {
		unit = "step"
	}
	s := fmt.Sprintf("%d micro steps per %s (%s", sa.AccumulationWindow, unit, how)
	if sa.AccumulationWindow == 1 {
		s = fmt.Sprintf("one micro step per %s (%s", unit, how)
	}
	if r := sa.MicroStepRange; sa.ExplicitMicroStep && len(r) > 0 {
		s += fmt.Sprintf(", %d..%d", r[0], r[len(r)-1])
	} else if sa.WindowPhase != 0 {
		s += fmt.Sprintf(", the first starts at step %d", sa.WindowPhase)
	}
	return s + ")"
}

// fitJoin is first followed by as many of more (" · "-separated, in
// order) as fit in width cells: a status line keeps what it says first
// instead of being cut in the middle of a word.
func fitJoin(width int, first string, more ...string) string {
	s := first
	for _, m := range more {
		next := s + " · " + m
		if ansi.StringWidth(next) > width {
			break
		}
		s = next
	}
	return s
}

// formatWord is an input format as users name it.
func formatWord(f model.Format) string {
	switch f {
	case model.FormatTrendDB:
		return "trend.db"
	case model.FormatCSV:
		return "CSV"
	case model.FormatDump:
		return "dump tree"
	}
	return string(f)
}

// rowCount is a row count to read at a glance: "15,600", "100 M".
func rowCount(n int) string {
	if n >= bigCount {
		return siCount(int64(n))
	}
	return humanize.Comma(int64(n))
}

// bigCount is where counts are shown as "25 M" rather than digit by digit.
const bigCount = 10_000_000

// siCount is n with an SI prefix and one decimal at most: "100.8 M", "0".
func siCount(n int64) string {
	return strings.TrimSpace(humanize.SIWithDigits(float64(n), 1, ""))
}
