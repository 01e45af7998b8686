package ui

import (
	"image/color"
	"os"

	"charm.land/lipgloss/v2"
)

// Styles are every style the panes use. With NO_COLOR they carry no colour
// at all; only the cursor keeps reverse video and titles keep bold, so the
// screen stays readable on a monochrome terminal.
type Styles struct {
	NoColor  bool
	Title    lipgloss.Style // screen titles, header
	Dim      lipgloss.Style // secondary text
	Header   lipgloss.Style // table header row
	Cursor   lipgloss.Style // selected row
	ColCur   lipgloss.Style // header cell under the column cursor
	Flag     lipgloss.Style // F! / B!, flagged operators
	Warn     lipgloss.Style // warnings, missing data
	Good     lipgloss.Style // consistent / ok
	Accent   lipgloss.Style // pin, chosen coordinate
	Spike    lipgloss.Style // the spike column of a sparkline
	Bar      lipgloss.Style // progress bar fill
	TabOn    lipgloss.Style
	TabOff   lipgloss.Style
	Selected lipgloss.Style // the selected series in charts
	Context  lipgloss.Style // other ranks in charts
	Band     lipgloss.Style // the baseline line/band in charts
	// Ramp is the heat map's colour ramp, low to high (nil with NO_COLOR:
	// the heat map then uses shade characters).
	Ramp []color.Color
}

// NoColorFromEnv reports whether NO_COLOR is set (any non-empty value, per
// no-color.org).
func NoColorFromEnv() bool { return os.Getenv("NO_COLOR") != "" }

// NewStyles builds the style set; noColor drops every colour.
func NewStyles(noColor bool) Styles {
	plain := lipgloss.NewStyle()
	if noColor {
		return Styles{
			NoColor:  true,
			Title:    plain.Bold(true),
			Dim:      plain,
			Header:   plain.Bold(true),
			Cursor:   plain.Reverse(true),
			ColCur:   plain.Bold(true).Reverse(true),
			Flag:     plain,
			Warn:     plain,
			Good:     plain,
			Accent:   plain,
			Spike:    plain,
			Bar:      plain,
			TabOn:    plain.Reverse(true),
			TabOff:   plain,
			Selected: plain,
			Context:  plain,
			Band:     plain,
		}
	}
	return Styles{
		Title:    plain.Bold(true).Foreground(lipgloss.Color("#87afff")),
		Dim:      plain.Foreground(lipgloss.Color("#808080")),
		Header:   plain.Bold(true).Foreground(lipgloss.Color("#d7d7af")),
		Cursor:   plain.Reverse(true),
		ColCur:   plain.Bold(true).Underline(true).Foreground(lipgloss.Color("#ffd75f")),
		Flag:     plain.Bold(true).Foreground(lipgloss.Color("#ff5f5f")),
		Warn:     plain.Foreground(lipgloss.Color("#ffaf00")),
		Good:     plain.Foreground(lipgloss.Color("#87d787")),
		Accent:   plain.Bold(true).Foreground(lipgloss.Color("#d787ff")),
		Spike:    plain.Bold(true).Foreground(lipgloss.Color("#ff5f5f")),
		Bar:      plain.Foreground(lipgloss.Color("#5fafff")),
		TabOn:    plain.Bold(true).Reverse(true),
		TabOff:   plain.Foreground(lipgloss.Color("#808080")),
		Selected: plain.Foreground(lipgloss.Color("#ffd75f")),
		Context:  plain.Foreground(lipgloss.Color("#4e4e4e")),
		Band:     plain.Foreground(lipgloss.Color("#5fafaf")),
		Ramp: []color.Color{
			lipgloss.Color("#1c1c3a"), lipgloss.Color("#303078"), lipgloss.Color("#3a6ea5"),
			lipgloss.Color("#4fa36b"), lipgloss.Color("#c8c83a"), lipgloss.Color("#e07b28"),
			lipgloss.Color("#e03131"),
		},
	}
}

// shadeRunes is the NO_COLOR heat map ramp, low to high.
var shadeRunes = []rune{' ', '░', '▒', '▓', '█'}
