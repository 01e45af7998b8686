package ui

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// fp16Data is a step-level fp16 run with shared loss-scale overflows at
// steps 2, 6, 10, 14 on both devices and, with spike, a device-specific
// kernel spike at step 9 on rank 4, analysed with the baseline.
func fp16Data(t *testing.T, spike bool) *Data {
	t.Helper()
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = 1, 16, true
	for _, k := range []int{2, 6, 10, 14} {
		c.Spikes = append(c.Spikes, synth.Spike{OptStep: k, Overflow: true, Shared: true,
			Names: []string{"output_layer.weight", "embedding.word_embeddings.weight"}})
	}
	if spike {
		c.Spikes = append(c.Spikes, synth.Spike{OptStep: 9, Ranks: []int{4}, Kernel: true, Layer: 1, Scale: 5})
	}
	r := synth.Generate(c)
	p1 := analysis.Phase1(r.Monitor(synth.Anomalous), analysis.DefaultPhase1Options())
	pb := analysis.Phase1(r.Monitor(synth.Baseline), analysis.DefaultPhase1Options())
	p2, err := phase2Said(analysis.Phase2(p1, pb, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		t.Fatal(err)
	}
	return &Data{P1: p1, P2: p2}
}

// The Phase 2 screen lists the events: the root's marked, the overflows
// shared, the spike device-specific, at 80 and 160 columns without
// overflowing the width.
func TestPhase2ScreenListsEvents(t *testing.T) {
	for _, w := range []int{80, 160} {
		p := newPhase2Pane(testCommon(fp16Data(t, true)))
		p.SetSize(w, 40)
		lines := p.lines()
		start := -1
		for i, l := range lines {
			lines[i] = ansi.Strip(l)
			if ansi.StringWidth(l) > w {
				t.Fatalf("width %d: line wider than the screen: %q", w, l)
			}
			if strings.HasPrefix(lines[i], "spike events (5 independent, earliest first)") {
				start = i
			}
		}
		if start < 0 {
			t.Fatalf("width %d: no events section:\n%s", w, strings.Join(lines, "\n"))
		}
		// one line per event, or two on a narrow screen (the coordinate below)
		per := 1
		if w < 120 {
			per = 2
		}
		var rows []string
		for i := 0; i < 5; i++ {
			rows = append(rows, strings.Join(lines[start+2+per*i:start+2+per*(i+1)], " "))
		}
		start += 5 * (per - 1)
		for i, row := range rows {
			root := strings.HasPrefix(row, "▶ ")
			switch i {
			case 2:
				if !root || !strings.Contains(row, "device-specific") || !strings.Contains(row, "rank 4") || !strings.Contains(row, " device ") || !strings.Contains(row, "    9 ") {
					t.Fatalf("width %d: spike row %q", w, row)
				}
			default:
				if root || !strings.Contains(row, "shared") || !strings.Contains(row, "numerics ∞") {
					t.Fatalf("width %d: overflow row %q", w, row)
				}
			}
		}
		if !strings.Contains(strings.Join(lines[start+7:start+10], " "), "2 event(s) before the root are on the baseline too") {
			t.Fatalf("width %d: no note on the skipped shared events:\n%s", w, strings.Join(lines[start:start+10], "\n"))
		}
	}
	if got := eventsSummary(fp16Data(t, true).P2); got != "spike events: 5 independent; the root is event 3 at optimizer step 9; 4 on the baseline too (shared)" {
		t.Fatalf("summary line %q", got)
	}
	// every event shared: the first is the root, and the screen says why
	p := newPhase2Pane(testCommon(fp16Data(t, false)))
	p.SetSize(160, 40)
	text := ansi.Strip(strings.Join(p.lines(), "\n"))
	if !strings.Contains(text, "▶ 1        2 numerics ∞") || !strings.Contains(text, "every event is on the baseline too (shared): the root is the earliest one") {
		t.Fatalf("all shared:\n%s", text)
	}
	if strings.Contains(text, "ms -1") || strings.Contains(text, "micro step -1") {
		t.Fatal("a sentinel micro step on the screen")
	}
}

// No events (a Phase 2 result without candidates): no events section.
func TestPhase2ScreenWithoutEvents(t *testing.T) {
	p := newPhase2Pane(testCommon(&Data{P2: &model.Phase2Result{Phase: 2}}))
	p.SetSize(80, 24)
	if strings.Contains(strings.Join(p.lines(), "\n"), "spike events") {
		t.Fatal("events section without events")
	}
}
