package ui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// shown is the footer's message: the status, or the path just written.
func shown(m *Model) string {
	if m.written != "" {
		return m.writtenWhat + " written to " + m.written
	}
	return m.status
}

// After r the report's whole path is on screen at 80 columns, wrapped at
// its slashes rather than cut, and y copies it; the next key gives the
// footer back.
func TestWrittenPathShownWholeAndCopied(t *testing.T) {
	state, b, m := loadedWithState(t)
	run(t, m, press(m, "r", "m"))
	if len(b.reports) != 1 {
		t.Fatalf("reports %v", b.reports)
	}
	path := b.reports[0]
	if !strings.HasPrefix(path, state) || len(path) < 60 {
		t.Fatalf("path %q is too short to need wrapping at 80 columns", path)
	}
	foot := ansi.Strip(strings.Join(m.footer(), ""))
	if !strings.Contains(foot, path) {
		t.Fatalf("the footer does not hold the whole path %q:\n%s", path, strings.Join(m.footer(), "\n"))
	}
	if m.footerRoom() < 3 || len(m.footer()) != m.footerRoom() {
		t.Fatalf("footer room %d for %d lines", m.footerRoom(), len(m.footer()))
	}
	for _, l := range strings.Split(screenText(m), "\n") {
		if ansi.StringWidth(l) > 80 {
			t.Fatalf("line wider than the screen: %q", l)
		}
	}
	cmd := press(m, "y")
	if cmd == nil || !strings.Contains(m.status, filepath.Base(path)) || m.written != "" {
		t.Fatalf("y: status %q, command %v", m.status, cmd != nil)
	}
	if m.footerRoom() != footerLines {
		t.Fatalf("footer room %d after the next key", m.footerRoom())
	}
}
