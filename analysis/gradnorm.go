package analysis

import (
	"cmp"
	"math"
	"slices"
	"sort"

	"spikescope/model"
)

// The window of GradNormAround: this many optimizer steps before the root
// step (its reference level is their median) and after it.
const (
	gradNormBefore = 3
	gradNormAfter  = 2
	// gradNormNonFinite is how many non-finite (rank, parameter) pairs of
	// the root step the result lists by name (it counts them all).
	gradNormNonFinite = 10
	// gradNormReduced is the metric of the gradient after the data-parallel
	// average: what the optimizer sees and the log's norm sums.
	gradNormReduced = "grad_reduced"
)

// GradNormAround is the global gradient norm of every rank at the root
// optimizer step and the steps around it, from the monitor rows d that
// Phase 1 analysed (p1), and the share of its increase by parameter, layer
// and rank (Phase 2's root step seen as the training log sees it: one
// number per step). root is Phase 2's root optimizer step; nil: the run
// has none, and the result holds the run's latest steps and no share.
//
// A rank's norm is sqrt(Σ n²) over its parameters, n the norm of each
// parameter's whole-step gradient: the row of the step's last micro step
// (the cumulative gradient) on micro-step data. The increase is Σ n² at the
// root step against the reference level — each (rank, parameter)'s median
// n² over the window's steps before the root — and splits exactly into
// the pairs' Δn²; a NaN/Inf at the root step or a decrease is reported
// as such, never shared out. nil when d holds no rows of p1's metric.
func GradNormAround(d *model.MonitorData, p1 *model.Phase1Result, root *int) *model.GradNorm {
	if d == nil || p1 == nil {
		return nil
	}
	mi := d.MetricIndex(p1.Metric)
	if mi < 0 && len(d.Metrics) == 1 {
		mi = 0
	}
	if mi < 0 {
		return nil
	}
	g := &model.GradNorm{Metric: d.Metrics[mi]}
	if root != nil {
		g.Root = model.IntPtr(*root)
	}
	optOf, ok := optStepFunc(p1)
	if !ok {
		return g
	}
	g.StepsKnown = true
	steps := gradNormSteps(d, mi, optOf)
	if len(steps) == 0 {
		return nil
	}
	g.Steps = gradNormWindow(steps, g.Root)
	vals, params := gradNormFinal(d, mi, optOf, g.Steps)
	g.Ranks = vals.ranks()
	gradNormPerRank(g, vals)
	gradNormModel(g, d.Stages, vals)
	if ri := d.MetricIndex(gradNormReduced); ri >= 0 && ri != mi {
		gradNormReducedNorm(g, d, ri, optOf)
	}
	ri := g.RootIndex()
	for i, s := range g.Steps {
		var sh model.GradNormShare
		switch {
		case ri < 0:
			sh.Outcome = model.ShareNoRoot
		case i < ri:
			sh.Outcome = model.ShareReference
		default:
			sh = gradNormShare(g, d, p1, vals, params, ri, i)
		}
		sh.Step = s
		g.Shares = append(g.Shares, sh)
	}
	g.PeakStep = gradNormPeak(g, DefaultMinEffect)
	return g
}

