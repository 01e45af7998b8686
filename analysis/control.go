package analysis

import (
	"math"
	"path/filepath"
	"sort"

	"spikescope/model"
)

// Automatic choice of the control group (seed Step 3.1): C is another rank
// of A's step, else another step of A's rank, taken from A's own dump tree;
// it must not be a Phase 1 candidate and its parameter-gradient norm must be
// at the tree's normal level (below the 75th percentile). D is B's tree at
// C's (step, rank). When nothing qualifies the choice is refused with the
// reason, and the user is asked for a normal sample.

// controlPercentile is the seed's "normal level" cut (P75).
const controlPercentile = 0.75

// sameLayersShare is the share of A's module paths a candidate must hold to
// count as holding the same layers (pipeline stages hold different ones).
const sameLayersShare = 0.9

// ControlCandidate is one candidate for C with the filters' verdict.
type ControlCandidate = model.ControlCandidate

// ControlChoice is the result of ChooseControl. C is nil when no candidate
// qualifies; Reason then says why (the UI asks the user). Why is what
// Reason says (words fills Reason from it, and the candidates' Reason from
// theirs).
type ControlChoice struct {
	C, D       *model.Dump        `json:"-"`
	Candidates []ControlCandidate `json:"candidates"`
	P75        model.Float        `json:"p75"`
	Reason     string             `json:"reason"`
	Why        model.Reason       `json:"-"`
}

// gradNormOver is a dump's total parameter-gradient norm: the last
// parameters_grad record of every module (cumulative over micro-batches),
// combined as sqrt(Σ norm²). NaN without parameters_grad; ±Inf/NaN values
// propagate (a non-finite gradient is a spike). Only the modules in keep
// count (nil: all).
func gradNormOver(d *model.Dump, keep map[string]bool) float64 {
	last := map[string]int{}
	var order []string
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Direction != model.ParamGrad {
			continue
		}
		k := modulePathOf(op)
		if keep != nil && !keep[k] {
			continue
		}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = i
	}
	ops := make([]int, len(order))
	for i, k := range order {
		ops[i] = last[k]
	}
	return combinedParamNorm(d, ops)
}

// combinedParamNorm combines the parameter-gradient norms recorded by the
// ops at the given indexes of d, in that order, as sqrt(Σ norm²). NaN when
// none records a norm; ±Inf/NaN propagate.
func combinedParamNorm[I int | int32](d *model.Dump, ops []I) float64 {
	sum, any := 0.0, false
	for _, i := range ops {
		for _, p := range d.Ops[i].Params {
			if p.Has[model.StatNorm] {
				n := p.Stat[model.StatNorm]
				sum += n * n
				any = true
			}
		}
	}
	if !any {
		return math.NaN()
	}
	return math.Sqrt(sum)
}

