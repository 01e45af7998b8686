package ui

import (
	"context"
	"regexp"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// loaded returns a model that has received the fixture (no program).
func loaded(t *testing.T, b Backend, d *Data, w, h int, noColor bool) *Model {
	t.Helper()
	m := New(Options{Backend: b, NoColor: noColor, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	m.Update(loadedMsg{id: m.loadID, data: d})
	if m.screen != screenPhase1 {
		t.Fatalf("screen %d after load, want Phase 1", m.screen)
	}
	return m
}

func press(m *Model, ks ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range ks {
		_, last = m.Update(keyMsg(k))
	}
	return last
}

// run executes a command and feeds its message back (one level; batches
// are not expected here).
func run(t *testing.T, m *Model, c tea.Cmd) {
	t.Helper()
	if c == nil {
		t.Fatal("no command")
	}
	m.Update(c())
}

func screenText(m *Model) string { return ansi.Strip(m.View().Content) }

func TestSortTogglesAndKeepsCursor(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	p := m.p1()
	p.tbl.move(1) // candidate 2 (norm 3.8)
	p.tbl.colCur = p1ColNorm
	press(m, "o")
	if got := p.anoms[p.tbl.view[0]].Norm; got != 1.9 {
		t.Fatalf("ascending norm: first %v, want 1.9", got)
	}
	if p.candidate().Norm != 3.8 {
		t.Fatalf("cursor moved to %v, want the 3.8 row", p.candidate().Norm)
	}
	press(m, "o")
	if got := p.anoms[p.tbl.view[0]].Norm; got != 9.5 {
		t.Fatalf("descending norm: first %v, want 9.5", got)
	}
	if !strings.Contains(screenText(m), "norm↓") {
		t.Fatal("header does not show the descending sort")
	}
	press(m, "left", "left", "left", "left", "left") // → parameter? column cursor moves over shown columns
	if p.tbl.colCur != p1ColRank-1 && p.tbl.colCur >= p1ColNorm {
		t.Fatalf("column cursor did not move left: %d", p.tbl.colCur)
	}
}

func TestFilterByParameterAndRank(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "/", "a", "t", "t", "n", "enter")
	if n := len(m.p1().tbl.view); n != 1 || m.p1().candidate().TargetName != "layers.1.attn.weight" {
		t.Fatalf("filter attn: %d rows", n)
	}
	press(m, "esc")
	if n := len(m.p1().tbl.view); n != 3 {
		t.Fatalf("esc should clear the filter: %d rows", n)
	}
	press(m, "/", "r", "2", "enter")
	if n := len(m.p1().tbl.view); n != 2 {
		t.Fatalf("filter r2: %d rows, want 2", n)
	}
	for _, i := range m.p1().tbl.view {
		if m.p1().anoms[i].Rank != 2 {
			t.Fatalf("row of rank %d kept", m.p1().anoms[i].Rank)
		}
	}
	if !strings.Contains(screenText(m), `filter "r2": 2 of 3`) {
		t.Fatalf("filter status missing:\n%s", screenText(m))
	}
}

func TestJumpAndNavigation(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, ":", "1", "5", "enter")
	if s := m.p1().candidate().Step; s != 17 {
		t.Fatalf("jump to 15 landed on step %d, want 17", s)
	}
	press(m, "g")
	if m.p1().tbl.cursor != 0 {
		t.Fatal("g did not go to the first row")
	}
	press(m, "G")
	if m.p1().tbl.cursor != 2 {
		t.Fatal("G did not go to the last row")
	}
	press(m, "pgdown", "j", "j")
	if m.p1().tbl.cursor != 2 {
		t.Fatalf("cursor ran past the end: %d", m.p1().tbl.cursor)
	}
	press(m, "k")
	if m.p1().tbl.cursor != 1 {
		t.Fatalf("k: cursor %d, want 1", m.p1().tbl.cursor)
	}
}

func TestTableScrollKeepsCursorVisible(t *testing.T) {
	tb := newTable([]column{{title: "x", width: 3}}, 1000)
	tb.setHeight(10)
	tb.move(25)
	if tb.offset != 16 || tb.cursor != 25 {
		t.Fatalf("offset %d cursor %d, want 16 25", tb.offset, tb.cursor)
	}
	tb.move(-20)
	if tb.offset != 5 {
		t.Fatalf("offset %d, want 5", tb.offset)
	}
	lines := tb.render(20, NewStyles(true), func(r, c int) string { return "r" })
	if len(lines) != 11 {
		t.Fatalf("rendered %d lines, want header + 10", len(lines))
	}
}

func TestPhase3OpensOnEarliestLayerAndNarrowsAt80(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "3")
	if l := m.p3().selectedLayer(); l == nil || l.Layer != 3 {
		t.Fatalf("cursor on layer %v, want 3", l)
	}
	txt := screenText(m)
	if strings.Contains(txt, "F_C ") || !strings.Contains(txt, "F-anomaly") || !strings.Contains(txt, "1.600 F!") {
		t.Fatalf("80 columns: want F_C hidden, F-anomaly with F!:\n%s", txt)
	}
	// resize mid-session: the table re-lays out with every group
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	txt = screenText(m)
	for _, h := range []string{"F_C", "F_D", "F_C/D", "B_C/D", "B-anomaly"} {
		if !strings.Contains(txt, h) {
			t.Fatalf("160 columns: %s missing:\n%s", h, txt)
		}
	}
	// unaligned C cell of layer 4 shows "-"
	for _, line := range strings.Split(txt, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "4 ") && !strings.Contains(line, " - ") {
			t.Fatalf("layer 4 should show '-' for the unaligned cells: %q", line)
		}
	}
}

