package analysis

import (
	"math"
	"strings"
	"sync"

	"spikescope/model"
)

// Phase 3 — four-group layer trace (method.md "Phase 3", seed Steps
// 3.1–3.6): compare A (anomalous) with B (its baseline) layer by layer,
// judged against the noise of C (nearby normal) vs D (C's baseline), find
// the first divergent layer per metric and direction, iterate the metrics
// to the earliest start, and drill down to the first divergent operator.

// Phase3Input are the four groups. A and B are required; C and D together
// make the control group (without them the comparison is degraded).
type Phase3Input struct {
	A, B, C, D *model.Dump
	// Anchors overrides the automatic anchor choice (--anchors).
	Anchors []string
	Phase1  *model.Phase1Result
	// ControlNote says how C/D were chosen (ChooseControl's reason) and
	// ControlCandidates what was considered.
	ControlNote       model.Reason
	ControlCandidates []model.ControlCandidate
	// BaselineGroup is "C" when B is the nearby normal sample C of A's own
	// device standing in for a missing baseline dump (the output then names
	// that column C and hedges its conclusion); "" for a real B.
	BaselineGroup string
	// LayerMapping is msprobe's layer-mapping file (--layer-mapping): the
	// name map across frameworks; nil = the built-in map when A and B
	// come from different frameworks.
	LayerMapping *model.LayerMapping
}

// Phase3Options are the tunables of Phase 3.
type Phase3Options struct {
	IQRMult     float64 // band: spread = max(IQRMult·IQR/|median|, SpreadFloor)
	SpreadFloor float64
	// Call is the call number (micro-batch order) of a module whose record
	// represents an anchor; the first call when the module ran fewer times.
	// Negative = automatic: the micro step of Phase 1's anomaly at A's
	// (step, rank) when there is one, else the first call.
	Call int
}

// DefaultPhase3Options are the seed's constants.
func DefaultPhase3Options() Phase3Options {
	return Phase3Options{IQRMult: bandIQRMult, SpreadFloor: bandSpreadFloor, Call: -1}
}

// anchorCall resolves Phase3Options.Call: an explicit call, else the micro
// step of the earliest Phase 1 anomaly at A's (step, rank), else 0 (and
// the calls are searched). A Phase 1 that ran on the dumps' own gradients
// does not say the call: its micro steps count parameters_grad records
// across the dumped steps, and a cumulative gradient can cross the
// threshold before the faulty micro-batch.
func anchorCall(opt Phase3Options, a *model.Dump, p1 *model.Phase1Result) (int, model.Reason) {
	if opt.Call >= 0 {
		return opt.Call, nil
	}
	if p1 != nil && p1.Format != model.FormatDump {
		for _, an := range p1.Anomalies {
			if an.Rank == a.Rank && an.OptStep() == a.Step && an.MicroPos() >= 0 {
				why := model.P3CallOfAnomaly{MicroBatch: an.MicroPos() + 1}
				if an.MicroStep != nil {
					why.MicroStep = model.IntPtr(*an.MicroStep)
				}
				return an.MicroPos(), why
			}
		}
	}
	return 0, nil
}

// inferredLayerPrefix is the layer prefix reported for layers inferred
// from an API-only dump's repeating sequence.
const inferredLayerPrefix = "inferred_layer."

// directions of the comparison, in output order.
var p3Dirs = []struct {
	name string
	dir  model.Direction
}{{"fwd", model.Forward}, {"bwd", model.Backward}}

