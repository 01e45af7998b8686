package main

import (
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

const planUsage = `usage:
  spikescope plan [PATH] [--baseline PATH] [--dump-a A --dump-b B --dump-c C --dump-d D]
                  [--step N --rank R] [--pin COORD] [--format auto|trenddb|csv|dump]
                  [--layer-mapping FILE] [--mem-limit SIZE] [--step-offset N] [--window N]
                  [--lang en|zh] -o DIR

Runs the phases on the inputs (no PATH: the embedded demo run) and writes into
DIR the msprobe configs that collect what the analysis is missing
(config_anomalous.json, config_baseline.json, monitor_config.json) and
PLAN.md, which says what to run where and why. --step-offset N is the
training step of a trend.db's step 0 (msprobe data2db re-bases steps to 0).
--window N is the micro batches per optimizer step (as detect's --window);
--window 1 says the step is the micro batch: no monitor rerun for it.
Nothing is written when nothing is missing; an existing file is never
replaced.
`

// runPlan is `spikescope plan`.
func runPlan(args []string, stdout, stderr io.Writer) int {
	var f inputFlags
	var out, offset string
	var lang cliflags.Lang
	var window int
	fs := flag.NewFlagSet("plan", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f.register(fs)
	fs.StringVar(&out, "o", "", "write the plan into folder `DIR`")
	fs.StringVar(&offset, "step-offset", "", "training step of the trend.db's step 0")
	lang.Register(fs, "from LANG, zh_* → zh, else en")
	fs.IntVar(&window, "window", 0, "micro batches per optimizer step: 0 = detect, 1 = one (no monitor rerun for the micro step)")
	paths, code, ok := parseArgs(fs, args, planUsage, stdout, stderr)
	if !ok {
		return code
	}
	if out == "" {
		return exitCode(cliflags.CmdError("plan", "-o DIR is required (the folder to write the configs and PLAN.md into)"), stderr)
	}
	stepOffset, err := cliflags.OptInt("plan", "--step-offset", offset, 0)
	if err != nil {
		return exitCode(err, stderr)
	}
	l, err := lang.Value("plan")
	if err != nil {
		return exitCode(err, stderr)
	}
	inputs := append(paths, f.paths()...)
	for _, name := range pipeline.PlanFileNames {
		if err := outfile.RefuseInput(filepath.Join(out, name), inputs...); err != nil {
			return exitCode(err, stderr)
		}
	}
	if window < 0 || window > cliflags.MaxWindow {
		return exitCode(cliflags.CmdError("plan", fmt.Sprintf("--window %d is out of range (0 … %d)", window, cliflags.MaxWindow)), stderr)
	}
	in, _, cleanup, err := f.inputs("plan", paths)
	if cleanup != nil {
		defer cleanup()
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	in.P1.Window = window
	s, err := pipeline.LoadWithin(noticeCtx(stderr), in)
	if err != nil {
		return exitCode(err, stderr)
	}
	files, md, err := s.PlanFiles(stepOffset, pipeline.ReportLang(l) == "zh")
	if err != nil {
		return exitCode(err, stderr)
	}
	if len(files) == 0 { // nothing is missing
		fmt.Fprint(stdout, md)
		fmt.Fprintln(stdout, "\nNo file written.")
		return 0
	}
	written, err := pipeline.WritePlanFiles(out, files)
	for _, w := range written {
		fmt.Fprintln(stdout, "wrote", w)
	}
	return exitCode(err, stderr)
}
