package analysis

import (
	"math"
	"slices"
	"sort"

	"spikescope/model"
)

// Pipeline stages from gradient levels: when every rank holds the same
// names and no embedding / final norm tells the stages (a target list
// limited to the transformer layers), the ranks of one stage still see the
// same parameters — their gradient norms agree within the data noise —
// while another stage's same-named parameters sit at their own level. The
// split is taken only when it is unmistakable; else, when the ranks' levels
// differ far more than data-parallel noise, the output says that stages
// could not be inferred.
const (
	// levelHead is how many of a series' first values set its level.
	levelHead = 16
	// levelShare is the share of parameters whose ranks must separate
	// into the same blocks.
	levelShare = 0.9
	// levelGapMult: the gap between blocks is ≥ this many times the
	// largest spread within a block...
	levelGapMult = 4.0
	// levelMinGap: ...and at least this factor (ln): 1.5×.
	levelMinGap = 0.405
	// levelNoteSpread: ranks whose levels of one parameter spread wider
	// than this factor (ln 3) are not data-parallel copies.
	levelNoteSpread = 1.0986
)

// seriesLevels returns, per target held by every rank, the log level of
// each rank's series (median of its first finite values), rank positions
// in ix.ranks order.
func seriesLevels(ix *seriesIndex) [][]float64 {
	nR := len(ix.ranks)
	var out [][]float64
	var buf []float64
	for t := 0; t+1 < len(ix.targetFirst); t++ {
		gs := ix.targetGroups(t)
		if len(gs) != nR {
			continue
		}
		lv := make([]float64, nR)
		ok := true
		for _, g := range gs {
			buf = buf[:0]
			for k := g.Lo; k < g.Hi && len(buf) < levelHead; k++ {
				if v := ix.norm[k]; v > 0 && model.Finite(v) {
					buf = append(buf, v)
				}
			}
			if len(buf) == 0 {
				ok = false
				break
			}
			lv[sort.SearchInts(ix.ranks, int(g.Rank))] = math.Log(medianInPlace(buf))
		}
		if ok {
			out = append(out, lv)
		}
	}
	return out
}

// stagesFromLevels tries every stage count p (≥ 2 ranks per stage) in the
// blocked and the strided rank order and keeps the one under which, for
// ≥ levelShare of the parameters, every stage's ranks agree and every two
// stages sit apart. It returns nil and a note (or nil) otherwise.
func stagesFromLevels(ix *seriesIndex) ([]int, model.Reason, model.Reason) {
	nR := len(ix.ranks)
	lv := seriesLevels(ix)
	if nR < 4 || len(lv) == 0 {
		return nil, nil, nil
	}
	stage := make([]int, nR)
	for p := 2; p <= nR/2; p++ {
		if nR%p != 0 {
			continue
		}
		for _, layout := range []string{"blocked", "strided"} {
			for i := range stage {
				if layout == "blocked" {
					stage[i] = i * p / nR
				} else {
					stage[i] = ix.ranks[i] % p
				}
			}
			if layout == "strided" && !balanced(stage, p) {
				continue
			}
			good := 0
			for _, l := range lv {
				if separated(l, stage, p) {
					good++
				}
			}
			if float64(good) >= levelShare*float64(len(lv)) {
				return slices.Clone(stage), model.StagesByLevels{Layout: layout, Stages: p, Agree: good, Params: len(lv), Gap: math.Exp(levelMinGap)}, nil
			}
		}
	}
	// not separable: say so when the ranks are clearly not DP copies
	spreads := make([]float64, 0, len(lv))
	for _, l := range lv {
		spreads = append(spreads, slices.Max(l)-slices.Min(l))
	}
	if s := medianInPlace(spreads); s > levelNoteSpread {
		return nil, nil, model.StagesLevelsUnseparable{Ratio: math.Exp(s)}
	}
	return nil, nil, nil
}

// balanced: every stage has the same number of ranks.
func balanced(stage []int, p int) bool {
	n := make([]int, p)
	for _, s := range stage {
		n[s]++
	}
	for _, c := range n {
		if c != n[0] {
			return false
		}
	}
	return true
}

// separated: the levels l agree within each stage and every two stages'
// ranges are apart by ≥ max(levelGapMult × the largest spread within a
// stage, levelMinGap).
func separated(l []float64, stage []int, p int) bool {
	lo, hi := make([]float64, p), make([]float64, p)
	for s := range lo {
		lo[s], hi[s] = math.Inf(1), math.Inf(-1)
	}
	for i, v := range l {
		s := stage[i]
		lo[s], hi[s] = min(lo[s], v), max(hi[s], v)
	}
	within := 0.0
	for s := range lo {
		within = max(within, hi[s]-lo[s])
	}
	need := max(levelGapMult*within, levelMinGap)
	for a := 0; a < p; a++ {
		for b := a + 1; b < p; b++ {
			gap := max(lo[b]-hi[a], lo[a]-hi[b])
			if gap < need {
				return false
			}
		}
	}
	return true
}
