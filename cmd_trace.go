package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/model"
	"spikescope/outfile"
	"spikescope/pipeline"
)

// traceFlags are the flags of `spikescope trace`.
type traceFlags struct {
	path     string    // PATH: monitor (or dump tree) that Phase 1 and 2 run on
	baseline string    // --baseline
	dump     [4]string // A, B, C, D
	step     [4]int    // per-group --step-X; unset = -2
	rank     [4]int
	stepG    int // --step
	rankG    int // --rank
	phase1   string
	anch     string
	call     int
	out      string
	lmap     string // --layer-mapping
}

// traceMemoryLimit is the soft heap limit of `trace` (the documented
// budget is 2 GB for four dumps of 200,000 operators).
const traceMemoryLimit = 1536 << 20

// traceUnset marks a --step/--rank flag that was not given (-1 is a real
// step value: a tree without step folders).
const traceUnset = -2

// unsetInt is an int flag whose "not given" value (traceUnset) is not
// printed as a default in the help.
type unsetInt struct{ p *int }

func (u unsetInt) String() string {
	if u.p == nil || *u.p == traceUnset {
		return ""
	}
	return strconv.Itoa(*u.p)
}

func (u unsetInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return errors.New("not an integer")
	}
	if v < -1 || v > math.MaxInt32 {
		return errors.New("out of range (-1 for a tree without step or rank folders, else 0 to 2147483647)")
	}
	*u.p = v
	return nil
}

var traceGroupNames = pipeline.GroupNames

// runTrace is Phase 3: the four-group layer trace (method.md "Phase 3").
func runTrace(args []string, stdout, stderr io.Writer) int {
	var f traceFlags
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
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
	for g := range 4 {
		fs.StringVar(&f.dump[g], "dump-"+traceGroupNames[g], "", "dump of group "+strings.ToUpper(traceGroupNames[g]))
		f.step[g], f.rank[g] = traceUnset, traceUnset
		fs.Var(unsetInt{&f.step[g]}, "step-"+traceGroupNames[g], "step `N` inside group "+strings.ToUpper(traceGroupNames[g])+"'s tree")
		fs.Var(unsetInt{&f.rank[g]}, "rank-"+traceGroupNames[g], "rank `R` inside group "+strings.ToUpper(traceGroupNames[g])+"'s tree")
	}
	f.stepG, f.rankG = traceUnset, traceUnset
	fs.Var(unsetInt{&f.stepG}, "step", "step `N` to pick inside the trees")
	fs.Var(unsetInt{&f.rankG}, "rank", "rank `R` to pick inside the trees")
	fs.StringVar(&f.phase1, "phase1", "", "Phase 1 JSON (filters the automatic choice of C)")
	fs.StringVar(&f.anch, "anchors", "", "anchor modules, comma separated (default: automatic)")
	fs.IntVar(&f.call, "call", analysis.DefaultPhase3Options().Call, "call number (micro-batch order) of the anchor modules to compare (default: Phase 1's micro step, else 0)")
	fs.StringVar(&f.out, "o", "", "write the JSON to FILE instead of stdout")
	fs.StringVar(&f.out, "output", "", "same as -o")
	fs.StringVar(&f.baseline, "baseline", "", "baseline device's monitor or dump `PATH` (Phase 2's cross-device check)")
	fs.StringVar(&f.lmap, "layer-mapping", "", "msprobe layer-mapping YAML `FILE`: module names of A's framework → B's")
	paths, err := parseInterspersed(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
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
	in := pipeline.Inputs{
		Path: f.path, Baseline: f.baseline,
		DumpA: f.dump[0], DumpB: f.dump[1], DumpC: f.dump[2], DumpD: f.dump[3],
		StepA: traceCoord(f.step[0], f.stepG), RankA: traceCoord(f.rank[0], f.rankG),
		AtB:          pipeline.Coord{Step: traceCoord(f.step[1]), Rank: traceCoord(f.rank[1])},
		AtC:          pipeline.Coord{Step: traceCoord(f.step[2]), Rank: traceCoord(f.rank[2])},
		AtD:          pipeline.Coord{Step: traceCoord(f.step[3]), Rank: traceCoord(f.rank[3])},
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

// traceCoord is the first of vals that is set, nil when none is.
func traceCoord(vals ...int) *int {
	for _, v := range vals {
		if v != traceUnset {
			return &v
		}
	}
	return nil
}
