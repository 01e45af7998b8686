package analysis

import (
	"math"
	"sort"
	"strings"

	"spikescope/model"
)

// Each dump is indexed once (layer → anchor → ops, identity → op) so that a
// whole comparison is O(N) in the number of ops. The reference rebuilds its
// indices for every (anchor, layer, direction) and needs 43 s for four dumps
// of 6,144 ops (bug 23).

// opInfo is what Phase 3 derives for one op of a dump.
type opInfo struct {
	Layer  int    // layer id, -1 outside the layers or unknown
	Sub    string // module path below the layer; for APIs the parent module's
	Anchor string // first segment of Sub ("mlp"), "" when none
	Ident  uint64 // alignment identity (hash, see identBase)
	Loose  uint64 // looser identity (class dropped / parent ignored)
	// Pos: positional identity of an API below a module (posIdent), 0
	// when none.
	Pos uint64
	// Recomp: a recompute record (is_recompute, or a forward record that
	// repeats an earlier one of the same op exactly, see markRecompute).
	Recomp bool
}

// layerAnchor is the anchor of the layer module itself: its output is the
// residual stream leaving the layer. Without it a fault in the layer's last
// residual add shows first in the next layer's anchors.
const layerAnchor = "(layer)"

// anchorKey addresses the ops of one anchor module in one layer and pass.
type anchorKey struct {
	layer int
	name  string
	dir   model.Direction
}

// anchorOps are the ops of one anchor in one layer and direction: the
// module's own records (one per call) and every op below it.
type anchorOps struct {
	own []int32
	all []int32
}

// dumpIndex is the per-dump index built once.
type dumpIndex struct {
	d       *model.Dump
	info    []opInfo
	ident   map[uint64]int32
	loose   map[uint64]int32
	pos     map[uint64]int32 // positional identities of APIs (posIdent)
	layers  map[int][]int32  // forward+backward ops per layer id, execution order
	anchors map[anchorKey]*anchorOps
	grads   map[anchorKey][]int32 // parameters_grad records per (layer, anchor)
	counts  map[string]int        // anchor name → number of (layer, pass) holding it
	// API-only dump (no module names a layer): layers inferred from the
	// repeating API sequence (layers_api.go); APIs are their own anchors.
	apiAnchors     bool
	inferredLayers int
	inferredPeriod int
	// nm: the cross-framework name map of this dump (align_namemap.go),
	// nil when both sides share their names; subs: every path below a
	// layer (only with nm, for the reasons of unaligned records).
	nm   *nameMapper
	subs map[string]bool
}

// indexDump builds the index of d under the layer scheme s.
func indexDump(d *model.Dump, s *layerScheme) *dumpIndex {
	return indexDumpMapped(d, s, nil)
}