// gradNormSteps are the optimizer steps of metric mi's rows, ascending.
func gradNormSteps(d *model.MonitorData, mi int, optOf func(int32) int) []int {
	seen := map[int]bool{}
	r := &d.Rows
	for run := range r.Runs() {
		if int(run.Metric) != mi {
			continue
		}
		last := math.MinInt
		for i := run.Lo; i < run.Hi; i++ {
			if o := optOf(r.Step[i]); o != last {
				seen[o], last = true, o
			}
		}
	}
	out := make([]int, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// gradNormWindow is the root step with gradNormBefore steps before it and
// gradNormAfter after it (fewer at the ends of the run); without a root,
// the run's latest steps.
func gradNormWindow(steps []int, root *int) []int {
	n := gradNormBefore + 1 + gradNormAfter
	if root == nil {
		return slices.Clone(steps[max(0, len(steps)-n):])
	}
	i, _ := slices.BinarySearch(steps, *root)
	lo, hi := max(0, i-gradNormBefore), min(len(steps), i+gradNormAfter+1)
	out := slices.Clone(steps[lo:i])
	out = append(out, *root) // a root without rows stays in the window (its norms NaN)
	for _, s := range steps[i:hi] {
		if s != *root {
			out = append(out, s)
		}
	}
	return out
}

// gnParam is one parameter of the decomposition: its name as analysed
// and its model chunk (a trend.db may split one parameter over several
// targets by micro step: they are one parameter here).
type gnParam struct {
	name string
	vpp  int
}

// gnKey is one (window step, rank, parameter).
type gnKey struct{ step, rank, param int }

// gnVal is the last row of a gnKey: its position in the step and the
// norm there.
type gnVal struct {
	step, micro int32
	v           float64
}

type gnVals map[gnKey]gnVal

// sorted are the keys in (step, rank, parameter) order: every sum adds in
// this order, so that the same rows give the same last digits.
func (v gnVals) sorted() []gnKey {
	out := make([]gnKey, 0, len(v))
	for k := range v {
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b gnKey) int {
		return cmp.Or(cmp.Compare(a.step, b.step), cmp.Compare(a.rank, b.rank), cmp.Compare(a.param, b.param))
	})
	return out
}

func (v gnVals) ranks() []int {
	seen := map[int]bool{}
	for k := range v {
		seen[k.rank] = true
	}
	out := make([]int, 0, len(seen))
	for r := range seen {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// gradNormFinal is every parameter's whole-step norm on every rank at the
// window's steps: the row of the step's last micro step.
func gradNormFinal(d *model.MonitorData, mi int, optOf func(int32) int, window []int) (gnVals, []gnParam) {
	at := map[int]int{}
	for i, s := range window {
		at[s] = i
	}
	pid := map[gnParam]int{}
	var params []gnParam
	tp := make([]int, len(d.Targets)) // target → parameter, -1 unseen
	for i := range tp {
		tp[i] = -1
	}
	vals := gnVals{}
	r := &d.Rows
	first, last := window[0], window[len(window)-1]
	for run := range r.Runs() {
		if int(run.Metric) != mi {
			continue
		}
		t := &d.Targets[run.Target]
		for i := run.Lo; i < run.Hi; i++ {
			o := optOf(r.Step[i])
			if o < first || o > last { // most rows: no map lookup
				continue
			}
			si, ok := at[o]
			if !ok {
				continue
			}
			p := tp[run.Target]
			if p < 0 {
				gp := gnParam{t.Name, t.VPPStage}
				if q, seen := pid[gp]; seen {
					p = q
				} else {
					p = len(params)
					pid[gp] = p
					params = append(params, gp)
				}
				tp[run.Target] = p
			}
			micro := r.MicroOf(i)
			if micro == model.NoMicro && t.MicroStep > 0 {
				micro = int32(t.MicroStep)
			}
			k := gnKey{si, int(run.Rank), p}
			if l, seen := vals[k]; seen && (l.step > r.Step[i] || l.step == r.Step[i] && l.micro >= micro) {
				continue
			}
			vals[k] = gnVal{r.Step[i], micro, r.Norm[i]}
		}
	}
	return vals, params
}

// gradNormPerRank fills Norm, Params and NonFinite: sqrt(Σ n²) per step and
// rank (NaN and Inf propagate as the sum of squares does).
func gradNormPerRank(g *model.GradNorm, vals gnVals) {
	ri := map[int]int{}
	for j, r := range g.Ranks {
		ri[r] = j
	}
	sq := make([][]float64, len(g.Steps))
	g.Norm, g.Params, g.NonFinite = make([][]model.Float, len(g.Steps)), make([][]int, len(g.Steps)), make([][]int, len(g.Steps))
	for i := range g.Steps {
		sq[i] = make([]float64, len(g.Ranks))
		g.Params[i], g.NonFinite[i] = make([]int, len(g.Ranks)), make([]int, len(g.Ranks))
	}
	for _, k := range vals.sorted() {
		v := vals[k]
		j := ri[k.rank]
		sq[k.step][j] += v.v * v.v
		g.Params[k.step][j]++
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			g.NonFinite[k.step][j]++
		}
	}
	for i := range g.Steps {
		g.Norm[i] = make([]model.Float, len(g.Ranks))
		for j := range g.Ranks {
			n := math.Sqrt(sq[i][j])
			if g.Params[i][j] == 0 {
				n = math.NaN()
			}
			g.Norm[i][j] = model.Float(n)
		}
	}
}

// gradNormModel fills the model's norm with pipeline stages: one rank of
// every stage (the lowest) together.
func gradNormModel(g *model.GradNorm, p *model.StageLayout, vals gnVals) {
	if p == nil || !p.Inferred || p.Stages < 2 {
		return
	}
	g.StageRanks = p.StageRanks()
	for _, rs := range g.StageRanks {
		if len(rs) == 0 {
			g.ModelRanks = nil
			return // a stage without ranks: the model's norm cannot be summed
		}
		g.ModelRanks = append(g.ModelRanks, rs[0])
	}
	for i := range g.Steps {
		sum := 0.0
		for _, r := range g.ModelRanks {
			j, ok := slices.BinarySearch(g.Ranks, r)
			if !ok || g.Params[i][j] == 0 {
				sum = math.NaN()
				break
			}
			n := float64(g.Norm[i][j])
			sum += n * n
		}
		g.Model = append(g.Model, model.Float(math.Sqrt(sum)))
	}
}

// layerKey is the layer a parameter belongs to: the model's layer number
// when it is known, else the stage-local number with its stage and chunk;
// layer -1 gathers the parameters outside the layers.
type layerKey struct {
	layer, stage, vpp int
	global            bool
}

// gradLayer is the layer of parameter p on rank.
func gradLayer(p gnParam, rank int, pl *model.StageLayout, unsplit *model.StageLayout) layerKey {
	n, ok := model.LayerIndex(p.name)
	if !ok {
		return layerKey{layer: -1, stage: -1, global: true}
	}
	st, _, split := model.SplitStageName(p.name)
	if !split {
		st = pl.StageOf(rank)
	}
	if st >= 0 {
		if gl := pl.GlobalLayer(st, p.vpp, n); gl >= 0 {
			return layerKey{layer: gl, stage: -1, global: true}
		}
		return layerKey{layer: n, stage: st, vpp: p.vpp}
	}
	// no stages: the name's number is the model's layer, unless stages
	// exist that could not be told apart or the parameter is in a chunk
	shaky := unsplit != nil && !unsplit.Inferred && unsplit.Note != ""
	if p.vpp == 0 && !shaky {
		return layerKey{layer: n, stage: -1, global: true}
	}
	return layerKey{layer: n, stage: -1, vpp: p.vpp}
}

// gradNormShare shares the increase of Σ n² at window step si (the root
// step ri or a later one) over the reference level (the steps before ri)
// out over the (rank, parameter) pairs, and sums it per parameter, layer
// and rank.
func gradNormShare(g *model.GradNorm, d *model.MonitorData, p1 *model.Phase1Result, vals gnVals, params []gnParam, ri, si int) model.GradNormShare {
	var sh model.GradNormShare
	for _, s := range g.Steps[:ri] {
		sh.Reference = append(sh.Reference, s)
	}
	// the root step's non-finite norms answer by themselves
	keys := vals.sorted()
	for _, k := range keys {
		v := vals[k]
		if k.step != si || !(math.IsNaN(v.v) || math.IsInf(v.v, 0)) {
			continue
		}
		sh.NonFiniteCount++
		sh.NonFiniteParts = append(sh.NonFiniteParts, model.GradNormPart{
			Param: params[k.param].name, Rank: k.rank, Root: model.Float(v.v), Layer: -1, Stage: -1,
		})
	}
	if sh.NonFiniteCount > 0 {
		sh.Outcome = model.ShareNonFinite
		slices.SortFunc(sh.NonFiniteParts, func(a, b model.GradNormPart) int {
			return cmp.Or(cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Param, b.Param))
		})
		sh.NonFiniteParts = sh.NonFiniteParts[:min(len(sh.NonFiniteParts), gradNormNonFinite)]
		return sh
	}
	if ri == 0 {
		sh.Outcome = model.ShareNoReference
		return sh
	}
	type pair struct{ rank, param int }
	ref := map[pair][]float64{}
	root := map[pair]float64{}
	var order []pair // the root step's pairs, by rank then parameter
	for _, k := range keys {
		v := vals[k]
		if math.IsNaN(v.v) || math.IsInf(v.v, 0) {
			continue
		}
		p := pair{k.rank, k.param}
		switch {
		case k.step == si:
			root[p] = v.v * v.v
			order = append(order, p)
		case k.step < ri:
			ref[p] = append(ref[p], v.v*v.v)
		}
	}
	byParam := map[int]*model.GradNormPart{}
	byLayer := map[layerKey]*model.GradNormPart{}
	byRank := map[int]*model.GradNormPart{}
	pl := d.Stages
	var unsplit *model.StageLayout
	if pl == nil {
		unsplit = p1.Sharding.Stages
	}
	layerRanks := map[layerKey]map[int]bool{}
	add := func(part *model.GradNormPart, r0, r1 float64) {
		part.Ref += model.Float(r0)
		part.Root += model.Float(r1)
	}
	for _, p := range order {
		r1 := root[p]
		rs, ok := ref[p]
		if !ok {
			sh.Uncompared++
			continue
		}
		r0 := medianInPlace(rs)
		sh.Compared++
		sh.RefSq += model.Float(r0)
		sh.RootSq += model.Float(r1)
		gp := params[p.param]
		lk := gradLayer(gp, p.rank, pl, unsplit)
		if byParam[p.param] == nil {
			byParam[p.param] = &model.GradNormPart{Param: gp.name, Layer: lk.layer, GlobalLayer: lk.global, Stage: lk.stage, VPP: gp.vpp, Rank: -1}
		}
		byParam[p.param].Ranks++
		add(byParam[p.param], r0, r1)
		if byLayer[lk] == nil {
			byLayer[lk] = &model.GradNormPart{Layer: lk.layer, GlobalLayer: lk.global, Stage: lk.stage, VPP: lk.vpp, Rank: -1}
			layerRanks[lk] = map[int]bool{}
		}
		layerRanks[lk][p.rank] = true
		add(byLayer[lk], r0, r1)
		if byRank[p.rank] == nil {
			byRank[p.rank] = &model.GradNormPart{Rank: p.rank, Layer: -1, Stage: -1}
		}
		add(byRank[p.rank], r0, r1)
	}
	for p := range ref {
		if _, ok := root[p]; !ok {
			sh.Uncompared++
		}
	}
	if sh.Compared == 0 {
		sh.Outcome = model.ShareNoReference
		return sh
	}
	delta := float64(sh.RootSq - sh.RefSq)
	if !(delta > 0) {
		sh.Outcome = model.ShareDecrease
		return sh
	}
	sh.Outcome = model.ShareIncrease
	for lk, part := range byLayer {
		part.Ranks = len(layerRanks[lk])
	}
	sh.ByParam = gradParts(byParam, delta)
	sh.ByLayer = gradParts(byLayer, delta)
	sh.ByRank = gradParts(byRank, delta)
	return sh
}

// gradParts lists the parts with their share of delta, largest first (ties
// by layer, rank, name: the order does not depend on map order).
func gradParts[K comparable](m map[K]*model.GradNormPart, delta float64) []model.GradNormPart {
	out := make([]model.GradNormPart, 0, len(m))
	for _, p := range m {
		p.Share = model.Float(float64(p.Root-p.Ref) / delta)
		out = append(out, *p)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := &out[i], &out[j]
		if a.Share != b.Share {
			return a.Share > b.Share
		}
		return cmp.Or(cmp.Compare(a.Layer, b.Layer), cmp.Compare(a.Stage, b.Stage), cmp.Compare(a.VPP, b.VPP),
			cmp.Compare(a.Rank, b.Rank), cmp.Compare(a.Param, b.Param)) < 0
	})
	return out
}

