package report

import (
	"strings"
	"testing"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/testdata/synth"
)

// eventsInput runs Phase 1 and 2 on a synthetic fp16 run: shared loss-scale
// overflows on both devices at steps 2, 6, 10, 14 and a device-specific
// kernel spike at step 9 on rank 4 (step-level data).
func eventsInput(t *testing.T, spike bool) Input {
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
	return Input{P1: p1, P1Baseline: pb, P2: p2, BaselinePath: "/runs/gpu"}
}

// eventRows returns the rows of Table 3 (the events table).
func eventRows(t *testing.T, doc, title string) [][]string {
	t.Helper()
	i := strings.Index(doc, title)
	if i < 0 {
		t.Fatalf("no events table (%q) in\n%s", title, doc)
	}
	var rows [][]string
	for _, l := range strings.Split(doc[i:], "\n")[1:] {
		if strings.HasPrefix(l, "|") {
			cells := splitRow(l)
			for j := range cells {
				cells[j] = strings.TrimSpace(cells[j])
			}
			rows = append(rows, cells)
		} else if len(rows) > 0 {
			break
		}
	}
	if len(rows) < 2 {
		t.Fatalf("events table has no rows")
	}
	return rows[2:] // header and separator
}

// The report lists every event in Table 3, labels the overflows shared
// and the spike device-specific, marks the root, and says in the
// conclusion that the earlier shared events are not the root — in English
// and Chinese.
func TestReportListsSpikeEvents(t *testing.T) {
	in := eventsInput(t, true)
	for _, lang := range []string{"en", "zh"} {
		doc := Render(in, lang)
		title, shared, specific, root := "Table 3 — Independent spike events", "shared", "device-specific", "← root cause"
		concl := "2 earlier event(s) are on the baseline too (shared, e.g. fp16 loss-scale overflows)"
		if lang == "zh" {
			title, shared, specific, root = "表 3 — 独立尖刺事件", "双端共有", "设备特异性", "← 根因"
			concl = "2 个更早的事件双端共有"
		}
		rows := eventRows(t, doc, title)
		if len(rows) != 5 {
			t.Fatalf("%s: %d event rows, want 5:\n%v", lang, len(rows), rows)
		}
		for _, row := range rows {
			last := row[len(row)-1]
			isRoot := strings.Contains(row[0], root)
			switch row[1] {
			case "9":
				if last != specific || !isRoot || !strings.Contains(row[2], "rank 4") {
					t.Fatalf("%s: spike row %v", lang, row)
				}
			default:
				if last != shared || isRoot || !strings.Contains(row[3], "NaN/Inf") {
					t.Fatalf("%s: overflow row %v", lang, row)
				}
			}
		}
		if !strings.Contains(doc, concl) {
			t.Fatalf("%s: conclusion does not say the shared events are skipped:\n%s", lang, doc)
		}
	}
	// without the spike: every event shared, the root the earliest, and the
	// conclusion says so
	in = eventsInput(t, false)
	doc := Render(in, "en")
	rows := eventRows(t, doc, "Table 3 — Independent spike events")
	if len(rows) != 4 || !strings.Contains(rows[0][0], "← root cause") || rows[0][1] != "2" {
		t.Fatalf("all-shared rows %v", rows)
	}
	if !strings.Contains(doc, "Every event is on the baseline too (shared): the root is the earliest one") {
		t.Fatalf("all-shared conclusion missing:\n%s", doc)
	}
	if strings.Contains(doc, "!p2") || strings.Contains(doc, "micro step -1") || strings.Contains(doc, "ms -1") {
		t.Fatalf("internal words in the report")
	}
}

// A report without events (a hand-made or older Phase 2 result) has no
// Table 3.
func TestReportWithoutEvents(t *testing.T) {
	in := Input{P2: &model.Phase2Result{Phase: 2, RootCauseCoordinate: &model.Coordinate{Rank: 1, TargetName: "w"}}}
	if doc := Render(in, "en"); strings.Contains(doc, "Table 3 — Independent") {
		t.Fatal("events table without events")
	}
}

// Two independent spikes on step-level data: the earlier kernel spike is
// the root, and the conclusion says that the later, larger data spike is
// listed but not the root.
func TestReportTwoIndependentSpikes(t *testing.T) {
	c := synth.DefaultConfig()
	c.Window, c.OptSteps, c.NoFault = 1, 16, true
	c.Spikes = []synth.Spike{{OptStep: 5, Ranks: []int{2}, Kernel: true, Layer: 3, Scale: 4},
		{OptStep: 11, Ranks: []int{6}, All: true, Scale: 30}}
	p1 := analysis.Phase1(synth.Generate(c).Monitor(synth.Anomalous), analysis.DefaultPhase1Options())
	p2, err := phase2Said(analysis.Phase2(p1, nil, nil, analysis.DefaultPhase2Options()))
	if err != nil {
		t.Fatal(err)
	}
	for lang, want := range map[string][]string{
		"en": {"The later event(s) 2 deviate more, but the earliest anomaly is the root cause.", "few parameters of one rank", "most parameters of few ranks", "| undetermined (likely device) |", "| undetermined (likely data) |"},
		"zh": {"更晚的事件 2 偏离更大", "单 rank 少数参数", "少数 rank 的大部分参数", "| 待定（可能是设备） |"},
	} {
		doc := Render(Input{P1: p1, P2: p2}, lang)
		for _, w := range want {
			if !strings.Contains(doc, w) {
				t.Fatalf("%s: %q missing in\n%s", lang, w, doc)
			}
		}
		title := map[string]string{"en": "Table 3 — Independent spike events", "zh": "表 3 — 独立尖刺事件"}[lang]
		rows := eventRows(t, doc, title)
		if len(rows) != 2 || rows[0][1] != "5" || !strings.Contains(rows[0][0], "←") || rows[1][1] != "11" || strings.Contains(rows[1][0], "←") {
			t.Fatalf("%s: rows %v", lang, rows)
		}
	}
}
