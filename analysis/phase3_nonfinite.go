package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"spikescope/model"
)

// Non-finite divergence (method.md "Phase 3", "Non-finite divergence"): a
// statistic that is NaN/±Inf in A where the baseline's same record is
// finite is the strongest divergence there is, not an unaligned pair: it is
// flagged and sets the divergence start. Non-finite values the baseline has
// too (a causal mask's −inf in masked_fill, masked softmax inputs) are
// normal data. A pair non-finite on both sides or on the baseline only
// stays unaligned (the latter says the baseline itself is broken). The
// non-finite origin is the first record of A, in execution order of
// outputs, whose output turns non-finite while its inputs are finite.

// nfKind classifies the non-finite statistics of a pair of records.
type nfKind int

const (
	nfNone       nfKind = iota // every statistic finite on both sides (or the pair is not comparable for another reason)
	nfDivergence               // some statistic non-finite in A, finite in the baseline
	nfBaseline                 // some statistic non-finite in the baseline only
	nfBoth                     // the non-finite statistics are non-finite on both sides
)

// statNonFinite: statistic s of t is recorded and NaN/±Inf.
func statNonFinite(t *model.TensorStat, s model.Stat) bool {
	return t.Has[s] && !model.Finite(t.Stat[s])
}

// tensorNonFinite: some recorded statistic of t is NaN/±Inf.
func tensorNonFinite(t *model.TensorStat) bool {
	for s := model.Stat(0); s < model.NumStats; s++ {
		if statNonFinite(t, s) {
			return true
		}
	}
	return false
}

// nonFiniteStats compares the compared outputs of op i of x (the anomalous
// side) and op j of y (its baseline): the statistics non-finite in x where
// y's are finite. Only pairs that are otherwise comparable count (both
// present, floating-point outputs, equal element counts).
func nonFiniteStats(x *dumpIndex, i int32, y *dumpIndex, j int32) (kind nfKind, stats [model.NumStats]bool) {
	if x == nil || y == nil || i < 0 || j < 0 {
		return nfNone, stats
	}
	ta, tb := primaryTensor(&x.d.Ops[i]), primaryTensor(&y.d.Ops[j])
	if ta == nil || tb == nil || ta.Elements != tb.Elements {
		return nfNone, stats
	}
	return tensorPairNonFinite(ta, tb)
}

// tensorPairNonFinite classifies one pair of tensors (see nonFiniteStats).
func tensorPairNonFinite(ta, tb *model.TensorStat) (kind nfKind, stats [model.NumStats]bool) {
	onlyA, onlyB, both := false, false, false
	// One side holds its dtype's extreme where the other holds ±Inf (a
	// mask filled with finfo.min against one filled with −inf): the same
	// values, and the Mean and Norm that follow from them too.
	sat := false
	for _, s := range []model.Stat{model.StatMax, model.StatMin} {
		sat = sat || saturated(ta.Stat[s], tb, s) && ta.Has[s] || saturated(tb.Stat[s], ta, s) && tb.Has[s]
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		na, nb := statNonFinite(ta, s), statNonFinite(tb, s)
		derived := sat && (s == model.StatMean || s == model.StatNorm)
		if na && !nb && (derived || saturated(ta.Stat[s], tb, s)) {
			nb = true
		}
		if nb && !na && (derived || saturated(tb.Stat[s], ta, s)) {
			na = true
		}
		switch {
		case na && !nb && tb.Has[s]:
			stats[s], onlyA = true, true
		case nb && !na && ta.Has[s]:
			onlyB = true
		case na && nb:
			both = true
		}
	}
	switch {
	case onlyA:
		return nfDivergence, stats
	case onlyB:
		return nfBaseline, stats
	case both:
		return nfBoth, stats
	}
	return nfNone, stats
}

// saturated: v is ±Inf and statistic s of t is finite, of the same sign,
// and at least half its dtype's largest value — a mask filled with the
// dtype's minimum on one device and with −inf on the other
// (masked_fill(finfo.min) vs masked_fill(-inf)) holds the same value.
func saturated(v float64, t *model.TensorStat, s model.Stat) bool {
	if !math.IsInf(v, 0) || !t.Has[s] || !model.Finite(t.Stat[s]) {
		return false
	}
	w := t.Stat[s]
	return (w > 0) == (v > 0) && math.Abs(w) >= dtypeMax(t.Dtype)/2
}