// cell is one (anchor, layer, direction) comparison.
type cell struct {
	a, b, c, d  int32
	abOK, cdOK  bool
	abWhy       model.Reason
	cdWhy       model.Reason
	present     bool
	va, vb      [model.NumStats]float64
	vc, vd      [model.NumStats]float64
	ab, cd, deg [model.NumStats]float64
	flag        [model.NumStats]bool
	// nf: statistic non-finite in A where B's same record is finite (a
	// non-finite divergence: flagged, no ratio); nfAny: any of them.
	nf    [model.NumStats]bool
	nfAny bool
	// fixed: the statistic is fixed by construction (phase3_fixed.go): its
	// control ratio is no sample of a band
	fixed [model.NumStats]bool
	// masked: the compared tensor is masked the same way in every group
	// (maskedPair): nothing to compare, and not a failure to compare
	masked bool
}

// p3 carries one run.
// p3Groups are the four groups' indexed dumps, read-only once indexed:
// the input of Phase 3's rules, never a sink of their results.
type p3Groups struct {
	ia, ib, ic, id *dumpIndex
	// hasCD: the control pair C/D is there (else degraded: A/B alone)
	hasCD bool
	// nameB names the baseline column ("B", or "C" standing in for it).
	nameB string
	// nfHas: per pass, whether A has a non-finite float output at all
	// (nonFinitePasses)
	nfHas [2]bool
	// fixedOps: per record of the control dump (C; A when degraded), the
	// statistics its kind fixes (bit m for statistic m; learnFixedKinds)
	fixedOps []uint8
}

// p3 is the trace's orchestration state: the read-only groups, the
// options, the comparisons counted for the family factor, the layers the
// summary flagged (kept for the Tracer's later drill-down bands) and two
// caches (gradient norms; degraded drill-down bands per layer and pass).
type p3 struct {
	p3Groups
	opt    Phase3Options
	scheme *layerScheme
	// comparisons is the number of anchor × layer × metric comparisons of
	// one pass (familyFactor).
	comparisons int
	// callsSearched: the micro-batches compared to pick the divergent one
	// (each adds its comparisons to the family).
	callsSearched int
	grads         map[gradKey]float64 // gradNorm results (rows are rebuilt per call)
	// judged: per pass, the layers flagged by the summary (degraded op
	// bands leave them out); opBands caches those bands per (layer, pass).
	judged  [2]map[int]bool
	opBands map[[2]int]map[string]map[string]model.Band
}

type gradKey struct {
	x      *dumpIndex
	layer  int
	anchor string
}

// grad is gradNorm, memoised.
func (p *p3) grad(x *dumpIndex, layer int, anchor string) float64 {
	k := gradKey{x, layer, anchor}
	if v, ok := p.grads[k]; ok {
		return v
	}
	v := gradNorm(x, layer, anchor)
	p.grads[k] = v
	return v
}

// Phase3 runs the four-group trace.
func Phase3(in Phase3Input, opt Phase3Options) *model.Phase3Result {
	return NewTracer(in, opt).Result()
}

// Tracer is one Phase 3 run that keeps its indexed dumps, so that the
// operators of any layer can be listed afterwards (the UI's drill-down on
// a layer other than the start layer) without indexing again.
type Tracer struct {
	p   *p3 // nil when A or B is missing
	res *model.Phase3Result
}

// Result is the Phase 3 result.
func (t *Tracer) Result() *model.Phase3Result { return t.res }

// OpsForLayer compares every op of A in one layer and pass ("fwd"/"bwd")
// with the drill-down band, in the order their outputs were computed, at
// the call the layer table compares (as the drill-down does); anchor != ""
// keeps the ops below that anchor module.
func (t *Tracer) OpsForLayer(anchor string, layer int, dir string) []model.DrillOp {
	out := []model.DrillOp{}
	if t.p == nil {
		return out
	}
	d := model.Forward
	if dir == "bwd" {
		d = model.Backward
	}
	sc := newDrillScope(t.p.ia, layer, d, t.p.opt.Call)
	for k, i := range sc.ops {
		if anchor != "" && anchor != layerAnchor {
			sub := sc.subOf(k)
			if sub != anchor && !strings.HasPrefix(sub, anchor+".") {
				continue
			}
		}
		op := drillOp(&t.p.p3Groups, i, dir, t.p.cachedDrillBands(layer, dir, t.res.DivergenceSummary.Thresholds))
		op.Within = sc.within(k)
		out = append(out, op)
	}
	return out
}

