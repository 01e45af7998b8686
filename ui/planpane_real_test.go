package ui

import (
	"context"
	"os"
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/pipeline"
)

// `w` shows the plan `spikescope plan` writes: on the real L0 dumps of
// testdata/msprobe-real/plan, the TUI's plan text is that run's PLAN.md,
// and the pane shows its lines.
func TestPlanPaneShowsThePlanThatPlanWrites(t *testing.T) {
	const dir = "../testdata/msprobe-real/plan"
	want, err := os.ReadFile(dir + "/mix/PLAN.md")
	if err != nil {
		t.Fatal(err)
	}
	b := &PipelineBackend{Lang: "en", In: pipeline.Inputs{DumpA: dir + "/l0/npu", DumpB: dir + "/l0/gpu",
		StepA: model.IntPtr(1), RankA: model.IntPtr(0)}}
	d, err := b.Load(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.PlanText != string(want) {
		t.Fatalf("the TUI's plan differs from PLAN.md of `spikescope plan` on the same inputs:\n%s\n---\n%s", d.PlanText, want)
	}
	m := loaded(t, fixtureBackend(), d, 100, 40, true)
	press(m, "2", "w")
	if m.screen != screenPlan || !strings.Contains(screenText(m), "What to run") {
		t.Errorf("w: screen %d:\n%s", m.screen, screenText(m))
	}
}