// TestResizeEveryScreen: after WindowSizeMsg every screen fits exactly.
func TestResizeEveryScreen(t *testing.T) {
	paths := [][]string{{}, {"enter"}, {"2"}, {"3"}, {"3", "enter"}, {"3", "enter", "enter"}, {"?"}, {"3", "c"}}
	for _, ks := range paths {
		m := loaded(t, fixtureBackend(), fixture(), 160, 48, false)
		press(m, ks...)
		for _, sz := range [][2]int{{80, 24}, {120, 30}, {60, 15}, {40, 10}, {41, 11}, {45, 15}, {50, 16}, {70, 17}, {250, 70}, {160, 48}} {
			m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
			lines := strings.Split(m.View().Content, "\n")
			if len(lines) != sz[1] {
				t.Fatalf("%v at %v: %d lines (%s)", ks, sz, len(lines), m.PanicText())
			}
			for _, l := range lines {
				if w := ansi.StringWidth(l); w > sz[0] {
					t.Fatalf("%v at %v: line of %d cells: %q", ks, sz, w, ansi.Strip(l))
				}
			}
		}
	}
}

func TestPinUnpinAndStaleReplies(t *testing.T) {
	b := fixtureBackend()
	m := loaded(t, b, fixture(), 80, 24, true)
	press(m, "j")
	c := press(m, "p")
	stale := c
	c2 := press(m, "p") // a second request supersedes the first
	run(t, m, stale)
	if m.data.Pin != nil {
		t.Fatal("a superseded reply was applied")
	}
	run(t, m, c2)
	want := "step=14,rank=2,param=layers.3.mlp.weight"
	if m.data.Pin.Label() != want || !strings.Contains(screenText(m), "PIN "+want) {
		t.Fatalf("pin %q; header:\n%s", m.data.Pin, screenText(m))
	}
	press(m, "3") // the pin stays in the header on every screen
	if !strings.Contains(screenText(m), "PIN "+want) {
		t.Fatal("pin missing from the Phase 3 header")
	}
	run(t, m, press(m, "P"))
	if m.data.Pin != nil || strings.Contains(screenText(m), "PIN") {
		t.Fatal("P did not unpin")
	}
	if m.p1().tbl.cursor != 1 {
		t.Fatalf("Phase 1 cursor reset by the pin: %d", m.p1().tbl.cursor)
	}
}

