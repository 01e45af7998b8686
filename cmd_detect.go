package main

import (
	"context"
	"fmt"
	"io"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// runDetect is Phase 1: candidate spike coordinates as JSON (method.md
// "Headless contract"). Flags may follow PATH.
func runDetect(args []string, stdout, stderr io.Writer) int {
	var out string
	fs := jsonFlagSet("detect", stderr, &out)
	def := analysis.DefaultPhase1Options()
	opt := def // the flags below set it
	format := fs.String("format", "auto", "input format: auto, trenddb, csv or dump")
	csvFlag := fs.Bool("csv", false, "PATH is a monitor CSV file or folder (same as --format csv)")
	dumpFlag := fs.Bool("dump", false, "PATH is a dump tree (same as --format dump; wins over --csv)")
	fs.IntVar(&opt.Window, "window", def.Window, "accumulation window: 0 = detect, 1 = no accumulation, N = N micro steps per optimizer step")
	fs.Float64Var(&opt.IQRMult, "iqr-mult", def.IQRMult, "IQR multiplier of the robust threshold")
	fs.Float64Var(&opt.MADMult, "mad-mult", def.MADMult, "MAD multiplier of the robust threshold")
	fs.Float64Var(&opt.MinEffect, "min-effect", def.MinEffect, "minimum effect: a candidate is at least this many times its baseline median")
	fs.StringVar(&opt.Metric, "metric", "", "metric to analyse: a name, or the reference ids 1 (grad_unreduced) / 2 (grad_reduced); default grad_unreduced")
	summary := fs.Bool("summary", false, fmt.Sprintf("keep only the first %d anomalies (anomaly_count stays the full count)", pipeline.DetectSummaryCap))
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: spikescope detect PATH [--format auto|trenddb|csv|dump] [--csv] [--dump] [--window N]\n"+
			"                        [--iqr-mult %g] [--mad-mult %g] [--min-effect %g] [--metric NAME] [-o FILE] [--summary]\n\n"+
			"Phase 1: the candidate spike coordinates of a trend.db, a monitor CSV tree or a dump tree, earliest first (JSON).\n", def.IQRMult, def.MADMult, def.MinEffect)
		fs.PrintDefaults()
	}
	paths, code, ok := parseArgs(fs, args, "", stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		return exitCode(usageError{"detect: want exactly one PATH (see spikescope detect -h)"}, stderr)
	}
	f := model.Format(*format)
	switch {
	case *dumpFlag:
		f = model.FormatDump
	case *csvFlag:
		f = model.FormatCSV
	}
	if err := checkFormat("detect", f, *format); err != nil {
		return exitCode(err, stderr)
	}
	if opt.Window < 0 || opt.Window > maxWindowFlag || !inFlagRange(opt.IQRMult) || !inFlagRange(opt.MADMult) || !inFlagRange(opt.MinEffect) {
		return exitCode(usageError{fmt.Sprintf("detect: --window must be 0 to %d and --iqr-mult, --mad-mult, --min-effect above 0 and at most %g", maxWindowFlag, maxMultFlag)}, stderr)
	}
	if err := outfile.RefuseInput(out, paths[0]); err != nil {
		return exitCode(err, stderr)
	}
	res, err := pipeline.Detect(context.Background(), paths[0], f, opt, *summary)
	if err != nil {
		return exitCode(err, stderr)
	}
	return exitCode(outfile.WriteJSON(res, out, stdout, stderr), stderr)
}
