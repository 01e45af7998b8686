package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/dustin/go-humanize"

	"spikescope/words"
)

// The analysis names its triggers and pass units with identifiers
// ("micro_step_delta", "(optimizer_step, micro_step)"); a user reads what
// they mean about the run instead (words.Trigger, words.PassUnitText).

// triggerLongW is the width from which a trigger cell takes its long
// word (the longest fits): one column never mixes the two forms.
const triggerLongW = 15

// triggerText is a's trigger in w cells: the long word when it fits, else
// the short one.
func triggerText(t string, w int) string {
	ws, ok := words.Trigger(t)
	switch {
	case !ok:
		return t
	case w >= triggerLongW:
		return ws.Long
	}
	return ws.Short
}

// triggerWhy is why a candidate was flagged: "flagged: outside its IQR
// band".
func triggerWhy(t string) string {
	if ws, ok := words.Trigger(t); ok {
		return "flagged: " + ws.Clause
	}
	return "flagged by " + t
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
