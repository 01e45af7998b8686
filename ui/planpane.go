package ui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"spikescope/outfile"
	"spikescope/pipeline"
)

// planPane shows the next-collection plan (PLAN.md): what to rerun on
// which device and why. `w` on the Phase 2/3 screens opens it and writes
// the plan beside the reports.
type planPane struct{ textPage }

func newPlanPane(c common) *planPane {
	p := &planPane{textPage{common: c}}
	p.text = p.lines
	return p
}

func (p *planPane) lines() []string {
	if p.data == nil || p.data.PlanText == "" {
		return []string{"no plan: the analysis has not run"}
	}
	var out []string
	for _, l := range strings.Split(strings.TrimRight(p.data.PlanText, "\n"), "\n") {
		if strings.HasPrefix(l, "#") {
			out = append(out, p.st.Title.Render(strings.TrimLeft(l, "# ")))
			continue
		}
		if l == "" {
			out = append(out, "")
			continue
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " "))]
		// a list item's continuation lines hang under its text, not its "- "
		hang := indent
		if body := strings.TrimLeft(l, " "); strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "* ") {
			hang += "  "
		}
		for i, w := range wrap(strings.TrimLeft(l, " "), p.width-len(hang)) {
			if i == 0 {
				out = append(out, indent+w)
			} else {
				out = append(out, hang+w)
			}
		}
	}
	return out
}

func (p *planPane) Crumb() string { return "next-collection plan" }

// planMsg answers writePlan: the folder written, or why not.
type planMsg struct {
	id   int
	path string
	err  error
}

// showPlan opens the plan and writes it off the loop.
func (m *Model) showPlan() tea.Cmd {
	m.open(screenPlan, newPlanPane(m.common()))
	m.layout()
	if m.data == nil || len(m.data.PlanFiles) == 0 {
		m.status = "nothing is missing: no plan to write"
		return nil
	}
	id := m.newID()
	m.planID = id
	m.pending = "writing the plan…"
	files := m.data.PlanFiles
	dir, title, inputs, now := m.opt.ReportDir, m.opt.Title, m.opt.Inputs, time.Now()
	return safe(func() tea.Msg {
		path, err := writePlanFolder(files, dir, title, inputs, now)
		return planMsg{id: id, path: path, err: err}
	})
}

// writePlanFolder writes the plan's files into a new folder
// <run>-<time>-plan beside the reports (never into an input folder, never
// into an earlier plan's folder). It runs in a tea.Cmd.
func writePlanFolder(files []pipeline.PlanFile, dir, title string, inputs []Input, now time.Time) (string, error) {
	dir, err := reportFolder(dir, inputs)
	if err != nil {
		return "", err
	}
	for n := 1; n <= 1000; n++ {
		folder := filepath.Join(dir, reportFileName(title, now, n, "-plan"))
		err := os.Mkdir(folder, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", &reportFileError{folder, err}
		}
		for _, f := range files {
			if err := outfile.CreateNew(filepath.Join(folder, f.Name), f.Data); err != nil {
				return folder, &reportFileError{filepath.Join(folder, f.Name), err}
			}
		}
		return folder, nil
	}
	return "", fmt.Errorf("%s: too many plans with the same name", dir)
}