// indexDumpMapped builds the index of d with its names seen through nm
// (nil: as they are).
func indexDumpMapped(d *model.Dump, s *layerScheme, nm *nameMapper) *dumpIndex {
	if d == nil {
		return nil
	}
	n := len(d.Ops)
	x := &dumpIndex{
		d:       d,
		info:    make([]opInfo, n),
		ident:   make(map[uint64]int32, n),
		loose:   make(map[uint64]int32, n),
		pos:     map[uint64]int32{},
		layers:  map[int][]int32{},
		anchors: map[anchorKey]*anchorOps{},
		grads:   map[anchorKey][]int32{},
		counts:  map[string]int{},
		nm:      nm,
	}
	if nm != nil {
		x.subs = map[string]bool{}
	}
	hasParents := false
	for i := range d.Ops {
		if d.Ops[i].Parent != "" {
			hasParents = true
			break
		}
	}
	// Pass 1: modules locate themselves from their path.
	for i := range d.Ops {
		op := &d.Ops[i]
		in := &x.info[i]
		in.Layer = -1
		if op.Kind != model.KindModule {
			continue
		}
		path := nm.modulePath(modulePathOf(op))
		if loc, ok := s.locate(path); ok {
			in.Layer = s.id(loc)
			in.Sub = loc.Sub
		} else {
			in.Sub = stripWrappers(path)
		}
		if in.Layer >= 0 && in.Sub != "" {
			in.Anchor, _, _ = strings.Cut(in.Sub, ".")
		} else if in.Layer >= 0 {
			in.Anchor = layerAnchor
		}
	}
	// Pass 2: APIs take the layer of their nearest construct.json ancestor;
	// without construct.json, the layer of the next module record of the
	// same pass (msprobe writes a module's record when it finishes, so the
	// APIs it ran come just before it), or of the previous one when the
	// dump writes a module's record before its children's (dumpOrder).
	if hasParents {
		byParent := map[string]opInfo{}
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Kind == model.KindModule {
				continue
			}
			in, ok := byParent[op.Parent]
			if !ok {
				in = apiInfoFromParent(d, op, s, nm)
				byParent[op.Parent] = in
			}
			x.info[i] = in
			if nm != nil && in.Layer >= 0 {
				if _, extra := nm.apiName(op); extra != "" { // the file moves the call below a child module
					in.Sub = strings.TrimPrefix(in.Sub+"."+extra, ".")
					in.Anchor, _, _ = strings.Cut(in.Sub, ".")
					x.info[i] = in
				}
			}
		}
	} else if dumpOrder(d, x.info) == orderPre {
		// module records before their children's: the module record before
		// an API is the one it ran in (or a sibling of it, same layer)
		prev := [3]int{-1, -1, -1}
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Kind == model.KindModule {
				prev[op.Direction] = x.info[i].Layer
				continue
			}
			x.info[i] = opInfo{Layer: prev[op.Direction], Sub: "?"}
		}
	} else {
		next := [3]int{-1, -1, -1}
		for i := len(d.Ops) - 1; i >= 0; i-- {
			op := &d.Ops[i]
			if op.Kind == model.KindModule {
				next[op.Direction] = x.info[i].Layer
				continue
			}
			x.info[i] = opInfo{Layer: next[op.Direction], Sub: "?"}
		}
	}
	// API-only dumps: layers from the repeating API sequence.
	if !s.hasLayers() {
		pos, nl, period := inferAPILayers(d)
		if nl > 0 {
			x.apiAnchors, x.inferredLayers, x.inferredPeriod = true, nl, period
			for i, ps := range pos {
				x.info[i] = opInfo{Layer: ps.layer, Sub: ps.sub, Anchor: ps.sub}
			}
		}
	}
	markRecompute(d, x.info)
	// Pass 3: identities (with per-context order of appearance), layer and
	// anchor lists.
	ord := make(map[uint64]int32, n)
	looseOrd := make(map[uint64]int32, n)
	layerAnchors := map[string]map[[2]int]bool{}
	var siblings, kth map[string]int
	posOrd := map[uint64]int32{}
	if hasParents {
		siblings, kth = map[string]int{}, map[string]int{}
		for i := range d.Ops {
			if op := &d.Ops[i]; op.Kind == model.KindAPI && op.Parent != "" {
				siblings[op.Parent]++
			}
		}
	}
	for i := range d.Ops {
		op := &d.Ops[i]
		in := &x.info[i]
		if hasParents && op.Kind == model.KindAPI && op.Parent != "" && in.Layer >= 0 {
			k := kth[op.Parent]
			kth[op.Parent] = k + 1
			pb := posIdent(op, in, k, siblings[op.Parent])
			po := posOrd[pb]
			posOrd[pb] = po + 1
			in.Pos = hashInt(pb, int(po))
			x.pos[in.Pos] = int32(i)
		}
		base, looseBase := identBase(op, in)
		if nm != nil {
			if op.Kind != model.KindModule && nm.bare {
				name, _ := nm.apiName(op)
				base, looseBase = identBaseNamed(op, in, name)
			}
			if in.Layer >= 0 && in.Sub != "" && in.Sub != "?" {
				x.subs[in.Sub] = true
			}
		}
		k := ord[base]
		ord[base] = k + 1
		in.Ident = hashInt(base, int(k))
		lk := looseOrd[looseBase]
		looseOrd[looseBase] = lk + 1
		in.Loose = hashInt(looseBase, int(lk))
		x.ident[in.Ident] = int32(i)
		x.loose[in.Loose] = int32(i)
		if in.Layer < 0 {
			continue
		}
		if op.Direction == model.ParamGrad {
			forPrefixes(in, func(name string) {
				k := anchorKey{in.Layer, name, model.ParamGrad}
				x.grads[k] = append(x.grads[k], int32(i))
			})
			if in.Anchor != layerAnchor { // the layer's gradient: every parameter in it
				k := anchorKey{in.Layer, layerAnchor, model.ParamGrad}
				x.grads[k] = append(x.grads[k], int32(i))
			}
			continue
		}
		x.layers[in.Layer] = append(x.layers[in.Layer], int32(i))
		if in.Anchor == "" {
			continue
		}
		// Every module path prefix below the layer is an anchor candidate
		// ("self_attention", "self_attention.linear_qkv"; --anchors may name
		// either); discovery uses the first level.
		forPrefixes(in, func(name string) {
			ak := anchorKey{in.Layer, name, op.Direction}
			a := x.anchors[ak]
			if a == nil {
				a = &anchorOps{}
				x.anchors[ak] = a
			}
			if (op.Kind == model.KindModule || x.apiAnchors) && !in.Recomp && (in.Sub == name || name == layerAnchor && in.Sub == "") {
				a.own = append(a.own, int32(i))
			}
			a.all = append(a.all, int32(i))
		})
		if op.Kind == model.KindModule || x.apiAnchors {
			m := layerAnchors[in.Anchor]
			if m == nil {
				m = map[[2]int]bool{}
				layerAnchors[in.Anchor] = m
			}
			m[[2]int{in.Layer, int(op.Direction)}] = true
		}
	}
	for a, m := range layerAnchors {
		x.counts[a] = len(m)
	}
	return x
}

