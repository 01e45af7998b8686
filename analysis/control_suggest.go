package analysis

import (
	"sort"

	"spikescope/model"
)

// SuggestControlRank proposes a rank for the control group C at optimizer
// step step: the nearest rank to the root rank that is no Phase 1
// candidate at that step (ties: the lower rank); -1 when none.
func SuggestControlRank(p1 *model.Phase1Result, step, rank int) int {
	if p1 == nil {
		return -1
	}
	bad := map[int]bool{rank: true}
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if a.OptStep() == step {
			bad[a.Rank] = true
		}
	}
	ranks := append([]int(nil), p1.Summary.Ranks...)
	sort.Slice(ranks, func(i, j int) bool {
		di, dj := absInt(ranks[i]-rank), absInt(ranks[j]-rank)
		if di != dj {
			return di < dj
		}
		return ranks[i] < ranks[j]
	})
	for _, r := range ranks {
		if !bad[r] {
			return r
		}
	}
	return -1
}

// StageControlRanks are the ranks a control group for rank may be dumped
// on in a pipeline-parallel run: the other ranks of rank's stage, which
// hold the same layers (other stages number other layers from 0). stage is
// -1 without inferred stages.
func StageControlRanks(p1 *model.Phase1Result, rank int) (stage, stages int, others []int) {
	if p1 == nil {
		return -1, 0, nil
	}
	pl := p1.Sharding.Stages
	st := pl.StageOf(rank)
	if st < 0 {
		return -1, 0, nil
	}
	for _, r := range pl.StageRanks()[st] {
		if r != rank {
			others = append(others, r)
		}
	}
	return st, pl.Stages, others
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}
