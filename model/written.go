package model

import (
	"regexp"
	"strconv"
	"strings"
)

// Names as written (method.md, Phase 2: "Names in the JSON are the input's
// own"). Inside spikescope a parameter of an inferred pipeline stage is
// "pp<stage>:<name>" ("pp<stage>:vpp<chunk>:<name>" with several model
// chunks), so that same-named parameters of different stages never pool.
// What is written out (detect, select, follow JSON) keeps the name as the
// input wrote it and puts the stage and chunk into their own keys
// (pp_stage, vpp_stage): AsWritten. Restage turns a saved result back into
// spikescope's own names when it is read again (select --phase1, trace
// --phase1, the TUI on saved results).

// stageKeys are the pp_stage and vpp_stage keys of a stage-qualified name
// (nil, nil for another name; vpp nil without a chunk part).
func stageKeys(s string) (pp, vpp *int, own string) {
	st, v, own, ok := StageParts(s)
	if !ok {
		return nil, nil, s
	}
	pp = IntPtr(st)
	if v >= 0 {
		vpp = IntPtr(v)
	}
	return pp, vpp, own
}

// stagedInText finds stage-qualified names in a sentence.
var stagedInText = regexp.MustCompile(`\bpp(\d+):(?:vpp(\d+):)?([^\s,;()"'\x60]+)`)

// WrittenText rewrites the stage-qualified names in a sentence as the
// input's own names with their stage: "pp1:vpp0:layers.0.w" →
// "layers.0.w on pipeline stage 1 chunk 0".
func WrittenText(s string) string {
	if !strings.Contains(s, "pp") || !strings.Contains(s, ":") {
		return s
	}
	return stagedInText.ReplaceAllStringFunc(s, func(m string) string {
		sub := stagedInText.FindStringSubmatch(m)
		name := strings.TrimRight(sub[3], ".:…")
		tail := sub[3][len(name):]
		where := " on pipeline stage " + sub[1]
		if sub[2] != "" {
			where += " chunk " + sub[2]
		}
		return name + where + tail
	})
}

func writtenTexts(xs []string) []string {
	if xs == nil {
		return nil
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = WrittenText(x)
	}
	return out
}

// staged tells whether the pipeline stages were inferred and the
// parameters named per stage.
func (r *Phase1Result) staged() bool {
	p := r.Sharding.Stages
	return p != nil && p.Inferred && p.Stages > 1
}

// AsWritten is the anomaly as written out: its own name, its stage in
// pp_stage.
func (a Anomaly) AsWritten() Anomaly {
	pp, _, own := stageKeys(a.TargetName)
	if pp == nil {
		return a
	}
	a.TargetName = own
	if a.PPStage == nil {
		a.PPStage = pp
	}
	return a
}

// AsWritten is the coordinate as written out: its own name, its stage
// and chunk in pp_stage and vpp_stage.
func (c *Coordinate) AsWritten() *Coordinate {
	if c == nil {
		return nil
	}
	pp, vpp, own := stageKeys(c.TargetName)
	if pp == nil {
		return c
	}
	out := *c
	out.TargetName, out.PPStage, out.VPPStage = own, pp, vpp
	return &out
}

// AsWritten is the Phase 1 result as written out (a copy when anything
// changes; r itself is never changed): every parameter name the input's
// own, stages in pp_stage / vpp_stage, target_stages listing what each
// stage holds, sentences naming parameters the same way.
func (r *Phase1Result) AsWritten() *Phase1Result {
	if r == nil || !r.staged() {
		return r
	}
	out := *r
	out.Anomalies = make([]Anomaly, len(r.Anomalies))
	for i := range r.Anomalies {
		out.Anomalies[i] = r.Anomalies[i].AsWritten()
	}
	if r.TargetRankNorms != nil {
		out.TargetRankNorms = make(map[string]TargetRankNorms, len(r.TargetRankNorms))
		for k, v := range r.TargetRankNorms {
			if pp, vpp, own := stageKeys(v.TargetName); pp != nil {
				v.TargetName, v.PPStage, v.VPPStage = own, pp, vpp
			}
			out.TargetRankNorms[k] = v
		}
	}
	out.Targets, out.TargetStages = writtenTargets(r.Targets)
	out.Reasoning = writtenTexts(r.Reasoning)
	out.Warnings = writtenTexts(r.Warnings)
	out.Missing = writtenTexts(r.Missing)
	out.Sharding.Conclusion = WrittenText(r.Sharding.Conclusion)
	if p := r.Sharding.Stages; p != nil {
		cp := *p
		cp.Note = WrittenText(p.Note)
		out.Sharding.Stages = &cp
	}
	return &out
}

