package report

import (
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
	"spikescope/words"
)

// trendSteps is how many optimizer steps before and after the earliest
// candidate the Phase 1 evidence shows from target_rank_norms.
const trendSteps = 3

// maxReasoning caps the analysis notes printed under a phase.
const maxReasoning = 12

func (r *renderer) phase1() {
	r.heading(2, r.t("p1.title"))
	p1 := r.in.P1
	if p1 == nil {
		r.line(r.t("p1.notrun"))
		return
	}
	r.line(r.t("p1.t1"))
	r.table(r.overview(p1))
	if c := oneLine(r.said1(p1.Sharding.Conclusion, p1.Sharding.ConclusionReason)); c != "" && (r.zh || !hasHan(c)) {
		r.line(r.t("p1.sharding") + " " + passUnitInWords(c, p1.Sharding, r.zh)) // a saved result's tuple in words
	}

	r.line(r.t("p1.t2"))
	cands := r.candidates()
	t := &table{header: []string{"Opt Step", "Rank", r.t("h.param"), "ms", "delta", r.t("h.dev"), r.t("h.final")}}
	for i := range cands {
		if i == r.max {
			break
		}
		a := cands[i]
		final := a.Norm
		if a.SuspectFinalNorm != nil {
			final = *a.SuspectFinalNorm
		}
		name := code(a.TargetName)
		if a.GlobalLayer != nil {
			name += " " + r.tf("p1.globallayer", *a.GlobalLayer)
		}
		t.add(strconv.Itoa(a.OptStep()), strconv.Itoa(a.Rank), name, intOr(a.MicroStep, r.t("none")),
			numOr(a.Delta, r.t("none")), ratio(float64(a.DeviationRatio)), num(float64(final)))
	}
	if len(cands) == 0 {
		r.line(r.t("p1.nocand"))
	} else {
		r.table(t)
		if len(cands) > r.max {
			r.line(r.tf("more.rows", r.max, len(cands), len(cands)-r.max))
		}
	}
	r.phase1Figures()
	r.notes(r.said(p1.Reasoning, p1.ReasoningReasons), r.said(p1.Warnings, p1.WarningsReasons))
	r.writeConclusion(r.phase1Conclusion(p1, cands))
}

// overview is the seed's data overview table (plus the run shape).
func (r *renderer) overview(p1 *model.Phase1Result) *table {
	path, format := r.in.Path, r.in.Format
	if path == "" {
		path = p1.DBPath
	}
	if format == "" {
		format = p1.Format
	}
	t := &table{header: []string{r.t("h.item"), r.t("h.value")}}
	t.add(r.t("ov.data"), code(path)+" / "+code(string(format)))
	if r.in.BaselinePath != "" || r.in.P1Baseline != nil {
		bp := r.in.BaselinePath
		bf := model.Format("")
		if r.in.P1Baseline != nil {
			if bp == "" {
				bp = r.in.P1Baseline.DBPath
			}
			bf = r.in.P1Baseline.Format
		}
		v := code(bp)
		if bf != "" {
			v += " / " + code(string(bf))
		}
		t.add(r.t("ov.baseline"), v)
	}
	t.add(r.t("ov.params"), code(strconv.Itoa(p1.Summary.TotalTargets)))
	steps := code(r.intRange(p1.Summary.Steps))
	if rg := p1.OptimizerStepRange; len(rg) == 2 && p1.Sharding.AccumulationWindow > 0 {
		steps += " (" + r.tf("w.optsteps", r.intRange(rg)) + ")"
	}
	t.add("Step/Rank", steps+" / "+code(strconv.Itoa(len(p1.Summary.Ranks))))
	unit := p1.Sharding.PassUnit
	if unit == "" {
		unit = p1.Summary.PassUnit
	}
	// the Chinese report keeps the method's own notation; the English one
	// says what a pass is
	t.add(r.t("ov.unit"), words.PassUnitWords(p1.Sharding, r.zh))
	if p1.Metric != "" {
		t.add(r.t("ov.metric"), code(p1.Metric))
	}
	if p1.DataKind != "" {
		t.add(r.t("ov.kind"), r.kindWords(p1.DataKind, p1.Sharding.AccumulationWindow))
	}
	sh := p1.Sharding
	win := strconv.Itoa(sh.AccumulationWindow)
	if sh.AccumulationWindow == 0 {
		win += " (" + r.t("ov.steplevel") + ")"
	} else {
		win += " (" + r.tf("ov.optsteps", sh.OptimizerStepCount) + ")"
	}
	t.add(r.t("ov.window"), win)
	if rg := sh.MicroStepRange; sh.ExplicitMicroStep && len(rg) > 0 {
		// coordinates are reported in the input's own numbering
		t.add(r.t("ov.msnum"), r.tf("ov.msnumval", rg[0], rg[len(rg)-1]))
	}
	if sh.PPStages > 1 {
		v := strconv.Itoa(sh.PPStages)
		if pl := sh.Stages; pl != nil && pl.Inferred && pl.Stages > 1 {
			v += " (" + r.t("ov.ppinferred") + ": " + strings.Join(pl.StageSummary("stage", r.t("w.ranks"), r.t("w.layers")), "; ") + ")"
		}
		t.add(r.t("ov.pp"), v)
	} else if pl := sh.Stages; pl != nil && pl.Note != "" {
		t.add(r.t("ov.pp"), r.t("ov.ppunknown"))
	}
	n := p1.Summary.AnomalyCount
	if n < len(p1.Anomalies) {
		n = len(p1.Anomalies)
	}
	t.add(r.t("ov.cands"), strconv.Itoa(n))
	return t
}

