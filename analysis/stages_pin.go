package analysis

import (
	"fmt"
	"slices"

	"spikescope/model"
)

// resolveStageParam resolves a pinned parameter. The name may be given as
// the input wrote it (as the JSON's target_name writes it, also a monitor
// v2 "<chunk>:<name>") or as spikescope's screens show it
// ("pp1:layers.2…", "pp1:vpp1:layers.0…"). On a run with pipeline stages a
// name without a stage is the parameter of the pinned rank's stage, and
// with several model chunks of the chunk given by vpp=, a chunk prefix, or
// else of the earliest Phase 1 candidate that agrees with the pin (a
// coordinate copied from the JSON with its vpp_stage pins what it names). Without stages, or without a
// rank, the plain rule (exact name or unique suffix) applies: a bare name
// held by several stages is ambiguous and the error lists them.
func resolveStageParam(p1 *model.Phase1Result, names []string, pin *model.Coord) (string, error) {
	want, vpp := pin.Param, -1
	if pin.VPP != nil {
		vpp = *pin.VPP
	}
	if v, own, ok := model.ChunkPrefix(want); ok {
		if vpp >= 0 && v != vpp {
			return "", fmt.Errorf("parameter %q is of model chunk %d, the pin says vpp=%d", pin.Param, v, vpp)
		}
		if _, err := resolveParam(names, want); err != nil { // the prefix is no part of the name
			want, vpp = own, v
			pin.VPP = model.IntPtr(v)
		}
	}
	pl := p1.Sharding.Stages
	if pl == nil || !pl.Inferred || pl.Stages < 2 {
		return resolveParam(names, want)
	}
	st := -1
	if pin.Rank != nil {
		st = pl.StageOf(*pin.Rank)
	}
	if ps, v, own, ok := model.StageParts(want); ok {
		if st >= 0 && ps != st {
			return "", fmt.Errorf("parameter %q is of pipeline stage %d, rank %d is on stage %d", pin.Param, ps, *pin.Rank, st)
		}
		if v >= 0 && vpp >= 0 && v != vpp {
			return "", fmt.Errorf("parameter %q is of model chunk %d, the pin says vpp=%d", pin.Param, v, vpp)
		}
		if n, err := resolveParam(names, want); err == nil {
			return n, nil
		}
		st, want = ps, own
		if v >= 0 {
			vpp = v
		}
	}
	if st < 0 {
		return resolveParam(names, want)
	}
	var own, bases []string
	for _, n := range names {
		if s, v, base, ok := model.StageParts(n); ok && s == st && (vpp < 0 || v < 0 || v == vpp) {
			own, bases = append(own, n), append(bases, base)
		}
	}
	base, err := resolveParam(uniqueStrings(bases), want)
	if err != nil {
		return "", fmt.Errorf("%v on pipeline stage %d%s", err, st, rankWords(pin))
	}
	var hits []string
	for i, b := range bases {
		if b == base {
			hits = append(hits, own[i])
		}
	}
	if len(hits) == 1 {
		return hits[0], nil
	}
	// one name in several model chunks: the earliest Phase 1 candidate
	// that agrees with the pin tells which (as it supplies a pin's free
	// fields); vpp= says it outright
	for i := range p1.Anomalies {
		if a := &p1.Anomalies[i]; pinAgrees(pin, a) && slices.Contains(hits, a.TargetName) {
			return a.TargetName, nil
		}
	}
	if len(hits) == 0 {
		return "", fmt.Errorf("parameter %q matches no parameter of pipeline stage %d", pin.Param, st)
	}
	return "", fmt.Errorf("parameter %q is held by %d model chunks of pipeline stage %d and no Phase 1 candidate agrees with the pin: give vpp=N (the vpp_stage)", pin.Param, len(hits), st)
}

func uniqueStrings(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

func rankWords(pin *model.Coord) string {
	if pin.Rank == nil {
		return ""
	}
	return fmt.Sprintf(" (rank %d)", *pin.Rank)
}