// ChooseControl picks C (and D) for anomalous dump a from tree aTree (A's
// own tree, or a separate tree of normal samples); bTree is the baseline
// tree (nil: no D). p1 may be nil (no Phase 1 filter).
func ChooseControl(aTree *model.DumpTree, a *model.Dump, bTree *model.DumpTree, p1 *model.Phase1Result) ControlChoice {
	ch := ControlChoice{Candidates: []ControlCandidate{}, P75: model.Float(math.NaN())}
	if aTree == nil || a == nil {
		ch.Why = model.P3ControlNoTree{}
		return ch
	}
	// Gradient norms of the whole tree → P75, over the parameters every
	// dump holds (commonGradModules).
	common := commonGradModules(aTree.Dumps)
	norms := map[*model.Dump]float64{}
	var finite []float64
	nonFinite := 0
	for _, d := range aTree.Dumps {
		n := gradNormOver(d, common)
		norms[d] = n
		switch {
		case model.Finite(n):
			finite = append(finite, n)
		case recordsGradNorm(d, common):
			nonFinite++
		}
	}
	sort.Float64s(finite)
	p75 := math.NaN()
	switch {
	case len(finite) >= 2:
		// non-finite norms are outliers: left out, as before
		p75 = interpQuantile(finite, controlPercentile)
	case len(finite) == 1 && nonFinite > 0:
		// Too few finite norms: a non-finite gradient is the tree's
		// strongest spike and ranks at the top (a two-rank tree whose A
		// overflowed still has a normal level: the other rank's).
		ranked := append(finite, math.Inf(1))
		p75 = spikeRankQuantile(ranked, controlPercentile)
	}
	ch.P75 = model.Float(p75)
	anomalous := map[[2]int]bool{}
	if p1 != nil {
		for _, an := range p1.Anomalies {
			// A single-step dump's Phase 1 list is a ranking of the largest
			// gradient norms (dump_abs_norm), healthy ranks included, not a
			// verdict: the P75 rule below judges those ranks.
			if an.Trigger == triggerDumpAbsNorm {
				continue
			}
			// dump step folders count optimizer steps (debugger.step())
			anomalous[[2]int{an.OptStep(), an.Rank}] = true
		}
	}
	// Candidates: other ranks of A's step (nearest rank first), then other
	// steps of A's rank (nearest step first).
	// When A is not part of the tree (a separate folder of normal samples
	// given as C), every dump of it is a candidate, nearest step first.
	inTree := false
	for _, d := range aTree.Dumps {
		if d == a {
			inTree = true
		}
	}
	var sameStep, sameRank, others []*model.Dump
	for _, d := range aTree.Dumps {
		if d == a || (inTree && d.Step == a.Step && d.Rank == a.Rank) || (d.Path != "" && filepath.Clean(d.Path) == filepath.Clean(a.Path)) {
			continue // A itself (also when loaded twice)
		}
		switch {
		case d.Step == a.Step:
			sameStep = append(sameStep, d)
		case d.Rank == a.Rank:
			sameRank = append(sameRank, d)
		case !inTree:
			others = append(others, d)
		}
	}
	sort.SliceStable(sameStep, func(i, j int) bool { return intAbs(sameStep[i].Rank-a.Rank) < intAbs(sameStep[j].Rank-a.Rank) })
	sort.SliceStable(sameRank, func(i, j int) bool { return intAbs(sameRank[i].Step-a.Step) < intAbs(sameRank[j].Step-a.Step) })
	sort.SliceStable(others, func(i, j int) bool {
		di, dj := intAbs(others[i].Step-a.Step), intAbs(others[j].Step-a.Step)
		if di != dj {
			return di < dj
		}
		return intAbs(others[i].Rank-a.Rank) < intAbs(others[j].Rank-a.Rank)
	})
	cands := append(append(sameStep, sameRank...), others...)
	if len(cands) == 0 {
		ch.Why = model.P3ControlNoCandidate{}
		return ch
	}
	aPaths := modulePathSet(a)
	var spiking, undecidable int
	best := -1
	bestScore := -1
	bestDist := math.NaN()
	for _, d := range cands {
		n := norms[d]
		c := ControlCandidate{Step: d.Step, Rank: d.Rank, GradNorm: model.Float(n)}
		switch {
		case anomalous[[2]int{d.Step, d.Rank}]:
			c.Why = []model.Reason{model.P3CandAnomaly{}}
			spiking++
		case math.IsNaN(n) && !hasParamGrad(d):
			c.Why = []model.Reason{model.P3CandNoParamGrad{}}
			undecidable++
		case !model.Finite(n):
			c.Why = []model.Reason{model.P3CandNonFinite{}}
			spiking++
		case math.IsNaN(p75):
			c.Why = []model.Reason{model.P3CandTooFew{}}
			undecidable++
		case n > p75:
			c.Why = []model.Reason{model.P3CandAboveP75{Norm: n, P75: p75}}
			spiking++
		default:
			c.Accepted = true
			c.SameLayers = sharesPaths(aPaths, d)
			if bTree != nil {
				c.HasD = bTree.Find(d.Step, d.Rank) != nil
			}
			c.Why = []model.Reason{model.P3CandNormal{Norm: n, P75: p75}}
			if why := otherStage(p1, a.Rank, d.Rank); why != nil {
				c.SameLayers = false // the same layer numbers, other layers (stages_control.go)
				c.Why = append(c.Why, why)
			} else if !c.SameLayers {
				c.Why = append(c.Why, model.P3CandOtherLayers{})
			}
			dist := stageDistance(a, d)
			c.ProfileDistance = floatPtr(dist)
			score := 0
			if c.SameLayers {
				score += 2
			}
			if c.HasD {
				score++
			}
			if score > bestScore || score == bestScore && closerProfile(dist, bestDist) {
				best, bestScore, bestDist = len(ch.Candidates), score, dist
			}
		}
		ch.Candidates = append(ch.Candidates, c)
	}
	if best < 0 {
		switch {
		case undecidable == 0:
			ch.Why = model.P3ControlAllSpike{Spiking: spiking}
		case spiking == 0:
			ch.Why = model.P3ControlUndecidable{}
		default:
			ch.Why = model.P3ControlNone{Spiking: spiking, Undecidable: undecidable}
		}
		return ch
	}
	c := ch.Candidates[best]
	ch.C = aTree.Find(c.Step, c.Rank)
	if bTree != nil {
		ch.D = bTree.Find(c.Step, c.Rank)
	}
	why := model.P3ControlChosen{Step: c.Step, Rank: c.Rank, Why: c.Why, HasD: ch.D != nil}
	if common != nil {
		why.Common = model.IntPtr(len(common))
	}
	ch.Why = why
	return ch
}

// recordsGradNorm reports whether d records a gradient norm (finite or
// not) for a module in keep (nil: all): a NaN total from a recorded NaN or
// ±Inf is a spike, a NaN from no recorded norm (md5/xor dumps) is not.
func recordsGradNorm(d *model.Dump, keep map[string]bool) bool {
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Direction != model.ParamGrad || keep != nil && !keep[modulePathOf(op)] {
			continue
		}
		for _, p := range op.Params {
			if p.Has[model.StatNorm] {
				return true
			}
		}
	}
	return false
}

