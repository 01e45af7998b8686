package analysis

import (
	"sort"
	"strings"

	"spikescope/model"
)

// The drill-down's view of one layer, pass and call (micro-batch): which
// records belong to the call, which record contains which, and the order in
// which their outputs were computed. None of it may depend on where a
// container's record sits in dump.json: msprobe writes a module's record when
// it returns (post-order, children first), other writers put it first
// (pre-order); both must give the same operator.

// recordOrder is where a module's record sits relative to its children's.
type recordOrder int

const (
	orderPost recordOrder = iota // the module's record after its children's (msprobe)
	orderPre                     // the module's record before its children's
)

// subContains reports whether module path anc (below the layer; "" is the
// layer module) strictly contains module path sub.
func subContains(anc, sub string) bool {
	if anc == sub {
		return false
	}
	return anc == "" || strings.HasPrefix(sub, anc) && len(sub) > len(anc) && sub[len(anc)] == '.'
}

// subParent is the module path one level up ("mlp.linear_fc1" → "mlp",
// "mlp" → ""); ok false for the layer module itself.
func subParent(sub string) (string, bool) {
	if sub == "" {
		return "", false
	}
	if i := strings.LastIndexByte(sub, '.'); i >= 0 {
		return sub[:i], true
	}
	return "", true
}

// orderOf tells the record order of ops (module records and APIs, one pass,
// file order) from the modules whose path contains another module's of the
// same call index: the container's record after the child's is post-order.
// Without evidence (no nested module records) post-order, msprobe's.
func orderOf(x *dumpIndex, idx []int32) recordOrder {
	type site struct {
		sub  string
		call int
	}
	pos := map[site]int{}
	for k, i := range idx {
		op := &x.d.Ops[i]
		if op.Kind == model.KindModule && !x.info[i].Recomp {
			if _, dup := pos[site{x.info[i].Sub, op.CallIndex}]; !dup {
				pos[site{x.info[i].Sub, op.CallIndex}] = k
			}
		}
	}
	return voteOrder(pos, func(s site) string { return s.sub }, func(s site, sub string) site { s.sub = sub; return s })
}

// dumpOrder is orderOf over a whole dump: module records in the layers
// (info from indexDump's first pass) whose path contains another's of the
// same layer, pass and call index.
func dumpOrder(d *model.Dump, info []opInfo) recordOrder {
	type site struct {
		layer int
		sub   string
		dir   model.Direction
		call  int
	}
	pos := map[site]int{}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Kind == model.KindModule && info[i].Layer >= 0 && !op.Recompute {
			k := site{info[i].Layer, info[i].Sub, op.Direction, op.CallIndex}
			if _, dup := pos[k]; !dup {
				pos[k] = i
			}
		}
	}
	return voteOrder(pos, func(s site) string { return s.sub }, func(s site, sub string) site { s.sub = sub; return s })
}

// voteOrder is the vote of orderOf and dumpOrder: each module record at
// pos votes post-order when its nearest enclosing module's record (the
// same site with a parent path, by withSub) comes after it in the file,
// pre-order when before. Ties and no evidence: post-order, msprobe's.
func voteOrder[S comparable](pos map[S]int, sub func(S) string, withSub func(S, string) S) recordOrder {
	post, pre := 0, 0
	for s, k := range pos {
		for p, ok := subParent(sub(s)); ok; p, ok = subParent(p) {
			if j, hit := pos[withSub(s, p)]; hit {
				if j > k {
					post++
				} else {
					pre++
				}
				break
			}
		}
	}
	if pre > post {
		return orderPre
	}
	return orderPost
}

// sameOutput reports whether two records hold the same output tensor (equal
// element count and all four statistics): a module that returns its last
// API's result.
func sameOutput(x *dumpIndex, i, j int32) bool {
	a, b := primaryTensor(&x.d.Ops[i]), primaryTensor(&x.d.Ops[j])
	if a == nil || b == nil || a.Elements != b.Elements {
		return false
	}
	n := 0
	for s := model.Stat(0); s < model.NumStats; s++ {
		if a.Has[s] != b.Has[s] || a.Has[s] && a.Stat[s] != b.Stat[s] {
			return false
		}
		if a.Has[s] {
			n++
		}
	}
	return n > 0
}

// drillScope is the drill-down's records of one layer, pass and call.
type drillScope struct {
	x      *dumpIndex
	ops    []int32 // records of the call, in the order their outputs were computed
	parent []int   // position in ops of the innermost record containing ops[k]; -1 none
	call   int     // the call compared
	calls  int     // calls of the layer in this pass
	order  recordOrder
	// fellBack: the requested call does not exist in this layer (it ran
	// fewer times); call 0 is compared, as the layer table does.
	fellBack bool
	asked    int // the requested call when it fell back
}

