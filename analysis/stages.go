package analysis

import (
	"hash/fnv"
	"slices"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// Pipeline stages without VPP (method.md, Phase 1 step 1). With PP and one
// model chunk per stage msprobe writes vpp_stage 0 on every stage and every
// stage numbers its layers from 0: "layers.0.self_attention.linear_qkv.weight"
// of stage 0 and of stage 1 are different parameters under one name. The
// stage of a rank is read from the parameters it holds: the embedding lives
// on the first stage, the final norm and the output layer on the last, and
// the ranks of one stage hold the same names. Same-named parameters of
// different stages are never pooled or compared: Phase 1 analyses them as
// different targets named "pp<stage>:<name>".

// rankClass is what a rank's parameter set says about its stage.
type rankClass int

const (
	classMiddle rankClass = iota // neither embedding nor final norm / output layer
	classFirst                   // the embedding, no final norm
	classLast                    // the final norm or output layer (a tied embedding too)
)

// isEmbeddingParam: a parameter outside the layer stack whose name holds an
// embedding (Megatron embedding.word_embeddings / position_embeddings,
// MindFormers tok_embeddings, HF embed_tokens, GPT-2 wte/wpe).
func isEmbeddingParam(name string) bool {
	if _, ok := model.LayerIndex(name); ok {
		return false
	}
	for _, seg := range strings.Split(strings.ToLower(model.StageBaseName(name)), ".") {
		if strings.HasPrefix(seg, "embed_out") {
			return false // GPT-NeoX's output layer
		}
		if strings.Contains(seg, "embed") || seg == "wte" || seg == "wpe" {
			return true
		}
	}
	return false
}

// isFinalParam: a parameter outside the layer stack of the model's head —
// the final norm (final_layernorm, final_norm, HF "norm", MindFormers
// norm_out, ln_f) or the output layer (output_layer, lm_head, GPT-NeoX
// embed_out).
func isFinalParam(name string) bool {
	if _, ok := model.LayerIndex(name); ok {
		return false
	}
	segs := strings.Split(strings.ToLower(model.StageBaseName(name)), ".")
	for i, seg := range segs {
		switch {
		case strings.HasPrefix(seg, "final"), strings.HasPrefix(seg, "output_layer"), seg == "lm_head", strings.HasPrefix(seg, "embed_out"),
			seg == "ln_f", seg == "norm_out", seg == "final_norm":
			return true
		case seg == "norm" && i+1 < len(segs):
			// HF "model.norm.weight" (squashed "norm.weight"): a norm
			// outside every layer is the final norm
			return true
		}
	}
	return false
}

// isExpertParam: a MoE expert's weight ("….experts.3.…", "local_experts"):
// with expert parallelism the ranks of one stage hold different experts,
// so experts never decide which ranks share a stage.
func isExpertParam(name string) bool {
	for _, seg := range strings.Split(name, ".") {
		if strings.HasSuffix(seg, "experts") && seg != "shared_experts" {
			return true
		}
	}
	return false
}

// stageInference is the result of inferStages.
type stageInference struct {
	info   model.StageLayout
	ranks  []int // ranks with a known stage, ascending
	stages []int // stage of ranks[i]
}

// stageOf returns the stage of rank rk, -1 when unknown.
func (s *stageInference) stageOf(rk int) int {
	if i, ok := slices.BinarySearch(s.ranks, rk); ok {
		return s.stages[i]
	}
	return -1
}

// inferStages reads each rank's pipeline stage from the (target, rank)
// series of the index (no pass over the rows).
func inferStages(d *model.MonitorData, ix *seriesIndex) *stageInference {
	res := &stageInference{info: model.StageLayout{Stages: 1}}
	nR := len(ix.ranks)
	if nR < 2 || len(ix.groups) == 0 {
		return res
	}
	rankPos := func(rk int32) int { return sort.SearchInts(ix.ranks, int(rk)) }
	isEmb := make([]bool, len(d.Targets))
	isFin := make([]bool, len(d.Targets))
	expert := make([]bool, len(d.Targets))
	anyMarker := false
	for t := range d.Targets {
		isEmb[t], isFin[t] = isEmbeddingParam(d.Targets[t].Name), isFinalParam(d.Targets[t].Name)
		anyMarker = anyMarker || isEmb[t] || isFin[t]
		expert[t] = isExpertParam(d.Targets[t].Name)
	}
	// per rank: markers held and a signature of its name set (groups come
	// target by target, so each rank sees its targets in ascending order)
	hasEmb, hasFin := make([]bool, nR), make([]bool, nR)
	sig := make([]uint64, nR)
	for i := range sig {
		sig[i] = 14695981039346656037
	}
	for _, g := range ix.groups {
		p := rankPos(g.Rank)
		hasEmb[p] = hasEmb[p] || isEmb[g.Target]
		hasFin[p] = hasFin[p] || isFin[g.Target]
		if !expert[g.Target] { // expert parallelism: one stage's ranks hold different experts
			sig[p] = (sig[p] ^ uint64(g.Target+1)) * 1099511628211
		}
	}
	class := make([]rankClass, nR)
	var first, last, middle []int // rank positions
	for p := range class {
		switch {
		case hasFin[p]:
			class[p] = classLast
			last = append(last, p)
		case hasEmb[p]:
			class[p] = classFirst
			first = append(first, p)
		default:
			middle = append(middle, p)
		}
	}
	var stage []int // per rank position
	switch {
	case anyMarker && len(first)+len(middle) == 0:
		return res // every rank holds the model's head: one stage
	case anyMarker && (len(first) > 0 || len(last) > 0) && len(first)+len(last)+len(middle) == nR &&
		!(len(first) == nR || len(middle) == nR):
		var why model.Reason
		stage, why = stagesFromMarkers(ix.ranks, first, middle, last)
		if stage == nil {
			res.info.NoteReason = why
			return res
		}
		res.info.MethodReason = model.StagesByMarkers{First: ranksAt(ix.ranks, first), Last: ranksAt(ix.ranks, last), Middle: ranksAt(ix.ranks, middle)}
	default:
		// no markers, or every rank alike: distinct name sets may still
		// tell stages apart (uneven layer counts)
		var why model.Reason
		stage = stagesFromNameSets(ix.ranks, sig)
		res.info.MethodReason = model.StagesByNameSets{}
		if stage == nil && !anyMarker {
			// gradient levels of the names every rank holds, if unmistakable
			stage, res.info.MethodReason, why = stagesFromLevels(ix)
		}
		if stage == nil {
			res.info.MethodReason = nil
			res.info.NoteReason = why
			return res
		}
	}
	// ranks of one stage hold the same layers (a rank may lack a parameter
	// the others have: a lost file says nothing about its stage)
	nStages := slices.Max(stage) + 1
	lsig := layerSignatures(d, ix)
	for s := 0; s < nStages; s++ {
		var ref uint64
		seen := false
		for p, st := range stage {
			if st != s {
				continue
			}
			if seen && lsig[p] != ref {
				res.info.NoteReason = model.StagesLayersDiffer{Stage: s}
				return res
			}
			ref, seen = lsig[p], true
		}
	}
	res.info.Stages = nStages
	res.info.Inferred = true
	res.info.RankStages = map[string]int{}
	for p, rk := range ix.ranks {
		res.ranks = append(res.ranks, rk)
		res.stages = append(res.stages, stage[p])
		res.info.RankStages[strconv.Itoa(rk)] = stage[p]
	}
	res.layerCounts(d, ix, stage)
	return res
}

// layerSignatures is, per rank (ix.ranks order), an order-free hash of
// the distinct (chunk, layer number) pairs its parameters name.
func layerSignatures(d *model.MonitorData, ix *seriesIndex) []uint64 {
	keyOf := make([]int, len(d.Targets)) // dense index of the target's (chunk, layer), -1 none
	keys := map[[2]int]int{}
	var hashes []uint64
	for t := range d.Targets {
		keyOf[t] = -1
		if n, ok := model.LayerIndex(d.Targets[t].Name); ok {
			k := [2]int{d.Targets[t].VPPStage, n}
			i, seen := keys[k]
			if !seen {
				i = len(hashes)
				keys[k] = i
				h := (uint64(k[0])*0x9e3779b97f4a7c15 ^ uint64(k[1]+1)) * 0xbf58476d1ce4e5b9
				hashes = append(hashes, h^h>>31)
			}
			keyOf[t] = i
		}
	}
	nR, nK := len(ix.ranks), len(hashes)
	out := make([]uint64, nR)
	if nK == 0 {
		return out
	}
	held := make([]bool, nR*nK)
	for _, g := range ix.groups {
		k := keyOf[g.Target]
		if k < 0 {
			continue
		}
		p := sort.SearchInts(ix.ranks, int(g.Rank))
		if !held[p*nK+k] {
			held[p*nK+k] = true
			out[p] += hashes[k]
		}
	}
	return out
}

// stagesFromMarkers numbers the stages from the marker classes: the
// embedding ranks are stage 0, the final-norm ranks the last stage, and the
// ranks holding neither are the middle stages, n ranks each (n = the size
// of the first or last stage), in Megatron's rank order — blocked (stage =
// rank / ranks-per-stage, the default "tp-cp-ep-dp-pp") or strided (stage =
// rank mod PP), whichever agrees with the marker ranks.
func stagesFromMarkers(ranks []int, first, middle, last []int) ([]int, model.Reason) {
	nR := len(ranks)
	stage := make([]int, nR)
	if len(middle) == 0 {
		for _, p := range last {
			stage[p] = 1
		}
		return stage, nil
	}
	n := len(first)
	if n == 0 || (len(last) > 0 && len(last) != n) {
		n = len(last)
	}
	if len(first) > 0 && len(last) > 0 && len(first) != len(last) {
		return nil, model.StagesMarkersUneven{First: len(first), Last: len(last)}
	}
	if n == 0 || len(middle)%n != 0 {
		return nil, model.StagesMiddleNotMultiple{Middle: len(middle), PerStage: n}
	}
	pp := len(middle)/n + boolInt(len(first) > 0) + boolInt(len(last) > 0)
	want := func(stg []int) bool {
		for _, p := range first {
			if stg[p] != 0 {
				return false
			}
		}
		for _, p := range last {
			if stg[p] != pp-1 {
				return false
			}
		}
		for _, p := range middle {
			if stg[p] == 0 && len(first) > 0 || stg[p] == pp-1 && len(last) > 0 {
				return false
			}
		}
		return true
	}
	blocked := make([]int, nR)
	for p := range blocked {
		blocked[p] = p * pp / nR
	}
	if nR%pp == 0 && want(blocked) {
		return blocked, nil
	}
	strided := make([]int, nR)
	for p := range strided {
		strided[p] = ranks[p] % pp
	}
	if want(strided) {
		return strided, nil
	}
	return nil, model.StagesNoRankOrder{First: ranksAt(ranks, first), Last: ranksAt(ranks, last), Stages: pp}
}

// stagesFromNameSets groups ranks by identical parameter-name sets when
// there is no marker: the groups must be blocks of equal size, at least two
// ranks each, in rank order (stage s on the s-th block); else nothing is
// inferred, silently — a rank that lost a file differs too, and says
// nothing about stages.
func stagesFromNameSets(ranks []int, sig []uint64) []int {
	nR := len(ranks)
	stage := make([]int, nR)
	s := 0
	seen := map[uint64]bool{sig[0]: true}
	for p := 1; p < nR; p++ {
		if sig[p] != sig[p-1] {
			if seen[sig[p]] {
				return nil
			}
			seen[sig[p]] = true
			s++
		}
		stage[p] = s
	}
	pp := s + 1
	if s == 0 || nR%pp != 0 || nR/pp < 2 {
		return nil
	}
	for p := range stage {
		if stage[p] != p*pp/nR {
			return nil
		}
	}
	return stage
}

// layerCounts fills the layers per stage (local numbers 0..n-1 on every
// stage) and the global offsets; with several VPP chunks the chunk size
// when every (stage, chunk) holds the same count.
func (s *stageInference) layerCounts(d *model.MonitorData, ix *seriesIndex, stage []int) {
	pp := s.info.Stages
	type key struct{ stage, vpp int }
	layers := map[key]map[int]bool{}
	vpps := map[int]bool{}
	for _, g := range ix.groups {
		st := stage[sort.SearchInts(ix.ranks, int(g.Rank))]
		t := d.Targets[g.Target]
		vpps[t.VPPStage] = true
		n, ok := model.LayerIndex(t.Name)
		if !ok {
			continue
		}
		k := key{st, t.VPPStage}
		if layers[k] == nil {
			layers[k] = map[int]bool{}
		}
		layers[k][n] = true
	}
	count := func(k key) int {
		m := layers[k]
		mx := -1
		for n := range m {
			mx = max(mx, n)
		}
		if mx+1 != len(m) {
			return -1 // gaps: a filtered list, counts unknown
		}
		return len(m)
	}
	if len(vpps) > 1 {
		c := -1
		for st := 0; st < pp; st++ {
			for v := range vpps {
				n := count(key{st, v})
				if n <= 0 || (c >= 0 && n != c) {
					return
				}
				c = n
			}
		}
		s.info.ChunkLayers = c
		return
	}
	off := 0
	for st := 0; st < pp; st++ {
		n := count(key{st, 0})
		if n <= 0 {
			s.info.LayersPerStage, s.info.LayerOffsets = nil, nil
			return
		}
		s.info.LayersPerStage = append(s.info.LayersPerStage, n)
		s.info.LayerOffsets = append(s.info.LayerOffsets, off)
		off += n
	}
}

// ranksAt is the ranks at positions ps.
func ranksAt(ranks []int, ps []int) []int {
	xs := make([]int, len(ps))
	for i, p := range ps {
		xs[i] = ranks[p]
	}
	return xs
}

// splitStages returns the monitor data with every target held by ranks of
// several stages split into one target per stage, named "pp<s>:<name>"
// ("pp<s>:vpp<v>:<name>" with VPP chunks)
// (one pass over the rows: a slice lookup per series). Rows of ranks without a
// known stage keep the original target.
func splitStages(d *model.MonitorData, si *stageInference) *model.MonitorData {
	pp := si.info.Stages
	nT := len(d.Targets)
	out := *d
	out.Targets = make([]model.Target, 0, nT*pp)
	remap := make([]int32, nT*pp)
	for i := range remap {
		remap[i] = -1
	}
	minR, maxR := si.ranks[0], si.ranks[len(si.ranks)-1]
	dense := maxR-minR < 1<<20 // rank numbers far apart: a binary search per row
	var rankStage []int32
	if dense {
		rankStage = make([]int32, maxR-minR+1)
		for i := range rankStage {
			rankStage[i] = -1
		}
		for i, rk := range si.ranks {
			rankStage[rk-minR] = int32(si.stages[i])
		}
	}
	// with several model chunks (VPP) a stage holds each name once per
	// chunk: the chunk is part of the name too ("pp1:vpp1:layers.0…")
	chunks := false
	for _, t := range d.Targets {
		chunks = chunks || t.VPPStage != d.Targets[0].VPPStage
	}
	r := &d.Rows
	var split []model.Target
	keep := make([]bool, nT) // an original target still holds rows (ranks without a stage)
	// the stage depends on the rank only: one lookup per run of rows
	rows := r.RetargetSeries(func(run model.Run) int32 {
		t := run.Target
		if t < 0 || int(t) >= nT {
			return t
		}
		rk := int(run.Rank) - minR
		st := int32(-1)
		switch {
		case !dense:
			st = int32(si.stageOf(int(run.Rank)))
		case rk >= 0 && rk < len(rankStage):
			st = rankStage[rk]
		}
		if st < 0 {
			keep[t] = true
			return t
		}
		k := int(t)*pp + int(st)
		nt := remap[k]
		if nt < 0 {
			old := d.Targets[t]
			nt = int32(nT + len(split))
			name := old.Name
			if chunks {
				name = model.ChunkName(old.VPPStage, name)
			}
			split = append(split, model.Target{Name: model.StageName(int(st), name), VPPStage: old.VPPStage, MicroStep: old.MicroStep})
			remap[k] = nt
		}
		return nt
	})
	// the kept original targets first (in their order), then the split ones
	renum := make([]int32, nT+len(split))
	out.Targets = out.Targets[:0]
	for t := 0; t < nT; t++ {
		renum[t] = -1
		if keep[t] {
			renum[t] = int32(len(out.Targets))
			out.Targets = append(out.Targets, d.Targets[t])
		}
	}
	for _, nt := range remap { // by (original target, stage)
		if nt >= 0 {
			renum[nt] = int32(len(out.Targets))
			out.Targets = append(out.Targets, split[int(nt)-nT])
		}
	}
	// rows' target column or table is its own: renumbered in place
	renumber := func(t int32) int32 {
		if t >= 0 && int(t) < len(renum) {
			return renum[t]
		}
		return t
	}
	if rows.Compact() {
		for k := range rows.Table {
			rows.Table[k].Target = renumber(rows.Table[k].Target)
		}
	} else {
		for i, t := range rows.Target {
			rows.Target[i] = renumber(t)
		}
	}
	out.Rows = rows
	info := si.info
	out.Stages = &info
	return &out
}

// pipelineStages infers the pipeline stages of the analysed metric's ranks
// and, with several stages, splits the targets per stage and re-indexes:
// it returns the data, index and dumpMicro to analyse, and the inference
// when it found one stage or none (unsplit; nil when split or already
// split).
func splitByStage(d *model.MonitorData, ix *seriesIndex, dumpMicro bool, metric int) (_ *model.MonitorData, _ *seriesIndex, _ bool, unsplit *model.StageLayout) {
	if d.Stages != nil {
		return d, ix, dumpMicro, nil // already split (Phase1Data's output)
	}
	si := inferStages(d, ix)
	if si.info.Inferred && si.info.Stages > 1 {
		d = splitStages(d, si)
		six, sdm := seriesOf(d, metric)
		return d, six, dumpMicro || sdm, nil
	}
	return d, ix, dumpMicro, &si.info
}

// stageFields sets a candidate's pipeline stage and global layer.
func (c *p1) stageFields(a *model.Anomaly) {
	p := c.d.Stages
	st := p.StageOf(a.Rank)
	if st < 0 {
		return
	}
	a.PPStage = model.IntPtr(st)
	if n, ok := model.LayerIndex(a.TargetName); ok {
		if g := p.GlobalLayer(st, a.VPPStage, n); g >= 0 {
			a.GlobalLayer = model.IntPtr(g)
		}
	}
}

// stageShape is the pipeline-stage rule's conclusion, before runShape
// words the run's shape: the inferred stages for sharding_analysis (nil:
// nothing inferred or noted) and what it said (reasoning, warnings).
func stageShape(c *p1) (stages *model.StageLayout, said p1said) {
	p := c.d.Stages
	if p == nil {
		p = c.unsplit
	}
	if p == nil || !p.Inferred && p.NoteReason == nil {
		return nil, said
	}
	cp := *p
	if p.NoteReason != nil {
		said.reason(model.StagesNotInferred{Note: p.NoteReason})
		said.warnings = append(said.warnings, p.NoteReason)
	}
	if !p.Inferred || p.Stages < 2 {
		return &cp, said
	}
	said.reason(model.StagesInferred{Stages: p.Stages, Method: p.MethodReason,
		LayersPerStage: p.LayersPerStage, LayerOffsets: p.LayerOffsets, ChunkLayers: p.ChunkLayers})
	return &cp, said
}

// ppShape is runShape's pipeline part of the conclusion: pp_stages is the
// inferred stage count when stages were inferred, else the number of
// vpp_stage values (the reference's rule), and what the ranks' parameter
// sets show (experts: expertLayout).
func ppShape(sa *model.ShardingAnalysis, experts expertSets) model.ShardingConclusion {
	c := model.ShardingConclusion{PP: sa.PPStages}
	switch experts {
	case expertsDiffer:
		c.Experts = model.ExpertsDiffer
	case expertsSameNames:
		c.Experts = model.ExpertsSameNames
	}
	if p := sa.Stages; p != nil && p.Inferred && p.Stages > 1 {
		c.PP, c.PPInferred = p.Stages, true
	}
	return c
}

// expertSets is what the ranks' parameter sets say about MoE experts.
type expertSets int

const (
	expertsNone      expertSets = iota // no expert parameter
	expertsDiffer                      // ranks hold different expert parameters (expert parallelism)
	expertsSameNames                   // every rank holds the same expert names
)

// expertLayout reads from the (target, rank) series whether the data has
// MoE expert parameters and whether the ranks hold different ones. With
// Megatron's local expert numbering two ranks may name different experts
// alike: then only "same names" is known.
func expertLayout(d *model.MonitorData, ix *seriesIndex) expertSets {
	if len(ix.ranks) == 0 {
		return expertsNone
	}
	// an expert's hash by its own name (the stages' copies of a name
	// alike), summed per rank: the order targets come in does not matter
	hash := make([]uint64, len(d.Targets)) // 0: not an expert parameter
	anyExpert := false
	for t := range d.Targets {
		if n := model.StageBaseName(d.Targets[t].Name); isExpertParam(n) {
			h := fnv.New64a()
			h.Write([]byte(n))
			hash[t] = h.Sum64() | 1
			anyExpert = true
		}
	}
	if !anyExpert {
		return expertsNone
	}
	sig := make([]uint64, len(ix.ranks))
	held := false
	for _, g := range ix.groups {
		if int(g.Target) < len(hash) && hash[g.Target] != 0 {
			p := sort.SearchInts(ix.ranks, int(g.Rank))
			sig[p] += hash[g.Target]
			held = true
		}
	}
	if !held {
		return expertsNone
	}
	for _, x := range sig[1:] {
		if x != sig[0] {
			return expertsDiffer
		}
	}
	return expertsSameNames
}

// InferStages reads the pipeline stages of monitor data (over the metric
// Phase 1 would analyse) without analysing it, for `inspect`: nil when the
// run has one stage and nothing needs saying.
func InferStages(d *model.MonitorData) *model.StageLayout {
	if d == nil {
		return nil
	}
	if d.Stages != nil {
		return d.Stages
	}
	m := chooseMetric(d, "")
	if m < 0 {
		return nil
	}
	si := inferStages(d, buildSeriesIndex(d, m))
	if si.info.Inferred && si.info.Stages > 1 || si.info.NoteReason != nil {
		return &si.info
	}
	return nil
}
