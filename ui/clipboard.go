package ui

import tea "charm.land/bubbletea/v2"

// `y` copies what is selected to the clipboard with OSC 52: the terminal
// (or tmux with set-clipboard on) sets its clipboard, so it works over SSH
// with no clipboard tool on the remote machine. A coordinate is copied in
// the form `spikescope --pin` reads, an operator as its key.

// copySource is a pane with something to copy under the cursor.
type copySource interface {
	// copyText is the text to copy and what it is ("coordinate",
	// "operator key"); "" when nothing is selected.
	copyText() (text, what string)
}

func (p *phase1Pane) copyText() (string, string) { return p.candidate().Coord().String(), "coordinate" }
func (s *seriesPane) copyText() (string, string) { return s.a.Coord().String(), "coordinate" }

// copyText on Phase 2 is the candidate under the cursor (the one `p`
// pins), else the root-cause coordinate.
func (p *phase2Pane) copyText() (string, string) {
	if a := p.candidate(); a != nil {
		return a.Coord().String(), "coordinate"
	}
	if p.data == nil || p.data.P2 == nil {
		return "", "coordinate"
	}
	return p.data.P2.RootCauseCoordinate.Coord().String(), "coordinate"
}

func (p *phase3Pane) copyText() (string, string) {
	if p.data == nil || p.data.P2 == nil {
		return "", "coordinate"
	}
	return p.data.P2.RootCauseCoordinate.Coord().String(), "coordinate"
}

func (p *drillPane) copyText() (string, string) {
	if op := p.selected(); op != nil {
		return op.Key, "operator key"
	}
	return "", "operator key"
}

func (p *chainPane) copyText() (string, string) { return p.op, "operator key" }

// copySelected is `y`: the clipboard command and the footer line.
func (m *Model) copySelected(c copySource) tea.Cmd {
	text, what := c.copyText()
	if text == "" {
		m.status = "nothing selected to copy"
		return nil
	}
	m.status = "copied the " + what + " " + escapeControl(text)
	if what == "coordinate" {
		m.status += " (reopen it with --pin)"
	}
	return tea.SetClipboard(text)
}