// ancestor reports whether ops[a] contains ops[k].
func (s *drillScope) ancestor(a, k int) bool {
	for p, d := s.parent[k], 0; p >= 0 && d <= len(s.ops); p, d = s.parent[p], d+1 { // d: a cyclic construct.json ends
		if p == a {
			return true
		}
	}
	return false
}

// within is the key of the record containing ops[k], "" when none.
func (s *drillScope) within(k int) string {
	if p := s.parent[k]; p >= 0 {
		return s.x.d.Ops[s.ops[p]].Key
	}
	return ""
}

// subOf is the module path below the layer that ops[k] belongs to: a
// module's own, an API's enclosing module's (inferred when construct.json
// is missing).
func (s *drillScope) subOf(k int) string {
	i := s.ops[k]
	if s.x.d.Ops[i].Kind == model.KindModule || s.x.info[i].Sub != "?" {
		return s.x.info[i].Sub
	}
	if p := s.parent[k]; p >= 0 {
		return s.x.info[s.ops[p]].Sub
	}
	return ""
}

// newDrillScope builds the scope of layer's records in pass dir at call
// (the layer table's call; it falls back to call 0 when the layer ran fewer
// times, as representative does). Recompute records repeat a forward and
// are left out.
func newDrillScope(x *dumpIndex, layer int, dir model.Direction, call int) *drillScope {
	var idx []int32
	for _, i := range x.layers[layer] {
		if x.d.Ops[i].Direction == dir && !x.info[i].Recomp {
			idx = append(idx, i)
		}
	}
	s := &drillScope{x: x, order: orderOf(x, idx)}
	calls := callsOf(x, idx, s.order)
	for _, c := range calls {
		s.calls = max(s.calls, c+1)
	}
	s.call = call
	if s.call < 0 || s.call >= s.calls {
		// one run of the layer: nothing to choose (the dump holds one call)
		s.fellBack, s.asked = s.calls > 1 && s.call > 0, s.call
		s.call = 0
	}
	var in []int32
	for k, i := range idx {
		if calls[k] == s.call {
			in = append(in, i)
		}
	}
	s.ops = in
	s.parent = containers(x, in, s.order)
	s.sortByCompletion()
	return s
}

// callsOf numbers the call (micro-batch) of each record of one layer and
// pass: a module's call is its position among the records of the same
// module (forward.0, forward.1, … in file order: the numbering the anchors'
// calls use); an API's call is its construct.json parent's, else that of
// the nearest module record on the side where its module's record is
// written (after it in post-order, before it in pre-order); an API-only
// layer numbers each API by its own repetitions.
func callsOf(x *dumpIndex, idx []int32, order recordOrder) []int {
	calls := make([]int, len(idx))
	seen := map[string]int{}
	where := map[int32]int{}
	mods := 0
	for k, i := range idx {
		op := &x.d.Ops[i]
		where[i] = k
		if op.Kind != model.KindModule {
			calls[k] = -1
			continue
		}
		site := x.info[i].Sub + "\x00" + normalizeClass(classOf(op))
		calls[k] = seen[site]
		seen[site]++
		mods++
	}
	if mods == 0 { // API-only: each API site repeats once per call
		for k, i := range idx {
			site := x.info[i].Sub + "\x00" + apiBase(x.d.Ops[i].Key)
			calls[k] = seen[site]
			seen[site]++
		}
		return calls
	}
	// nearest module record after / before each position
	prev, next := nearestModules(x, idx)
	for k, i := range idx {
		if calls[k] >= 0 {
			continue
		}
		if p := x.d.Ops[i].Parent; p != "" {
			if j, ok := x.d.Index[p]; ok {
				if pk, in := where[int32(j)]; in {
					calls[k] = calls[pk]
					continue
				}
			}
		}
		near, other := next[k], prev[k]
		if order == orderPre {
			near, other = prev[k], next[k]
		}
		if near < 0 {
			near = other
		}
		if near >= 0 {
			calls[k] = calls[near]
		} else {
			calls[k] = 0
		}
	}
	return calls
}