// writtenTargets lists each own name once (in order of first appearance)
// and what each stage (and chunk) holds.
func writtenTargets(names []string) ([]string, []StageTargets) {
	if names == nil {
		return nil, nil
	}
	type key struct{ st, v int }
	seen := map[string]bool{}
	at := map[key]int{}
	var own []string
	var groups []StageTargets
	for _, n := range names {
		st, v, base, ok := StageParts(n)
		if !seen[base] {
			seen[base] = true
			own = append(own, base)
		}
		if !ok {
			continue
		}
		k := key{st, v}
		i, found := at[k]
		if !found {
			i = len(groups)
			at[k] = i
			g := StageTargets{PPStage: st}
			if v >= 0 {
				g.VPPStage = IntPtr(v)
			}
			groups = append(groups, g)
		}
		groups[i].Targets = append(groups[i].Targets, base)
	}
	return own, groups
}

// Restage turns a Phase 1 result read from a file back into spikescope's
// names (the inverse of AsWritten); a result written with stage-qualified
// names, or by the reference script, is left as it is.
func (r *Phase1Result) Restage() {
	if r == nil || !r.staged() {
		return
	}
	p := r.Sharding.Stages
	chunks := len(r.Sharding.VPPStages) > 1
	for i := range r.Anomalies {
		a := &r.Anomalies[i]
		if _, _, ok := SplitStageName(a.TargetName); ok {
			continue
		}
		st := p.StageOf(a.Rank)
		if a.PPStage != nil {
			st = *a.PPStage
		}
		if st >= 0 {
			a.TargetName = QualifiedName(st, a.VPPStage, chunks, a.TargetName)
			a.PPStage = IntPtr(st)
		}
	}
	for k, v := range r.TargetRankNorms {
		if _, _, ok := SplitStageName(v.TargetName); ok {
			continue
		}
		st := -1
		if v.PPStage != nil {
			st = *v.PPStage
		} else {
			for rk := range v.Ranks {
				if r, err := strconv.Atoi(rk); err == nil {
					if st = p.StageOf(r); st >= 0 {
						break
					}
				}
			}
		}
		if st < 0 || chunks && v.VPPStage == nil {
			continue
		}
		vpp := 0
		if v.VPPStage != nil {
			vpp = *v.VPPStage
		}
		v.TargetName = QualifiedName(st, vpp, chunks && v.VPPStage != nil, v.TargetName)
		r.TargetRankNorms[k] = v
	}
	if len(r.TargetStages) > 0 {
		held := map[string]bool{}
		var names []string
		for _, g := range r.TargetStages {
			for _, n := range g.Targets {
				held[n] = true
				vpp := 0
				if g.VPPStage != nil {
					vpp = *g.VPPStage
				}
				names = append(names, QualifiedName(g.PPStage, vpp, g.VPPStage != nil, n))
			}
		}
		for _, n := range r.Targets {
			if !held[n] {
				names = append(names, n)
			}
		}
		r.Targets, r.TargetStages = names, nil
	}
}

