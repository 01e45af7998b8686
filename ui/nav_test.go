package ui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// n/N step through the rows matching the last / text once the filter is
// cleared, wrapping at the ends, and the footer counts the matches.
func TestSearchNextPrevious(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "n")
	if !strings.Contains(m.status, "no search yet") {
		t.Fatalf("n before any search: %q", m.status)
	}
	press(m, "/", "m", "l", "p", "enter", "esc") // rows 0 and 1 match; the filter is cleared
	if len(m.p1.tbl.view) != 3 {
		t.Fatalf("the filter is still on: %d rows", len(m.p1.tbl.view))
	}
	for _, c := range []struct {
		key  string
		row  int
		text string
	}{
		{"n", 1, `match 2 of 2 for "mlp"`},
		{"n", 0, `match 1 of 2 for "mlp" (wrapped around)`},
		{"N", 1, `match 2 of 2 for "mlp" (wrapped around)`},
		{"N", 0, `match 1 of 2 for "mlp"`},
	} {
		press(m, c.key)
		if got := m.p1.tbl.selected(); got != c.row || m.status != c.text {
			t.Fatalf("%s: row %d, footer %q; want row %d, %q", c.key, got, m.status, c.row, c.text)
		}
	}
	press(m, "/", "z", "z", "enter", "esc", "n")
	if m.status != `no row matches "zz"` || m.p1.tbl.selected() != 0 {
		t.Fatalf("a query matching nothing: %q, row %d", m.status, m.p1.tbl.selected())
	}
}

// :N puts the row of step N in the middle of the screen; ctrl+d/ctrl+u
// move half a page, the wheel three rows, s to the first row.
func TestJumpCentresAndHalfPages(t *testing.T) {
	d := bigCandidates()
	m := New(Options{Backend: &fakeBackend{data: d}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(loadedMsg{id: m.loadID, data: d})
	tb := &m.p1.tbl
	press(m, ":", "5", "0", "enter")
	a := m.p1.candidate()
	if a == nil || a.Step != 50 || tb.cursor-tb.offset != tb.height/2 {
		t.Fatalf("after :50 the cursor is on step %v at screen row %d of %d", a, tb.cursor-tb.offset, tb.height)
	}
	if prev := &m.p1.anoms[tb.view[tb.cursor-1]]; prev.OptStep() >= 50 {
		t.Fatalf("the row before is at step %d: not the first at step 50", prev.OptStep())
	}
	cur := tb.cursor
	m.Update(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	if tb.cursor != cur+tb.height/2 {
		t.Fatalf("ctrl+d moved %d rows, want %d", tb.cursor-cur, tb.height/2)
	}
	m.Update(tea.KeyPressMsg{Code: 'u', Mod: tea.ModCtrl})
	m.Update(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if tb.cursor != cur+wheelLines {
		t.Fatalf("the wheel moved %d rows, want %d", tb.cursor-cur, wheelLines)
	}
	press(m, "s")
	if tb.cursor != 0 || tb.offset != 0 {
		t.Fatalf("s left the cursor at %d (offset %d)", tb.cursor, tb.offset)
	}
}

// shift+tab and M go back through the anchors and metrics.
func TestPreviousAnchorAndMetric(t *testing.T) {
	m := at(t, "3")
	n := len(m.data.P3.Anchors)
	a0, m0 := m.p3.anchor, m.p3.metric
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if m.p3.anchor != (a0+n-1)%n {
		t.Fatalf("shift+tab: anchor %d, want %d", m.p3.anchor, (a0+n-1)%n)
	}
	press(m, "tab", "M")
	if m.p3.anchor != a0 || m.p3.metric != (m0+len(metricNames)-1)%len(metricNames) {
		t.Fatalf("anchor %d metric %d", m.p3.anchor, m.p3.metric)
	}
	press(m, "m")
	if m.p3.metric != m0 {
		t.Fatalf("m after M: metric %d, want %d", m.p3.metric, m0)
	}
}
