package ui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// textPage is a screen of text that scrolls (the verdict, the plan): the
// pane gives its lines, the page the window, the position line, the keys
// and the help.
type textPage struct {
	common
	sv   scrollView
	text func() []string
}

func (p *textPage) SetSize(w, h int) {
	p.common.SetSize(w, h)
	p.sv.height = h - 1 // the last line says where the view is
}

func (p *textPage) View() []string {
	all := p.text()
	win := p.sv.window(all)
	return append(win, p.st.Dim.Render(scrollInfo("line", p.sv.offset, len(win), len(all))))
}

// Update scrolls the text.
func (p *textPage) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	return reply{handled: p.sv.navigate(msg, p.keys, len(p.text()))}
}

func (p *textPage) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.Back, k.Help, k.Quit}
}

func (p *textPage) FullHelp() [][]key.Binding { return [][]key.Binding{p.keys.rows()} }