// AsWritten is the Phase 2 result as written out (a copy when anything
// changes): every parameter name the input's own, stages and chunks in
// their own keys, sentences naming parameters the same way.
func (r *Phase2Result) AsWritten() *Phase2Result {
	if r == nil {
		return nil
	}
	out := *r
	out.RootCauseCoordinate = r.RootCauseCoordinate.AsWritten()
	out.Automatic = r.Automatic.AsWritten()
	if r.TopTargetsPerStep != nil {
		out.TopTargetsPerStep = make(map[string]TopTarget, len(r.TopTargetsPerStep))
		for k, v := range r.TopTargetsPerStep {
			if pp, vpp, own := stageKeys(v.TargetName); pp != nil {
				v.TargetName, v.PPStage, v.VPPStage = own, pp, vpp
			}
			out.TopTargetsPerStep[k] = v
		}
	}
	if r.CrossStep != nil {
		out.CrossStep = make([]CrossStepPair, len(r.CrossStep))
		for i, c := range r.CrossStep {
			if pp, vpp, own := stageKeys(c.TargetName); pp != nil {
				c.TargetName, c.PPStage, c.VPPStage = own, pp, vpp
			}
			c.Verdict = WrittenText(c.Verdict)
			out.CrossStep[i] = c
		}
	}
	if r.Candidates != nil {
		out.Candidates = make([]CandidateVerdict, len(r.Candidates))
		for i, c := range r.Candidates {
			c.Anomaly = c.Anomaly.AsWritten()
			c.Verdict = WrittenText(c.Verdict)
			out.Candidates[i] = c
		}
	}
	if r.Events != nil {
		out.Events = make([]SpikeEvent, len(r.Events))
		for i, e := range r.Events {
			e.Coordinate = e.Coordinate.AsWritten()
			if e.ParameterNames != nil {
				names := make([]string, 0, len(e.ParameterNames))
				seen := map[string]bool{}
				for _, n := range e.ParameterNames {
					if n = OwnName(n); !seen[n] {
						seen[n] = true
						names = append(names, n)
					}
				}
				e.ParameterNames = names
			}
			e.BaselineReason = WrittenText(e.BaselineReason)
			out.Events[i] = e
		}
	}
	out.Reasoning = WrittenText(r.Reasoning)
	out.Decisions = writtenTexts(r.Decisions)
	out.CrossDeviceVerification = WrittenText(r.CrossDeviceVerification)
	out.Warnings = writtenTexts(r.Warnings)
	return &out
}

// restage is Restage of one coordinate.
func (c *Coordinate) restage() {
	if c == nil || c.PPStage == nil {
		return
	}
	if _, _, ok := SplitStageName(c.TargetName); ok {
		return
	}
	vpp := 0
	if c.VPPStage != nil {
		vpp = *c.VPPStage
	}
	c.TargetName = QualifiedName(*c.PPStage, vpp, c.VPPStage != nil, c.TargetName)
}

// Restage turns a Phase 2 result read from a file back into spikescope's
// names (the inverse of AsWritten); p1, the Phase 1 result it came from,
// tells the stage of the candidates (may be nil).
func (r *Phase2Result) Restage(p1 *Phase1Result) {
	if r == nil {
		return
	}
	r.RootCauseCoordinate.restage()
	r.Automatic.restage()
	for i := range r.Events {
		r.Events[i].Coordinate.restage()
	}
	for k, v := range r.TopTargetsPerStep {
		co := Coordinate{TargetName: v.TargetName, PPStage: v.PPStage, VPPStage: v.VPPStage}
		co.restage()
		v.TargetName = co.TargetName
		r.TopTargetsPerStep[k] = v
	}
	for i := range r.CrossStep {
		c := &r.CrossStep[i]
		co := Coordinate{TargetName: c.TargetName, PPStage: c.PPStage, VPPStage: c.VPPStage}
		co.restage()
		c.TargetName = co.TargetName
	}
	if p1 == nil || !p1.staged() {
		return
	}
	chunks := len(p1.Sharding.VPPStages) > 1
	for i := range r.Candidates {
		a := &r.Candidates[i].Anomaly
		if _, _, ok := SplitStageName(a.TargetName); ok {
			continue
		}
		st := p1.Sharding.Stages.StageOf(a.Rank)
		if a.PPStage != nil {
			st = *a.PPStage
		}
		if st >= 0 {
			a.TargetName = QualifiedName(st, a.VPPStage, chunks, a.TargetName)
		}
	}
}