func TestDrillDownAndBack(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	press(m, "3", "enter")
	if m.screen != screenDrill || m.drill().selected().Key != "Module.layers.3.mlp.linear_fc1.forward.0" {
		t.Fatalf("drill: screen %d", m.screen)
	}
	txt := screenText(m)
	if !strings.Contains(txt, "Phase 3 mlp › L3 ops (fwd)") || !strings.Contains(txt, "◆ L3 mlp.linear_fc1 fwd.0") {
		t.Fatalf("breadcrumb or marker missing:\n%s", txt)
	}
	press(m, "enter")
	txt = screenText(m)
	if m.screen != screenChain || !strings.Contains(txt, "↑1  same      Functional.linear.3 fwd") || !strings.Contains(txt, "◆  F!/B!     L3 mlp.linear_fc1 fwd.0") {
		t.Fatalf("chain:\n%s", txt)
	}
	press(m, "backspace")
	if m.screen != screenDrill {
		t.Fatal("backspace did not go back to the ops")
	}
	press(m, "esc", "esc")
	if m.screen != screenPhase3 {
		t.Fatalf("esc at the top left Phase 3: %d", m.screen)
	}
}

func TestChooserRunsControl(t *testing.T) {
	d := fixture()
	d.P3.Degraded, d.P3.DegradedNote = true, "no control group: A/B may include device bias"
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	press(m, "3")
	if !strings.Contains(screenText(m), "(c: choose C)") {
		t.Fatal("degraded Phase 3 does not offer the chooser")
	}
	press(m, "c", "j")
	if o := m.chooser().selected(); o.Step != 9 || o.Rank != 2 {
		t.Fatalf("chooser selection %+v", o)
	}
	run(t, m, press(m, "enter"))
	if m.screen != screenPhase3 || m.data.P3.Degraded || m.data.P3.ControlChoice != "step 9 rank 2 (chosen)" {
		t.Fatalf("control not applied: screen %d %+v", m.screen, m.data.P3.ControlChoice)
	}
}

func TestLoadingCancelAndError(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}})
	if !strings.Contains(screenText(m), "loading") {
		t.Fatal("first frame is not the loading screen")
	}
	c := press(m, "q")
	if c == nil || m.ctx.Err() == nil {
		t.Fatal("q while loading must cancel the load and quit")
	}
	m = New(Options{Backend: &fakeBackend{err: errFixtureLoad}})
	m.Update(loadedMsg{id: m.loadID, err: errFixtureLoad})
	if txt := screenText(m); !strings.Contains(txt, "could not load") || !strings.Contains(txt, "trend_data") {
		t.Fatalf("error screen:\n%s", txt)
	}
	if m.LoadErr() != errFixtureLoad {
		t.Fatal("LoadErr lost")
	}
}

type panicBackend struct{ fakeBackend }

func (p *panicBackend) Pin(context.Context, *Data, *model.Anomaly) (*Data, error) {
	panic("boom\nline2")
}

func TestPanicInCommandQuitsCleanly(t *testing.T) {
	m := loaded(t, &panicBackend{}, fixture(), 80, 24, true)
	c := press(m, "p")
	_, q := m.Update(c())
	if m.PanicText() != "boom\nline2" || q == nil {
		t.Fatalf("panic not recovered: %q", m.PanicText())
	}
	if _, ok := q().(tea.QuitMsg); !ok {
		t.Fatal("panic does not quit")
	}
}

func TestNoColorHasNoColour(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	for _, ks := range [][]string{{}, {"enter"}, {"3"}} {
		press(m, "1")
		press(m, ks...)
		v := m.View().Content
		if strings.Contains(v, "38;2;") || strings.Contains(v, "48;2;") {
			t.Fatalf("%v: colour codes with NO_COLOR", ks)
		}
	}
	press(m, "1", "enter")
	if !strings.Contains(screenText(m), "░") {
		t.Fatal("NO_COLOR heat map should use shade characters")
	}
}

func TestSummary(t *testing.T) {
	s := Summary(fixture())
	for _, want := range []string{
		"1. step=10,rank=2,param=layers.3.mlp.weight  norm 9.5  7.92× its own history",
		"root-cause coordinate: step=10,rank=2,param=layers.3.mlp.weight",
		"earliest divergence: forward layer 3, backward layer 5",
		"first divergent operator: Module.layers.3.mlp.linear_fc1.forward.0",
	} {
		if !strings.Contains(s, want) {
			t.Fatalf("summary lacks %q:\n%s", want, s)
		}
	}
}