// dtypeMax is the largest finite value of a floating-point dtype
// ("torch.float16", "Float32", "torch.bfloat16"; float32's when unknown).
func dtypeMax(dtype string) float64 {
	d := strings.ToLower(dtype)
	switch {
	case strings.Contains(d, "bfloat16") || strings.Contains(d, "bf16"):
		return 3.3895313892515355e38
	case strings.Contains(d, "float16") || strings.Contains(d, "half"):
		return 65504
	case strings.Contains(d, "float64") || strings.Contains(d, "double"):
		return math.MaxFloat64
	}
	return math.MaxFloat32
}

// nonFiniteReason says why a pair with non-finite statistics is unaligned
// (nil when the pair has none or is a non-finite divergence): non-finite on
// the baseline only (the baseline itself is broken), or on both sides.
func nonFiniteReason(x *dumpIndex, i int32, y *dumpIndex, j int32, nx, ny string) model.Reason {
	kind, _ := nonFiniteStats(x, i, y, j)
	ta, tb := primaryTensor(&x.d.Ops[max(i, 0)]), primaryTensor(&y.d.Ops[max(j, 0)])
	switch kind {
	case nfBaseline:
		for s := model.Stat(0); s < model.NumStats; s++ {
			if statNonFinite(tb, s) && !statNonFinite(ta, s) {
				return model.P3BaselineBroken{Stat: metricName(s), Value: tb.Stat[s], Group: ny, Other: nx}
			}
		}
	case nfBoth:
		for s := model.Stat(0); s < model.NumStats; s++ {
			if statNonFinite(ta, s) && statNonFinite(tb, s) {
				return model.P3BothNonFinite{Stat: metricName(s), ValueX: ta.Stat[s], X: nx, ValueY: tb.Stat[s], Y: ny}
			}
		}
	}
	return nil
}

// nonFiniteAnchor (seed Step 3.2: NaN on one side is unaligned for a
// ratio, yet a divergence): the anchor's own record (the compared call) is
// a non-finite divergence against its baseline counterpart. The anchor
// then stands for that record; no finite fallback op may replace it.
func nonFiniteAnchor(g *p3Groups, call int, ak anchorKey) (i, j int32, stats [model.NumStats]bool, ok bool) {
	a := g.ia.anchors[ak]
	if a == nil || len(a.own) == 0 {
		return -1, -1, stats, false
	}
	k := call
	if k < 0 || k >= len(a.own) {
		k = 0
	}
	i = a.own[k]
	j = pair(g.ia, i, g.ib)
	kind, stats := nonFiniteStats(g.ia, i, g.ib, j)
	return i, j, stats, kind == nfDivergence
}

// nonFiniteAnchorIn is nonFiniteAnchor, skipped for a pass where A has no
// NaN/Inf at all (the common, finite run pays one scan, not one per cell).
func nonFiniteAnchorIn(g *p3Groups, call int, ak anchorKey) (i, j int32, stats [model.NumStats]bool, ok bool) {
	if !g.nfHas[ak.dir] {
		return -1, -1, stats, false
	}
	return nonFiniteAnchor(g, call, ak)
}

// markNonFinite marks a drill-down op whose pair is a non-finite
// divergence (seed Step 3.2: a NaN on one side is no ratio, but a
// divergence): compared, flagged on the non-finite statistics (F!∞ / B!∞).
// It returns the op, marked.
func markNonFinite(g *p3Groups, out model.DrillOp, i, j int32, dirName string) model.DrillOp {
	kind, stats := nonFiniteStats(g.ia, i, g.ib, j)
	if kind != nfDivergence {
		if j >= 0 && len(outputsOnlyA(&g.ia.d.Ops[i], &g.ib.d.Ops[j])) > 0 {
			out.Flagged = true // another output than the compared one turns non-finite
		}
		return out
	}
	out.Aligned, out.Flagged = true, true
	for _, m := range metricOrder {
		if !stats[m] {
			continue
		}
		row := out.Metrics[metricName(m)]
		if dirName == "fwd" {
			row.FFlag, row.FNonFinite = true, true
		} else {
			row.BFlag, row.BNonFinite = true, true
		}
		out.Metrics[metricName(m)] = row
	}
	return out
}