// NewTracer runs the four-group trace.
func NewTracer(in Phase3Input, opt Phase3Options) *Tracer {
	t := &Tracer{}
	if opt.IQRMult <= 0 {
		opt.IQRMult = bandIQRMult
	}
	if opt.SpreadFloor <= 0 {
		opt.SpreadFloor = bandSpreadFloor
	}
	res := &model.Phase3Result{Phase: 3, Dirs: map[string]string{}, ControlChoiceReason: in.ControlNote, ControlCandidates: in.ControlCandidates,
		Anchors: []model.AnchorTable{}, AnchorsUsed: []string{}, LayerPrefix: defaultLayerWord + "."}
	for name, d := range map[string]*model.Dump{"A": in.A, "B": in.B, "C": in.C, "D": in.D} {
		if d != nil {
			res.Dirs[name] = d.Path
		}
	}
	t.res = res
	if in.A == nil || in.B == nil {
		res.WarningsReasons = append(res.WarningsReasons, model.P3NeedsAB{})
		res.DivergenceSummary = emptySummary()
		return t
	}
	p := &p3{opt: opt, grads: map[gradKey]float64{}, p3Groups: p3Groups{nameB: "B"}}
	if in.BaselineGroup == "C" {
		p.nameB = "C"
		res.BaselineGroup = "C"
	}
	t.p = p
	call, callNote := anchorCall(opt, in.A, in.Phase1)
	p.opt.Call = call
	if callNote != nil {
		res.WarningsReasons = append(res.WarningsReasons, callNote)
	}
	p.hasCD = in.C != nil && in.D != nil
	if !p.hasCD {
		res.Degraded = true
		res.DegradedNoteReason = model.P3NoControlGroup{}
		if in.C != nil || in.D != nil {
			res.WarningsReasons = append(res.WarningsReasons, model.P3OneControl{})
		}
	}
	dumps := []*model.Dump{in.A, in.B}
	if p.hasCD {
		dumps = append(dumps, in.C, in.D)
	}
	p.scheme = learnLayerScheme(dumps...)
	maps, mapNote := nameMaps(in.LayerMapping, p.scheme.Word, dumps)
	if maps != nil {
		p.scheme = learnLayerSchemeMapped(maps, dumps...)
		res.WarningsReasons = append(res.WarningsReasons, mapNote)
	}
	res.LayerPrefix = p.scheme.Prefix()
	// The dumps are indexed concurrently (the scheme is read-only now).
	idx := make([]*dumpIndex, len(dumps))
	var wg sync.WaitGroup
	for i, d := range dumps {
		var nm *nameMapper
		if maps != nil {
			nm = maps[i]
		}
		wg.Go(func() { idx[i] = indexDumpMapped(d, p.scheme, nm) })
	}
	wg.Wait()
	p.ia, p.ib = idx[0], idx[1]
	if p.hasCD {
		p.ic, p.id = idx[2], idx[3]
	}
	// A's outputs are scanned for the non-finite origins alongside the
	// comparison (the indices are read-only from here on)
	p.nfHas = nonFinitePasses(p.ia)
	_, p.fixedOps = learnFixedKinds(&p.p3Groups)
	if w := dtypeWarning(&p.p3Groups); w != nil {
		res.WarningsReasons = append(res.WarningsReasons, w)
	}
	var nfWG sync.WaitGroup
	var origins [2]*nfOrigin
	nfWG.Go(func() { origins = nonFiniteOrigins(&p.p3Groups) })
	anchors := in.Anchors
	if len(anchors) == 0 {
		anchors = discoverAnchors(p.ia, p.ib)
	}
	res.AnchorsUsed = nonNilStrings(anchors)
	layers := layerIDs(p.ia, p.ib, p.ic, p.id)
	switch {
	case p.ia.apiAnchors:
		res.LayerPrefix = inferredLayerPrefix
		res.WarningsReasons = append(res.WarningsReasons, model.P3InferredLayers{Layers: p.ia.inferredLayers, Period: p.ia.inferredPeriod})
	case len(layers) == 0 && apiOnly(in.A):
		res.WarningsReasons = append(res.WarningsReasons, model.P3NoLayersAPI{})
	case len(layers) == 0:
		res.WarningsReasons = append(res.WarningsReasons, model.P3NoLayers{Prefix: res.LayerPrefix})
	}

	// Several calls (micro-batches) per module and no Phase 1 micro step:
	// compare every call and keep the one whose layers diverge most (flags
	// over anchors, layers, metrics and passes; ties: the earlier call).
	// Within an optimizer step every micro-batch runs on the same weights,
	// so a faulty micro-batch diverges on its own while the others only
	// show noise.
	var cl *callAnalysis
	calls := callCount(p.ia, anchors)
	if opt.Call < 0 && callNote == nil && calls > 1 {
		best, bestN := 0, -1
		p.callsSearched = calls
		for k := 0; k < calls; k++ {
			p.opt.Call = k
			c := p.analyseCall(anchors, layers)
			if n := c.flagCount(); n > bestN {
				cl, best, bestN = c, k, n
			}
		}
		p.opt.Call = best
		if bestN > 0 {
			res.WarningsReasons = append(res.WarningsReasons, model.P3CallMostDivergent{MicroBatch: best + 1, Calls: calls})
		}
	}
	if cl == nil {
		cl = p.analyseCall(anchors, layers)
	}
	res.Call, res.Calls = model.IntPtr(p.opt.Call), calls
	cells, pooled, aligned := cl.cells, cl.pooled, cl.aligned
	if cl.tables != nil {
		res.Anchors = cl.tables
	}
	res.AnchorWarning = anchorWarning(aligned)
	nfWG.Wait()
	sum, sumWarnings, judged := summary(&p.p3Groups, p.bandInputs(), p.opt.Call, origins, anchors, layers, cells, pooled, res.Anchors, res.AnchorWarning)
	res.WarningsReasons = append(res.WarningsReasons, sumWarnings...)
	res.DivergenceSummary, p.judged = sum, judged
	if p.hasCD {
		res.DivergenceSummary.DataFeature = dataFeatureCheck(p.ia, p.ib, p.ic, p.id)
	} else {
		res.DivergenceSummary.DataFeature = dataFeatureCheck(p.ia, p.ib, nil, nil)
	}
	if ds, off, global := stageOffset(in, len(p.scheme.Stacks)); ds != nil {
		res.DumpStage = ds
		if global {
			globalLayers(res.Anchors, off)
		}
	}
	return t
}

