package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// A Phase 2 page longer than the screen ends with a position line naming
// the sections below the fold, as the help and the plan do; scrolled to
// the end it says "more above", and a page that fits has none.
func TestPhase2PositionLine(t *testing.T) {
	p := newPhase2Pane(testCommon(fp16Backend().data))
	p.SetSize(80, 20)
	view := func() (last string, n int) {
		v := p.View()
		return ansi.Strip(v[len(v)-1]), len(v)
	}
	last, n := view()
	if n != 20 || !strings.HasPrefix(last, "lines 1–19 of ") || !strings.Contains(last, "more below: spike events, reasoning") {
		t.Fatalf("first screen ends %q (%d lines)", last, n)
	}
	p.navigate(pressOf(t, "end"), p.keys)
	if last, n = view(); n != 20 || !strings.Contains(last, " · more above") || strings.Contains(last, "below") {
		t.Fatalf("last screen ends %q (%d lines)", last, n)
	}
	// the scrolled window is one line shorter: the page's last line shows
	total := len(p.lines())
	if v := p.View(); ansi.Strip(v[len(v)-2]) != ansi.Strip(p.lines()[total-1]) {
		t.Fatalf("page's last line %q not above the position line %q", ansi.Strip(p.lines()[total-1]), ansi.Strip(v[len(v)-2]))
	}
	p.SetSize(80, total)
	if v := p.View(); len(v) != total || strings.Contains(ansi.Strip(v[len(v)-1]), "lines 1–") {
		t.Fatalf("a page that fits: %d lines, ends %q", len(v), ansi.Strip(v[len(v)-1]))
	}
}