// gradNormPeak is the step the log shows as the spike, from the root step
// on: the first non-finite one, else the largest Σ n² whose all-rank norm
// rose at least minEffect times the reference's (a rise within the noise
// is no spike); nil when none.
func gradNormPeak(g *model.GradNorm, minEffect float64) *int {
	best := -1
	for i := range g.Shares {
		s := &g.Shares[i]
		switch s.Outcome {
		case model.ShareNonFinite:
			return model.IntPtr(s.Step)
		case model.ShareIncrease:
			if float64(s.RootSq) >= minEffect*minEffect*float64(s.RefSq) && (best < 0 || s.RootSq > g.Shares[best].RootSq) {
				best = i
			}
		}
	}
	if best < 0 {
		return nil
	}
	return model.IntPtr(g.Shares[best].Step)
}

// gradNormReducedNorm fills Reduced: the model's norm in grad_reduced per
// window step, over the lowest rank holding reduced rows of every stage
// (one rank when the run has one stage).
func gradNormReducedNorm(g *model.GradNorm, d *model.MonitorData, mi int, optOf func(int32) int) {
	vals, _ := gradNormFinal(d, mi, optOf, g.Steps)
	has := map[int]bool{}
	for k := range vals {
		has[k.rank] = true
	}
	var ranks []int
	if g.StageRanks != nil {
		for _, rs := range g.StageRanks {
			pick := -1
			for _, r := range rs {
				if has[r] {
					pick = r
					break
				}
			}
			if pick < 0 {
				return // a stage without reduced rows: no model norm
			}
			ranks = append(ranks, pick)
		}
	} else {
		for r := range has {
			if len(ranks) == 0 || r < ranks[0] {
				ranks = []int{r}
			}
		}
	}
	if len(ranks) == 0 {
		return
	}
	sq := make([]float64, len(g.Steps))
	seen := make([]map[int]bool, len(g.Steps)) // the ranks with rows at each step
	for _, k := range vals.sorted() {
		if slices.Contains(ranks, k.rank) {
			v := vals[k].v
			sq[k.step] += v * v
			if seen[k.step] == nil {
				seen[k.step] = map[int]bool{}
			}
			seen[k.step][k.rank] = true
		}
	}
	g.ReducedRanks = ranks
	for i := range g.Steps {
		v := math.Sqrt(sq[i])
		if len(seen[i]) < len(ranks) {
			v = math.NaN() // a stage without its rows: no model norm
		}
		g.Reduced = append(g.Reduced, model.Float(v))
	}
}