// callAnalysis is the anchor comparison at one call number.
type callAnalysis struct {
	cells  [][][2]cell // anchor → layer pos → dir
	pooled map[model.Stat]map[string][]float64
	// relative: each anchor's control ratios over the anchor's median;
	// spread: each anchor's own band half-width (log), per metric and pass
	relative map[model.Stat]map[string][][]float64
	spread   map[model.Stat]map[string][]float64
	// ops: control ratios of every aligned op (opRatios), per metric/pass
	ops map[model.Stat][2][]float64
	// robust: degraded, the robust band of every aligned op's A/B per
	// metric and pass (degradedBand)
	robust  map[[2]int]model.Band
	aligned int
	tables  []model.AnchorTable
}

// flagCount counts the flagged (anchor, layer, metric, pass) cells.
func (c *callAnalysis) flagCount() int {
	n := 0
	for _, t := range c.tables {
		for _, dl := range t.Conclusion.MetricLayers {
			n += len(dl.Fwd) + len(dl.Bwd)
		}
	}
	return n
}

// callCount is the largest number of calls of an anchor module in A.
func callCount(ia *dumpIndex, anchors []string) int {
	n := 0
	want := map[string]bool{}
	for _, a := range anchors {
		want[a] = true
	}
	for k, a := range ia.anchors {
		if want[k.name] {
			n = max(n, len(a.own))
		}
	}
	return n
}

