package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// scrollTable is a table of a frozen name and eight 8-cell value columns;
// cells of columns in dash are "-" on every row.
func scrollTable(rows int, dash map[int]bool) (table, func(r, c int) string) {
	cols := []column{{title: "name", width: 10, freeze: true}}
	for i := 1; i <= 8; i++ {
		cols = append(cols, column{title: "v" + string(rune('0'+i)), width: 8, right: true, drop: i})
	}
	t := newTable(cols, rows)
	t.setHeight(rows)
	return t, func(r, c int) string {
		if c == 0 {
			return "row"
		}
		if dash[c] {
			return "-"
		}
		return "1.0"
	}
}

func headerTitles(lines []string) []string { return strings.Fields(ansi.Strip(lines[0])) }

// When the columns do not fit, the table says which are shown and →
// brings the hidden ones in at the right edge; ← brings the first back.
func TestTableScrollsColumns(t *testing.T) {
	tb, cell := scrollTable(3, nil)
	st := NewStyles(true)
	got := headerTitles(tb.render(46, st, cell)) // name + 4 value columns
	if strings.Join(got, " ") != "name v1 v2 v3 v4" {
		t.Fatalf("first page %v", got)
	}
	if info := tb.colsInfo(46); info != "cols 1–5 of 9 ▸" {
		t.Fatalf("info %q", info)
	}
	for i := 0; i < 6; i++ { // name → v1 … v4, then two past the edge
		tb.moveCol(1, 46)
	}
	got = headerTitles(tb.render(46, st, cell))
	if tb.cols[tb.colCur].title != "v6" || got[len(got)-1] != "v6" || got[0] != "name" {
		t.Fatalf("after 6×→ cursor %s, header %v", tb.cols[tb.colCur].title, got)
	}
	if info := tb.colsInfo(46); !strings.HasPrefix(info, "◂ cols") || !strings.HasSuffix(info, "▸") {
		t.Fatalf("scrolled info %q", info)
	}
	for i := 0; i < 10; i++ {
		tb.moveCol(-1, 46)
	}
	got = headerTitles(tb.render(46, st, cell))
	if tb.colCur != 0 || strings.Join(got, " ") != "name v1 v2 v3 v4" {
		t.Fatalf("back left: cursor %d header %v", tb.colCur, got)
	}
	// wide enough: every column, no indicator
	if got = headerTitles(tb.render(200, st, cell)); len(got) != 9 || tb.colsInfo(200) != "" {
		t.Fatalf("wide: %v %q", got, tb.colsInfo(200))
	}
}

// A column that is all "-" on the rows shown gives way to a useful one
// when room is short, and the indicator names it.
func TestTableEmptyColumnGivesWay(t *testing.T) {
	tb, cell := scrollTable(3, map[int]bool{1: true, 2: true})
	got := strings.Join(headerTitles(tb.render(46, NewStyles(true), cell)), " ")
	if got != "name v3 v4 v5 v6" {
		t.Fatalf("header %q: the empty v1, v2 should give way", got)
	}
	if info := tb.colsInfo(46); !strings.Contains(info, "v1, v2 empty here") {
		t.Fatalf("info %q", info)
	}
}

func TestTablePosition(t *testing.T) {
	tb, _ := scrollTable(100, nil)
	tb.setHeight(10)
	if got := tb.position(); got != "1 of 100 · more below" {
		t.Fatalf("top: %q", got)
	}
	tb.move(50)
	if got := tb.position(); got != "51 of 100 · more above and below" {
		t.Fatalf("middle: %q", got)
	}
	tb.bottom()
	if got := tb.position(); got != "100 of 100 · more above" {
		t.Fatalf("bottom: %q", got)
	}
}

