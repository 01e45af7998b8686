package ui

import (
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/spill"
)

// spillFixtureStats moves the fixture monitor's min, max and mean into a
// spill file mapped back, as ingest does for a large load.
func spillFixtureStats(t *testing.T, md *model.MonitorData) {
	t.Helper()
	f, err := spill.Create(t.TempDir())
	if err != nil {
		t.Skipf("no spill here: %v", err)
	}
	defer f.Close()
	var refs [model.NumStats]spill.Ref
	for s := model.StatMin; s < model.NumStats; s++ {
		if refs[s], err = f.Float32s(md.Rows.Stats[s]); err != nil {
			t.Fatal(err)
		}
	}
	m, err := f.Map()
	if err != nil {
		t.Fatal(err)
	}
	for s := model.StatMin; s < model.NumStats; s++ {
		md.Rows.Stats[s] = m.Float32s(refs[s])
		m.Release(refs[s])
	}
	md.Rows.Mapped = true
}

// TestSeriesScreenSpilledStats: the series screen draws Max, Min and Mean
// from spilled columns exactly as from the heap.
func TestSeriesScreenSpilledStats(t *testing.T) {
	heap := scenario{name: "series", backend: fixtureBackend, ready: "earliest first"}
	spilled := scenario{name: "series", ready: "earliest first", backend: func() *fakeBackend {
		d := fixture()
		spillFixtureStats(t, d.Monitor)
		return &fakeBackend{data: d}
	}}
	for k, name := range []string{"Max", "Min", "Mean"} {
		steps := keys("enter")
		for range k + 1 {
			steps = append(steps, keys("m")...)
		}
		heap.steps, spilled.steps = steps, steps
		want := runScenario(t, heap, 160, 48, true).View().Content
		got := runScenario(t, spilled, 160, 48, true).View().Content
		if !strings.Contains(want, "metric: "+name) {
			t.Fatalf("the series screen does not show %s:\n%s", name, want)
		}
		if got != want {
			t.Errorf("%s drawn from spilled columns differs:\n%s\nwant:\n%s", name, got, want)
		}
	}
}