// analyseCall compares every anchor in every layer at p.opt.Call: cells,
// then the bands (a metric unusable when pooled over every anchor is
// unusable for each of them: a few layers of one anchor can look orderly by
// chance), flags and the reference's table and conclusion.
func (p *p3) analyseCall(anchors []string, layers []int) *callAnalysis {
	cl := &callAnalysis{cells: make([][][2]cell, len(anchors)), pooled: map[model.Stat]map[string][]float64{}}
	p.comparisons = len(anchors) * len(layers) * len(metricOrder) * max(1, p.callsSearched)
	for _, m := range metricOrder {
		cl.pooled[m] = map[string][]float64{}
	}
	for ai, name := range anchors {
		cl.cells[ai] = make([][2]cell, len(layers))
		anyAligned := false
		for li, l := range layers {
			for di, d := range p3Dirs {
				c := compareAnchor(&p.p3Groups, p.opt.Call, name, l, d.dir)
				cl.cells[ai][li][di] = c
				if c.abOK {
					anyAligned = true
				}
				for _, m := range metricOrder {
					cl.pooled[m][d.name] = append(cl.pooled[m][d.name], controlRatio(&c, m, p.hasCD))
				}
			}
		}
		if anyAligned {
			cl.aligned++
		}
	}
	// Each anchor's control ratios over its own median and its own band
	// width: the anchors' common noise level (see spreadGuard).
	cl.relative = map[model.Stat]map[string][][]float64{}
	cl.spread = map[model.Stat]map[string][]float64{}
	for _, m := range metricOrder {
		cl.relative[m] = map[string][][]float64{}
		cl.spread[m] = map[string][]float64{}
		for di, d := range p3Dirs {
			for ai := range anchors {
				rs := make([]float64, 0, len(layers))
				for li := range layers {
					rs = append(rs, controlRatio(&cl.cells[ai][li][di], m, p.hasCD))
				}
				cl.relative[m][d.name] = append(cl.relative[m][d.name], relativeToMedian(rs))
				cl.spread[m][d.name] = append(cl.spread[m][d.name], bandSpread(noiseBand(p.bandInputs(), rs)))
			}
		}
	}
	for ai, name := range anchors {
		cl.tables = append(cl.tables, p.anchorTable(ai, name, layers, cl))
	}
	return cl
}

