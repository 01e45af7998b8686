package analysis

import (
	"math"
	"sort"
	"strings"

	"spikescope/model"
)

// Anchors (seed Step 3.2): modules present in every layer on both sides
// whose output is compared layer by layer. Anchor names are matched as a
// whole path segment right below the layer ("mlp" never matches
// "pre_mlp_layernorm", reference bug 19).

// minAnchors is the seed's minimum number of aligned anchors.
const minAnchors = 3

// anchorPriority orders the usual transformer-layer modules first
// (reference priorities, plus legacy and MindSpore names).
var anchorPriority = map[string]int{
	"input_layernorm": 0, "input_norm": 0, "attention_norm": 0,
	"self_attention": 1, "self_attn": 1, "attention": 1,
	"mlp": 2, "feed_forward": 2,
	"pre_mlp_layernorm": 3, "post_attention_layernorm": 3, "post_attention_norm": 3, "ffn_norm": 3,
}

// otherAnchorPriority is the priority of any other module name.
const otherAnchorPriority = 9

// nonAnchorSubstrings mark modules that carry no activations worth
// comparing (position tables).
var nonAnchorSubstrings = []string{"rotary", "inv_freq", "position_id"}

// discoverAnchors returns the anchor modules common to both dumps: every
// known transformer-layer module present in at least two layers on both
// sides (one layer when the dumps hold a single layer), then other common
// modules until minAnchors are reached, those recorded in more (layer,
// pass) pairs first (a module without backward records, like an in-place
// norm, compares only half of the trace), then the layer module itself
// (layerAnchor) when both sides record it.
func discoverAnchors(a, b *dumpIndex) []string {
	if a == nil || b == nil {
		return nil
	}
	need := 2 // (layer, pass) pairs: two layers, or one layer in both passes
	if len(a.layers) < 2 || len(b.layers) < 2 {
		need = 1
	}
	type cand struct {
		name  string
		prio  int
		count int
	}
	var cs []cand
	withLayer := false
	for name, ca := range a.counts {
		cb := b.counts[name]
		c := min(ca, cb)
		if c < need || isNonAnchor(name) {
			continue
		}
		if name == layerAnchor {
			withLayer = true
			continue
		}
		p, ok := anchorPriority[name]
		if !ok {
			p = otherAnchorPriority
		}
		cs = append(cs, cand{name, p, c})
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].prio != cs[j].prio {
			return cs[i].prio < cs[j].prio
		}
		if cs[i].count != cs[j].count {
			return cs[i].count > cs[j].count
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if c.prio < otherAnchorPriority || len(out) < minAnchors || a.apiAnchors {
			out = append(out, c.name)
		}
	}
	// The layer's own output comes last: it adds a comparison point (the
	// residual stream leaving the layer), it does not replace a module.
	if withLayer {
		out = append(out, layerAnchor)
	}
	return out
}

func isNonAnchor(name string) bool {
	l := strings.ToLower(name)
	for _, s := range nonAnchorSubstrings {
		if strings.Contains(l, s) {
			return true
		}
	}
	return false
}

// anchorWarning is emitted when fewer than minAnchors anchors were aligned
// in at least one layer (the reference counts anchors used, bug 21).
func anchorWarning(aligned int) *model.AnchorWarning {
	if aligned >= minAnchors {
		return nil
	}
	return &model.AnchorWarning{AnchorsFound: aligned, MessageReason: model.P3FewAnchors{Found: aligned, Min: minAnchors}}
}

