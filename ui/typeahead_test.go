package ui

import (
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// Keys typed while loading run once the run is loaded, the filter text
// after / included; the footer counts them meanwhile; a key no screen uses
// is not kept.
func TestKeysTypedWhileLoadingRunAfter(t *testing.T) {
	m := New(Options{Backend: fixtureBackend(), NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	press(m, "x", "/", "a", "t", "t", "enter", "j")
	if !strings.Contains(m.status, "kept / a t t enter j") || !strings.Contains(screenText(m), "once the run is loaded") {
		t.Fatalf("footer while loading: %q", m.status)
	}
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	if m.p1().filter.text != "att" || len(m.p1().tbl.view) != 1 {
		t.Fatalf("after loading the filter is %q with %d rows", m.p1().filter.text, len(m.p1().tbl.view))
	}

	m = New(Options{Backend: fixtureBackend(), NoColor: true})
	press(m, "3", "enter")
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	if m.screen != screenDrill {
		t.Fatalf("3 enter typed while loading: screen %d, want the drill-down", m.screen)
	}

	m = New(Options{Backend: fixtureBackend(), NoColor: true})
	press(m, "3")
	m.Update(loadedMsg{id: m.loadID, err: errFixtureLoad})
	if m.screen != screenError || !strings.Contains(m.status, "dropped") {
		t.Fatalf("after a failed load: screen %d, footer %q", m.screen, m.status)
	}
}

// Below the minimum size the message fits the window.
func TestTooSmallFits(t *testing.T) {
	for _, sz := range [][2]int{{20, 5}, {39, 10}, {12, 3}, {80, 9}} {
		m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
		m.Update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		lines := strings.Split(m.View().Content, "\n")
		if len(lines) > sz[1] || !strings.Contains(strings.Join(lines, " "), "spikescope needs") {
			t.Fatalf("%v: %q", sz, lines)
		}
		for _, l := range lines {
			if ansi.StringWidth(l) > sz[0] {
				t.Fatalf("%v: line %q is wider than the window", sz, l)
			}
		}
	}
}

// The loading screen shows the reading speed and the time left once
// progress has run for a while.
func TestLoadingShowsRateAndTimeLeft(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	clock := time.Unix(1000, 0)
	m.loading().now = func() time.Time { return clock }
	in := "/data/run/trend.db"
	m.Update(progressMsg{id: m.loadID, ps: []model.Progress{{Input: in, Done: 100_000, Total: 1_100_000, Unit: "rows"}}})
	if strings.Contains(screenText(m), "/s") {
		t.Fatalf("a rate from one report:\n%s", screenText(m))
	}
	clock = clock.Add(2 * time.Second)
	m.Update(progressMsg{id: m.loadID, ps: []model.Progress{{Input: in, Done: 600_000, Total: 1_100_000, Unit: "rows"}}})
	if txt := screenText(m); !strings.Contains(txt, "250 k rows/s · 2 s left") {
		t.Fatalf("no rate and time left:\n%s", txt)
	}
	for d, want := range map[time.Duration]string{40 * time.Second: "40 s", 185 * time.Second: "3 min", 95 * time.Minute: "1 h 35 min"} {
		if got := fmtLeft(d); got != want {
			t.Errorf("fmtLeft(%v) = %q, want %q", d, got, want)
		}
	}
}

// An input read out of core shows its sort into order as a second bar,
// with its own rate: the bar does not sit full while the rows are sorted.
func TestLoadingShowsSortStage(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	clock := time.Unix(1000, 0)
	m.loading().now = func() time.Time { return clock }
	in := "/data/run/trend.db"
	send := func(pr model.Progress) {
		pr.Input = in
		m.Update(progressMsg{id: m.loadID, ps: []model.Progress{pr}})
	}
	send(model.Progress{Done: 0, Total: 1_000_000, Unit: "rows"})
	clock = clock.Add(10 * time.Second)
	send(model.Progress{Done: 1_000_000, Total: 1_000_000, Unit: "rows"})
	send(model.Progress{Done: 0, Total: 1_000_000, Unit: "rows", Stage: model.StageSorting})
	clock = clock.Add(time.Second)
	send(model.Progress{Done: 500_000, Total: 1_000_000, Unit: "rows", Stage: model.StageSorting})
	txt := screenText(m)
	if !strings.Contains(txt, "in order: 500,000 / 1,000,000 rows · 500 k rows/s · 1 s left") {
		t.Fatalf("the sort's progress is not shown at its own rate:\n%s", txt)
	}
	if strings.Contains(txt, "analysing") || !strings.Contains(txt, "larger than the memory budget") {
		t.Fatalf("analysis announced while sorting, or the sort not explained:\n%s", txt)
	}
}

// A 100M-row input's progress fits 80 columns with its rate and the time
// left; before the read, a database's rows are counted and the screen says so.
func TestLoadingLargeCountFits80(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}, NoColor: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	clock := time.Unix(1000, 0)
	m.loading().now = func() time.Time { return clock }
	in := "/data/run/trend.db"
	m.Update(progressMsg{id: m.loadID, ps: []model.Progress{{Input: in, Unit: "rows", Stage: model.StageCounting}}})
	if txt := screenText(m); !strings.Contains(txt, "counting the rows") {
		t.Fatalf("the count before the read is not shown:\n%s", txt)
	}
	for i, done := range []int64{0, 25_000_974} {
		clock = clock.Add(time.Duration(i) * 12 * time.Second)
		m.Update(progressMsg{id: m.loadID, ps: []model.Progress{{Input: in, Done: done, Total: 100_835_253, Unit: "rows"}}})
	}
	if txt := screenText(m); !strings.Contains(txt, "25 M / 100.8 M rows · 2 M rows/s · 36 s left") {
		t.Fatalf("the progress line is cut or wrong at 80 columns:\n%s", txt)
	}
}