// compareAnchor builds one cell (seed Step 3.2: the anchor's
// representative op in A/B and C/D, unaligned with its reason when a side
// is missing or not comparable): the representatives, their values and
// ratios, at the compared call.
func compareAnchor(g *p3Groups, call int, name string, layer int, dir model.Direction) cell {
	ak := anchorKey{layer, name, dir}
	c := cell{a: -1, b: -1, c: -1, d: -1}
	for s := range c.ab {
		c.ab[s], c.cd[s], c.deg[s] = math.NaN(), math.NaN(), math.NaN()
		c.va[s], c.vb[s], c.vc[s], c.vd[s] = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	for _, x := range []*dumpIndex{g.ia, g.ib, g.ic, g.id} {
		if x != nil && x.anchors[ak] != nil {
			c.present = true
		}
	}
	if !c.present {
		return c
	}
	if i, j, nf, ok := nonFiniteAnchorIn(g, call, ak); ok {
		c.a, c.b, c.abOK, c.nf, c.nfAny = i, j, true, nf, true
	} else {
		c.a, c.b, c.abOK, c.abWhy = representative(g.ia, g.ib, ak, call, "A", g.nameB)
		if !c.abOK {
			if why := nonFiniteReason(g.ia, c.a, g.ib, c.b, "A", g.nameB); why != nil {
				c.abWhy = why
			}
		}
	}
	if c.a < 0 {
		// A lacks the anchor: still show what B has.
		if bo := g.ib.anchors[ak]; bo != nil && len(bo.own) > 0 {
			c.b = bo.own[0]
		}
	}
	if g.hasCD {
		if c.a >= 0 {
			c.c = pair(g.ia, c.a, g.ic)
			if c.c >= 0 {
				c.d = pair(g.ic, c.c, g.id)
				c.cdOK, c.cdWhy = checkPair(g.ic, c.c, g.id, c.d, "C", "D")
				if !c.cdOK {
					if why := nonFiniteReason(g.ic, c.c, g.id, c.d, "C", "D"); why != nil {
						c.cdWhy = why
					}
				}
			} else {
				c.cdWhy = model.P3MissingKeyIn{Group: "C"}
			}
		} else {
			c.c, c.d, c.cdOK, c.cdWhy = representative(g.ic, g.id, ak, call, "C", "D")
		}
	}
	if !c.abOK && c.a >= 0 && c.b >= 0 && maskedPair(g.ia, c.a, g.ib, c.b) && (!g.hasCD || maskedPair(g.ia, c.a, g.ic, c.c) && maskedPair(g.ia, c.a, g.id, c.d)) {
		c.masked = true
	}
	c.va, c.vb = statsOf(g.ia, c.a), statsOf(g.ib, c.b)
	c.vc, c.vd = statsOf(g.ic, c.c), statsOf(g.id, c.d)
	for s := range c.ab {
		c.fixed[s] = fixedStat(g, c.a, c.b, c.c, c.d, model.Stat(s))
		if c.abOK && !c.nfAny {
			c.ab[s] = pairRatio(g.ia, c.a, g.ib, c.b, model.Stat(s))
		}
		if c.cdOK {
			c.cd[s] = pairRatio(g.ic, c.c, g.id, c.d, model.Stat(s))
		}
	}
	return c
}

// anchorTable learns the anchor's bands, flags its layers and writes the
// reference's table and conclusion.
func (p *p3) anchorTable(ai int, name string, layers []int, cl *callAnalysis) model.AnchorTable {
	cells, pooled := cl.cells[ai], cl.pooled
	t := model.AnchorTable{Name: name, Thresholds: map[string]map[string]model.Band{}}
	for _, m := range metricOrder {
		var bs [2]model.Band
		for di, d := range p3Dirs {
			var rs []float64
			for li := range layers {
				rs = append(rs, controlRatio(&cells[li][di], m, p.hasCD))
			}
			var pass model.Band // degraded: the pass band of every aligned op
			if !p.hasCD {
				pass = cl.degradedBand(p, layers, m, di)
			}
			ops := func() []float64 { return cl.opRatios(p, layers, m, di) }
			bs[di] = anchorBand(p.bandInputs(), rs, pooled[m][d.name], ops, ai, cl.relative[m][d.name], cl.spread[m][d.name], pass)
			for li := range layers {
				c := &cells[li][di]
				c.deg[m] = degree(p.hasCD, c.ab[m], c.cd[m], &bs[di])
				c.flag[m] = outside(&bs[di], c.deg[m]) && degradedConfirms(pass, c.ab[m]) || c.nf[m]
			}
		}
		t.Thresholds[metricName(m)] = map[string]model.Band{"fwd": bs[0], "bwd": bs[1]}
	}
	t.Conclusion = anchorConclusion(cells, layers)
	for li, l := range layers {
		grad := model.Quad{
			A: floatPtr(p.grad(p.ia, l, name)), B: floatPtr(p.grad(p.ib, l, name)),
			C: floatPtr(p.grad(p.ic, l, name)), D: floatPtr(p.grad(p.id, l, name)),
		}
		t.Layers = append(t.Layers, layerRow(&p.p3Groups, l, p.scheme.label(l), grad, &cells[li]))
	}
	return t
}

// anchorBand is an anchor's adaptive threshold for one metric and pass
// (seed Step 3.3, median(C/D) + max(3·IQR, 0.03) learned per metric): the
// band of its own control ratios own; with too few layers, the wider
// sample of every anchor's control ratios (pooled) or every aligned op's
// (ops, asked for only then), widened to what its own ratios allow; then
// its peers' spread guard (self, relative, spreads); unusable when the
// ratios pooled over every anchor are; degraded, with the pass band's note
// (pass, unusable with a control group). The band carries its rule and
// notes as typed reasons.
func anchorBand(bi bandInputs, own, pooled []float64, ops func() []float64, self int, relative [][]float64, spreads []float64, pass model.Band) model.Band {
	b := noiseBand(bi, own)
	if b.Samples < minBandSamples {
		src, nOps := pooled, 0 // every anchor's control ratios
		if o := ops(); len(o) > len(src) {
			src, nOps = o, len(o)
		}
		if all := noiseBand(bi, src); all.Samples > b.Samples {
			b = all
			b.NoteReasons = addNote(b.NoteReasons, model.P3BandFewLayers{Min: minBandSamples, Ops: nOps})
		}
		b = ownSpreadGuard(bi, b, own)
	}
	b = spreadGuard(bi, b, self, relative, spreads)
	if all := controlBand(pooled, bi.iqrMult, bi.floor); !all.Usable && b.Usable && all.Samples > 0 {
		b.Usable = false
		b.NoteReasons = addNote(b.NoteReasons, model.P3BandOverAll{Notes: all.NoteReasons})
	}
	return degradedNote(pass, b)
}

// anchorConclusion is an anchor's conclusion from its flagged cells (seed
// Steps 3.4–3.6): the flagged layers per metric and pass, each metric's
// start, the earliest divergence over the metrics, and the layers not
// compared.
func anchorConclusion(cells [][2]cell, layers []int) model.AnchorConclusion {
	concl := model.AnchorConclusion{
		MetricLayers:     map[string]model.DirLayers{},
		MetricStarts:     map[string]model.MetricStart{},
		UncomparedLayers: model.DirLayers{Fwd: []int{}, Bwd: []int{}},
	}
	starts := [2]map[model.Stat]*int{{}, {}}
	for _, m := range metricOrder {
		dl := model.DirLayers{Fwd: []int{}, Bwd: []int{}}
		for li, l := range layers {
			if cells[li][0].flag[m] {
				dl.Fwd = append(dl.Fwd, l)
			}
			if cells[li][1].flag[m] {
				dl.Bwd = append(dl.Bwd, l)
			}
		}
		concl.MetricLayers[metricName(m)] = dl
		ms := metricStart(dl)
		concl.MetricStarts[metricName(m)] = ms
		starts[0][m], starts[1][m] = ms.FwdStart, ms.BwdStart
	}
	concl.EarliestFwdDivergence, _, _ = iterateMetrics(starts[0], "fwd")
	concl.EarliestBwdDivergence, _, _ = iterateMetrics(starts[1], "bwd")
	for li, l := range layers {
		if uncompared(&cells[li][0]) {
			concl.UncomparedLayers.Fwd = append(concl.UncomparedLayers.Fwd, l)
		}
		if uncompared(&cells[li][1]) {
			concl.UncomparedLayers.Bwd = append(concl.UncomparedLayers.Bwd, l)
		}
	}
	return concl
}

// uncompared (seed Step 3.4, uncompared_layers: unaligned is not normal):
// the anchor exists in some dump for this layer, but no Norm degree could
// be computed (an unaligned pair, a missing side).
func uncompared(c *cell) bool {
	return c.present && !c.nfAny && !c.masked && !model.Finite(c.deg[model.StatNorm])
}
