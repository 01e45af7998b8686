package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

const inspectUsage = `usage: spikescope inspect PATH [--json] [--format auto|trenddb|csv|dump]
                         [--against DUMP [--layer-mapping FILE]] [--mem-limit SIZE] [--lang en|zh]

Loads PATH (a trend.db, a monitor CSV file or folder tree, or a dump tree) and
says what was read: format, ranks, steps, micro steps, parameters, metrics,
row counts, non-finite values and warnings. With --against, PATH is a dump and
inspect also says how many of its records align with DUMP's (the baseline
device's dump, another framework's too: --layer-mapping is msprobe's
layer-mapping YAML, else a built-in name map is used). --lang says the
warnings and notes in English (en, the default) or Chinese (zh). Flags may
follow PATH.
`

// runInspect implements `spikescope inspect`.
func runInspect(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("inspect", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print JSON")
	format := fs.String("format", "auto", "input format: auto, trenddb, csv or dump")
	against := fs.String("against", "", "a dump to align PATH's dump with")
	mapping := fs.String("layer-mapping", "", "msprobe layer-mapping YAML for --against")
	var mem cliflags.Mem
	mem.Register(fs)
	var lang cliflags.Lang
	lang.Register(fs, "English")
	paths, code, ok := parseArgs(fs, args, inspectUsage, stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) != 1 {
		return exitCode(cliflags.CmdError("inspect", fmt.Sprintf("want exactly one PATH, got %d (see spikescope inspect -h)", len(paths))), stderr)
	}
	f := pipeline.Format(*format)
	if err := cliflags.CheckFormat("inspect", f, *format); err != nil {
		return exitCode(err, stderr)
	}
	if *mapping != "" && *against == "" {
		return exitCode(cliflags.CmdError("inspect", "--layer-mapping goes with --against"), stderr)
	}
	budget, err := mem.Budget("inspect")
	if err != nil {
		return exitCode(err, stderr)
	}
	l, err := lang.Value("inspect")
	if err != nil {
		return exitCode(err, stderr)
	}
	defer pipeline.LimitMemory(budget)()
	rep, err := pipeline.Inspect(noticeCtx(stderr), paths[0], f, budget, pipeline.LangOf(l))
	if err != nil {
		return exitCode(err, stderr)
	}
	if *against != "" && rep.Dump == nil {
		return exitCode(cliflags.CmdError("inspect", fmt.Sprintf("--against needs a dump as PATH, %s is %s", paths[0], rep.Format)), stderr)
	}
	if err := rep.AlignAgainst(context.Background(), *against, *mapping); err != nil {
		return exitCode(err, stderr)
	}
	if *asJSON {
		return exitCode(outfile.WriteJSON(rep, "", stdout, stderr), stderr)
	}
	_, err = io.WriteString(stdout, pipeline.InspectText(rep))
	return exitCode(err, stderr)
}
