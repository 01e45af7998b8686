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
	return v
}

// render builds the full screen as text.
func (m *Model) render() string {
	if m.w < minWidth || m.h < minHeight {
		return fmt.Sprintf("spikescope needs at least %d×%d (now %d×%d)", minWidth, minHeight, m.w, m.h)
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
	title := m.opt.Title
	if title == "" {
		title = "spikescope"
	} else {
		title = "spikescope · " + title
	}
	pinText := "no pin"
	pin := st.Dim.Render(pinText)
	if m.data != nil && m.data.Pin != "" {
		pinText = "PIN " + m.data.Pin
		pin = st.Accent.Render(pinText)
	}
	// the pin (the coordinate everything below is about) outranks the
	// source path: a long path gives way from the left
	title = shortParam(title, max(16, m.w-2-ansi.StringWidth(pinText)))
	l1 := st.Title.Render(title) + "  " + pin
	if m.screen == screenLoading || m.screen == screenError {
		return []string{l1, ""}
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
	return []string{l1, tabLine + " " + m.breadcrumb(m.w-ansi.StringWidth(tabLine)-1)}
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
		parts = append(parts, m.crumb(s))
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

func (m *Model) crumb(s screen) string {
	switch s {
	case screenPhase1:
		return "Phase 1"
	case screenPhase2:
		return "Phase 2"
	case screenPhase3:
		if m.p3 != nil && m.p3.anchorTable() != nil {
			return "Phase 3 " + m.p3.anchorTable().Name
		}
		return "Phase 3"
	case screenSeries:
		if m.series != nil && m.series.a != nil {
			return fmt.Sprintf("series r%d %s", m.series.a.Rank, shortParam(m.series.a.TargetName, 24))
		}
		return "series"
	case screenDrill:
		if m.drill != nil {
			return fmt.Sprintf("L%d ops (%s)", m.drill.layer, m.drill.dir)
		}
		return "ops"
	case screenChain:
		if m.chain != nil {
			return "chain of " + shortParam(m.chain.op, 28)
		}
		return "chain"
	case screenChooser:
		return "choose C"
	}
	return ""
}

func (m *Model) body() []string {
	if m.showHlp {
		return helpOverlay(m.help, m.keys, m.screen, m.st, m.w, m.helpFilter)
	}
	switch m.screen {
	case screenLoading:
		return m.loading.view()
	case screenError:
		return m.errorView()
	case screenPhase1:
		return m.p1.view()
	case screenSeries:
		return m.series.view()
	case screenPhase2:
		return m.p2.view()
	case screenPhase3:
		return m.p3.view()
	case screenDrill:
		return m.drill.view()
	case screenChain:
		return m.chain.view()
	case screenChooser:
		return m.chooser.view()
	}
	return nil
}

func (m *Model) errorView() []string {
	st := m.st
	lines := []string{st.Flag.Render("could not load the input"), ""}
	lines = append(lines, wrap(m.loadErr.Error(), m.w)...)
	lines = append(lines, "")
	lines = append(lines, wrap("Check the path and its format: a trend.db file, a monitor CSV folder, or a dump tree "+
		"(step<N>/rank<R>/dump.json). `spikescope inspect PATH` shows what is read.", m.w)...)
	lines = append(lines, "", "q quits")
	return lines
}

func (m *Model) footer() []string {
	st := m.st
	status := m.status
	if m.pending != "" {
		status = "⏳ " + m.pending
	}
	if status == "" && m.data != nil && len(m.data.Missing) > 0 {
		status = st.Warn.Render("missing: " + strings.Join(m.data.Missing, "; "))
	}
	helpLine := ""
	switch {
	case m.showHlp:
		helpLine = m.help.ShortHelpView([]key.Binding{
			key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "close")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear filter / close")),
			key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		})
		return []string{status, helpLine}
	}
	switch m.screen {
	case screenLoading:
		helpLine = m.help.ShortHelpView([]key.Binding{m.keys.Quit})
	case screenError:
		helpLine = m.help.ShortHelpView([]key.Binding{m.keys.Quit})
	default:
		keys := m.keys.helpFor(m.screen)
		if m.screen == screenPhase3 && m.data != nil && m.data.P3 == nil {
			keys = m.keys.phase3Idle(m.data.A != nil && len(m.data.Controls) > 0)
		}
		helpLine = m.help.View(keys)
	}
	return []string{status, helpLine}
}