// spikeRankQuantile is interpQuantile over sorted norms whose top entries
// may be +Inf (non-finite gradients): between a finite norm and +Inf the
// interpolation is undefined, so the quantile is the finite neighbour below.
func spikeRankQuantile(sorted []float64, q float64) float64 {
	h := q * float64(len(sorted)-1)
	lo := int(math.Floor(h))
	if lo < len(sorted)-1 && math.IsInf(sorted[lo+1], 1) {
		return sorted[lo]
	}
	return interpQuantile(sorted, q)
}

func hasParamGrad(d *model.Dump) bool {
	for i := range d.Ops {
		if d.Ops[i].Direction == model.ParamGrad {
			return true
		}
	}
	return false
}

// modulePathSet is the set of forward module paths of a dump.
func modulePathSet(d *model.Dump) map[string]bool {
	s := map[string]bool{}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Kind == model.KindModule && op.Direction == model.Forward {
			s[modulePathOf(op)] = true
		}
	}
	return s
}

// sharesPaths reports whether d holds at least sameLayersShare of A's
// forward module paths.
func sharesPaths(aPaths map[string]bool, d *model.Dump) bool {
	if len(aPaths) == 0 {
		return true
	}
	have := 0
	for p := range modulePathSet(d) {
		if aPaths[p] {
			have++
		}
	}
	return float64(have) >= sameLayersShare*float64(len(aPaths))
}

func intAbs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// Pipeline stages number their layers locally (every stage holds
// "layers.0" … "layers.11"), so module paths cannot tell a rank of A's
// stage from a rank of another stage. Two ranks of the same stage run the
// same layers with the same weights on other data; another stage runs
// deeper or shallower layers, whose weights and activation scales differ.

// stageMaxOps bounds the module records compared by stageDistance.
const stageMaxOps = 4096

// stageDistance is the median |ln(x_d / x_a)| over forward module records
// present in both dumps under the same key, x being the weight Norm when
// both records carry parameters (equal within a stage: the same weights),
// else the output Norm (close within a stage: the same layers). NaN when
// nothing is comparable. A fault in A moves only the records after it: the
// median ignores them.
func stageDistance(a, d *model.Dump) float64 {
	var ds []float64
	n := 0
	for i := range a.Ops {
		op := &a.Ops[i]
		if op.Kind != model.KindModule || op.Direction != model.Forward {
			continue
		}
		if n++; n > stageMaxOps {
			break
		}
		od := d.Op(op.Key)
		if od == nil {
			continue
		}
		x, y := math.NaN(), math.NaN()
		if len(op.Params) > 0 && len(od.Params) > 0 && op.Params[0].Has[model.StatNorm] && od.Params[0].Has[model.StatNorm] {
			x, y = op.Params[0].Stat[model.StatNorm], od.Params[0].Stat[model.StatNorm]
		} else if ta, tb := primaryTensor(op), primaryTensor(od); ta != nil && tb != nil && ta.Has[model.StatNorm] && tb.Has[model.StatNorm] {
			x, y = ta.Stat[model.StatNorm], tb.Stat[model.StatNorm]
		}
		if model.Finite(x) && model.Finite(y) && x > 0 && y > 0 {
			ds = append(ds, math.Abs(math.Log(y/x)))
		}
	}
	if len(ds) == 0 {
		return math.NaN()
	}
	sort.Float64s(ds)
	return interpQuantile(ds, 0.5)
}

// closerProfile: a candidate at distance d beats the best so far at b when
// it is clearly closer (NaN never wins; ties keep the nearer rank, which
// came first).
func closerProfile(d, b float64) bool {
	if !model.Finite(d) {
		return false
	}
	if !model.Finite(b) {
		return true
	}
	return d < b*0.5 && b-d > 0.01
}

// commonGradModules is the set of modules with parameter gradients in every
// dump of the tree that has any, or nil when every such dump holds the same
// set. Pipeline stages hold different parameters: the first stage's
// embedding (often the largest gradient of the model) or the last stage's
// output layer would put a whole stage above the tree's P75 and make its
// ranks "spiking", leaving only other stages as C. Norms over the common
// parameters (the transformer layers every stage holds) compare like with
// like. nil also when nothing is common (the totals are then all there is).
func commonGradModules(ds []*model.Dump) map[string]bool {
	var common map[string]bool
	differ := false
	for _, d := range ds {
		set := map[string]bool{}
		for i := range d.Ops {
			if op := &d.Ops[i]; op.Direction == model.ParamGrad {
				set[modulePathOf(op)] = true
			}
		}
		if len(set) == 0 {
			continue
		}
		if common == nil {
			common = set
			continue
		}
		if len(set) != len(common) {
			differ = true
		}
		for k := range common {
			if !set[k] {
				delete(common, k)
				differ = true
			}
		}
	}
	if !differ || len(common) == 0 {
		return nil
	}
	return common
}