// nfOrigin is the non-finite origin of one pass.
type nfOrigin struct {
	i, j  int32 // A's record and its baseline counterpart
	layer int   // -1 outside the layers
	stats []string
	// metric is the first non-finite statistic (Norm first).
	metric string
}

// nonFiniteOrigin finds the first record of A in pass dir, in execution
// order of outputs, whose output turns non-finite while its inputs are
// finite, where the baseline's same record is finite: the non-finite
// values the baseline has too are normal data (a causal mask), and an
// input counts as non-finite only when the baseline's same input is finite.
// When the record where A turns non-finite has no counterpart in the
// baseline (a kernel the baseline does not run, a norm fused elsewhere),
// the first compared record that is non-finite against a finite baseline
// decides: its own output when its inputs are finite, else the earliest
// uncompared record before it that turned non-finite from finite inputs
// (forgotten when a later record takes the non-finite values in and
// returns finite ones, as a softmax does with a mask). nil when A has no
// non-finite divergence in this pass.
func nonFiniteOrigin(x, y *dumpIndex, dir model.Direction) *nfOrigin {
	hasNF := false
	for i := 0; i < len(x.d.Ops) && !hasNF; i++ {
		op := &x.d.Ops[i]
		if op.Direction != dir || x.info[i].Recomp {
			continue
		}
		for k := range op.Outputs {
			if t := &op.Outputs[k]; tensorNonFinite(t) && isFloatTensor(t) {
				hasNF = true
			}
		}
	}
	if !hasNF {
		return nil
	}
	var ids []int32
	for i := range x.d.Ops {
		if x.d.Ops[i].Direction == dir && !x.info[i].Recomp {
			ids = append(ids, int32(i))
		}
	}
	if preOrderRecords(x.d, dir) {
		ids = outputOrder(x.d, dir, ids)
	}
	unpaired := int32(-1)
	for _, i := range ids {
		op := &x.d.Ops[i]
		switch floatOutputs(op) {
		case 0:
			continue
		case 1: // finite outputs
			if unpaired >= 0 && taintedInputs(op, nil) {
				unpaired = -1 // the non-finite values were taken in and absorbed
			}
			continue
		}
		j := pair(x, i, y)
		if j < 0 {
			if unpaired < 0 && !taintedInputs(op, nil) {
				unpaired = i
			}
			continue
		}
		stats := outputsOnlyA(op, &y.d.Ops[j])
		if len(stats) == 0 {
			continue // the baseline has the same non-finite values: normal data
		}
		if !taintedInputs(op, &y.d.Ops[j]) && (unpaired < 0 || !contains(x.d, op, &x.d.Ops[unpaired])) {
			return newOrigin(x, i, j, stats)
		}
		// its inputs were non-finite, or a record inside it turned
		// non-finite first: the uncompared record is the origin
		if unpaired >= 0 {
			return newOrigin(x, unpaired, -1, nonFiniteNames(&x.d.Ops[unpaired]))
		}
	}
	return nil
}

// floatOutputs is 0 for a record without floating-point outputs, 1 when
// they are all finite, -1 when one holds a NaN/Inf statistic.
func floatOutputs(op *model.Op) int {
	r := 0
	for k := range op.Outputs {
		if t := &op.Outputs[k]; isFloatTensor(t) {
			if tensorNonFinite(t) {
				return -1
			}
			r = 1
		}
	}
	return r
}

// nonFinitePasses reports, per pass, whether any float output of A is
// NaN/Inf at all: one scan; without any, no record of that pass can be a
// non-finite divergence or origin, and the per-anchor checks are skipped.
func nonFinitePasses(x *dumpIndex) (has [2]bool) {
	for i := range x.d.Ops {
		op := &x.d.Ops[i]
		if op.Direction > model.Backward || has[op.Direction] {
			continue
		}
		for k := range op.Outputs {
			if t := &op.Outputs[k]; tensorNonFinite(t) && isFloatTensor(t) {
				has[op.Direction] = true
				break
			}
		}
	}
	return has
}

