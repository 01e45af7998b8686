package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/outfile"
)

// detectSummaryCap is how many anomalies --summary keeps (reference: 50);
// summary.anomaly_count stays the full count.
const detectSummaryCap = 50

// runDetect is Phase 1: candidate spike coordinates as JSON (method.md
// "Headless contract"). Flags may follow PATH.
func runDetect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("detect", flag.ContinueOnError)
	fs.SetOutput(stderr)
	def := analysis.DefaultPhase1Options()
	format := fs.String("format", "auto", "input format: auto, trenddb, csv or dump")
	csvFlag := fs.Bool("csv", false, "PATH is a monitor CSV file or folder (same as --format csv)")
	dumpFlag := fs.Bool("dump", false, "PATH is a dump tree (same as --format dump; wins over --csv)")
	window := fs.Int("window", def.Window, "accumulation window: 0 = detect, 1 = no accumulation, N = N micro steps per optimizer step")
	iqr := fs.Float64("iqr-mult", def.IQRMult, "IQR multiplier of the robust threshold")
	mad := fs.Float64("mad-mult", def.MADMult, "MAD multiplier of the robust threshold")
	minEffect := fs.Float64("min-effect", def.MinEffect, "minimum effect: a candidate is at least this many times its baseline median")
	metric := fs.String("metric", "", "metric to analyse: a name, or the reference ids 1 (grad_unreduced) / 2 (grad_reduced); default grad_unreduced")
	out := fs.String("o", "", "write the JSON to FILE instead of stdout")
	fs.StringVar(out, "output", "", "same as -o")
	summary := fs.Bool("summary", false, fmt.Sprintf("keep only the first %d anomalies (anomaly_count stays the full count)", detectSummaryCap))
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: spikescope detect PATH [--format auto|trenddb|csv|dump] [--csv] [--dump] [--window N]\n"+
			"                        [--iqr-mult %g] [--mad-mult %g] [--min-effect %g] [--metric NAME] [-o FILE] [--summary]\n\n"+
			"Phase 1: the candidate spike coordinates of a trend.db, a monitor CSV tree or a dump tree, earliest first (JSON).\n", def.IQRMult, def.MADMult, def.MinEffect)
		fs.PrintDefaults()
	}
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
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
	if *window < 0 || *window > maxWindowFlag || !inFlagRange(*iqr) || !inFlagRange(*mad) || !inFlagRange(*minEffect) {
		return exitCode(usageError{fmt.Sprintf("detect: --window must be 0 to %d and --iqr-mult, --mad-mult, --min-effect above 0 and at most %g", maxWindowFlag, maxMultFlag)}, stderr)
	}
	opt := def
	opt.IQRMult, opt.MADMult, opt.MinEffect, opt.Window = *iqr, *mad, *minEffect, *window
	switch *metric {
	case "1":
		opt.Metric = "grad_unreduced"
	case "2":
		opt.Metric = "grad_reduced"
	default:
		opt.Metric = *metric
	}
	if err := outfile.RefuseInput(*out, paths[0]); err != nil {
		return exitCode(err, stderr)
	}
	d, err := ingest.LoadMonitor(context.Background(), paths[0], f, nil)
	if err != nil {
		return exitCode(err, stderr)
	}
	res := analysis.Phase1(d, opt)
	res.DBPath = paths[0]
	if opt.Metric != "" && res.Metric != opt.Metric {
		res.Warnings = append(res.Warnings, fmt.Sprintf("metric %q not found: analysed %q", opt.Metric, res.Metric))
	}
	if *summary && len(res.Anomalies) > detectSummaryCap {
		res.Anomalies = res.Anomalies[:detectSummaryCap]
	}
	return exitCode(outfile.WriteJSON(res, *out, stdout, stderr), stderr)
}
