package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// errorPane says why the input could not be loaded; q or esc quits.
type errorPane struct {
	common
	err error
}

func newErrorPane(c common, err error) *errorPane { return &errorPane{common: c, err: err} }

func (p *errorPane) Update(msg tea.Msg) reply {
	if k, ok := msg.(tea.KeyPressMsg); ok && (key.Matches(k, p.keys.Quit) || key.Matches(k, p.keys.Back)) {
		return reply{handled: true, quit: true}
	}
	return reply{}
}

func (p *errorPane) View() []string {
	st := p.st
	lines := []string{st.Flag.Render("could not load the input"), ""}
	lines = append(lines, wrap(p.err.Error(), p.width)...)
	lines = append(lines, "")
	lines = append(lines, wrap("Check the path and its format: a trend.db file, a monitor CSV folder, or a dump tree "+
		"(step<N>/rank<R>/dump.json). `spikescope inspect PATH` shows what is read.", p.width)...)
	lines = append(lines, "", "q quits")
	return lines
}

func (p *errorPane) ShortHelp() []key.Binding  { return []key.Binding{p.keys.Quit} }
func (p *errorPane) FullHelp() [][]key.Binding { return [][]key.Binding{{p.keys.Quit, p.keys.Back}} }
func (p *errorPane) Crumb() string             { return "" }