// nonFiniteOrigins is the non-finite origin of each pass (p3Dirs order;
// seed Step 3.5, the start of a NaN's spread), for the passes where A
// holds a NaN/Inf at all (g.nfHas).
func nonFiniteOrigins(g *p3Groups) (out [2]*nfOrigin) {
	for di, d := range p3Dirs {
		if g.nfHas[d.dir] {
			out[di] = nonFiniteOrigin(g.ia, g.ib, d.dir)
		}
	}
	return out
}

func newOrigin(x *dumpIndex, i, j int32, stats []string) *nfOrigin {
	o := &nfOrigin{i: i, j: j, layer: x.info[i].Layer, stats: stats}
	for _, m := range []model.Stat{model.StatNorm, model.StatMax, model.StatMin, model.StatMean} {
		for _, s := range stats {
			if strings.HasPrefix(s, metricName(m)+"=") && o.metric == "" {
				o.metric = metricName(m)
			}
		}
	}
	return o
}

// outputsOnlyA lists the statistics ("Norm=NaN") of a's float outputs that
// are non-finite where b's same output is finite.
func outputsOnlyA(a, b *model.Op) []string {
	var out []string
	for k := range a.Outputs {
		ta := &a.Outputs[k]
		if !isFloatTensor(ta) || k >= len(b.Outputs) || !isFloatTensor(&b.Outputs[k]) {
			continue
		}
		if kind, st := tensorPairNonFinite(ta, &b.Outputs[k]); kind == nfDivergence {
			for s := model.Stat(0); s < model.NumStats; s++ {
				if st[s] {
					out = append(out, fmt.Sprintf("%s=%v", metricName(s), ta.Stat[s]))
				}
			}
		}
	}
	return out
}

// nonFiniteNames lists the non-finite statistics of op's float outputs.
func nonFiniteNames(op *model.Op) []string {
	var out []string
	for k := range op.Outputs {
		t := &op.Outputs[k]
		if !isFloatTensor(t) {
			continue
		}
		for s := model.Stat(0); s < model.NumStats; s++ {
			if statNonFinite(t, s) {
				out = append(out, fmt.Sprintf("%s=%v", metricName(s), t.Stat[s]))
			}
		}
	}
	return out
}

// taintedInputs: an input of a is non-finite where the baseline's same
// input (b; nil = none) is finite or missing.
func taintedInputs(a, b *model.Op) bool {
	for k := range a.Inputs {
		t := &a.Inputs[k]
		if !tensorNonFinite(t) {
			continue
		}
		if b != nil && k < len(b.Inputs) {
			if kind, _ := tensorPairNonFinite(t, &b.Inputs[k]); kind != nfDivergence {
				continue // the baseline has it too (or its dtype's extreme): normal data
			}
		}
		return true
	}
	return false
}

// preOrderRecords tells whether d writes a module's record before its
// children's (pre-order) in pass dir. msprobe writes it when the module
// returns, after its children (post-order, formats.md §3.2), and then file
// order is the execution order of outputs. Each module record is compared
// with the previous module record of the pass: a child right after its
// parent votes pre-order, a parent right after its child post-order
// (containment from construct.json parents, else from module paths).
func preOrderRecords(d *model.Dump, dir model.Direction) bool {
	pre, post := 0, 0
	prev := -1
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Kind != model.KindModule || op.Direction != dir {
			continue
		}
		if prev >= 0 {
			q := &d.Ops[prev]
			switch {
			case contains(d, q, op):
				pre++
			case contains(d, op, q):
				post++
			}
		}
		prev = i
	}
	return pre > post
}

// contains: module record outer contains record inner (construct.json
// parents when inner has one, else module paths: a module below outer's
// path, of the same call; without construct.json an API belongs to the
// next module record of its pass, as msprobe writes a module after its
// APIs).
func contains(d *model.Dump, outer, inner *model.Op) bool {
	if inner.Parent != "" {
		p := inner.Parent
		for depth := 0; p != "" && depth < 64; depth++ {
			if p == outer.Key {
				return true
			}
			j, ok := d.Index[p]
			if !ok {
				return false
			}
			p = d.Ops[j].Parent
		}
		return false
	}
	if inner.Kind == model.KindAPI {
		ii, ok1 := d.Index[inner.Key]
		oi, ok2 := d.Index[outer.Key]
		if d.HasConstruct || outer.Kind != model.KindModule || !ok1 || !ok2 || ii > oi {
			return false // a root API of construct.json, or recorded after outer
		}
		for k := ii + 1; k <= oi; k++ {
			if m := &d.Ops[k]; m.Kind == model.KindModule && m.Direction == inner.Direction {
				return m == outer || contains(d, outer, m)
			}
		}
		return false
	}
	if outer.Kind != model.KindModule || inner.Kind != model.KindModule || outer.CallIndex != inner.CallIndex {
		return false
	}
	return strings.HasPrefix(inner.ModulePath, outer.ModulePath+".")
}

