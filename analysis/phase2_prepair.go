package analysis

import (
	"math"
	"slices"
	"strconv"

	"spikescope/model"
)

// Thresholds of the pollution pattern (prePairPolluted).
const (
	// pollutionMicroShare: the candidates of a grown rank must cover MORE
	// than this share of the accumulation window's micro steps — polluted
	// weights raise every micro-batch, a bad batch raises its own.
	pollutionMicroShare = 0.5
	// minPollutionWindow: with fewer micro steps per optimizer step a
	// fault at micro step 0 and polluted weights look the same.
	minPollutionWindow = 2
)

// prePairRoot is a root found by the pre-pair (k−1 → k): a step without
// candidates, its parameter and its final norms per rank.
type prePairRoot struct {
	step   int
	target string
	ranks  map[string]model.Float
}

// prePair judges the pair (k−1 → k) in front of the root step k when the
// previous recorded step has no candidate. A fault at k−1 too weak to be a
// candidate pollutes the weights, so most ranks explode at k; but a bad
// batch at step k on most ranks also makes k−1 → k grow. The two differ
// only inside step k: polluted weights raise every micro-batch from micro
// step 0 on, an in-step fault raises them from its own micro step. So the
// pair is judged only for micro-step data whose step-k candidates show
// pollution (prePairPolluted); otherwise (and always at step level) the
// root stays at k, as before. It only ever moves the root the rules
// chose one step back: an earlier anomaly that won (a first NaN/Inf, an
// earlier qualifying pair) is never overridden. pairs are the rows the
// cross-step rule judged, with minCommon ranks needed. Returns the root,
// the rows (a copy with the pre-pair's row in step order, or pairs
// unchanged), the pre-pair root when the root moved (else nil) and what
// the rule said.
func prePair(p1, baseline *model.Phase1Result, k int, pairs []model.CrossStepPair, minCommon int, opt Phase2Options) (*int, []model.CrossStepPair, *prePairRoot, said) {
	var s said
	e, ok := p1.TargetRankNorms[strconv.Itoa(k)]
	if !ok || e.PrevStep == nil || *e.PrevStep >= k || len(e.PrevRanks) == 0 {
		return &k, pairs, nil, s
	}
	pk := *e.PrevStep
	for i := range p1.Anomalies {
		if p1.Anomalies[i].OptStep() == pk {
			return &k, pairs, nil, s // k−1 has candidates: its own pair was judged already
		}
	}
	ok, why := prePairPolluted(p1, k, e.TargetName, e.PrevRanks, e.Ranks, opt)
	if !ok {
		if over, total := growthCount(e.PrevRanks, e.Ranks, opt.Growth); total >= minCommon && float64(over)/float64(total) >= opt.RankShare {
			s.decide(model.P2PrePairInStep{Prev: pk, Step: k, Target: e.TargetName, Over: over, Total: total, Growth: opt.Growth, Why: why})
		}
		return &k, pairs, nil, s
	}
	s.decide(model.P2PrePairPolluted{Prev: pk, Step: k, Why: why})
	s.reason(model.P2PrePairBrief{Prev: pk, Step: k})
	row, js := judgePair(pk, k, e.TargetName, e.PrevRanks, e.Ranks, nil, baselinePair(baseline, pk, e.TargetName), opt, minCommon, nil)
	s.add(js)
	pairs = append(slices.Clone(pairs), row)
	// the table lists pairs in step order
	slices.SortStableFunc(pairs, func(a, b model.CrossStepPair) int { return a.From - b.From })
	if !row.Qualifies {
		return &k, pairs, nil, s
	}
	s.reason(model.P2PrePairRootBrief{Prev: pk})
	for i := range pairs { // a later pair that chose k is now propagation
		if r := &pairs[i]; r.Qualifies && r.From > pk {
			r.VerdictReason = model.P2PairVerdict{Outcome: model.P2PairLater, Step: pk}
		}
	}
	return model.IntPtr(pk), pairs, &prePairRoot{step: pk, target: e.TargetName, ranks: e.PrevRanks}, s
}

