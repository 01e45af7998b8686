package ui

import tea "charm.land/bubbletea/v2"

// `y` copies what is selected to the clipboard with OSC 52: the terminal
// (or tmux with set-clipboard on) sets its clipboard, so it works over SSH
// with no clipboard tool on the remote machine. A coordinate is copied in
// the form `spikescope --pin` reads, an operator as its key; what a pane
// copies is its copyText() (pane.go), beside its View.

// copySelected is `y`: the clipboard command and the footer line.
func (m *Model) copySelected(p pane) tea.Cmd {
	text, what := p.copyText()
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