// representative picks the op that stands for anchor ak in dump x and its
// counterpart in y: the anchor module's own output record (call number
// `call`, else the first), falling back to the largest-Norm op below the
// anchor that aligns. When nothing aligns it returns the first candidate
// and why it failed.
func representative(x, y *dumpIndex, ak anchorKey, call int, nx, ny string) (i, j int32, ok bool, reason model.Reason) {
	if x == nil {
		return -1, -1, false, model.P3NoDump{Group: nx}
	}
	a := x.anchors[ak]
	if a == nil {
		return -1, -1, false, model.P3MissingIn{Group: nx}
	}
	var first []int32
	lo, hi := int32(-1), int32(math.MaxInt32) // the call's run of the anchor (fallback range)
	if len(a.own) > 0 {
		k := call
		if k < 0 || k >= len(a.own) {
			k = 0
		}
		first = append(first, a.own[k])
		// post-hook records: the module's record closes its call
		hi = a.own[k]
		if k > 0 {
			lo = a.own[k-1]
		}
	}
	i, j = -1, -1
	try := func(c int32) bool {
		cj := pair(x, c, y)
		cok, why := checkPair(x, c, y, cj, nx, ny)
		if cok {
			i, j, ok, reason = c, cj, true, nil
			return true
		}
		if i < 0 {
			i, j, reason = c, cj, why
		}
		return false
	}
	for _, c := range first {
		if try(c) {
			return
		}
	}
	// Fallback: every op below the anchor by descending Norm in x.
	rest := make([]int32, 0, len(a.all))
	for _, c := range a.all {
		if c <= lo || c > hi {
			continue // another micro-batch's run
		}
		if len(first) == 0 || c != first[0] {
			if t := primaryTensor(&x.d.Ops[c]); t != nil && t.Has[model.StatNorm] && model.Finite(t.Stat[model.StatNorm]) {
				rest = append(rest, c)
			}
		}
	}
	sort.SliceStable(rest, func(p, q int) bool {
		return normOf(x, rest[p]) > normOf(x, rest[q])
	})
	for _, c := range rest {
		if try(c) {
			return
		}
	}
	// The anchor's own record is a placeholder on one side (a norm fused
	// into the next linear): the next aligned record of the layer stands
	// for it, and the reason stays on the row.
	if len(first) > 0 {
		if why := placeholderPair(x, first[0], y, pair(x, first[0], y)); why != nil {
			if ni, nj := nextAligned(x, y, first[0], nx, ny); ni >= 0 {
				return ni, nj, true, model.P3ComparedAtNext{Why: why, Key: x.d.Ops[ni].Key}
			}
		}
	}
	if i < 0 {
		reason = model.P3NoComparableOp{Group: nx}
	}
	return
}

func normOf(x *dumpIndex, i int32) float64 {
	t := primaryTensor(&x.d.Ops[i])
	if t == nil || !t.Has[model.StatNorm] {
		return math.Inf(-1)
	}
	return t.Stat[model.StatNorm]
}

// checkPair says whether op i of x and op j of y can be compared: both
// exist, both have a floating-point output with equal element counts, a
// finite Norm, and no NaN/Inf statistic. Otherwise the pair is unaligned:
// no ratio, never "consistent".
func checkPair(x *dumpIndex, i int32, y *dumpIndex, j int32, nx, ny string) (bool, model.Reason) {
	if x == nil || i < 0 {
		return false, model.P3MissingIn{Group: nx}
	}
	if y == nil || j < 0 {
		if why := noCounterpart(x, i, y, ny); why != nil {
			return false, why
		}
		return false, model.P3MissingKeyIn{Group: ny}
	}
	if why := placeholderMismatch(&x.d.Ops[i], &y.d.Ops[j]); why != nil {
		return false, why
	}
	ta := primaryTensor(&x.d.Ops[i])
	tb := primaryTensor(&y.d.Ops[j])
	switch {
	case ta == nil:
		return false, model.P3NoFloatOutput{Group: nx}
	case tb == nil:
		return false, model.P3NoFloatOutput{Group: ny}
	case ta.Elements != tb.Elements:
		return false, model.P3ElementCount{A: ta.Elements, B: tb.Elements}
	}
	if why := badStats(ta, nx); why != nil {
		return false, why
	}
	if why := badStats(tb, ny); why != nil {
		return false, why
	}
	return true, nil
}

// badStats names a NaN/Inf or missing Norm in a tensor record.
func badStats(t *model.TensorStat, name string) model.Reason {
	if !t.Has[model.StatNorm] {
		return model.P3NormNone{Group: name}
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if t.Has[s] && !model.Finite(t.Stat[s]) {
			return model.P3StatNonFinite{Stat: metricName(s), Value: t.Stat[s], Group: name}
		}
	}
	return nil
}

// statsOf returns the four statistics of op i (NaN where absent).
func statsOf(x *dumpIndex, i int32) (v [model.NumStats]float64) {
	for s := range v {
		v[s] = math.NaN()
	}
	if x == nil || i < 0 {
		return
	}
	t := primaryTensor(&x.d.Ops[i])
	if t == nil {
		return
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if t.Has[s] {
			v[s] = t.Stat[s]
		}
	}
	return
}

// gradNorm is the parameter-gradient norm of an anchor in a layer: the last
// parameters_grad record of every module below the anchor (main_grad
// accumulates over micro-batches, so the last is the final one), combined
// as sqrt(Σ norm²). NaN when the dump has none (the reference always
// reports null, bug 4).
func gradNorm(x *dumpIndex, layer int, anchor string) float64 {
	if x == nil {
		return math.NaN()
	}
	recs := x.grads[anchorKey{layer, anchor, model.ParamGrad}]
	if len(recs) == 0 {
		return math.NaN()
	}
	last := map[string]int32{}
	for _, i := range recs {
		last[x.info[i].Sub] = i
	}
	idx := make([]int32, 0, len(last))
	for _, i := range last {
		idx = append(idx, i)
	}
	sort.Slice(idx, func(p, q int) bool { return idx[p] < idx[q] }) // deterministic sum
	return combinedParamNorm(x.d, idx)
}
