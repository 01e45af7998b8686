package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"spikescope/ingest"
	"spikescope/outfile"
	"spikescope/pipeline"
	"spikescope/plan"
	"spikescope/report"
)

const planUsage = `usage:
  spikescope plan [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
                  [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
                  [--layer-mapping FILE] [--step-offset N] [--lang en|zh] -o DIR

Runs the phases on the inputs (no PATH: the embedded demo run) and writes into
DIR the msprobe configs that collect what the analysis is missing
(config_anomalous.json, config_baseline.json, monitor_config.json) and
PLAN.md, which says what to run where and why. --step-offset N is the
training step of a trend.db's step 0 (msprobe data2db re-bases steps to 0).
Nothing is written when nothing is missing; an existing file is never
replaced.
`

// runPlan is `spikescope plan`.
func runPlan(args []string, stdout, stderr io.Writer) int {
	var f inputFlags
	var out, offset, lang string
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	fs.StringVar(&out, "o", "", "write the plan into folder `DIR`")
	fs.StringVar(&offset, "step-offset", "", "training step of the trend.db's step 0")
	fs.StringVar(&lang, "lang", "", "PLAN.md language: en or zh (default from LANG)")
	paths, err := parseInterspersed(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprint(stdout, planUsage)
		return 0
	}
	if err != nil {
		return exitCode(usageError{"plan: " + err.Error()}, stderr)
	}
	if out == "" {
		return exitCode(usageError{"plan: -o DIR is required (the folder to write the configs and PLAN.md into)"}, stderr)
	}
	stepOffset, err := optInt("plan", "--step-offset", offset)
	if err != nil {
		return exitCode(err, stderr)
	}
	inputs := append(paths, f.paths()...)
	for _, name := range []string{plan.PlanFile, plan.AnomalousConfig, plan.BaselineConfig, plan.MonitorFile} {
		if err := outfile.RefuseInput(filepath.Join(out, name), inputs...); err != nil {
			return exitCode(err, stderr)
		}
	}
	in, _, cleanup, err := f.inputs("plan", paths)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	s, err := pipeline.Load(context.Background(), in, nil)
	if err != nil {
		return exitCode(err, stderr)
	}
	p := s.Plan(stepOffset)
	if p.Nothing {
		fmt.Fprint(stdout, plan.Markdown(p, report.Lang(lang) == "zh"))
		fmt.Fprintln(stdout, "\nNo file written.")
		return 0
	}
	written, err := writePlan(out, p, report.Lang(lang) == "zh")
	for _, w := range written {
		fmt.Fprintln(stdout, "wrote", w)
	}
	return exitCode(err, stderr)
}

// writePlan writes PLAN.md and the configs of p into dir (made when
// missing). An existing file there is refused before anything is written.
func writePlan(dir string, p plan.Plan, zh bool) ([]string, error) {
	files, err := plan.Files(p, zh)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if _, err := os.Lstat(path); err == nil {
			return nil, &ingest.InputError{Path: path, Problem: "already exists; spikescope plan never replaces a file: choose another -o folder or move it away"}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, &ingest.InputError{Path: dir, Problem: "cannot make the folder: " + outfile.RootCause(err), Err: err}
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(dir, f.Name)
		if err := outfile.Write(path, "plan", f.Data); err != nil {
			return written, err
		}
		written = append(written, path)
	}
	return written, nil
}
