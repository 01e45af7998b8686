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

// keyHelp is the help of the current screen: the active pane's bindings,
// framed on the phase screens by the root's keys, which work on all of them.
func (m *Model) keyHelp() screenKeys {
	p := m.active()
	if p == nil {
		return screenKeys{}
	}
	k := m.keys
	if m.screen == screenLoading || m.screen == screenError { // the root's keys wait for the data
		return screenKeys{short: p.ShortHelp(), full: append(p.FullHelp(), []key.Binding{k.Suspend})}
	}
	full := append([][]key.Binding{{k.Phase1, k.Phase2, k.Phase3, k.Back, k.Help, k.Quit, k.Suspend}}, p.FullHelp()...)
	root := []key.Binding{k.Pin, k.Unpin, k.Report, k.Follow}
	if m.screen == screenPhase2 || m.screen == screenPhase3 {
		root = append(root, k.Plan)
	}
	return screenKeys{short: p.ShortHelp(), full: append(full, root)}
}

// helpOverlay is the `?` screen: the current screen's bindings, grouped.
// Typing filters the bindings by key or description (lazygit's help).
func helpOverlay(h help.Model, keys help.KeyMap, st Styles, width int, filter string) []string {
	lines := []string{st.Title.Render("keys") + "  (type to filter · esc clears, ? closes)"}
	if filter != "" {
		lines = append(lines, "filter: "+filter+"█")
	} else {
		lines = append(lines, "")
	}
	groups := filterBindings(keys.FullHelp(), filter)
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
		"r writes the report (m Markdown, h HTML with plots) · n (Phase 2/3) the next-collection plan · :N jumps to step N.",
		"F follows the run while the job writes: new candidates come in marked +, the selection stays; F again pauses.",
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
