package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// traceFlags are the flags of `spikescope trace`.
type traceFlags struct {
	path     string             // PATH: monitor (or dump tree) that Phase 1 and 2 run on
	baseline string             // --baseline
	dump     [4]string          // A, B, C, D
	at       map[string]*string // --step, --rank, --step-X, --rank-X as given ("" = not given)
	phase1   string
	anch     string
	call     int
	out      string
	lmap     string // --layer-mapping
}

// traceMemoryLimit is the soft heap limit of `trace` (the documented
// budget is 2 GB for four dumps of 200,000 operators).
const traceMemoryLimit = 1536 << 20

var traceGroupNames = pipeline.GroupNames

// runTrace is Phase 3: the four-group layer trace (method.md "Phase 3").
func runTrace(args []string, stdout, stderr io.Writer) int {
	f := traceFlags{at: map[string]*string{}}
	fs := jsonFlagSet("trace", stderr, &f.out)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: spikescope trace [PATH [--baseline PATH] | --phase1 P1.json] --dump-a A [--dump-b B]
                        [--dump-c C --dump-d D] [--anchors a,b,c] [--step N] [--rank R]
                        [--step-X N] [--rank-X R] [--call K] [--layer-mapping FILE] [-o FILE]

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
	for g, name := range traceGroupNames {
		G := strings.ToUpper(name)
		fs.StringVar(&f.dump[g], "dump-"+name, "", "dump of group "+G)
		f.at["step-"+name] = fs.String("step-"+name, "", "step `N` inside group "+G+"'s tree")
		f.at["rank-"+name] = fs.String("rank-"+name, "", "rank `R` inside group "+G+"'s tree")
	}
	f.at["step"] = fs.String("step", "", "step `N` to pick inside the trees (-1: a tree without step folders)")
	f.at["rank"] = fs.String("rank", "", "rank `R` to pick inside the trees (-1: a tree without rank folders)")
	fs.StringVar(&f.phase1, "phase1", "", "Phase 1 JSON (filters the automatic choice of C)")
	fs.StringVar(&f.anch, "anchors", "", "anchor modules, comma separated (default: automatic)")
	fs.IntVar(&f.call, "call", analysis.DefaultPhase3Options().Call, "call number (micro-batch order) of the anchor modules to compare (default: Phase 1's micro step, else 0)")
	fs.StringVar(&f.baseline, "baseline", "", "baseline device's monitor or dump `PATH` (Phase 2's cross-device check)")
	fs.StringVar(&f.lmap, "layer-mapping", "", "msprobe layer-mapping YAML `FILE`: module names of A's framework → B's")
	paths, code, ok := parseJSONFlags(fs, args)
	if !ok {
		return code
	}
	if len(paths) > 1 {
		return exitCode(usageError{fmt.Sprintf("trace: one PATH at most (unexpected argument %q)", paths[1])}, stderr)
	}
	if len(paths) == 1 {
		f.path = paths[0]
	}
	if f.call < -1 || f.call > maxCallFlag {
		return exitCode(usageError{fmt.Sprintf("trace: --call must be -1 (automatic) to %d (got %d)", maxCallFlag, f.call)}, stderr)
	}
	if err := outfile.RefuseInput(f.out, append(f.dump[:], f.phase1, f.path, f.baseline, f.lmap)...); err != nil {
		return exitCode(err, stderr)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// Four large dumps are held at once: ask the GC to stay near the
		// documented budget instead of doubling the live heap (soft limit;
		// the runtime caps the GC's CPU share when the live heap is larger).
		debug.SetMemoryLimit(traceMemoryLimit)
	}
	res, err := trace(context.Background(), f)
	if err != nil {
		return exitCode(err, stderr)
	}
	return exitCode(outfile.WriteJSON(res, f.out, stdout, stderr), stderr)
}

// trace runs the pipeline on the inputs and returns its Phase 3: the
// groups are those the TUI and `report` compare on the same inputs.
func trace(ctx context.Context, f traceFlags) (*model.Phase3Result, error) {
	if f.dump[0] == "" {
		return nil, usageError{"trace: --dump-a is required"}
	}
	if (f.dump[2] == "") != (f.dump[3] == "") {
		return nil, usageError{"trace: --dump-c and --dump-d go together"}
	}
	if f.path != "" && f.phase1 != "" {
		return nil, usageError{"trace: give either PATH or --phase1, not both"}
	}
	at := map[string]*int{} // -1: a tree without step or rank folders
	for _, name := range slices.Sorted(maps.Keys(f.at)) {
		var err error
		if at[name], err = optInt("trace", "--"+name, *f.at[name], -1); err != nil {
			return nil, err
		}
	}
	first := func(a, b string) *int {
		if at[a] != nil {
			return at[a]
		}
		return at[b]
	}
	in := pipeline.Inputs{
		Path: f.path, Baseline: f.baseline,
		DumpA: f.dump[0], DumpB: f.dump[1], DumpC: f.dump[2], DumpD: f.dump[3],
		StepA: first("step-a", "step"), RankA: first("rank-a", "rank"),
		AtB:          pipeline.Coord{Step: at["step-b"], Rank: at["rank-b"]},
		AtC:          pipeline.Coord{Step: at["step-c"], Rank: at["rank-c"]},
		AtD:          pipeline.Coord{Step: at["step-d"], Rank: at["rank-d"]},
		LayerMapping: f.lmap,
		P1:           analysis.DefaultPhase1Options(), P2: analysis.DefaultPhase2Options(), P3: analysis.DefaultPhase3Options(),
	}
	in.P3.Call = f.call
	for _, a := range strings.Split(f.anch, ",") {
		if a = strings.TrimSpace(a); a != "" {
			in.Anchors = append(in.Anchors, a)
		}
	}
	if f.phase1 != "" {
		var err error
		if in.Phase1, err = ingest.ReadPhase1(f.phase1); err != nil {
			return nil, err
		}
	}
	return pipeline.Trace(ctx, in)
}
