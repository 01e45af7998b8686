package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
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
// Typing filters the bindings by key or description (lazygit's help).
func helpOverlay(h help.Model, k keyMap, sc screen, st Styles, width int, filter string) []string {
	lines := []string{st.Title.Render("keys") + "  (type to filter · esc clears, ? closes)"}
	if filter != "" {
		lines = append(lines, "filter: "+filter+"█")
	} else {
		lines = append(lines, "")
	}
	groups := filterBindings(k.helpFor(sc).FullHelp(), filter)
	if len(groups) == 0 {
		return append(lines, "no key matches "+strconv.Quote(filter))
	}
	lines = append(lines, strings.Split(h.FullHelpView(groups), "\n")...)
	if filter != "" {
		return lines
	}
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

// filterBindings keeps the bindings whose key or description contains
// filter (case-insensitive); empty groups are dropped.
func filterBindings(groups [][]key.Binding, filter string) [][]key.Binding {
	q := strings.ToLower(filter)
	if q == "" {
		return groups
	}
	var out [][]key.Binding
	for _, g := range groups {
		var keep []key.Binding
		for _, b := range g {
			h := b.Help()
			if strings.Contains(strings.ToLower(h.Key), q) || strings.Contains(strings.ToLower(h.Desc), q) {
				keep = append(keep, b)
			}
		}
		if len(keep) > 0 {
			out = append(out, keep)
		}
	}
	return out
}