// markRecompute flags recompute records. msprobe marks them with
// is_recompute, but older versions do not: a recomputed forward (activation
// checkpointing) then shows as one more call of every module, "forward.1"
// after "forward.0", interleaved with the backward. Recomputation
// reproduces the original forward bit for bit, so a forward record of a
// layer whose output statistics equal those of an earlier record of the
// same op (same layer, path, class or API and parent) is a recompute; two
// micro-batches never agree on all four statistics of a float tensor.
// Recompute records are kept out of the anchors' calls and take their own
// alignment identity, so they shift neither the micro-batch numbering nor
// the pairing with a device that did not recompute.
func markRecompute(d *model.Dump, info []opInfo) {
	// Only ops recorded more often forward than backward can hold
	// recomputes: a run that feeds identical micro-batches repeats its
	// forward statistics too, but then every forward has its backward.
	calls := map[uint64]int{}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Recompute || info[i].Layer < 0 {
			continue
		}
		switch op.Direction {
		case model.Forward:
			calls[opSite(op, &info[i])]++
		case model.Backward:
			calls[opSite(op, &info[i])]--
		}
	}
	seen := map[uint64]bool{}
	for i := range d.Ops {
		op := &d.Ops[i]
		in := &info[i]
		if op.Recompute {
			in.Recomp = true
			continue
		}
		if op.Direction != model.Forward || in.Layer < 0 || calls[opSite(op, in)] <= 0 {
			continue
		}
		t := primaryTensor(op)
		if t == nil || !t.Has[model.StatNorm] {
			continue
		}
		h, _ := identBase(op, in)
		for s := model.Stat(0); s < model.NumStats; s++ {
			h = hashInt(h, int(math.Float64bits(t.Stat[s])))
		}
		if seen[h] {
			in.Recomp = true
		} else {
			seen[h] = true
		}
	}
}

// opSite identifies an op regardless of pass and call: layer, path below
// it, normalised class (modules) or API name and parent.
func opSite(op *model.Op, in *opInfo) uint64 {
	h := hashInt(uint64(fnvOffset), in.Layer)
	h = hashString(h, in.Sub)
	if op.Kind == model.KindModule {
		return hashString(h, normalizeClass(classOf(op)))
	}
	return hashString(h, apiBase(op.Key))
}

// forPrefixes calls f with every dotted prefix of the op's path below the
// layer ("mlp", "mlp.linear_fc1"); nothing outside an anchor.
func forPrefixes(in *opInfo, f func(string)) {
	if in.Anchor == "" {
		return
	}
	if in.Anchor == layerAnchor {
		f(layerAnchor)
		return
	}
	for k := len(in.Anchor); ; {
		f(in.Sub[:k])
		if k >= len(in.Sub) {
			return
		}
		next := strings.IndexByte(in.Sub[k+1:], '.')
		if next < 0 {
			k = len(in.Sub)
		} else {
			k += 1 + next
		}
	}
}

// apiInfoFromParent resolves an API op's layer through its construct.json
// ancestors. Parent keys of modules are parsed directly, so a parent that is
// missing from dump.json (construct.json names more nodes) still places it.
func apiInfoFromParent(d *model.Dump, op *model.Op, s *layerScheme, nm *nameMapper) opInfo {
	in := opInfo{Layer: -1}
	p := op.Parent
	for depth := 0; p != "" && depth < 64; depth++ {
		if isModuleKey(p) {
			path := nm.modulePath(parseModuleKeyPath(p))
			if loc, ok := s.locate(path); ok {
				in.Layer = s.id(loc)
				in.Sub = loc.Sub
				if in.Layer >= 0 && in.Sub != "" {
					in.Anchor, _, _ = strings.Cut(in.Sub, ".")
				} else if in.Layer >= 0 {
					in.Anchor = layerAnchor
				}
			} else {
				in.Sub = stripWrappers(path)
			}
			return in
		}
		j, ok := d.Index[p]
		if !ok {
			break
		}
		p = d.Ops[j].Parent
	}
	return in
}