func TestSummaryRepeatsLoaderWarnings(t *testing.T) {
	d := fixture()
	d.P1.Warnings = []string{"1 of 160 CSV files skipped: rank2/grad_unreduced_3-3.csv: line 4: 6 fields"}
	s := Summary(d)
	if !strings.Contains(s, "warning: 1 of 160 CSV files skipped") {
		t.Fatalf("summary does not repeat the loader warning:\n%s", s)
	}
}

func TestSparklineMarksSpikeAndKeepsMax(t *testing.T) {
	vals := make([]float64, 100)
	for i := range vals {
		vals[i] = 1
	}
	vals[37] = 50
	got := sparkline(vals, 37, 10, NewStyles(true))
	if []rune(got)[3] != spikeRune {
		t.Fatalf("spike not marked in cell 3: %q", got)
	}
	got = sparkline(vals, -1, 10, NewStyles(true))
	if []rune(got)[3] != '█' || []rune(got)[2] != '▁' {
		t.Fatalf("bucket max lost: %q", got)
	}
}

func TestSeriesMetricSwitch(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "enter")
	if !strings.Contains(screenText(m), "metric: Norm") {
		t.Fatal("series opens on Norm")
	}
	press(m, "m", "m")
	txt := screenText(m)
	if !strings.Contains(txt, "metric: Min") || !strings.Contains(txt, "heat map (Min)") || !strings.Contains(txt, "-9.5") {
		t.Fatalf("m m should show Min (down to -9.5):\n%s", txt)
	}
}

// The progress feed keeps the latest report per input however many
// arrive, and ends cleanly.
func TestProgressFeedKeepsLatest(t *testing.T) {
	f := newProgressFeed()
	for i := int64(1); i <= 1000; i++ {
		f.report(model.Progress{Input: "a", Done: i, Total: 1000, Unit: "rows"})
	}
	f.report(model.Progress{Input: "b", Done: 5, Total: 10, Unit: "bytes"})
	msg := f.wait(7)().(progressMsg)
	if msg.id != 7 || len(msg.ps) != 2 || msg.ps[0].Done != 1000 || msg.ps[1].Input != "b" {
		t.Fatalf("snapshot %+v", msg)
	}
	f.finish()
	f.report(model.Progress{Input: "a", Done: 1})
	if _, ok := f.wait(7)().(progressDoneMsg); !ok {
		t.Fatal("a finished feed must end the reader")
	}
	if f.snapshot()[0].Done != 1000 {
		t.Fatal("a report after the end was kept")
	}
}

func TestEarliestAndLargestSideBySide(t *testing.T) {
	d := fixture()
	d.P1.Anomalies[2].DeviationRatio = 40
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	if txt := screenText(m); !strings.Contains(txt, "earliest #1 step 10 r2 7.92× · largest #3 step 17 r1 40×") {
		t.Fatalf("overview:\n%s", txt)
	}
}

func TestPhase2CandidateCursorPinsAndOpensSeries(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "2", "j")
	if a := m.p2().candidate(); a == nil || a.Step != 14 {
		t.Fatalf("Phase 2 selection %+v", a)
	}
	run(t, m, press(m, "p"))
	if m.data.Pin.Label() != "step=14,rank=2,param=layers.3.mlp.weight" {
		t.Fatalf("pin from Phase 2: %q", m.data.Pin)
	}
	press(m, "enter")
	if m.screen != screenSeries || m.series().a.Step != 10 {
		// after the pin the pane is rebuilt: the cursor is back on the first candidate
		t.Fatalf("enter on Phase 2: screen %d", m.screen)
	}
}

