package main

import (
	"cmp"
	"errors"
	"fmt"
	"io"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// runSelect is Phase 2: the root-cause coordinate as JSON (pure JSON on
// stdout, or -o FILE).
func runSelect(args []string, stdout, stderr io.Writer) int {
	var out string
	fs := cliflags.JSONFlagSet("select", stderr, &out)
	def := pipeline.DefaultPhase2Options()
	opt := def // the flags below set it
	p1Path := fs.String("phase1", "", "Phase 1 JSON of the anomalous side")
	npu := fs.String("npu", "", "same as --phase1 (reference spelling)")
	basePath := fs.String("baseline", "", "Phase 1 JSON of the baseline side (optional)")
	gpu := fs.String("gpu", "", "same as --baseline (reference spelling; the baseline need not be a GPU)")
	pinFlag := fs.String("pin", "", "pin the coordinate, e.g. opt=3,ms=2,rank=5,param=<name> (also step=N)")
	fs.Float64Var(&opt.Growth, "growth", def.Growth, "final-norm growth between adjacent optimizer steps")
	fs.Float64Var(&opt.RankShare, "rank-share", def.RankShare, "share of ranks that must grow")
	fs.Float64Var(&opt.DeviceRatio, "device-ratio", def.DeviceRatio, "anomalous/baseline ratio that makes a coordinate device-specific")
	var lang cliflags.Lang
	lang.Register(fs, "reasoning and mode in Chinese as the reference scripts write them, the rest in English")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: spikescope select --phase1 P1.json [--baseline P1B.json] [--npu P1.json --gpu P1B.json]\n"+
			"                        [--pin COORD] [--growth %g] [--rank-share %g] [--device-ratio %g] [--lang en|zh] [-o FILE]\n\n"+
			"Phase 2: the root-cause coordinate chosen from a Phase 1 result (JSON).\n", def.Growth, def.RankShare, def.DeviceRatio)
		fs.PrintDefaults()
	}
	rest, code, ok := parseArgs(fs, args, "", stdout, stderr)
	if !ok {
		return code
	}
	if len(rest) > 0 {
		return exitCode(cliflags.CmdError("select", fmt.Sprintf("unexpected argument %q", rest[0])), stderr)
	}
	p1File, err1 := spelling("select", "--phase1", *p1Path, "--npu", *npu)
	base, err2 := spelling("select", "--baseline", *basePath, "--gpu", *gpu)
	if err := cmp.Or(err1, err2); err != nil {
		return exitCode(err, stderr)
	}
	if p1File == "" {
		return exitCode(cliflags.CmdError("select", "--phase1 P1.json (or --npu) is required"), stderr)
	}
	if !cliflags.InRange(opt.Growth) || !(opt.RankShare > 0) || opt.RankShare > 1 || !cliflags.InRange(opt.DeviceRatio) {
		return exitCode(cliflags.CmdError("select", fmt.Sprintf("--growth and --device-ratio must be above 0 and at most %g, --rank-share in (0, 1]", cliflags.MaxMult)), stderr)
	}
	l, err := lang.Value("select")
	if err != nil {
		return exitCode(err, stderr)
	}
	var pin *pipeline.Coord
	if *pinFlag != "" {
		var err error
		if pin, err = pipeline.ParseCoord(*pinFlag); err != nil {
			return exitCode(cliflags.CmdError("select", err.Error()), stderr)
		}
	}
	if err := outfile.RefuseInput(out, p1File, base); err != nil {
		return exitCode(err, stderr)
	}
	res, err := pipeline.Select(p1File, base, pin, opt, pipeline.LangOf(l))
	var pe *pipeline.PinError
	if errors.As(err, &pe) {
		err = cliflags.CmdError("select", err.Error())
	}
	if err != nil {
		return exitCode(err, stderr)
	}
	return exitCode(outfile.WriteJSON(res.AsWritten(), out, stdout, stderr), stderr)
}

// spelling is the value of a flag with two spellings, name and alias: an
// error of cmd when both are given, with different values.
func spelling(cmd, name, v, alias, av string) (string, error) {
	if v != "" && av != "" && v != av {
		return "", cliflags.CmdError(cmd, "give "+name+" or "+alias+", not both")
	}
	return cmp.Or(v, av), nil
}
