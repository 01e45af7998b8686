package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// showWritten shows the whole path of a report or plan just written, over
// as many footer lines as it takes (a cut path names no file), until the
// next key; y then copies it.
func (m *Model) showWritten(what, path string) {
	m.status, m.written, m.writtenWhat = "", path, what
	m.layout()
}

// writtenLines is the written path's message wrapped to the screen, at
// the path's slashes where it must break; nil when none is shown.
func (m *Model) writtenLines() []string {
	if m.written == "" {
		return nil
	}
	text := m.writtenWhat + " written to " + escapeControl(m.written) + " · y copies the path"
	w := max(20, m.w)
	out := strings.Split(ansi.Wrap(text, w, "/"), "\n")
	if len(out) > 4 { // the body keeps most of the screen
		out = out[:4]
	}
	return out
}

// footerRoom is the footer's height: the help line and the status, or the
// written path's lines.
func (m *Model) footerRoom() int {
	if n := len(m.writtenLines()); n > 1 {
		return 1 + n
	}
	return footerLines
}
