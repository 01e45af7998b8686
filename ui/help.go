package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
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
	if m.waiting() { // the root's keys wait for the data
		return screenKeys{short: p.ShortHelp(), full: append(p.FullHelp(), []key.Binding{k.Suspend})}
	}
	full := append([][]key.Binding{{k.Phase1, k.Phase2, k.Phase3, k.Back, k.Help, k.Quit, k.Suspend}}, p.FullHelp()...)
	var root []key.Binding
	if m.screen != screenVerdict { // v on the verdict screen does nothing new
		root = append(root, k.Verdict)
	}
	root = append(root, k.Pin, k.Unpin, k.Note, k.Report, k.Follow)
	if m.plans() {
		root = append(root, k.Plan)
	}
	if m.screen != screenGradNorm {
		root = append(root, k.GradNorm)
	}
	if copies(p) {
		root = append(root, k.Copy)
	}
	short := p.ShortHelp()
	if m.screen != screenVerdict {
		short = append(short, k.Verdict)
	}
	if m.screen == screenPhase1 || m.screen == screenPhase2 || m.screen == screenPhase3 {
		short = append(short, k.GradNorm)
	}
	return screenKeys{short: short, full: append(full, root)}
}

// helpOverlay is the `?` screen: the current screen's bindings, grouped,
// then the marks the screen uses (its legend) and how the main keys work.
// Typing filters the bindings by key or description (lazygit's help).
// It scrolls (↑/↓, pgup/pgdn) when it is taller than height; off is the
// first line shown, kept in range.
func helpOverlay(h help.Model, keys help.KeyMap, st Styles, width, height int, filter string, typing bool, marks []string, off *int) []string {
	lines := []string{st.Title.Render("marks and keys") + "  (j/k scroll · / filters the keys · ? closes)"}
	switch {
	case typing:
		lines = append(lines, "filter keys: "+filter+"█  (enter keeps it · esc clears)")
	case filter != "":
		lines = append(lines, "filter keys: "+filter+"  (esc clears)")
	default:
		lines = append(lines, "")
	}
	// the marks of the screen first: what the user is looking at is
	// explained above the fold, the keys follow
	if filter == "" && len(marks) > 0 {
		lines = append(lines, st.Title.Render("marks on this screen"))
		mw := 0
		for _, m := range marks {
			mark, _, _ := strings.Cut(m, "\t")
			mw = max(mw, min(9, ansi.StringWidth(mark)))
		}
		for _, m := range marks {
			mark, meaning, _ := strings.Cut(m, "\t")
			if ansi.StringWidth(mark) > mw { // a long mark on its own line
				lines = append(lines, mark)
				mark = ""
			}
			for i, l := range wrap(meaning, max(10, width-mw-2)) {
				if i > 0 {
					mark = ""
				}
				lines = append(lines, fit(mark, mw, false)+"  "+l)
			}
		}
		lines = append(lines, "", st.Title.Render("keys"))
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
		"p pins the selected candidate as the root-cause coordinate (Phase 2 is skipped); P unpins; a notes it. The pin and note are kept for the input.",
		"/ filters by parameter or rank (r3), n/N then step through its matches · o sorts by the column under the cursor, again to reverse.",
		"tab/shift+tab anchor · m/M metric (Norm/Max/Min/Mean) · c chooses the control C.",
		"y copies the coordinate (--pin form) or the operator key · :N jumps to a step.",
		"r writes the report (m Markdown, h HTML) · w (Phase 2/3) what to collect next.",
		"t shows the global grad norm per rank around the root step and what its increase came from (one parameter, layer, rank, or everything).",
		"F follows the run while the job writes: new candidates come in marked +, the selection stays; F again pauses.",
	} {
		lines = append(lines, wrap(t, width)...)
	}
	if height < 2 || len(lines) <= height {
		*off = 0
		return lines
	}
	// the title stays; the rest scrolls, the last line says what is left
	body := lines[1:]
	room := height - 2
	*off = max(0, min(*off, len(body)-room))
	out := append([]string{lines[0]}, body[*off:*off+room]...)
	return append(out, st.Dim.Render(scrollInfo("line", *off, room, len(body))+" (↑/↓ pgup/pgdn)"))
}

// helpScroll moves the help overlay with the list keys every screen scrolls
// with (keys.go: arrows, j/k, g/G, pages, ctrl+d/u) — only the keys without
// text while a filter is typed; it reports whether the key was one of them.
func (m *Model) helpScroll(msg tea.KeyPressMsg) bool {
	if m.helpTyping && msg.Text != "" { // letters are the filter's then
		return false
	}
	k, page := m.keys, m.bodyHeight()-2
	switch {
	case key.Matches(msg, k.Up):
		m.helpOff--
	case key.Matches(msg, k.Down):
		m.helpOff++
	case key.Matches(msg, k.PageUp):
		m.helpOff -= page
	case key.Matches(msg, k.PageDown):
		m.helpOff += page
	case key.Matches(msg, k.HalfUp):
		m.helpOff -= page / 2
	case key.Matches(msg, k.HalfDown):
		m.helpOff += page / 2
	case key.Matches(msg, k.Top):
		m.helpOff = 0
	case key.Matches(msg, k.Bottom):
		m.helpOff = 1 << 20
	default:
		return false
	}
	m.helpOff = max(0, m.helpOff)
	return true
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
