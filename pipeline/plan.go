package pipeline

import (
	"spikescope/model"
	"spikescope/outfile"
	"spikescope/plan"
)

// PlanInput is what the next-collection plan is built from: this
// session's results and what it lacked. stepOffset is --step-offset (the
// training step of a re-based trend.db's step 0), nil when not given.
func (s *Session) PlanInput(stepOffset *int) plan.Input {
	in := plan.Input{
		P1: s.P1, P1Baseline: s.P1Baseline, P2: s.P2, P3: s.P3,
		ATree: s.ATree, BTree: s.BTree, CTree: s.CTree, DTree: s.DTree,
		A: s.A, B: s.B, C: s.C, D: s.D,
		DumpStepOffset: s.StepOffset, StepOffset: stepOffset, Missing: s.Missing,
		Window: s.In.P1.Window,
	}
	if s.Monitor != nil {
		in.MonitorFormat = s.Monitor.Format
		in.NoNorm = !s.Monitor.HasStat[model.StatNorm]
	} else if s.P1 != nil {
		in.MonitorFormat = s.P1.Format
	}
	return in
}

// Plan is the next-collection plan of this session.
func (s *Session) Plan(stepOffset *int) plan.Plan {
	return plan.Build(s.PlanInput(stepOffset))
}

// PlanFile is one file of the plan (PLAN.md or an msprobe config).
type PlanFile = plan.File

// PlanFiles are the files of the plan (none when nothing is missing) and
// PLAN.md's text, in Chinese when zh.
func (s *Session) PlanFiles(stepOffset *int, zh bool) ([]PlanFile, string, error) {
	p := s.Plan(stepOffset)
	files, err := plan.Files(p, zh)
	return files, plan.Markdown(p, zh), err
}

// WritePlanFiles writes the plan's files into dir (made when missing; an
// existing file is refused before anything is written) and returns the
// paths written.
func WritePlanFiles(dir string, files []PlanFile) ([]string, error) {
	named := make([]outfile.NamedData, len(files))
	for i, f := range files {
		named[i] = outfile.NamedData{Name: f.Name, Data: f.Data}
	}
	return outfile.WriteNewFiles(dir, "plan", named)
}