// outputOrder sorts records of a pre-order dump by when their output is
// produced (completionOrder). The subtree of a pre-order record is the
// contiguous run of records after it that it contains (an API without a
// construct.json parent belongs to the innermost open module), so each
// record's container is the innermost module still open when it comes.
func outputOrder(d *model.Dump, dir model.Direction, cand []int32) []int32 {
	var recs []int32 // the pass's records, file order
	var parent []int // position in recs of each one's container, -1 none
	var stack []int  // positions of the open modules
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Direction != dir {
			continue
		}
		for len(stack) > 0 {
			top := &d.Ops[recs[stack[len(stack)-1]]]
			if op.Kind == model.KindAPI && op.Parent == "" || contains(d, top, op) {
				break
			}
			stack = stack[:len(stack)-1]
		}
		p := -1
		if len(stack) > 0 {
			p = stack[len(stack)-1]
		}
		recs, parent = append(recs, int32(i)), append(parent, p)
		if op.Kind == model.KindModule {
			stack = append(stack, len(recs)-1)
		}
	}
	rank := make(map[int32]int, len(recs)) // record → its place in completion order
	for r, k := range completionOrder(parent) {
		rank[recs[k]] = r
	}
	out := append([]int32(nil), cand...)
	sort.SliceStable(out, func(a, b int) bool { return rank[out[a]] < rank[out[b]] })
	return out
}

// originApplies: the origin lies at or before the direction's start layer
// in propagation order (forward: not deeper; backward: not shallower). An
// origin outside the layers counts when A computes it before the start
// layer's first record of the pass (seed Step 3.5: the start, not the
// largest divergence).
func originApplies(ia *dumpIndex, o *nfOrigin, dir model.Direction, dirName string, start int) bool {
	if o.layer >= 0 {
		return o.layer == start || earlier(dirName, o.layer, start)
	}
	for _, i := range ia.layers[start] {
		if ia.d.Ops[i].Direction == dir {
			return o.i < i
		}
	}
	return false
}

// originText is the origin as users read it: "L5 <key>", the key alone
// outside the layers.
func originText(x *dumpIndex, o *nfOrigin) string {
	if o.layer >= 0 {
		return fmt.Sprintf("L%d %s", o.layer, x.d.Ops[o.i].Key)
	}
	return x.d.Ops[o.i].Key
}

// originModel is the JSON form of an origin.
func originModel(g *p3Groups, o *nfOrigin) *model.NonFiniteOrigin {
	m := &model.NonFiniteOrigin{Key: g.ia.d.Ops[o.i].Key, Stats: o.stats}
	if o.layer >= 0 {
		m.Layer = model.IntPtr(o.layer)
	}
	if o.j >= 0 {
		m.KeyB = g.ib.d.Ops[o.j].Key
	}
	return m
}

// nonFiniteDrill makes the drill-down answer the non-finite origin: the
// operator list is the origin's layer (the start layer outside the layers;
// seed Step 3.5). It returns a copy of drill, the operator and its note
// replaced.
func nonFiniteDrill(nameB string, ia *dumpIndex, drill *model.Drilldown, o *nfOrigin) *model.Drilldown {
	dd := *drill
	key := ia.d.Ops[o.i].Key
	dd.Operator, dd.Metric, dd.NonFinite = key, o.metric, true
	dd.Chain = []string{key}
	dd.NoteReasons = []model.Reason{model.P3DrillNonFinite{BeforeLayers: o.layer < 0, Stats: o.stats, NoCounterpart: o.j < 0, Baseline: nameB}}
	return &dd
}
