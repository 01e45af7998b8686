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
)

// traceFlags are the flags of `spikescope trace`.
type traceFlags struct {
	dump   [4]string // A, B, C, D
	step   [4]int    // per-group --step-X; unset = -2
	rank   [4]int
	stepG  int // --step
	rankG  int // --rank
	phase1 string
	anch   string
	call   int
	out    string
	lmap   string // --layer-mapping
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

var traceGroupNames = [4]string{"a", "b", "c", "d"}

// runTrace is Phase 3: the four-group layer trace (method.md "Phase 3").
func runTrace(args []string, stdout, stderr io.Writer) int {
	var f traceFlags
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, `usage: spikescope trace --dump-a A --dump-b B [--dump-c C --dump-d D] [--phase1 P1.json]
                        [--anchors a,b,c] [--step N] [--rank R] [--step-X N] [--rank-X R] [--call K]
                        [--layer-mapping FILE] [-o FILE]

Each --dump-X is a folder with dump.json or a step*/rank* tree; --step/--rank (or
--step-a, --rank-b, ...) pick the dump inside a tree. B defaults to A's step/rank,
D to C's. Without C/D and with A given as a tree, C is chosen from A's tree
(not a Phase 1 anomaly, gradient norm below the tree's P75) and D from B's tree.
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
	fs.StringVar(&f.lmap, "layer-mapping", "", "msprobe layer-mapping YAML `FILE`: module names of A's framework → B's")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		return exitCode(usageError{fmt.Sprintf("trace: unexpected argument %q", fs.Arg(0))}, stderr)
	}
	if f.call < -1 || f.call > maxCallFlag {
		return exitCode(usageError{fmt.Sprintf("trace: --call must be -1 (automatic) to %d (got %d)", maxCallFlag, f.call)}, stderr)
	}
	if err := outfile.RefuseInput(f.out, append(f.dump[:], f.phase1)...); err != nil {
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
	return exitCode(writeResultJSON(res, f.out, stdout, stderr), stderr)
}

// trace loads the groups and runs Phase 3.
func trace(ctx context.Context, f traceFlags) (*model.Phase3Result, error) {
	if f.dump[0] == "" || f.dump[1] == "" {
		return nil, usageError{"trace: --dump-a and --dump-b are required"}
	}
	if (f.dump[2] == "") != (f.dump[3] == "") {
		return nil, usageError{"trace: --dump-c and --dump-d go together"}
	}
	var lm *model.LayerMapping
	if f.lmap != "" {
		var err error
		if lm, err = ingest.ReadLayerMapping(f.lmap); err != nil {
			return nil, err
		}
	}
	var p1 *model.Phase1Result
	if f.phase1 != "" {
		var err error
		if p1, err = ingest.ReadPhase1(f.phase1); err != nil {
			return nil, err
		}
	}
	trees := map[string]*model.DumpTree{}
	load := func(path string) (*model.DumpTree, error) {
		if t, ok := trees[path]; ok {
			return t, nil
		}
		t, err := ingest.LoadDumpTree(ctx, path, nil)
		if err != nil {
			return nil, err
		}
		if len(t.Dumps) == 0 {
			return nil, &ingest.InputError{Path: path, Problem: "no dump.json found"}
		}
		trees[path] = t
		return t, nil
	}
	var warnings []string
	var tr [4]*model.DumpTree
	var dumps [4]*model.Dump
	for g := range 4 {
		if f.dump[g] == "" {
			continue
		}
		t, err := load(f.dump[g])
		if err != nil {
			return nil, err
		}
		tr[g] = t
		warnings = append(warnings, tracePrefixAll(strings.ToUpper(traceGroupNames[g])+": ", t.Warnings)...)
	}
	// A: explicit coordinates, else Phase 1's earliest anomaly, else the
	// tree's only dump.
	step, rank := tracePickCoord(f.step[0], f.stepG), tracePickCoord(f.rank[0], f.rankG)
	if step == traceUnset && rank == traceUnset && len(tr[0].Dumps) > 1 && p1 != nil && len(p1.Anomalies) > 0 {
		an := p1.Anomalies[0]
		if tr[0].Find(an.OptStep(), an.Rank) != nil { // dump steps count optimizer steps
			step, rank = an.OptStep(), an.Rank
			warnings = append(warnings, fmt.Sprintf("A: step %d rank %d taken from Phase 1's earliest anomaly", step, rank))
		}
	}
	var err error
	if dumps[0], err = tracePickDump(tr[0], step, rank, "A"); err != nil {
		return nil, err
	}
	// B: A's coordinates when B's tree has them.
	if dumps[1], err = tracePickDump(tr[1], tracePickCoord(f.step[1], f.stepG, dumps[0].Step), tracePickCoord(f.rank[1], f.rankG, dumps[0].Rank), "B"); err != nil {
		return nil, err
	}
	controlNote := ""
	var candidates []model.ControlCandidate
	cStep, cRank := tracePickCoord(f.step[2], f.stepG), tracePickCoord(f.rank[2], f.rankG)
	if tr[2] != nil && len(tr[2].Dumps) > 1 && cStep == traceUnset && cRank == traceUnset {
		// A tree of candidates given as C: choose among them with the seed's
		// filters; D from D's tree at C's coordinates.
		ch := analysis.ChooseControl(tr[2], dumps[0], tr[3], p1)
		if ch.C == nil {
			return nil, usageError{"trace: C: " + ch.Reason}
		}
		dumps[2], dumps[3] = ch.C, ch.D
		if dumps[3] == nil {
			if dumps[3], err = tracePickDump(tr[3], tracePickCoord(f.step[3], f.stepG, ch.C.Step), tracePickCoord(f.rank[3], f.rankG, ch.C.Rank), "D"); err != nil {
				return nil, err
			}
		}
		controlNote = "control chosen from --dump-c: " + ch.Reason
		candidates = ch.Candidates
	} else if tr[2] != nil {
		if dumps[2], err = tracePickDump(tr[2], cStep, cRank, "C"); err != nil {
			return nil, err
		}
		if dumps[3], err = tracePickDump(tr[3], tracePickCoord(f.step[3], f.stepG, dumps[2].Step), tracePickCoord(f.rank[3], f.rankG, dumps[2].Rank), "D"); err != nil {
			return nil, err
		}
		if dumps[2] == dumps[0] {
			warnings = append(warnings, "C is the same dump as A: the control group shows no noise")
		}
	} else if len(tr[0].Dumps) > 1 {
		ch := analysis.ChooseControl(tr[0], dumps[0], tr[1], p1)
		dumps[2], dumps[3] = ch.C, ch.D
		controlNote = "automatic control choice: " + ch.Reason
		candidates = ch.Candidates
		if ch.C != nil && ch.C == ch.D {
			warnings = append(warnings, "D is the same dump as C (A and B come from the same tree): the control group shows no noise")
		}
	}
	var anchors []string
	for _, a := range strings.Split(f.anch, ",") {
		if a = strings.TrimSpace(a); a != "" {
			anchors = append(anchors, a)
		}
	}
	opt := analysis.DefaultPhase3Options()
	opt.Call = f.call
	res := analysis.Phase3(analysis.Phase3Input{
		A: dumps[0], B: dumps[1], C: dumps[2], D: dumps[3],
		Anchors: anchors, Phase1: p1, ControlNote: controlNote, ControlCandidates: candidates,
		LayerMapping: lm,
	}, opt)
	res.Warnings = append(warnings, res.Warnings...)
	return res, nil
}

// tracePickCoord returns the first value that is set.
func tracePickCoord(vals ...int) int {
	for _, v := range vals {
		if v != traceUnset {
			return v
		}
	}
	return traceUnset
}

// tracePickDump selects the dump at (step, rank) of a tree; an unset coordinate
// matches when it leaves a single choice. A coordinate that the tree lacks
// falls back to the tree's only dump (B/D inherit A/C's coordinates, which a
// single-folder baseline does not have).
func tracePickDump(t *model.DumpTree, step, rank int, group string) (*model.Dump, error) {
	var match []*model.Dump
	for _, d := range t.Dumps {
		if (step == traceUnset || d.Step == step) && (rank == traceUnset || d.Rank == rank) {
			match = append(match, d)
		}
	}
	switch {
	case len(match) == 1:
		return match[0], nil
	case len(t.Dumps) == 1:
		return t.Dumps[0], nil
	case len(match) == 0:
		return nil, usageError{fmt.Sprintf("trace: %s: no dump at step %s rank %s in %s (has %s)", group, traceCoordStr(step), traceCoordStr(rank), t.Path, traceTreeCoords(t))}
	}
	return nil, usageError{fmt.Sprintf("trace: %s: %s holds %d dumps (%s): pick one with --step/--rank (or --step-%s/--rank-%s)",
		group, t.Path, len(t.Dumps), traceTreeCoords(t), strings.ToLower(group), strings.ToLower(group))}
}

func traceCoordStr(v int) string {
	if v == traceUnset {
		return "any"
	}
	return fmt.Sprint(v)
}

// traceTreeCoords lists a tree's (step, rank) pairs, shortened.
func traceTreeCoords(t *model.DumpTree) string {
	var parts []string
	for i, d := range t.Dumps {
		if i == 12 {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, fmt.Sprintf("step %d rank %d", d.Step, d.Rank))
	}
	return strings.Join(parts, ", ")
}

func tracePrefixAll(p string, xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = p + x
	}
	return out
}
