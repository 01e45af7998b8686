package analysis

import (
	"strconv"
	"strings"

	"spikescope/model"
)

// defaultLayerWord is the layer container name used when no dump shows one
// (Megatron's "layers").
const defaultLayerWord = "layers"

// ignoredLayerWords are list containers whose indices are not transformer
// layers: MoE experts would otherwise out-vote "layers" (reference bug 18).
var ignoredLayerWords = map[string]bool{
	"experts": true, "local_experts": true, "shared_experts": true, "heads": true,
}

// layerScheme says how module paths map to layer ids across the four dumps
// of one comparison. Layer numbers restart per stack (encoder/decoder, or
// model chunks of a VPP list); stacks are laid end to end in the order they
// first run, so "encoder.layers.3" and "decoder.layers.3" get distinct ids
// and encoder layers come first. With a single stack the id is the path's
// own layer number.
type layerScheme struct {
	Word   string         // "layers"
	Stacks []string       // stack keys in execution order ("" for the only stack)
	offset map[string]int // stack → first id
	maxN   map[string]int
	cache  map[string]cachedLoc // module path → locate result
	frozen bool                 // cache read-only (dumps are indexed concurrently)
}

type cachedLoc struct {
	loc layerLoc
	ok  bool
}

// locate is locate(path, s.Word), memoised: module paths repeat once per
// call (micro-batch) and pass.
func (s *layerScheme) locate(path string) (layerLoc, bool) {
	if c, hit := s.cache[path]; hit {
		return c.loc, c.ok
	}
	loc, ok := locate(path, s.Word)
	if !s.frozen {
		s.cache[path] = cachedLoc{loc, ok}
	}
	return loc, ok
}

// layerLoc is where a module path sits: its stack, its layer number and the
// path below the layer ("mlp.linear_fc1"; "" for the layer module itself).
type layerLoc struct {
	Stack string
	N     int
	Sub   string
}

// learnLayerWord returns the most frequent "<word>.<N>" container among
// MODULE paths (an API name like "relu.0.forward" is never a path, list
// indices of a model list like "Module.0." have no word before them, expert
// lists are ignored). Ties go to the first seen.
func learnLayerWord(dumps ...*model.Dump) string {
	counts := map[string]int{}
	var order []string
	seen := map[string]bool{}
	for _, d := range dumps {
		if d == nil {
			continue
		}
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Kind != model.KindModule || op.Direction != model.Forward {
				continue
			}
			path := modulePathOf(op)
			if seen[path] { // each module path counts once (calls repeat it)
				continue
			}
			seen[path] = true
			segs := strings.Split(path, ".")
			for j := 1; j < len(segs); j++ {
				w := segs[j-1]
				if !allDigits(segs[j]) || !isIdentifier(w) || ignoredLayerWords[w] {
					continue
				}
				if j+1 < len(segs) && allDigits(segs[j+1]) {
					continue // "a.0.1": nested list, not a layer container
				}
				if counts[w] == 0 {
					order = append(order, w)
				}
				counts[w]++
				break
			}
		}
	}
	best, bestN := defaultLayerWord, 0
	for _, w := range order {
		if counts[w] > bestN {
			best, bestN = w, counts[w]
		}
	}
	return best
}

