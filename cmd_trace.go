package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"spikescope/cliflags"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// traceMemoryLimit is the soft heap limit of `trace` (the documented
// budget is 2 GB for four dumps of 200,000 operators).
const traceMemoryLimit = 1536 << 20

// runTrace is Phase 3: the four-group layer trace (method.md "Phase 3"):
// the groups are those the TUI and `report` compare on the same inputs.
func runTrace(args []string, stdout, stderr io.Writer) int {
	var out, phase1, anchors string
	in := pipeline.Inputs{P3: pipeline.DefaultPhase3Options()}
	dumps := [4]*string{&in.DumpA, &in.DumpB, &in.DumpC, &in.DumpD}
	at := map[string]*string{} // --step, --rank, --step-X, --rank-X as given ("" = not given)
	fs := cliflags.JSONFlagSet("trace", stderr, &out)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: spikescope trace [PATH [--baseline PATH] | --phase1 P1.json] --dump-a A [--dump-b B]
                        [--dump-c C --dump-d D] [--anchors a,b,c] [--step N] [--rank R]
                        [--step-X N] [--rank-X R] [--call K] [--layer-mapping FILE] [--mem-limit SIZE] [--lang en|zh] [-o FILE]

Phase 3 as the TUI and report run it on the same inputs: PATH (a trend.db, a
monitor CSV folder or a dump tree; default: A's dump tree) or a saved Phase 1
gives the root-cause coordinate that picks A inside its tree (dump steps are
matched to a re-based trend.db's optimizer steps by gradient norms);
--step/--rank (or --step-a, --rank-b, ...) pick a dump inside a tree instead.
Each --dump-X is a folder with dump.json or a step*/rank* tree. B defaults to
A's step/rank, D to C's. Without C/D, C is chosen from A's tree (not a Phase 1
anomaly, gradient norm below the tree's P75) and D from B's tree; without B,
A is compared with C in B's place.
--layer-mapping is msprobe's layer-mapping YAML (msprobe compare -lm) for dumps
of two frameworks (MindSpore against PyTorch); without it a built-in name map
of the MindFormers/Megatron families is used when A and B differ in framework.
`)
		fs.PrintDefaults()
	}
	for g, name := range pipeline.GroupNames {
		G := strings.ToUpper(name)
		fs.StringVar(dumps[g], "dump-"+name, "", "dump of group "+G)
		at["step-"+name] = fs.String("step-"+name, "", "step `N` inside group "+G+"'s tree")
		at["rank-"+name] = fs.String("rank-"+name, "", "rank `R` inside group "+G+"'s tree")
	}
	at["step"] = fs.String("step", "", "step `N` to pick inside the trees (-1: a tree without step folders)")
	at["rank"] = fs.String("rank", "", "rank `R` to pick inside the trees (-1: a tree without rank folders)")
	fs.StringVar(&phase1, "phase1", "", "Phase 1 JSON (filters the automatic choice of C)")
	fs.StringVar(&anchors, "anchors", "", "anchor modules, comma separated (default: automatic)")
	fs.IntVar(&in.P3.Call, "call", in.P3.Call, "call number (micro-batch order) of the anchor modules to compare (default: Phase 1's micro step, else 0)")
	fs.StringVar(&in.Baseline, "baseline", "", "baseline device's monitor or dump `PATH` (Phase 2's cross-device check)")
	fs.StringVar(&in.LayerMapping, "layer-mapping", "", "msprobe layer-mapping YAML `FILE`: module names of A's framework → B's")
	var mem cliflags.Mem
	mem.Register(fs)
	var lang cliflags.Lang
	lang.Register(fs, "English")
	paths, code, ok := parseArgs(fs, args, "", stdout, stderr)
	if !ok {
		return code
	}
	if len(paths) > 1 {
		return exitCode(cliflags.CmdError("trace", fmt.Sprintf("one PATH at most (unexpected argument %q)", paths[1])), stderr)
	}
	if len(paths) == 1 {
		in.Path = paths[0]
	}
	l, err := lang.Value("trace")
	if err != nil {
		return exitCode(err, stderr)
	}
	in.Lang = pipeline.LangOf(l)
	if in.P3.Call < -1 || in.P3.Call > cliflags.MaxCall {
		return exitCode(cliflags.CmdError("trace", fmt.Sprintf("--call must be -1 (automatic) to %d (got %d)", cliflags.MaxCall, in.P3.Call)), stderr)
	}
	if err := outfile.RefuseInput(out, in.DumpA, in.DumpB, in.DumpC, in.DumpD, phase1, in.Path, in.Baseline, in.LayerMapping); err != nil {
		return exitCode(err, stderr)
	}
	// Four large dumps are held at once: the GC stays near the documented
	// budget instead of doubling the live heap (a soft limit; GOMEMLIMIT wins).
	defer pipeline.LimitMemory(pipeline.MemBudget{Bytes: traceMemoryLimit})()
	err = traceInputs(&in, at, phase1)
	in.Phase1File = phase1
	if err != nil {
		return exitCode(err, stderr)
	}
	// The budget checks PATH's rows; the runtime's limit stays trace's
	// own (set above) for the four dumps.
	if in.Mem, err = mem.Budget("trace"); err != nil {
		return exitCode(err, stderr)
	}
	for _, a := range strings.Split(anchors, ",") {
		if a = strings.TrimSpace(a); a != "" {
			in.Anchors = append(in.Anchors, a)
		}
	}
	res, err := pipeline.Trace(noticeCtx(stderr), in)
	if err != nil {
		return exitCode(err, stderr)
	}
	return exitCode(outfile.WriteJSON(res, out, stdout, stderr), stderr)
}

// traceInputs checks the groups and maps the --step/--rank flags given
// (-1: a tree without step or rank folders; A's default to --step/--rank)
// onto in.
func traceInputs(in *pipeline.Inputs, given map[string]*string, phase1 string) (err error) {
	switch {
	case in.DumpA == "":
		return cliflags.CmdError("trace", "--dump-a is required")
	case (in.DumpC == "") != (in.DumpD == ""):
		return cliflags.CmdError("trace", "--dump-c and --dump-d go together")
	case in.Path != "" && phase1 != "":
		return cliflags.CmdError("trace", "give either PATH or --phase1, not both")
	}
	at := map[string]*int{}
	for _, name := range slices.Sorted(maps.Keys(given)) {
		if at[name], err = cliflags.OptInt("trace", "--"+name, *given[name], -1); err != nil {
			return err
		}
	}
	in.StepA, in.RankA = cmp.Or(at["step-a"], at["step"]), cmp.Or(at["rank-a"], at["rank"])
	in.AtB = pipeline.Coord{Step: at["step-b"], Rank: at["rank-b"]}
	in.AtC = pipeline.Coord{Step: at["step-c"], Rank: at["rank-c"]}
	in.AtD = pipeline.Coord{Step: at["step-d"], Rank: at["rank-d"]}
	return nil
}
