package analysis

import (
	"sort"
	"strings"

	"spikescope/model"
)

// Name maps across frameworks (method.md Phase 3, "Key alignment across
// devices"): a MindSpore run (MindFormers cells: layers.L.attention.wq,
// feed_forward.w1, attention_norm) and a PyTorch reference (Megatron
// modules: self_attention.query_key_value, mlp.dense_h_to_4h,
// input_layernorm) name the same network differently, so no key of one
// is a key of the other. The anomalous device's module paths are
// rewritten into the baseline's vocabulary before the dumps are indexed:
// through msprobe's own layer-mapping file when the user gives one (the
// rules of `msprobe compare -lm`), else through a built-in table of the
// names the MindFormers and Megatron families use for one function. Keys
// shown to the user stay those of their own dumps.

// nameMapper rewrites the names of one dump for alignment.
type nameMapper struct {
	// translate: this dump's paths are rewritten (the side the map is
	// written for); false: the other side, whose names are the target
	// vocabulary (API names still compared without their framework prefix).
	translate bool
	// bare: API calls are aligned by their operator name without the
	// framework's API family (two frameworks name their APIs apart).
	bare    bool
	rules   map[string]map[string][]mapRule // file: class → first key segment → rules, longest first
	builtin bool
	// target: the other side's module paths below a layer, raw
	// ("self_attention.query_key_value"), for the built-in map's choice.
	target  map[string]bool
	word    string            // the layer container word ("layers")
	classAt map[string]string // this dump: module path → class
	cache   map[string]string
}

// mapRule is one entry of a layer-mapping file below a class: the path
// segments it matches and what they become.
type mapRule struct {
	origin []string
	target string
}

// builtinSynonyms are the names one function has in the MindFormers,
// MindSpeed/ModelLink, Megatron legacy and Megatron-core families (and the
// HuggingFace names often used on either side), one group per function.
var builtinSynonyms = [][]string{
	{"input_layernorm", "input_norm", "attention_norm", "input_layer_norm"},
	{"self_attention", "attention", "self_attn"},
	{"pre_mlp_layernorm", "post_attention_layernorm", "post_attention_norm", "ffn_norm"},
	{"mlp", "feed_forward"},
	{"linear_qkv", "query_key_value", "w_qkv", "qkv_proj"},
	{"linear_proj", "dense", "wo", "o_proj"},
	{"core_attention", "core_attention_flash", "flash_attention"},
	{"linear_q", "wq", "q_proj"}, {"linear_k", "wk", "k_proj"}, {"linear_v", "wv", "v_proj"},
	{"linear_fc1", "dense_h_to_4h", "w_gate_hidden", "gate_up_proj", "w1"},
	{"linear_fc2", "dense_4h_to_h", "w2", "down_proj"},
	{"gate_proj", "w1"}, {"up_proj", "w3"},
}

// splitFamilies: projections one family computes as several modules and
// another as one fused module. A split record has no counterpart in a
// fused dump (and the other way round).
var splitFamilies = []struct{ split, fused []string }{
	{[]string{"wq", "wk", "wv", "linear_q", "linear_k", "linear_v", "q_proj", "k_proj", "v_proj"}, []string{"linear_qkv", "query_key_value", "w_qkv", "qkv_proj"}},
	{[]string{"w1", "w3", "gate_proj", "up_proj"}, []string{"linear_fc1", "dense_h_to_4h", "w_gate_hidden", "gate_up_proj"}},
}

// synonymsOf lists the names of seg's function (seg itself first). w1 is
// MindFormers' gate projection when a w3 (up) sits beside it, else the
// whole first MLP projection.
func synonymsOf(seg string, hasW3 bool) []string {
	out := []string{seg}
	for _, g := range builtinSynonyms {
		if !containsStr(g, seg) {
			continue
		}
		if seg == "w1" && (g[0] == "gate_proj") != hasW3 {
			continue
		}
		for _, s := range g {
			if s != seg {
				out = append(out, s)
			}
		}
	}
	return out
}

