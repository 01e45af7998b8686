package ui

import (
	"math"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
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
	if len(m.p1().tbl.view) != 3 {
		t.Fatalf("the filter is still on: %d rows", len(m.p1().tbl.view))
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
		if got := m.p1().tbl.selected(); got != c.row || m.status != c.text {
			t.Fatalf("%s: row %d, footer %q; want row %d, %q", c.key, got, m.status, c.row, c.text)
		}
	}
	press(m, "/", "z", "z", "enter", "esc", "n")
	if m.status != `no row matches "zz"` || m.p1().tbl.selected() != 0 {
		t.Fatalf("a query matching nothing: %q, row %d", m.status, m.p1().tbl.selected())
	}
}

// :N puts the row of step N in the middle of the screen; ctrl+d/ctrl+u
// move half a page, the wheel three rows, s to the first row.
func TestJumpCentresAndHalfPages(t *testing.T) {
	d := bigCandidates()
	m := New(Options{Backend: &fakeBackend{data: d}})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(loadedMsg{id: m.loadID, data: d})
	tb := &m.p1().tbl
	press(m, ":", "5", "0", "enter")
	a := m.p1().candidate()
	if a == nil || a.Step != 50 || tb.cursor-tb.offset != tb.height/2 {
		t.Fatalf("after :50 the cursor is on step %v at screen row %d of %d", a, tb.cursor-tb.offset, tb.height)
	}
	if prev := &m.p1().anoms[tb.view[tb.cursor-1]]; prev.OptStep() >= 50 {
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
	a0, m0 := m.p3().anchor, m.p3().metric
	m.Update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	if m.p3().anchor != (a0+n-1)%n {
		t.Fatalf("shift+tab: anchor %d, want %d", m.p3().anchor, (a0+n-1)%n)
	}
	press(m, "tab", "M")
	if m.p3().anchor != a0 || m.p3().metric != (m0+len(metricNames)-1)%len(metricNames) {
		t.Fatalf("anchor %d metric %d", m.p3().anchor, m.p3().metric)
	}
	press(m, "m")
	if m.p3().metric != m0 {
		t.Fatalf("m after M: metric %d, want %d", m.p3().metric, m0)
	}
}

// The series screen: the heat map's spike column is the chart's, every rank
// is reachable with ↑/↓ and the title says which are shown, the y labels
// share one notation, and a NaN baseline reads "no baseline".
func TestSeriesAxisRanksAndBaseline(t *testing.T) {
	d := fixture()
	d.P1.Anomalies[0].BaselineMedian = model.Float(math.NaN())
	m := loaded(t, fixtureBackend(), d, 80, 16, true) // room for 1 heat map row of 4 ranks
	press(m, "enter")
	lines := strings.Split(screenText(m), "\n")
	chartCol, heatCol, title := -1, -1, ""
	for _, l := range lines {
		if strings.Contains(l, "heat map") {
			title = l
		}
		if i := strings.IndexRune(l, '▲'); i >= 0 {
			col := ansi.StringWidth(l[:i])
			if strings.Contains(l, "step 10") {
				heatCol = col
			} else if chartCol < 0 && strings.Contains(l, "│") {
				chartCol = col
			}
		}
	}
	if chartCol < 0 || chartCol != heatCol {
		t.Fatalf("spike in the chart at column %d, in the heat map at %d:\n%s", chartCol, heatCol, screenText(m))
	}
	if !strings.Contains(title, "of 4") || !strings.Contains(title, "↑/↓") {
		t.Fatalf("heat map title %q does not say which ranks show", title)
	}
	txt := screenText(m)
	if !strings.Contains(txt, "no baseline") || strings.Contains(txt, "NaN") {
		t.Fatalf("a NaN baseline:\n%s", txt)
	}
	seen := map[int32]bool{}
	shown := func() {
		sp := m.series()
		ranks := sp.data.series.ranksOf(sp.a)
		first := sp.heatWindow(ranks, sp.rankRows)
		for _, r := range ranks[first : first+sp.rankRows] {
			seen[r] = true
		}
	}
	for _, k := range []string{"j", "j", "j", "j", "k", "k", "k", "k", "k", "k", "k", "k"} {
		press(m, k)
		m.View()
		shown()
	}
	if len(seen) != 4 {
		t.Fatalf("ranks reachable with ↑/↓: %v of 4", seen)
	}
	for _, c := range []struct{ lo, hi float64 }{{0.0005, 0.2}, {1, 2e5}, {0.5, 30}} {
		f := axisLabels(c.lo, c.hi, 0)
		a, b := f(c.lo), f(c.hi)
		if strings.Contains(a, "e") != strings.Contains(b, "e") {
			t.Errorf("labels of %g…%g in two notations: %q, %q", c.lo, c.hi, a, b)
		}
	}
}

// A small early spike stays visible in the sparkline beside a later
// explosion a thousand times larger (log scale, as the chart).
func TestSparklineShowsEarlySpikeBesideExplosion(t *testing.T) {
	vals := []float64{1, 1, 1, 6, 1, 1, 1, 1, 1000, 3000, 2000, 1500}
	line := []rune(sparkline(vals, 3, len(vals), NewStyles(true)))
	if line[0] != sparkRunes[0] || line[3] == sparkRunes[0] && line[3] != spikeRune {
		t.Fatalf("sparkline %q", string(line))
	}
	plain := []rune(sparkline(vals, -1, len(vals), NewStyles(true)))
	if plain[3] == plain[0] {
		t.Fatalf("the early spike is flat: %q", string(plain))
	}
}
