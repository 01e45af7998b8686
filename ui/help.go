package ui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"
)

// newHelp returns the help bubble styled for the colour mode.
func newHelp(st Styles) help.Model {
	h := help.New()
	if st.NoColor {
		plain := lipgloss.NewStyle()
		h.Styles = help.Styles{
			Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain,
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain,
		}
	} else {
		h.Styles = help.DefaultDarkStyles()
	}
	return h
}

// helpOverlay is the `?` screen: every binding, grouped, from the keymap.
func helpOverlay(h help.Model, k keyMap, sc screen, st Styles, width int) []string {
	lines := []string{st.Title.Render("keys") + "  (? or esc closes)", ""}
	lines = append(lines, strings.Split(h.FullHelpView(k.helpFor(sc).FullHelp()), "\n")...)
	lines = append(lines, "")
	for _, t := range []string{
		"p pins the selected candidate as the root-cause coordinate (Phase 2 is skipped); P unpins.",
		"/ filters by parameter or rank (r3); s sorts by the column under the cursor, again to reverse.",
		"tab next anchor · m next metric (Norm/Max/Min/Mean) · c choose the control group C.",
		"r writes the Markdown report · :N jumps to step N.",
	} {
		lines = append(lines, wrap(t, width)...)
	}
	return lines
}