// At 80 columns the Phase 3 layer table shows the degrees and the ratios
// they are made of first; → reaches the raw C/D values.
func TestPhase3NarrowShowsDegreeFirst(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "3")
	head := func() string {
		for _, l := range strings.Split(screenText(m), "\n") {
			if strings.HasPrefix(strings.TrimSpace(l), "L ") {
				return l
			}
		}
		return ""
	}
	h := head()
	for _, c := range []string{"F-anomaly", "B-anomaly", "F_C/D", "B_C/D"} {
		if !strings.Contains(h, c) {
			t.Fatalf("80 columns: %s not on the first page: %q", c, h)
		}
	}
	if strings.Contains(h, "F_D") || !strings.Contains(screenText(m), "cols 1–") {
		t.Fatalf("first page %q without a column indicator", h)
	}
	for i := 0; i < 12 && !strings.Contains(head(), "F_D"); i++ {
		press(m, "right")
	}
	if !strings.Contains(head(), "F_C ") || !strings.Contains(head(), "F_D") {
		t.Fatalf("→ did not reveal F_C/F_D: %q", head())
	}
}

// The status line of Phase 3 names the four dump folders and the call.
func TestPhase3LoadedLine(t *testing.T) {
	d := fixture()
	d.A = &model.Dump{Path: "/x/step10/rank2", Step: 10, Rank: 2}
	call := 1
	d.P3.Call, d.P3.Calls = &call, 4
	m := loaded(t, fixtureBackend(), d, 160, 48, true)
	press(m, "3")
	txt := screenText(m)
	if !strings.Contains(txt, "A step10/rank2 · B step10/rank2 · C step9/rank2 · D step9/rank2 · micro-batch 2 of 4") {
		t.Fatalf("loaded line:\n%s", txt)
	}
}

// The peak of a direction names the metric its degree comes from.
func TestPhase3PeakNamesMetric(t *testing.T) {
	d := fixture()
	mx := d.P3.Anchors[0].Layers[5].Metrics["Max"]
	v := model.Float(3.25)
	mx.FAnomaly = &v
	d.P3.Anchors[0].Layers[5].Metrics["Max"] = mx
	d.P3.DivergenceSummary.Directions[0].PeakValue = &v
	m := loaded(t, fixtureBackend(), d, 160, 48, true)
	press(m, "3")
	if txt := screenText(m); !strings.Contains(txt, "peak L5 (Max degree 3.250 in mlp)") {
		t.Fatalf("peak:\n%s", txt)
	}
}

func TestRunShape(t *testing.T) {
	d := fixture()
	if got := runShape(d); got != "no pipeline stages" {
		t.Fatalf("fixture: %q", got)
	}
	if got := runShape(mcoreFixture()); got != "PP 2 × VPP 2" {
		t.Fatalf("mcore: %q", got)
	}
	d.P1.Sharding.Stages = &model.StageLayout{Stages: 4, Inferred: true}
	if got := runShape(d); got != "PP 4" {
		t.Fatalf("PP 4: %q", got)
	}
}

// At 80 columns the Phase 1 names keep the layer and the leaf, the
// non-finite mark stays, and the selected row's full name is on screen.
func TestPhase1NamesAt80(t *testing.T) {
	m := loaded(t, mcoreBackend(), mcoreFixture(), 80, 24, true)
	txt := screenText(m)
	for _, want := range []string{"!pp1:vpp1:L2 self_attention.linear_qkv.weight", " pp1:vpp1:L2 mlp.linear_fc1.weight",
		"▸ pp1:vpp1:module.decoder.layers.2.self_attention.linear_qkv.weight", "PP 2 × VPP 2"} {
		if !strings.Contains(txt, want) {
			t.Errorf("missing %q:\n%s", want, txt)
		}
	}
}

