package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// View draws header, body and footer; every line is cut to the width and
// the body padded or cut to its height, so nothing wraps or scrolls.
func (m *Model) View() (v tea.View) {
	defer func() {
		if r := recover(); r != nil {
			m.panicText = fmt.Sprint(r)
			v = tea.NewView("internal error: " + oneLine(m.panicText) + " (press q)")
			v.AltScreen = true
		}
	}()
	v = tea.NewView(m.render())
	v.AltScreen = true
	if m.opt.Mouse { // opt-in: it takes the terminal's own text selection
		v.MouseMode = tea.MouseModeCellMotion
	}
	return v
}

// render builds the full screen as text.
func (m *Model) render() string {
	if m.w < minWidth || m.h < minHeight {
		return tooSmall(m.w, m.h)
	}
	lines := make([]string, 0, m.h)
	lines = append(lines, m.header()...)
	body := m.body()
	bh := m.bodyHeight()
	if len(body) > bh {
		body = body[:bh]
	}
	lines = append(lines, body...)
	for len(lines) < headerLines+bh {
		lines = append(lines, "")
	}
	lines = append(lines, m.footer()...)
	for i, l := range lines {
		lines[i] = clip(l, m.w)
	}
	return strings.Join(lines, "\n")
}

// clip cuts a (styled) line to w cells and drops trailing blanks.
func clip(s string, w int) string {
	if strings.Contains(s, "\n") {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	if ansi.StringWidth(s) > w {
		s = ansi.Truncate(s, w, "…")
	}
	return s
}

// header: title, source and the pin (on every screen); then the phase tabs
// and the breadcrumb.
func (m *Model) header() []string {
	st := m.st
	const name = "spikescope"
	title := m.opt.Title
	pinText := "no pin"
	pin := st.Dim.Render(pinText)
	if m.data != nil && m.data.Pin != nil {
		pinText = "PIN " + m.data.Pin.Label()
		pin = st.Accent.Render(pinText)
		if n := m.noteInHeader(); n != "" {
			pinText += n
			pin += st.Dim.Render(n)
		}
	}
	if f := m.followText(); f != "" { // follow.go
		pinText += "  " + f
		pin += "  " + st.Accent.Render(f)
	}
	// the pin and the follow status (what everything below is about, and
	// how fresh it is) outrank the run's shape, and both outrank the source
	// path: a long path gives way from the left
	shape := runShape(m.data)
	if shape != "" {
		shape = " · " + shape
	}
	if m.w-2-ansi.StringWidth(pinText)-ansi.StringWidth(shape) < 16 {
		shape = ""
	}
	// the path gives way from its left; the program's name stays while
	// the path keeps 16 cells, else the path alone (which run it is)
	room := m.w - 2 - ansi.StringWidth(pinText) - ansi.StringWidth(shape)
	switch {
	case title == "":
		title = name
	case room-len(name)-3 >= min(16, ansi.StringWidth(title)):
		title = name + " · " + shortParam(title, room-len(name)-3)
	default:
		title = shortParam(title, max(16, room))
	}
	l1 := st.Title.Render(title) + st.Dim.Render(shape) + "  " + pin
	if m.waiting() {
		return []string{l1, "", ""}
	}
	var tabs []string
	for i, t := range []struct {
		s    screen
		name string
	}{{screenPhase1, "1 candidates"}, {screenPhase2, "2 coordinate"}, {screenPhase3, "3 layers"}} {
		_ = i
		if m.topScreen() == t.s {
			tabs = append(tabs, st.TabOn.Render(" "+t.name+" "))
		} else {
			tabs = append(tabs, st.TabOff.Render(" "+t.name+" "))
		}
	}
	tabLine := strings.Join(tabs, "")
	return []string{l1, tabLine + " " + m.breadcrumb(m.w-ansi.StringWidth(tabLine)-1), verdictLine(m.data, st, m.w)}
}

// runShape is the run's pipeline shape for the header: "PP 2 × VPP 2",
// "PP 4", "VPP 2" (model chunks whose stages were not read), or "no
// pipeline stages"; "" before the data is there.
func runShape(d *Data) string {
	if d == nil || d.P1 == nil {
		return ""
	}
	sa := d.P1.Sharding
	pp := 1
	if pl := sa.Stages; pl != nil && pl.Inferred && pl.Stages > 1 {
		pp = pl.Stages
	}
	vpp := len(sa.VPPStages)
	switch {
	case pp > 1 && vpp > 1:
		return fmt.Sprintf("PP %d × VPP %d", pp, vpp)
	case pp > 1:
		return fmt.Sprintf("PP %d", pp)
	case vpp > 1:
		return fmt.Sprintf("VPP %d", vpp)
	}
	return "no pipeline stages"
}

// topScreen is the phase screen the current one was opened from.
func (m *Model) topScreen() screen {
	if len(m.stack) > 0 {
		return m.stack[0]
	}
	return m.screen
}

// breadcrumb says where the user is: "Phase 3 › L3 ops (fwd) › chain".
func (m *Model) breadcrumb(width int) string {
	var parts []string
	for _, s := range append(append([]screen{}, m.stack...), m.screen) {
		if p := m.panes[s]; p != nil {
			parts = append(parts, p.Crumb())
		}
	}
	// too long: drop the oldest crumbs, keep where the user is now
	for ansi.StringWidth(strings.Join(parts, " › ")) > width {
		switch {
		case len(parts) > 1 && parts[0] != "…":
			parts[0] = "…"
		case len(parts) > 2:
			parts = append([]string{"…"}, parts[2:]...)
		default:
			return strings.Join(parts, " › ") // the last crumb is cut by the line clip
		}
	}
	return strings.Join(parts, " › ")
}

func (m *Model) body() []string {
	if m.showHlp {
		var marks []string
		if p := m.active(); p != nil {
			marks = p.marks()
		}
		return helpOverlay(m.help, m.keyHelp(), m.st, m.w, m.bodyHeight(), m.helpFilter, m.helpTyping, marks, &m.helpOff)
	}
	m.helpOff = 0
	if p := m.active(); p != nil {
		return p.View()
	}
	return nil
}

func (m *Model) footer() []string {
	st := m.st
	status := m.status
	if m.pending != "" {
		status = "⏳ " + m.pending
	}
	helpLine := ""
	if n := m.Note(); status == "" && n != "" && m.noteInHeader() == "" { // too long for the header
		status = "note on the pin: " + escapeControl(n)
	}
	if wl := m.writtenLines(); len(wl) > 0 {
		short, cut := fitKeys(helpFirst(m.keyHelp().short, m.w), m.w)
		helpLine = m.help.ShortHelpView(short)
		if cut {
			helpLine += m.help.Styles.Ellipsis.Render(" …")
		}
		return append(wl, helpLine)
	}
	if status == "" && m.data != nil && len(m.data.Missing) > 0 {
		status = st.Warn.Render(missingLine(m.data.Missing, m.w))
	}
	switch {
	case m.showHlp:
		helpLine = m.help.ShortHelpView([]key.Binding{
			key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "close")),
			key.NewBinding(key.WithKeys("j", "k"), key.WithHelp("j/k", "scroll")),
			key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter keys")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / close")),
			key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		})
		return []string{status, helpLine}
	}
	short, cut := fitKeys(helpFirst(m.keyHelp().short, m.w), m.w)
	helpLine = m.help.ShortHelpView(short)
	if cut { // the rest is on ?
		helpLine += m.help.Styles.Ellipsis.Render(" …")
	}
	return []string{status, helpLine}
}