// stripWrappers drops leading wrapper segments ("module.module.") that differ
// between devices from a path outside the layers.
func stripWrappers(path string) string {
	for {
		switch {
		case strings.HasPrefix(path, "module."):
			path = path[len("module."):]
		case strings.HasPrefix(path, "model."):
			path = path[len("model."):]
		case strings.HasPrefix(path, "network_with_loss."): // MindSpore's training wrappers
			path = path[len("network_with_loss."):]
		case strings.HasPrefix(path, "network."):
			path = path[len("network."):]
		default:
			return path
		}
	}
}

// identBase is the identity of an op without its order of appearance:
// modules by (layer, path below the layer, pass, recompute, normalised
// class), APIs by (layer, API name, pass, recompute, parent module). The
// loose variant drops the class (modules) or the parent (APIs) so that one
// side's missing construct.json or a renamed class still pairs. Identities
// are 64-bit FNV-1a hashes of those fields: a collision among a million ops
// has a probability near 1e-8, and the indices stay small (bug 23's O(N)
// without holding a key string per op).
func identBase(op *model.Op, in *opInfo) (strict, loose uint64) {
	dir := identDir(op, in)
	h := uint64(fnvOffset)
	if op.Kind == model.KindModule {
		h = hashString(h, "M")
		h = hashInt(h, in.Layer)
		h = hashString(h, in.Sub)
		h = hashString(h, dir)
		return hashString(h, normalizeClass(classOf(op))), h
	}
	name := apiBase(op.Key)
	if strings.Contains(name, "Attention") {
		name = reFlashFused.ReplaceAllString(name, "Attention")
	}
	return identBaseNamed(op, in, name)
}

// identBaseNamed is identBase of an API op aligned by the given name (a
// cross-framework name, see nameMapper.apiName).
func identBaseNamed(op *model.Op, in *opInfo, name string) (strict, loose uint64) {
	dir := identDir(op, in)
	h := uint64(fnvOffset)
	h = hashString(h, "A")
	h = hashInt(h, in.Layer)
	h = hashString(h, name)
	h = hashString(h, dir)
	return hashString(h, in.Sub), h
}

// identDir is the pass part of an identity: f/b/g, with r for a recomputed
// forward.
func identDir(op *model.Op, in *opInfo) string {
	dir := "f"
	switch op.Direction {
	case model.Backward:
		dir = "b"
	case model.ParamGrad:
		dir = "g"
	}
	if in.Recomp {
		dir += "r"
	}
	return dir
}

// FNV-1a 64.
const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// hashString folds s and a field separator into h.
func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= fnvPrime
	}
	h ^= 0xff // separator: ("ab","c") ≠ ("a","bc")
	h *= fnvPrime
	return h
}

// hashInt folds v (8 bytes) into h.
func hashInt(h uint64, v int) uint64 {
	u := uint64(v)
	for i := 0; i < 8; i++ {
		h ^= u & 0xff
		h *= fnvPrime
		u >>= 8
	}
	return h
}

// pair finds the op of y that is the same computation as op i of x: the
// same identity, else the same loose identity, else (APIs) the same
// position below the same module.
func pair(x *dumpIndex, i int32, y *dumpIndex) int32 {
	if y == nil || i < 0 {
		return -1
	}
	in := &x.info[i]
	if j, ok := y.ident[in.Ident]; ok {
		return j
	}
	if j, ok := y.loose[in.Loose]; ok {
		return j
	}
	if in.Pos != 0 {
		if j, ok := y.pos[in.Pos]; ok {
			return j
		}
	}
	return -1
}

// posIdent is the positional identity of an API below a module: the k-th of
// the n APIs the module (one call of it) ran, in its layer, path and pass.
// Two devices call the same computation by different kernels
// ("NPU.npu_rms_norm" vs "Triton.rms_norm", "NPU.npu_fusion_attention" vs
// "Functional.scaled_dot_product_attention"): when the enclosing module ran
// as many APIs on both sides, the k-th is the same step of it. A module that
// ran a different number of APIs (a fused swiglu vs silu × mul) gives no
// positional pairs; element counts are checked as for any pair.
func posIdent(op *model.Op, in *opInfo, k, n int) uint64 {
	dir := "f"
	if op.Direction == model.Backward {
		dir = "b"
	}
	if in.Recomp {
		dir += "r"
	}
	h := hashString(uint64(fnvOffset), "P")
	h = hashInt(h, in.Layer)
	h = hashString(h, in.Sub)
	h = hashString(h, dir)
	h = hashInt(h, k)
	return hashInt(h, n)
}

// layerIDs lists the layer ids present in any of the indices, ascending.
func layerIDs(xs ...*dumpIndex) []int {
	seen := map[int]bool{}
	var out []int
	for _, x := range xs {
		if x == nil {
			continue
		}
		for l := range x.layers {
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
	}
	sort.Ints(out)
	return out
}