func containsStr(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// modulePath is path in the target vocabulary (path itself when this dump
// is not translated).
func (m *nameMapper) modulePath(path string) string {
	if m == nil || !m.translate || path == "" {
		return path
	}
	if v, ok := m.cache[path]; ok {
		return v
	}
	var v string
	if m.rules != nil {
		v = m.filePath(path)
	} else {
		v = m.builtinPath(path)
	}
	m.cache[path] = v
	return v
}

// filePath applies a layer-mapping file the way msprobe does: walk the
// path from the root (TopLayer); at each module, the rules of its class
// may replace the next segment(s); a module without a record is known by
// its own name.
func (m *nameMapper) filePath(path string) string {
	segs := strings.Split(path, ".")
	out := make([]string, 0, len(segs))
	typ := model.LayerMappingRoot
	for idx := 0; idx < len(segs); {
		child, step, tgt := segs[idx], 1, segs[idx]
		for _, r := range m.rules[typ][child] {
			if idx+len(r.origin) <= len(segs) && equalStrs(segs[idx:idx+len(r.origin)], r.origin) {
				tgt, step = r.target, len(r.origin)
				break
			}
		}
		if tgt != "" {
			out = append(out, tgt)
		}
		idx += step
		typ = m.classAt[strings.Join(segs[:idx], ".")]
		if typ == "" {
			typ = segs[idx-1]
		}
	}
	return strings.Join(out, ".")
}

func equalStrs(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// builtinPath rewrites the segments below the layer into the names the
// other side uses for the same function; a segment whose function the other
// side does not have keeps its own name (and stays unaligned).
func (m *nameMapper) builtinPath(path string) string {
	segs := strings.Split(path, ".")
	j := layerSegment(segs, m.word)
	if j < 0 {
		return path
	}
	out := append([]string(nil), segs[:j+1]...)
	var sub []string
	for k := j + 1; k < len(segs); k++ {
		seg := segs[k]
		hasW3 := seg == "w1" && m.classAt[strings.Join(segs[:k], ".")+".w3"] != ""
		chosen := seg
		for _, c := range synonymsOf(seg, hasW3) {
			if m.target[strings.Join(append(sub, c), ".")] {
				chosen = c
				break
			}
		}
		sub = append(sub, chosen)
	}
	return strings.Join(append(out, sub...), ".")
}

// layerSegment is the index of the layer number in a path's segments
// ("…layers.3…" → the index of "3"), -1 outside the layers.
func layerSegment(segs []string, word string) int {
	for j := 1; j < len(segs); j++ {
		if segs[j-1] == word && allDigits(segs[j]) {
			return j
		}
	}
	return -1
}

// apiName is the name an API call is aligned by in a cross-framework
// comparison: its operator name without the framework's API family
// ("Functional.flash_attention_score" → "flash_attention_score",
// "Tensor.__add__" → "add"), renamed by the file's rules for the class of
// the module that called it; extra is a path below that module the rule
// moves the call to ("core_attention_flash.npu_fusion_attention").
func (m *nameMapper) apiName(op *model.Op) (name, extra string) {
	base := apiBase(op.Key)
	if i := strings.LastIndexByte(base, '.'); i >= 0 {
		base = base[i+1:]
	}
	if !m.bare {
		return apiBase(op.Key), ""
	}
	if m.translate && m.rules != nil && op.Parent != "" {
		for _, r := range m.rules[keyClass(op.Parent)][base] {
			if len(r.origin) == 1 {
				t := r.target
				if i := strings.LastIndexByte(t, '.'); i >= 0 {
					extra, t = t[:i], t[i+1:]
				}
				base = t
				break
			}
		}
	}
	return strings.Trim(base, "_"), extra
}

// keyClass is the class in a module key ("Cell.….attention.ParallelAttention.forward.0").
func keyClass(key string) string { return classOf(&model.Op{Key: key}) }

// noCounterpart says why op i of x has no counterpart in y when a split
// projection meets a fused one ("no counterpart in B: wq is one of the
// split projections where B has the fused query_key_value"); nil otherwise.
func noCounterpart(x *dumpIndex, i int32, y *dumpIndex, ny string) model.Reason {
	if x == nil || y == nil || x.nm == nil || y.subs == nil || i < 0 {
		return nil
	}
	segs := strings.Split(x.info[i].Sub, ".")
	for k, seg := range segs {
		for _, f := range splitFamilies {
			var theirs []string
			switch {
			case containsStr(f.split, seg):
				theirs = f.fused
			case containsStr(f.fused, seg):
				theirs = f.split
			default:
				continue
			}
			prefix := strings.Join(segs[:k], ".")
			if prefix != "" {
				prefix += "."
			}
			var found []string
			for _, t := range theirs {
				if y.subs[prefix+t] {
					found = append(found, t)
				}
			}
			if len(found) == 0 {
				continue
			}
			// the names joined: the reason stays comparable (counted by value)
			return model.P3SplitFused{Group: ny, Seg: seg, Found: strings.Join(found, "/"), Split: containsStr(f.split, seg)}
		}
	}
	return nil
}

// frameworkOf names a dump's framework: dump.json's own "framework", else
// from its module keys (MindSpore cells are "Cell.…").
func frameworkOf(d *model.Dump) string {
	if d == nil {
		return ""
	}
	if d.Framework != "" {
		return strings.ToLower(d.Framework)
	}
	for i := range d.Ops {
		if d.Ops[i].Kind == model.KindModule {
			if strings.HasPrefix(d.Ops[i].Key, "Cell.") {
				return "mindspore"
			}
			return "pytorch"
		}
	}
	return ""
}

// nameMaps builds the name mappers of the four dumps (nil: no mapping):
// the layer-mapping file when given, else the built-in map when A and B
// come from different frameworks. The file is written for the target side
// of msprobe's comparison (the anomalous device): it translates A and C,
// unless its classes are B's. note says what was done, for the output.
func nameMaps(lm *model.LayerMapping, word string, dumps []*model.Dump) (maps []*nameMapper, note model.Reason) {
	if len(dumps) < 2 || dumps[0] == nil || dumps[1] == nil {
		return nil, nil
	}
	fa, fb := frameworkOf(dumps[0]), frameworkOf(dumps[1])
	cross := fa != fb && fa != "" && fb != ""
	// One framework and no file: A and B alone decide whether a map is
	// needed at all (the usual case: none), so C's and D's classes are
	// only collected once it is.
	sameFamily := !cross && lm == nil
	maps = make([]*nameMapper, len(dumps))
	for i, d := range dumps {
		if d == nil {
			continue
		}
		m := &nameMapper{word: word, cache: map[string]string{}, bare: cross || lm != nil}
		if !sameFamily || i < 2 {
			m.classAt = moduleClasses(d)
		}
		maps[i] = m
	}
	src, dst := []int{0, 2}, []int{1, 3} // translated, target
	if lm != nil {
		rules := compileRules(lm)
		if hits(lm, maps[1].classAt) > hits(lm, maps[0].classAt) {
			src, dst = dst, src
		}
		for _, i := range src {
			if i < len(maps) && maps[i] != nil {
				maps[i].translate, maps[i].rules = true, rules
			}
		}
		side := "A"
		if src[0] == 1 {
			side = "B"
		}
		return maps, model.P3NameMapFile{Side: side, Path: lm.Path}
	}
	target := map[string]bool{}
	addTargets := func(classAt map[string]string) {
		for p := range classAt {
			if segs := strings.Split(p, "."); layerSegment(segs, word) >= 0 {
				j := layerSegment(segs, word)
				for k := j + 2; k <= len(segs); k++ {
					target[strings.Join(segs[j+1:k], ".")] = true
				}
			}
		}
	}
	for _, i := range dst {
		if i < len(maps) && maps[i] != nil {
			addTargets(maps[i].classAt)
		}
	}
	for _, i := range src {
		if i < len(maps) && maps[i] != nil {
			maps[i].translate, maps[i].builtin, maps[i].target = true, true, target
		}
	}
	if !cross {
		// One framework, two model families (legacy Megatron against
		// Megatron-core): the map is used only when it renames something.
		renames := false
		for p := range maps[0].classAt {
			if maps[0].modulePath(p) != p {
				renames = true
				break
			}
		}
		if !renames {
			return nil, nil
		}
		for _, i := range []int{2, 3} {
			if i < len(maps) && maps[i] != nil {
				maps[i].classAt = moduleClasses(dumps[i])
			}
		}
		if len(maps) > 3 && maps[3] != nil {
			addTargets(maps[3].classAt)
		}
		return maps, model.P3NameMapMegatron{}
	}
	return maps, model.P3NameMapBuiltin{FrameworkA: fa, FrameworkB: fb}
}

// moduleClasses maps every module path of a dump (its records and their
// construct.json parents) to its class.
func moduleClasses(d *model.Dump) map[string]string {
	out := map[string]string{}
	seen := map[string]bool{} // parent keys repeat for every child: parse each once
	add := func(key string) {
		if seen[key] {
			return
		}
		seen[key] = true
		if !isModuleKey(key) {
			return
		}
		if p := parseModuleKeyPath(key); p != "" {
			if _, ok := out[p]; !ok {
				out[p] = keyClass(key)
			}
		}
	}
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Kind == model.KindModule {
			if p := modulePathOf(op); p != "" {
				if _, ok := out[p]; !ok {
					out[p] = classOf(op)
				}
			}
		}
		if op.Parent != "" {
			add(op.Parent)
		}
	}
	return out
}

// compileRules turns a file's rules into msprobe's lookup form: by class,
// by the first segment of the key, longest key first.
func compileRules(lm *model.LayerMapping) map[string]map[string][]mapRule {
	out := map[string]map[string][]mapRule{}
	for class, rs := range lm.Rules {
		if class == "Cell" {
			class = model.LayerMappingRoot // older files
		}
		m := out[class]
		if m == nil {
			m = map[string][]mapRule{}
			out[class] = m
		}
		for k, v := range rs {
			if i := strings.IndexByte(v, '('); i >= 0 {
				v = v[:i]
			}
			o := strings.Split(k, ".")
			m[o[0]] = append(m[o[0]], mapRule{origin: o, target: strings.TrimSpace(v)})
		}
		for _, l := range m {
			sort.SliceStable(l, func(i, j int) bool {
				if len(l[i].origin) != len(l[j].origin) {
					return len(l[i].origin) > len(l[j].origin)
				}
				return strings.Join(l[i].origin, ".") < strings.Join(l[j].origin, ".")
			})
		}
	}
	return out
}

// hits counts the file's classes that are classes of a dump.
func hits(lm *model.LayerMapping, classAt map[string]string) int {
	have := map[string]bool{}
	for _, c := range classAt {
		have[c] = true
	}
	n := 0
	for c := range lm.Rules {
		if have[c] {
			n++
		}
	}
	return n
}