// prePairPolluted is the pollution pattern of step k: on at least RankShare
// of the ranks whose final norm of target grew ≥ Growth× from the previous
// step, the earliest candidate micro step of target at k is 0 AND the
// candidates cover more than pollutionMicroShare of the accumulation
// window. Only micro-step data with a window of ≥ minPollutionWindow can
// show it. why describes the finding either way.
func prePairPolluted(p1 *model.Phase1Result, k int, target string, prev, cur map[string]model.Float, opt Phase2Options) (ok bool, why model.Reason) {
	w := p1.Sharding.AccumulationWindow
	if dataKindOf(p1) != kindMicro || w < minPollutionWindow {
		return false, model.P2PollutionUnshowable{MinWindow: minPollutionWindow, Window: w}
	}
	micro := map[int]map[int]bool{} // rank → micro steps with a candidate of target at k
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if a.OptStep() != k || a.TargetName != target || a.MicroPos() < 0 || a.MicroPos() >= w {
			continue
		}
		if micro[a.Rank] == nil {
			micro[a.Rank] = map[int]bool{}
		}
		micro[a.Rank][a.MicroPos()] = true
	}
	grown, polluted := 0, 0
	for r, pv := range prev {
		p, n := float64(pv), float64(cur[r])
		if _, in := cur[r]; !in || !model.Finite(p) || !model.Finite(n) || p <= 0 || n < opt.Growth*p {
			continue
		}
		grown++
		rank, err := strconv.Atoi(r)
		if err != nil {
			continue
		}
		ms := micro[rank]
		if ms[0] && float64(len(ms)) > pollutionMicroShare*float64(w) {
			polluted++
		}
	}
	why = model.P2Pollution{Share: pollutionMicroShare, Window: w, Polluted: polluted, Grown: grown, RankShare: opt.RankShare}
	return grown > 0 && float64(polluted)/float64(grown) >= opt.RankShare, why
}

// prePairCoordinate is the coordinate of a root found by the pre-pair: the
// step has no candidate, so the rank with the largest final norm of the
// parameter at that step; the micro step is unknown (nil). withBaseline:
// the run has a baseline (which this coordinate cannot be compared with).
// Returns the coordinate (nil when no rank has a finite norm), the
// cross-device verification (nil: none made) and what the rule said.
func prePairCoordinate(pre *prePairRoot, withBaseline bool) (co *model.Coordinate, verify model.Reason, s said) {
	var keys []string
	for r := range pre.ranks {
		keys = append(keys, r)
	}
	slices.Sort(keys)
	best, bestV := -1, math.Inf(-1)
	var vals []float64
	for _, r := range keys {
		v := float64(pre.ranks[r])
		rank, err := strconv.Atoi(r)
		if err != nil || !model.Finite(v) {
			continue
		}
		vals = append(vals, v)
		if v > bestV || v == bestV && rank < best {
			best, bestV = rank, v
		}
	}
	if best < 0 {
		s.both(model.P2PreNoNormBrief{Step: pre.step}, model.P2PreNoNorm{Step: pre.step, Target: pre.target})
		return nil, nil, s
	}
	dev := 0.0
	if med := medianInPlace(vals); med > 0 {
		dev = bestV / med
	}
	co = &model.Coordinate{OptimizerStep: model.IntPtr(pre.step), Rank: best, TargetName: pre.target,
		Norm: model.Float(bestV), DeviationRatio: model.Float(dev)}
	s.reason(model.P2PreCoordBrief{Step: pre.step, Rank: best})
	s.decide(model.P2PreCoord{Step: pre.step, Target: pre.target, Rank: best, Norm: bestV, Dev: dev})
	if withBaseline {
		verify = model.P2PreNoCompareBrief{Step: pre.step}
		s.decide(model.P2PreNoCompare{})
	}
	return co, verify, s
}