// intRange prints sorted distinct values as "lo-hi", none in words when
// empty.
func (r *renderer) intRange(vs []int) string {
	if len(vs) == 0 {
		return r.t("none")
	}
	return prefixedRange(vs, "")
}

// prefixedRange prints the range of vs (not empty) as "<p>lo-<p>hi"
// ("<p>v" for one value).
func prefixedRange(vs []int, p string) string {
	lo, hi := vs[0], vs[0]
	for _, v := range vs {
		lo, hi = min(lo, v), max(hi, v)
	}
	if lo == hi {
		return p + strconv.Itoa(lo)
	}
	return p + strconv.Itoa(lo) + "-" + p + strconv.Itoa(hi)
}

// said is a result's texts in the report's language: the Chinese report
// says the reasons in Chinese when the result holds them (a result read
// back from JSON has only its texts, written in the JSON's language).
func (r *renderer) said(texts []string, reasons []model.Reason) []string {
	if r.zh && reasons != nil {
		return words.All(reasons, words.Chinese)
	}
	return texts
}

// said1 is said for one text.
func (r *renderer) said1(text string, reason model.Reason) string {
	if r.zh && reason != nil {
		return words.Say(reason, words.Chinese)
	}
	return text
}

// notes prints the analysis's own reasoning and warnings (capped).
func (r *renderer) notes(reasoning, warnings []string) {
	var items []string
	for _, s := range reasoning {
		if s = oneLine(s); s != "" {
			items = append(items, s)
		}
	}
	for _, s := range warnings {
		if s = oneLine(s); s != "" {
			items = append(items, r.t("warning")+" "+s)
		}
	}
	if len(items) == 0 {
		return
	}
	r.line("**" + r.t("analysis.notes") + "**")
	for i, s := range items {
		if i == maxReasoning {
			r.bullet(r.tf("more.notes", len(items)-maxReasoning))
			break
		}
		r.bullet(s)
	}
	r.endList()
}

func (r *renderer) phase1Conclusion(p1 *model.Phase1Result, cands []*model.Anomaly) conclusion {
	var c conclusion
	if len(cands) == 0 {
		c.problem = []string{r.t("p1c.none")}
		c.evidence = []string{r.tf("p1c.none.ev", p1.Summary.TotalTargets, r.intRange(p1.Summary.Steps), len(p1.Summary.Ranks))}
		c.impact = []string{r.t("p1c.none.impact")}
		c.suggestion = []string{r.t("p1c.none.sugg")}
		return c
	}
	a := cands[0]
	c.problem = []string{r.tf("p1c.problem", r.anomalyCoord(a), ratio(float64(a.DeviationRatio)), r.triggerWords(a.Trigger))}
	if tr := r.trend(p1, a); tr != "" {
		c.evidence = append(c.evidence, tr)
	}
	if model.Finite(float64(a.BaselineMedian)) {
		c.evidence = append(c.evidence, r.tf("p1c.ev.norm", num(float64(a.Norm)), num(float64(a.BaselineMedian)), ratio(float64(a.DeviationRatio))))
	} else { // a non-finite candidate: its series has no finite baseline to divide by
		c.evidence = append(c.evidence, r.tf("p1c.ev.nobase", num(float64(a.Norm))))
	}
	steps := map[int]bool{}
	for i := range cands {
		steps[cands[i].OptStep()] = true
	}
	c.evidence = append(c.evidence, r.tf("p1c.ev.count", len(cands), len(steps), a.OptStep()))
	c.impact = []string{r.t("p1c.impact")}
	c.suggestion = []string{r.t("p1c.sugg")}
	if r.in.P1Baseline == nil {
		c.suggestion = append(c.suggestion, r.t("p1c.sugg.baseline"))
	}
	return c
}

// trend is the cross-step evidence of a candidate: the final norm of each
// optimizer step's watched parameter on the candidate's rank, around it.
func (r *renderer) trend(p1 *model.Phase1Result, a *model.Anomaly) string {
	if len(p1.TargetRankNorms) == 0 {
		return ""
	}
	type pt struct {
		step int
		v    model.Float
		name string
	}
	var pts []pt
	rank := strconv.Itoa(a.Rank)
	for k, trn := range p1.TargetRankNorms {
		s, err := strconv.Atoi(k)
		if err != nil || s < a.OptStep()-trendSteps || s > a.OptStep()+trendSteps {
			continue
		}
		if v, ok := trn.Ranks[rank]; ok {
			pts = append(pts, pt{s, v, trn.TargetName})
		}
	}
	if len(pts) == 0 {
		return ""
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].step < pts[j].step })
	same := true
	for _, p := range pts {
		same = same && p.name == pts[0].name
	}
	parts := make([]string, len(pts))
	for i, p := range pts {
		parts[i] = r.optStep(p.step) + ": " + num(float64(p.v))
		if !same {
			parts[i] += " (" + code(p.name) + ")"
		}
	}
	s := r.tf("p1c.ev.trend", a.Rank, strings.Join(parts, " → "))
	if same {
		s += " (" + code(pts[0].name) + ")"
	}
	return s
}

// passUnitInWords replaces the pass unit the analysis writes into its run
// shape note as a Python tuple ("前反向单位: (step,)", "(optimizer_step,
// micro_step), 累积窗口=4") by words.PassUnitWords, as the overview table says it.
func passUnitInWords(note string, sh model.ShardingAnalysis, zh bool) string {
	if sh.PassUnit == "" {
		return note
	}
	for _, label := range []string{"前反向单位: ", "pass unit: ", "Pass unit: "} {
		if old := label + oneLine(sh.PassUnit); strings.Contains(note, old) {
			return strings.Replace(note, old, label+words.PassUnitWords(sh, zh), 1)
		}
	}
	return note
}
