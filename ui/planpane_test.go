package ui

import (
	"github.com/charmbracelet/x/ansi"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/pipeline"
)

// `w` on Phase 2 shows the plan and writes its files into a new folder
// beside the reports; a second `w` makes another folder, never overwriting.
func TestPlanKeyShowsAndWritesThePlan(t *testing.T) {
	d := fixture()
	d.PlanText = "# Next-collection plan\n\n## What to run\n\n- dump: rerun the baseline device with config_baseline.json — step 3, ranks 1, 2, level L0\n"
	d.PlanFiles = []pipeline.PlanFile{{Name: "PLAN.md", Data: []byte(d.PlanText)}, {Name: "config_baseline.json", Data: []byte("{}\n")}}
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	if c := press(m, "1", "w"); c != nil {
		t.Fatalf("w on Phase 1 did something")
	}
	c := press(m, "2", "w")
	if m.screen != screenPlan || !strings.Contains(screenText(m), "config_baseline.json") {
		t.Fatalf("screen %d after w:\n%s", m.screen, screenText(m))
	}
	run(t, m, c)
	if !strings.HasPrefix(shown(m), "plan written to ") {
		t.Fatalf("status %q", shown(m))
	}
	first := strings.TrimPrefix(shown(m), "plan written to ")
	if filepath.Dir(first) != m.opt.ReportDir {
		t.Errorf("plan written to %s, want a folder in %s", first, m.opt.ReportDir)
	}
	if got, err := os.ReadFile(filepath.Join(first, "config_baseline.json")); err != nil || string(got) != "{}\n" {
		t.Errorf("config_baseline.json: %q %v", got, err)
	}
	press(m, "esc")
	if m.screen != screenPhase2 {
		t.Errorf("esc: screen %d, want Phase 2", m.screen)
	}
	run(t, m, press(m, "w"))
	if second := strings.TrimPrefix(shown(m), "plan written to "); second == first || second == shown(m) {
		t.Errorf("second plan %q, first %q: want a new folder", m.status, first)
	}
}

func TestPlanKeyWithNothingMissingWritesNothing(t *testing.T) {
	d := fixture()
	d.PlanText = "# Next-collection plan\n\nNothing is missing: the analysis had every input it needs. Nothing to rerun.\n"
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	if c := press(m, "3", "w"); c != nil {
		t.Errorf("a command to write although nothing is missing")
	}
	if m.screen != screenPlan || !strings.Contains(m.status, "nothing is missing") {
		t.Errorf("screen %d status %q", m.screen, m.status)
	}
	if entries, _ := os.ReadDir(m.opt.ReportDir); len(entries) != 0 {
		t.Errorf("files written: %v", entries)
	}
}

// Phase 3 that did not run points at the plan when there is one.
func TestPhase3NotRunPointsAtThePlan(t *testing.T) {
	d := fixture()
	d.P3, d.Missing = nil, []string{"dump statistics (Phase 3 not run)"}
	d.PlanFiles = []pipeline.PlanFile{{Name: "PLAN.md", Data: []byte("# plan\n")}}
	m := loaded(t, fixtureBackend(), d, 80, 24, true)
	press(m, "3")
	if !strings.Contains(screenText(m), "w shows the msprobe configs") {
		t.Errorf("Phase 3 screen does not mention the plan:\n%s", screenText(m))
	}
	if foot := ansi.Strip(m.footer()[1]); !strings.Contains(foot, "w plan") {
		t.Errorf("the footer does not list the key the screen names: %q", foot)
	}
	press(m, "w") // the key the screen names opens the plan
	if !strings.Contains(screenText(m), "# plan") && m.screen != screenPlan {
		t.Errorf("w from the hint did not open the plan:\n%s", screenText(m))
	}
}

// A plan item wrapped at a narrow width hangs its continuation lines
// under its text, so the items stay apart.
func TestPlanItemsHangWhenWrapped(t *testing.T) {
	d := fixture()
	d.PlanText = "What to run\n- monitor: train on the baseline device with monitor_config.json (weight gradients per micro batch)\n  - rank 2 is the control group: no Phase 1 candidate at optimizer step 5\n"
	p := newPlanPane(testCommon(d))
	p.SetSize(40, 30)
	lines := p.lines()
	if len(lines) < 5 || !strings.HasPrefix(lines[1], "- monitor") || !strings.HasPrefix(lines[2], "  ") || strings.HasPrefix(lines[2], "  -") {
		t.Fatalf("item lines:\n%s", strings.Join(lines, "\n"))
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "- ") {
			continue
		}
		if !strings.HasPrefix(l, "  ") {
			t.Fatalf("continuation %q not hanging in\n%s", l, strings.Join(lines, "\n"))
		}
	}
	for i, l := range lines[:len(lines)-1] {
		if strings.HasPrefix(l, "  - rank") && !strings.HasPrefix(lines[i+1], "    ") {
			t.Fatalf("nested item's continuation %q in\n%s", lines[i+1], strings.Join(lines, "\n"))
		}
	}
}
