package ui

import (
	"math"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// A rank that lacks a step (a dump tree: rank 5 dumped only at step 5)
// keeps its value under its own step in the heat map, not under the first
// step of the selected rank.
func TestHeatmapAlignsRanksByStep(t *testing.T) {
	md := &model.MonitorData{Format: model.FormatDump, Targets: []model.Target{{Name: "w"}}, Metrics: []string{"grad_norm"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	md.Rows.Append(3, 4, model.NoMicro, 0, 0, [model.NumStats]float64{1, 0, 0, 0})
	md.Rows.Append(3, 5, model.NoMicro, 0, 0, [model.NumStats]float64{10, 0, 0, 0})
	md.Rows.Append(5, 5, model.NoMicro, 0, 0, [model.NumStats]float64{2, 0, 0, 0})
	a := model.Anomaly{Rank: 3, Step: 5, TargetName: "w", Metric: "grad_norm", Norm: 10}
	d := &Data{Monitor: md}
	d.series = buildSeriesIndex(md, []model.Anomaly{a})
	s := newSeriesPane(testCommon(d), &a)
	s.SetSize(40, 20)
	sel, spike := d.series.statCurve(&a, 3, model.StatNorm)
	rows := s.heatmap(d.series, sel, spike, 2, s.axisFor(d.series, sel))
	if len(rows) < 3 {
		t.Fatalf("heat map rows: %q", rows)
	}
	r3, r5 := []rune(rows[0]), []rune(rows[1])
	label := 4 // "▸r3 " / "r5  "
	half := (len(r3) - label) / 2
	if r5[label] != ' ' || r5[label+half] == ' ' {
		t.Fatalf("rank 5's step-5 value drawn under step 4:\n%s\n%s", rows[0], rows[1])
	}
	if mark := strings.IndexRune(rows[2], '▲'); ansi.StringWidth(rows[2][:mark]) < label+half {
		t.Fatalf("spike mark left of step 5's column: %q", rows[2])
	}
}

// At 80 columns with many anchors the metric name and the active anchor
// tab stay on the Phase 3 head line.
func TestTabWindowKeepsActiveTab(t *testing.T) {
	tabs := []string{" input_layernorm ", " self_attention ", " mlp ", " pre_mlp_layernorm ", " (layer) "}
	got := tabWindow(tabs, 4, 40)
	if !strings.Contains(got, "(layer)") || !strings.HasPrefix(got, "… ") || ansi.StringWidth(got) > 40 {
		t.Fatalf("tabWindow(active 4, 40) = %q", got)
	}
	got = tabWindow(tabs, 0, 40)
	if !strings.HasPrefix(got, " input_layernorm ") || !strings.HasSuffix(got, " …") || ansi.StringWidth(got) > 40 {
		t.Fatalf("tabWindow(active 0, 40) = %q", got)
	}
	if got := tabWindow(tabs, 2, 200); strings.Contains(got, "…") {
		t.Fatalf("all tabs fit, none left out: %q", got)
	}
}

// Parameter names are shortened by cell width: CJK characters take two.
func TestShortParamCountsCells(t *testing.T) {
	got := shortParam("层.累积窗口.weight", 10)
	if w := ansi.StringWidth(got); w > 10 || !strings.HasPrefix(got, "…") || !strings.HasSuffix(got, ".weight") {
		t.Fatalf("shortParam = %q (width %d)", got, w)
	}
}

// Step-level runs show one "step" column (no micro-step column), and
// triggers too long for the narrow column get their short names.
func TestPhase1StepLevelColumnsAndShortTriggers(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	head := ""
	for _, l := range strings.Split(screenText(m), "\n") {
		if strings.Contains(l, "parameter") && strings.Contains(l, "rank") && strings.Contains(l, "norm") {
			head = l
			break
		}
	}
	if !strings.Contains(head, "step rank") || strings.Contains(head, " ms ") || strings.Contains(head, "opt") {
		t.Fatalf("step-level header: %q", head)
	}
	// every trigger the analysis writes has words that fit both widths
	for _, tr := range []string{"iqr+mad", "iqr", "mad", "micro_step_delta", "nonfinite", "dump_abs_norm"} {
		for _, w := range []int{8, 16} {
			got := triggerText(tr, w)
			if got == tr || ansi.StringWidth(got) > w {
				t.Errorf("triggerText(%q, %d) = %q", tr, w, got)
			}
		}
		if strings.Contains(triggerWhy(tr), tr) {
			t.Errorf("triggerWhy(%q) = %q", tr, triggerWhy(tr))
		}
	}
	if got := triggerText("micro_step_delta", 16); got != "micro-step jump" {
		t.Fatalf("triggerText wide = %q", got)
	}
}

// The empty cross-step table says why: no candidate, or see the reasoning
// (never "step-level data", which does have pairs).
func TestNoCrossStepReason(t *testing.T) {
	if got := noCrossStepReason(&model.Phase2Result{}); !strings.Contains(got, "no candidate") {
		t.Fatalf("no candidates: %q", got)
	}
	r := &model.Phase2Result{Candidates: []model.CandidateVerdict{{}}}
	if got := noCrossStepReason(r); !strings.Contains(got, "reasoning") {
		t.Fatalf("with candidates: %q", got)
	}
}

// A pinned Phase 2 skipped the cross-step rule: the empty table says so
// instead of claiming there was no candidate.
func TestNoCrossStepReasonPinned(t *testing.T) {
	if got := noCrossStepReason(&model.Phase2Result{Pinned: true}); !strings.Contains(got, "pinned by you") {
		t.Fatalf("pinned: %q", got)
	}
}

// A long source path gives way to the pin in the header at 80 columns:
// the pinned parameter's name stays whole.
func TestHeaderKeepsPinWhole(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	m.opt.Title = "/very/long/path/to/a/cluster/run/with/many/folders/monitor/trend.db"
	m.data.Pin, _ = model.ParseCoord("opt=5,ms=2,rank=3,param=layers.2.mlp.linear_fc2.weight")
	first := strings.Split(screenText(m), "\n")[0]
	if !strings.HasSuffix(strings.TrimRight(first, " "), "PIN "+m.data.Pin.Label()) || ansi.StringWidth(first) > 80 {
		t.Fatalf("header: %q", first)
	}
}

// Without B, Phase 3 cannot run whatever C is: `3` shows what to collect
// instead of the C chooser, and the footer offers only keys that work
// there (c still opens the chooser).
func TestPhase3WithoutBSaysWhatIsMissing(t *testing.T) {
	d := fixture()
	d.P3, d.A, d.B = nil, &model.Dump{}, nil
	d.Missing = []string{"baseline dump B (Phase 3 not run) — dump step 10 on rank 2 on the baseline device (--dump-b)"}
	if len(d.Controls) == 0 {
		t.Fatal("fixture needs control options")
	}
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	press(m, "3")
	txt := screenText(m)
	if m.screen != screenPhase3 || !strings.Contains(txt, "--dump-b") {
		t.Fatalf("screen %d:\n%s", m.screen, txt)
	}
	lines := strings.Split(strings.TrimRight(txt, "\n"), "\n")
	if foot := lines[len(lines)-1]; !strings.Contains(foot, "c choose C") || strings.Contains(foot, "next anchor") {
		t.Fatalf("footer: %q", foot)
	}
	press(m, "c")
	if m.screen != screenChooser || !strings.Contains(screenText(m), "enter use this C") {
		t.Fatalf("c does not open the chooser: screen %d", m.screen)
	}
}

// Every note (missing data, Phase 1 warnings) is readable in full on the
// Phase 2 screen; Phase 1 and the status line show only the first, cut.
func TestPhase2ListsEveryNoteInFull(t *testing.T) {
	d := fixture()
	long := "baseline device's monitor data (Phase 2) — monitor (or dump) the baseline device on the same run and steps, and pass it with --baseline; until then Phase 2 is single-device"
	d.Missing = []string{long}
	d.P1.Warnings = []string{"grad_reduced rows never join in: the window comes from grad_unreduced alone"}
	m := loaded(t, fixtureBackend(), d, 80, 40, true)
	if !strings.Contains(screenText(m), "⚠ 2 notes on screen 2") {
		t.Fatalf("phase 1 note line:\n%s", screenText(m))
	}
	press(m, "2", "G")
	txt := strings.Join(strings.Fields(screenText(m)), " ")
	if !strings.Contains(txt, "notes (2)") || !strings.Contains(txt, "until then Phase 2 is single-device") ||
		!strings.Contains(txt, "from grad_unreduced alone") {
		t.Fatalf("phase 2 notes:\n%s", screenText(m))
	}
}

// With a baseline run, a candidate the baseline has no spike for reads
// "no spike", not "-" (which would look like missing data).
func TestBaselineCellNoSpike(t *testing.T) {
	if got := baselineCell(model.CandidateVerdict{Verdict: "device-specific"}); got != "no spike" {
		t.Fatalf("device-specific without baseline value: %q", got)
	}
	if got := baselineCell(model.CandidateVerdict{Verdict: "no baseline"}); got != "-" {
		t.Fatalf("no baseline: %q", got)
	}
	v := model.Float(0.5)
	if got := baselineCell(model.CandidateVerdict{Verdict: "shared", BaselineValue: &v}); got != "0.5" {
		t.Fatalf("shared: %q", got)
	}
}

// A root-cause coordinate wider than the screen (a dump's module name) is
// shown whole on lines of its own, not cut.
func TestPhase2LongCoordinateWraps(t *testing.T) {
	d := fixture()
	name := "Module.module.module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.weight"
	d.P2.RootCauseCoordinate.TargetName = name
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	press(m, "2")
	txt := strings.ReplaceAll(screenText(m), "\n", "")
	if !strings.Contains(txt, "param="+name) {
		t.Fatalf("coordinate cut:\n%s", screenText(m))
	}
}

// A NaN gradient (the root cause of a NaN fault) is drawn as × in the heat
// map, not left blank like a step with no data.
func TestHeatmapMarksNaN(t *testing.T) {
	md := &model.MonitorData{Format: model.FormatTrendDB, Targets: []model.Target{{Name: "w"}}, Metrics: []string{"grad_unreduced"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	for s := int32(0); s < 4; s++ {
		v := 1.0
		if s == 2 {
			v = math.NaN()
		}
		md.Rows.Append(0, s, model.NoMicro, 0, 0, [model.NumStats]float64{v, 0, 0, 0})
	}
	a := model.Anomaly{Rank: 0, Step: 2, TargetName: "w", Metric: "grad_unreduced", Norm: model.Float(math.NaN())}
	d := &Data{Monitor: md}
	d.series = buildSeriesIndex(md, []model.Anomaly{a})
	s := newSeriesPane(testCommon(d), &a)
	s.SetSize(24, 20)
	sel, spike := d.series.statCurve(&a, 0, model.StatNorm)
	rows := s.heatmap(d.series, sel, spike, 1, s.axisFor(d.series, sel))
	if len(rows) < 3 || !strings.Contains(rows[0], "×") || !strings.Contains(rows[len(rows)-1], "× NaN") {
		t.Fatalf("NaN not marked: %q", rows)
	}
	if x, m := strings.Index(rows[0], "×"), strings.Index(rows[1], "▲"); ansi.StringWidth(rows[0][:x]) > ansi.StringWidth(rows[1][:m]) {
		t.Fatalf("× right of the spike mark: %q", rows)
	}
}

// At 80 columns the footer is too narrow for every key of Phase 1: it
// starts with ? and q (what finds the rest), and the lines above the table
// say their parts whole instead of ending in a cut word.
func TestPhase1At80KeepsHelpKeyAndWholeLines(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	lines := strings.Split(strings.TrimRight(screenText(m), "\n"), "\n")
	foot := lines[len(lines)-1]
	if !strings.HasPrefix(strings.TrimSpace(foot), "? help • q quit") {
		t.Fatalf("footer %q", foot)
	}
	for _, l := range lines[:5] {
		if strings.HasSuffix(strings.TrimSpace(l), "…") {
			t.Fatalf("cut line %q in\n%s", l, strings.Join(lines, "\n"))
		}
	}
	if got := helpFirst(m.keyHelp().short, 1000); got[0].Help().Key == "?" {
		t.Fatalf("? moved to the front of a line that fits")
	}
}

// What the run lacks fits the status line: in full when it can, else what
// is missing alone (never cut in the middle of what to do about it).
func TestMissingLineFits(t *testing.T) {
	missing := []string{"baseline device's monitor data (Phase 2) — monitor (or dump) the baseline device on the same run and steps, and pass it with --baseline",
		"dump statistics (Phase 3 not run) — dump A at step 5 on rank 2"}
	got := missingLine(missing, 80)
	if ansi.StringWidth(got) > 80 || !strings.Contains(got, "baseline device's monitor data (Phase 2)") || strings.Contains(got, "--baseline") {
		t.Fatalf("at 80: %q", got)
	}
	if got := missingLine(missing, 400); !strings.Contains(got, "--baseline") {
		t.Fatalf("wide: %q", got)
	}
	// heads too long together: whole ones and a count
	missing[1] = "control group C/D: A's dump tree holds no other rank of step 5 — dump one"
	if got := missingLine(missing, 80); got != "missing: baseline device's monitor data (Phase 2) and 1 more (screen 2)" {
		t.Fatalf("at 80, long heads: %q", got)
	}
}

// A footer too narrow for its keys shows whole keys and then "…", never a
// key cut inside ("3 phase …").
func TestFooterCutsBetweenKeys(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	for _, screen := range []string{"1", "2", "3"} {
		press(m, screen)
		lines := strings.Split(strings.TrimRight(screenText(m), "\n"), "\n")
		foot := strings.TrimSpace(lines[len(lines)-1])
		if ansi.StringWidth(foot) > 80 || !strings.HasSuffix(foot, " …") {
			t.Fatalf("screen %s: footer %q", screen, foot)
		}
		items := strings.Split(strings.TrimSuffix(foot, " …"), " • ")
		keys, _ := fitKeys(helpFirst(m.keyHelp().short, 80), 80)
		if len(items) != len(keys) {
			t.Fatalf("screen %s: footer %q shows %d keys, want %d whole", screen, foot, len(items), len(keys))
		}
		for i, it := range items {
			if h := keys[i].Help(); it != h.Key+" "+h.Desc {
				t.Fatalf("screen %s: %q, want %q", screen, it, h.Key+" "+h.Desc)
			}
		}
	}
}

// A long input path gives way from its left and the program's name stays
// in the header while the path keeps room.
func TestHeaderKeepsProgramNameBeforePath(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	m.opt.Title = "/work/wt/ui-polish/testdata/demo/npu/monitor_output/a/long/path/trend.db"
	head := strings.Split(screenText(m), "\n")[0]
	if !strings.HasPrefix(head, "spikescope · …") || !strings.Contains(head, "trend.db") || ansi.StringWidth(head) > 80 {
		t.Fatalf("header %q", head)
	}
}

// An Inf value has no colour on the heat map's scale (nor a height on the
// chart): it is marked × like a NaN, and the scale note says so.
func TestHeatmapMarksInf(t *testing.T) {
	md := &model.MonitorData{Format: model.FormatDump, Targets: []model.Target{{Name: "w"}}, Metrics: []string{"grad_norm"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	for step := 0; step < 6; step++ {
		v := 1.0 + float64(step)/10
		if step == 4 {
			v = math.Inf(1)
		}
		md.Rows.Append(3, int32(step), model.NoMicro, 0, 0, [model.NumStats]float64{v, 0, 0, 0})
	}
	a := model.Anomaly{Rank: 3, Step: 4, TargetName: "w", Metric: "grad_norm", Norm: model.Float(math.Inf(1))}
	d := &Data{Monitor: md}
	d.series = buildSeriesIndex(md, []model.Anomaly{a})
	s := newSeriesPane(testCommon(d), &a)
	s.SetSize(40, 20)
	sel, spike := d.series.statCurve(&a, 3, model.StatNorm)
	rows := s.heatmap(d.series, sel, spike, 1, s.axisFor(d.series, sel))
	if !strings.Contains(rows[0], nanRune) || !strings.Contains(rows[len(rows)-1], nanRune+" NaN/Inf") {
		t.Fatalf("Inf not marked:\n%s", strings.Join(rows, "\n"))
	}
}