// The `?` screen lists the marks of the screen it was opened on, and not
// those of another.
func TestLegendPerScreen(t *testing.T) {
	m := loaded(t, mcoreBackend(), mcoreFixture(), 160, 48, true)
	press(m, "?")
	p1 := screenText(m)
	press(m, "?", "3", "?")
	p3 := screenText(m)
	press(m, "?", "enter", "?")
	dr := screenText(m)
	for _, c := range []struct {
		txt, want, not string
	}{
		{p1, "before a name: the gradient is NaN/Inf", "← trace this first"},
		{p1, "VPP model chunk 1", "(A/B)/(C/D)"},
		{p3, "← trace this first", "VPP model chunk"},
		{p3, "(A/B)/(C/D)", "the drill-down operator"},
		{dr, "the drill-down operator", "← trace this first"},
		{dr, "no counterpart in B", "VPP model chunk"},
	} {
		if !strings.Contains(c.txt, c.want) || strings.Contains(c.txt, c.not) {
			t.Errorf("want %q without %q:\n%s", c.want, c.not, c.txt)
		}
	}
	// the fixture has no non-finite candidate: no "!" line in its legend
	m = loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	press(m, "?")
	if strings.Contains(screenText(m), "NaN/Inf at that step") {
		t.Errorf("legend names a mark the screen does not use:\n%s", screenText(m))
	}
	// the curve and trigger columns are explained where they show, not
	// where they are scrolled away (the curve at 60 columns)
	for _, w := range []int{60, 160} {
		p := newPhase1Pane(testCommon(fixture()))
		p.SetSize(w, 40)
		p.View()
		legend := strings.Join(p.marks(), "\n")
		for c, words := range map[int]string{p1ColCurve: "on the curve", p1ColTrigger: "the test that flagged it"} {
			shown := p.tbl.colWidth(c) > 0
			if c == p1ColCurve && shown != (w == 160) {
				t.Fatalf("width %d: the curve shown %v", w, shown)
			}
			if strings.Contains(legend, words) != shown {
				t.Errorf("width %d: column %s shown %v, legend:\n%s", w, p.tbl.cols[c].title, shown, legend)
			}
		}
	}
	// Phase 2 explains its growth and its selection mark
	m = loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	press(m, "2", "?")
	if txt := screenText(m); !strings.Contains(txt, "a pair's growth") || !strings.Contains(txt, "root-cause coordinate; among the events") {
		t.Errorf("Phase 2 legend:\n%s", txt)
	}
}

// A flexible name column gives up its shrink before a column scrolls
// away, and no more.
func TestTableNameShrinksBeforeScrolling(t *testing.T) {
	cols := []column{{title: "name", min: 20, shrink: 5, freeze: true}}
	for i := 1; i <= 4; i++ {
		cols = append(cols, column{title: "v" + string(rune('0'+i)), width: 8, right: true})
	}
	tb := newTable(cols, 1)
	cell := func(r, c int) string { return "x" }
	full := 20 + 4*8 + 4 // name at its min and four value columns
	for _, tc := range []struct {
		width, nameW, n int
	}{{full, 20, 5}, {full - 5, 15, 5}, {full - 6, 23, 4}} { // scrolling: the name takes what v4 leaves
		lines := tb.render(tc.width, NewStyles(true), cell)
		if got := len(headerTitles(lines)); got != tc.n || tb.colWidth(0) != tc.nameW {
			t.Errorf("width %d: %d columns, name %d cells; want %d, %d", tc.width, got, tb.colWidth(0), tc.n, tc.nameW)
		}
	}
}

// A column of "-" on every row on screen gives way even when every column
// would fit: its room goes to the name, and the position line names it.
func TestTableEmptyColumnGivesWayWhenAllFit(t *testing.T) {
	cols := []column{{title: "name", min: 10, freeze: true}, {title: "v1", width: 8, right: true}, {title: "v2", width: 8, right: true}}
	tb := newTable(cols, 3)
	tb.setHeight(3)
	cell := func(r, c int) string {
		if c == 2 {
			return "-"
		}
		return "x"
	}
	lines := tb.render(80, NewStyles(true), cell)
	if got := strings.Join(headerTitles(lines), " "); got != "name v1" {
		t.Fatalf("header %q", got)
	}
	if tb.colWidth(0) != 80-8-colGap {
		t.Fatalf("name %d cells, want the room of v2 too", tb.colWidth(0))
	}
	if info := tb.colsInfo(80); info != "v2 empty here" {
		t.Fatalf("info %q", info)
	}
}