// TestEverySizeFits sweeps terminal sizes over every screen: no panic,
// exactly the terminal's height, no line wider than it.
func TestEverySizeFits(t *testing.T) {
	paths := [][]string{{}, {"enter"}, {"2"}, {"3"}, {"3", "enter"}, {"3", "enter", "enter"}, {"?"}, {"3", "c"}}
	for _, ks := range paths {
		m := loaded(t, fixtureBackend(), fixture(), 80, 24, false)
		press(m, ks...)
		for w := minWidth; w <= 200; w += 9 {
			for h := minHeight; h <= 60; h += 7 {
				m.Update(tea.WindowSizeMsg{Width: w, Height: h})
				lines := strings.Split(m.View().Content, "\n")
				if m.PanicText() != "" || len(lines) != h {
					t.Fatalf("%v at %dx%d: %d lines, panic %q", ks, w, h, len(lines), m.PanicText())
				}
				for _, l := range lines {
					if lw := ansi.StringWidth(l); lw > w {
						t.Fatalf("%v at %dx%d: line of %d cells", ks, w, h, lw)
					}
				}
			}
		}
	}
}

// Enter on a layer other than the drill-down's: its operators are
// compared off the loop and arrive as a message.
func TestDrillOtherLayerFetchesOps(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 160, 48, true)
	press(m, "3", "k")
	c := press(m, "enter")
	if m.screen != screenDrill || !m.drill().waiting || !strings.Contains(screenText(m), "comparing the operators") {
		t.Fatalf("drill on layer 2 should wait for its ops:\n%s", screenText(m))
	}
	run(t, m, c)
	if m.drill().waiting || len(m.drill().ops) != 3 || m.drill().ops[0].Key != "Module.layers.2.input_layernorm.forward.0" {
		t.Fatalf("ops: %+v", m.drill().ops)
	}
	txt := screenText(m)
	if !regexp.MustCompile(`! L2 .*linear_qkv fwd\.0`).MatchString(txt) || !strings.Contains(txt, "1 flagged") {
		t.Fatalf("flagged op not marked:\n%s", txt)
	}
	m.Update(opsMsg{to: &drillPane{}, ops: nil}) // the reply to a pane since closed
	if len(m.drill().ops) != 3 {
		t.Fatal("a stale ops reply was applied")
	}
}

// In the help, j/k scroll as on every screen; letters filter only after /.
func TestHelpScrollsWithJK(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "3", "?")
	first := screenText(m)
	if !strings.Contains(first, "marks on this screen") || !strings.Contains(first, "F!") {
		t.Fatalf("Phase 3's marks are not above the fold:\n%s", first)
	}
	press(m, "j", "j")
	if m.helpOff != 2 || m.helpFilter != "" {
		t.Fatalf("j: scroll %d, filter %q", m.helpOff, m.helpFilter)
	}
	press(m, "k")
	if m.helpOff != 1 {
		t.Fatalf("k: scroll %d", m.helpOff)
	}
}

func TestHelpFilters(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "3", "?", "/", "p", "i", "n") // Phase 3: tab works there
	txt := screenText(m)
	if !strings.Contains(txt, "filter keys: pin") || !strings.Contains(txt, "unpin") || strings.Contains(txt, "next anchor") {
		t.Fatalf("help filter 'pin':\n%s", txt)
	}
	press(m, "esc")
	if !m.showHlp || m.helpFilter != "" || m.helpTyping {
		t.Fatal("esc should clear the filter first")
	}
	press(m, "esc")
	if m.showHlp {
		t.Fatal("second esc closes the help")
	}
}

// Phase 3 opens on Norm (the seed's main column) when Norm flags the
// earliest layer, even when the drill-down was decided on another metric.
func TestPhase3OpensOnNorm(t *testing.T) {
	d := fixture()
	d.P3.DivergenceSummary.Drilldown.Metric = "Min"
	p := newPhase3Pane(testCommon(d))
	if metricNames[p.metric] != "Norm" {
		t.Fatalf("opens on %s, want Norm", metricNames[p.metric])
	}
	// … and on the drill-down metric when Norm does not flag that layer.
	for ai := range d.P3.Anchors {
		for li := range d.P3.Anchors[ai].Layers {
			r := d.P3.Anchors[ai].Layers[li].Metrics["Norm"]
			r.FFlag = false
			d.P3.Anchors[ai].Layers[li].Metrics["Norm"] = r
		}
	}
	p = newPhase3Pane(testCommon(d))
	if metricNames[p.metric] != "Min" {
		t.Fatalf("opens on %s, want Min", metricNames[p.metric])
	}
}