func isIdentifier(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// locate finds "<word>.<N>" in a module path. ok is false for paths outside
// any layer (embedding, final norm, output layer).
func locate(path, word string) (loc layerLoc, ok bool) {
	segs := strings.Split(path, ".")
	for j := 1; j < len(segs); j++ {
		if segs[j-1] != word || !allDigits(segs[j]) {
			continue
		}
		n, err := strconv.Atoi(segs[j])
		if err != nil {
			return loc, false
		}
		loc.N = n
		loc.Stack = stackKey(segs[:j-1])
		if j+1 < len(segs) {
			sub := make([]string, 0, len(segs)-j-1)
			for _, s := range segs[j+1:] {
				sub = append(sub, normalizePathSegment(s))
			}
			loc.Sub = strings.Join(sub, ".")
		}
		return loc, true
	}
	return loc, false
}

// stackKey names the container holding a layer list: the last path segment
// that is not a wrapper ("decoder", "encoder"), prefixed by a leading model
// list index (VPP chunks "0.", "1." restart their layer numbers). Wrapper
// names differ between devices ("module.module" vs "model"), so they are not
// part of the key.
func stackKey(segs []string) string {
	lead := ""
	if len(segs) > 0 && allDigits(segs[0]) {
		lead = segs[0] + ":"
	}
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s == "module" || s == "model" || s == "network_with_loss" || allDigits(s) {
			continue
		}
		return lead + s
	}
	return lead
}

// learnLayerScheme learns the layer word and the stacks from the dumps
// (the first dump's execution order decides the stack order).
func learnLayerScheme(dumps ...*model.Dump) *layerScheme {
	return learnLayerSchemeMapped(nil, dumps...)
}

// learnLayerSchemeMapped is learnLayerScheme over the module paths seen
// through each dump's name map (maps[i] for dumps[i]; nil: as they are).
// When every dump holds a single stack, the stacks are one: two devices
// may name the only layer list differently ("decoder" in Megatron-core,
// "encoder" in legacy Megatron, "network" in MindFormers).
func learnLayerSchemeMapped(maps []*nameMapper, dumps ...*model.Dump) *layerScheme {
	s := &layerScheme{Word: learnLayerWord(dumps...), offset: map[string]int{}, maxN: map[string]int{}, cache: map[string]cachedLoc{}}
	single := true
	for di, d := range dumps {
		if d == nil {
			continue
		}
		var nm *nameMapper
		if di < len(maps) {
			nm = maps[di]
		}
		own := map[string]bool{}
		prev := "\x00" // the stack of the previous module record: own is written on a change only
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Kind != model.KindModule {
				continue
			}
			loc, ok := s.locate(nm.modulePath(modulePathOf(op)))
			if !ok {
				continue
			}
			if loc.Stack != prev {
				own[loc.Stack], prev = true, loc.Stack
			}
			if m, seen := s.maxN[loc.Stack]; !seen {
				s.Stacks = append(s.Stacks, loc.Stack)
				s.maxN[loc.Stack] = loc.N
			} else if loc.N > m {
				s.maxN[loc.Stack] = loc.N
			}
		}
		if len(own) > 1 {
			single = false
		}
	}
	s.frozen = true
	if single && len(s.Stacks) > 1 {
		n := 0
		for _, st := range s.Stacks {
			n = max(n, s.maxN[st])
		}
		for _, st := range s.Stacks {
			s.offset[st] = 0
			s.maxN[st] = n
		}
		s.Stacks = s.Stacks[:1]
		return s
	}
	off := 0
	for _, st := range s.Stacks {
		s.offset[st] = off
		off += s.maxN[st] + 1
	}
	return s
}

// id is the layer id of a located path; -1 for a stack never seen.
func (s *layerScheme) id(loc layerLoc) int {
	off, ok := s.offset[loc.Stack]
	if !ok {
		return -1
	}
	return off + loc.N
}

// label is the human name of a layer id when several stacks exist
// ("encoder.layers.3"); "" with a single stack.
func (s *layerScheme) label(id int) string {
	if len(s.Stacks) < 2 {
		return ""
	}
	for i := len(s.Stacks) - 1; i >= 0; i-- {
		st := s.Stacks[i]
		if id >= s.offset[st] {
			name := strings.ReplaceAll(st, ":", ".")
			if name != "" {
				name += "."
			}
			return name + s.Word + "." + strconv.Itoa(id-s.offset[st])
		}
	}
	return ""
}

// Prefix is the reference's layer_prefix ("layers.").
func (s *layerScheme) Prefix() string { return s.Word + "." }
