package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// runDetect is Phase 1: candidate spike coordinates as JSON (method.md
// "Headless contract"). Flags may follow PATH.
func runDetect(args []string, stdout, stderr io.Writer) int {
	var out string
	fs := cliflags.JSONFlagSet("detect", stderr, &out)
	def := pipeline.DefaultPhase1Options()
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
	var follow cliflags.Follow
	follow.Register(fs, false)
	var mem cliflags.Mem
	mem.Register(fs)
	var lang cliflags.Lang
	lang.Register(fs, "English")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: spikescope detect PATH [--format auto|trenddb|csv|dump] [--csv] [--dump] [--window N]\n"+
			"                        [--iqr-mult %g] [--mad-mult %g] [--min-effect %g] [--metric NAME] [-o FILE] [--summary]\n"+
			"                        [--follow [--interval 2s]] [--mem-limit SIZE] [--lang en|zh]\n\n"+
			"Phase 1: the candidate spike coordinates of a trend.db, a monitor CSV tree or a dump tree, earliest first (JSON).\n"+
			"With --follow: one JSON line per new candidate, root-cause change or revision while the job writes, until interrupted.\n", def.IQRMult, def.MADMult, def.MinEffect)
		fs.PrintDefaults()
	}
	paths, code, ok := parseArgs(fs, args, "", stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		return exitCode(cliflags.CmdError("detect", "want exactly one PATH (see spikescope detect -h)"), stderr)
	}
	f := pipeline.Format(*format)
	switch {
	case *dumpFlag:
		f = pipeline.FormatDump
	case *csvFlag:
		f = pipeline.FormatCSV
	}
	if err := cliflags.CheckFormat("detect", f, *format); err != nil {
		return exitCode(err, stderr)
	}
	if opt.Window < 0 || opt.Window > cliflags.MaxWindow || !cliflags.InRange(opt.IQRMult) || !cliflags.InRange(opt.MADMult) || !cliflags.InRange(opt.MinEffect) {
		return exitCode(cliflags.CmdError("detect", fmt.Sprintf("--window must be 0 to %d and --iqr-mult, --mad-mult, --min-effect above 0 and at most %g", cliflags.MaxWindow, cliflags.MaxMult)), stderr)
	}
	if err := follow.Check("detect", fs); err != nil {
		return exitCode(err, stderr)
	}
	l, err := lang.Value("detect")
	if err != nil {
		return exitCode(err, stderr)
	}
	budget, err := mem.Budget("detect")
	if err != nil {
		return exitCode(err, stderr)
	}
	defer pipeline.LimitMemory(budget)()
	if follow.On {
		if out != "" || *summary {
			return exitCode(cliflags.CmdError("detect", "--follow writes JSON lines to standard output: -o and --summary do not apply"), stderr)
		}
		// JSON lines until SIGINT or SIGTERM, then the stop line and exit 0
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return detectFollowCtx(ctx, paths[0], f, pipeline.FollowOptions{Interval: follow.Interval, P1: opt, Mem: budget, Lang: pipeline.LangOf(l)}, stdout, stderr)
	}
	if err := outfile.RefuseInput(out, paths[0]); err != nil {
		return exitCode(err, stderr)
	}
	res, err := pipeline.Detect(noticeCtx(stderr), paths[0], f, opt, *summary, budget, pipeline.LangOf(l))
	if err != nil {
		return exitCode(err, stderr)
	}
	return exitCode(outfile.WriteJSON(res.AsWritten(), out, stdout, stderr), stderr)
}

// detectFollowCtx is detect --follow until ctx is done: JSON lines on
// stdout (pipeline.FollowLines).
func detectFollowCtx(ctx context.Context, path string, f pipeline.Format, opt pipeline.FollowOptions, stdout, stderr io.Writer) int {
	return exitCode(pipeline.FollowLines(ctx, path, f, opt, stdout), stderr)
}