// containers finds, for each record of one call (file order), the innermost
// record of the call containing it. construct.json parents say it when
// present (a parent missing from dump.json: its module path); without them a
// module is contained by the nearest module whose path contains its own,
// and an API by its enclosing module: the module whose record writes the
// API's result as its own output when the neighbouring one does (a leaf
// module returning its kernel's result), else the innermost module
// containing both neighbouring module records (the API ran between them,
// inside that module).
func containers(x *dumpIndex, ops []int32, order recordOrder) []int {
	parent := make([]int, len(ops))
	bySub := map[string]int{}
	where := map[int32]int{}
	for k, i := range ops {
		where[i] = k
		if x.d.Ops[i].Kind == model.KindModule {
			if _, dup := bySub[x.info[i].Sub]; !dup {
				bySub[x.info[i].Sub] = k
			}
		}
	}
	// enclosing: the innermost module record whose path is sub or contains it
	enclosing := func(sub string, self bool) int {
		if self {
			if k, ok := bySub[sub]; ok {
				return k
			}
		}
		for p, ok := subParent(sub); ok; p, ok = subParent(p) {
			if k, hit := bySub[p]; hit {
				return k
			}
		}
		return -1
	}
	// common: the innermost module record containing (or being) both paths
	common := func(a, b string) int {
		for p := a; ; {
			if p == b || subContains(p, b) {
				if k, ok := bySub[p]; ok {
					return k
				}
			}
			q, ok := subParent(p)
			if !ok {
				return -1
			}
			p = q
		}
	}
	prevMod, nextMod := nearestModules(x, ops)
	for k, i := range ops {
		op := &x.d.Ops[i]
		parent[k] = -1
		if op.Parent != "" {
			if j, ok := x.d.Index[op.Parent]; ok {
				if pk, in := where[int32(j)]; in {
					parent[k] = pk
					continue
				}
			}
		}
		if op.Kind == model.KindModule {
			parent[k] = enclosing(x.info[i].Sub, false)
			continue
		}
		if op.Parent != "" && x.info[i].Sub != "?" {
			// parent record missing from dump.json: its module path
			parent[k] = enclosing(x.info[i].Sub, true)
			continue
		}
		// no construct.json: the neighbouring module records
		writer, other := nextMod[k], prevMod[k] // post-order: a module's record follows its APIs
		if order == orderPre {
			writer, other = prevMod[k], nextMod[k]
		}
		switch {
		case writer >= 0 && sameOutput(x, i, ops[writer]):
			parent[k] = writer
		case writer >= 0 && other >= 0:
			// none recorded (no layer module record): top level of the layer
			parent[k] = common(x.info[ops[writer]].Sub, x.info[ops[other]].Sub)
		case writer >= 0:
			// the outermost record around the writer: the layer module
			parent[k] = outermost(bySub, x.info[ops[writer]].Sub)
		case other >= 0:
			parent[k] = outermost(bySub, x.info[ops[other]].Sub)
		}
	}
	return parent
}

// outermost is the shallowest module record of the call whose path is sub
// or contains it (the layer module when it was recorded).
func outermost(bySub map[string]int, sub string) int {
	if k, ok := bySub[""]; ok {
		return k
	}
	best := -1
	for p, ok := sub, true; ok; p, ok = subParent(p) {
		if k, hit := bySub[p]; hit {
			best = k
		}
	}
	return best
}

// sortByCompletion reorders the scope so that each record comes when its
// output was computed (completionOrder; in post-order that is file order
// already).
func (s *drillScope) sortByCompletion() {
	perm := completionOrder(s.parent)
	n := len(perm)
	inv := make([]int, n)
	for newPos, old := range perm {
		inv[old] = newPos
	}
	ops, parent := make([]int32, n), make([]int, n)
	for newPos, old := range perm {
		ops[newPos] = s.ops[old]
		if p := s.parent[old]; p >= 0 {
			parent[newPos] = inv[p]
		} else {
			parent[newPos] = -1
		}
	}
	s.ops, s.parent = ops, parent
}

// completionOrder is the order in which records' outputs were computed,
// as positions into parent (parent[k]: the position of the innermost
// record containing record k, -1 none; positions in file order): a
// container's output exists when its last descendant has run, so it
// follows everything inside it, and of a container and its last
// descendant the inner record's output comes first. The drill-down's
// scope and the non-finite origin's pass both order records with it.
func completionOrder(parent []int) []int {
	n := len(parent)
	end := make([]int, n) // position of the last record inside k (k itself when none)
	depth := make([]int, n)
	for k := range end {
		end[k] = k
	}
	for k := 0; k < n; k++ {
		d := 0
		for p := parent[k]; p >= 0 && d <= n; p = parent[p] { // d: a cyclic construct.json ends
			end[p] = max(end[p], k)
			d++
		}
		depth[k] = d
	}
	perm := make([]int, n)
	for k := range perm {
		perm[k] = k
	}
	sort.SliceStable(perm, func(a, b int) bool {
		pa, pb := perm[a], perm[b]
		if end[pa] != end[pb] {
			return end[pa] < end[pb]
		}
		return depth[pa] > depth[pb]
	})
	return perm
}

// nearestModules gives, for each position k of idx, the position of the
// nearest module record before it (prev) and after it (next); -1 for none.
func nearestModules(x *dumpIndex, idx []int32) (prev, next []int) {
	prev, next = make([]int, len(idx)), make([]int, len(idx))
	last := -1
	for k := range idx {
		prev[k] = last
		if x.d.Ops[idx[k]].Kind == model.KindModule {
			last = k
		}
	}
	last = -1
	for k := len(idx) - 1; k >= 0; k-- {
		next[k] = last
		if x.d.Ops[idx[k]].Kind == model.KindModule {
			last = k
		}
	}
	return prev, next
}
