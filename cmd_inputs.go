package main

import (
	"cmp"
	"flag"
	"strconv"

	"spikescope/cliflags"
	"spikescope/pipeline"
)

// inputFlags are the input flags of the TUI and `report`: one definition, so
// that both faces read the same inputs the same way.
type inputFlags struct {
	in                 pipeline.Inputs
	format, step, rank string
	pin                string // --pin as typed: inputs parses it, once
	mem                cliflags.Mem
}

// register defines the flags on fs.
func (f *inputFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.in.Baseline, "baseline", "", "baseline device's monitor or dump path")
	fs.StringVar(&f.in.DumpA, "dump-a", "", "dump of the anomalous coordinate (A)")
	fs.StringVar(&f.in.DumpB, "dump-b", "", "A's baseline dump (B)")
	fs.StringVar(&f.in.DumpC, "dump-c", "", "nearby normal dump (C)")
	fs.StringVar(&f.in.DumpD, "dump-d", "", "C's baseline dump (D)")
	fs.StringVar(&f.step, "step", "", "step of A inside its dump tree")
	fs.StringVar(&f.rank, "rank", "", "rank of A inside its dump tree")
	fs.StringVar(&f.pin, "pin", "", "pin the root-cause coordinate, e.g. opt=3,ms=2,rank=5,param=NAME")
	fs.StringVar(&f.in.LayerMapping, "layer-mapping", "", "msprobe layer-mapping YAML `FILE` for dumps of two frameworks")
	fs.StringVar(&f.format, "format", "auto", "format of PATH: auto, trenddb, csv or dump")
	f.mem.Register(fs)
}

// paths lists every input path given, for the -o check.
func (f *inputFlags) paths() []string {
	return []string{f.in.Baseline, f.in.DumpA, f.in.DumpB, f.in.DumpC, f.in.DumpD, f.in.LayerMapping}
}

// inputs checks the flags and maps them with at most one PATH to the
// pipeline's inputs; errors are usage errors of cmd ("" for the TUI). No PATH
// and no --dump-a is the embedded demo run: title is "demo run" and cleanup
// removes its copy. The phase options stay zero: the pipeline fills in the
// method's defaults.
func (f *inputFlags) inputs(cmd string, paths []string) (in pipeline.Inputs, title string, cleanup func(), err error) {
	in = f.in
	if len(paths) > 1 {
		msg := "one PATH at most (got " + strconv.Itoa(len(paths)) + ")"
		if cmd == "" { // a mistyped subcommand lands here
			msg += "; subcommands: inspect, detect, select, trace, report, plan"
		}
		return in, "", nil, cliflags.CmdError(cmd, msg)
	}
	var errStep, errRank error
	in.StepA, errStep = cliflags.OptInt(cmd, "--step", f.step, 0)
	in.RankA, errRank = cliflags.OptInt(cmd, "--rank", f.rank, 0)
	in.Format = pipeline.Format(f.format)
	var errMem error
	in.Mem, errMem = f.mem.Budget(cmd)
	if err := cmp.Or(errStep, errRank, cliflags.CheckFormat(cmd, in.Format, f.format), errMem); err != nil {
		return in, "", nil, err
	}
	if f.pin != "" {
		if in.Pin, err = pipeline.ParseCoord(f.pin); err != nil {
			return in, "", nil, cliflags.CmdError(cmd, "--pin: "+err.Error())
		}
	}
	switch {
	case len(paths) == 1:
		in.Path, title = paths[0], paths[0]
	case in.DumpA != "":
		title = in.DumpA
	default:
		dir, clean, err := extractDemo()
		if err != nil {
			return in, "", nil, err
		}
		demo := pipeline.DemoInputs(dir)
		demo.Pin, demo.StepA, demo.RankA, demo.LayerMapping, demo.Mem = in.Pin, in.StepA, in.RankA, in.LayerMapping, in.Mem
		in, title, cleanup = demo, "demo run", clean
	}
	return in, title, cleanup, nil
}