// shortWidth is the width of a short help line of keys.
func shortWidth(keys []key.Binding) int {
	w := 0
	for i, b := range keys {
		if i > 0 {
			w += 3 // " • "
		}
		w += ansi.StringWidth(b.Help().Key) + 1 + ansi.StringWidth(b.Help().Desc)
	}
	return w
}

// fitKeys is the keys that fit in width cells whole, with room for " …"
// when some are left out (the help model would add one key too many and
// the line be cut inside it: "3 phase …").
func fitKeys(keys []key.Binding, width int) ([]key.Binding, bool) {
	if shortWidth(keys) <= width {
		return keys, false
	}
	n := len(keys)
	for n > 0 && shortWidth(keys[:n])+2 > width {
		n--
	}
	return keys[:n], true
}

// helpFirst moves ? (keys and legend), q and v (the verdict) to the front of a short help
// line too wide for width cells: the line is cut at its end, and those
// two are what a new user needs to find the rest.
func helpFirst(short []key.Binding, width int) []key.Binding {
	if shortWidth(short) <= width {
		return short
	}
	var first, rest []key.Binding
	for _, b := range short {
		if k := b.Help().Key; k == "?" || k == "q" || k == "v" {
			first = append(first, b)
		} else {
			rest = append(rest, b)
		}
	}
	return append(first, rest...)
}

// missingLine is what the run lacks in width cells: with what to collect
// when that fits, else what is missing alone and where the rest is said
// (a cut "… the same run a…" says neither).
func missingLine(missing []string, width int) string {
	full := "missing: " + strings.Join(missing, "; ")
	if ansi.StringWidth(full) <= width {
		return full
	}
	heads := make([]string, len(missing))
	for i, m := range missing {
		heads[i] = missingHead(m)
	}
	if line := "missing: " + strings.Join(heads, "; "); ansi.StringWidth(line) <= width {
		return fitJoin(width, line, "screen 2 says how to collect it")
	}
	// whole items while they fit, then how many more
	for n := len(heads) - 1; n >= 1; n-- {
		line := "missing: " + strings.Join(heads[:n], "; ") + fmt.Sprintf(" and %d more (screen 2)", len(heads)-n)
		if ansi.StringWidth(line) <= width {
			return line
		}
	}
	return fmt.Sprintf("missing: %d inputs (screen 2 lists them)", len(heads))
}

// missingHead is what is missing without what to do about it (the text
// after " — ").
func missingHead(m string) string {
	if i := strings.Index(m, " — "); i >= 0 {
		return m[:i]
	}
	return m
}
