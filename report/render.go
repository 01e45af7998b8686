package report

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"spikescope/model"
	"spikescope/words"
)

// renderer walks the results once and hands every heading, paragraph, list,
// table and figure to its sink: Markdown and HTML share the same sections,
// tables and wording because they share this walk.
type renderer struct {
	out sink
	zh  bool
	in  Input
	max int
	// sorted caches the Phase 1 candidates earliest first.
	sorted []*model.Anomaly
	// small: the plots being drawn are the answer's (a third of the page
	// wide, legend below).
	small bool
}

// Render writes the report of in as GitHub-flavoured Markdown in lang ("zh"
// or "en"; anything starting with "zh" is Chinese, everything else English).
// The output depends only on in and lang.
func Render(in Input, lang string) string {
	md := &mdSink{}
	walk(in, lang, md)
	return md.String()
}

// walk renders the whole report of in into out.
func walk(in Input, lang string, out sink) {
	r := &renderer{out: out, zh: IsChinese(lang), in: in, max: in.MaxRows}
	if r.zh {
		// the analysis' texts said in Chinese where their reasons are kept
		r.in.P3 = words.Phase3In(in.P3, words.Chinese)
		if in.ControlWhy != nil {
			r.in.Control = words.Say(in.ControlWhy, words.Chinese)
		}
	}
	if r.max <= 0 {
		r.max = DefaultMaxRows
	}
	r.heading(1, r.t("title"))
	r.answer()
	for _, section := range r.sections() {
		section()
	}
}

// sections are the report's sections after the answer, in order: each
// opens with a level-2 heading (the HTML report folds each one away under
// it). A new section is one more entry here.
func (r *renderer) sections() []func() {
	return []func(){r.summary, r.phase1, r.phase2, r.gradNorm, r.phase3, r.missing, r.nextSteps}
}

// IsChinese reports whether lang (a --lang value or a LANG locale such as
// zh_CN.UTF-8) asks for the Chinese report.
func IsChinese(lang string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(lang)), "zh")
}

// t looks up a text of the report in the chosen language.
func (r *renderer) t(key string) string {
	s, ok := words.ReportText(key, r.zh)
	if !ok {
		return "!" + key + "!"
	}
	return s
}

func (r *renderer) tf(key string, a ...any) string { return fmt.Sprintf(r.t(key), a...) }

func (r *renderer) heading(level int, s string) { r.out.heading(level, s) }

func (r *renderer) line(s string) { r.out.para(s) }

func (r *renderer) bullet(s string) { r.out.bullet(s) }

func (r *renderer) endList() { r.out.endList() }

func (r *renderer) table(t *table) {
	if t.empty == "" {
		t.empty = r.t("none")
	}
	r.out.table(t)
}

// figure adds a plot; only the HTML report draws it, so the Markdown report
// never pays for building one.
func (r *renderer) figure(f func() (caption, svg string)) { r.out.figure(f) }

// conclusion holds one conclusion in the msagent form 问题/证据/影响/建议.
type conclusion struct {
	problem, evidence, impact, suggestion []string
}

// writeConclusion prints c; a part with several items becomes a sub-list.
func (r *renderer) writeConclusion(c conclusion) {
	r.line("**" + r.t("conclusion") + "**")
	part := func(key string, items []string) {
		if len(items) == 0 {
			return
		}
		if len(items) == 1 {
			r.bullet("**" + r.t(key) + "** " + items[0])
			return
		}
		r.out.subList("**"+r.t(key)+"**", items)
	}
	part("problem", c.problem)
	part("evidence", c.evidence)
	part("impact", c.impact)
	part("suggestion", c.suggestion)
	r.endList()
}

// coord names a coordinate the same way in every table and sentence (in
// words in English; the Chinese report keeps the method's opt_step/ms).
func (r *renderer) coord(opt, ms *int, rank int, name string) string {
	var parts []string
	if opt != nil {
		parts = append(parts, r.optStep(*opt))
	}
	if ms != nil {
		parts = append(parts, r.tf("w.ms", *ms))
	}
	parts = append(parts, "rank "+strconv.Itoa(rank))
	if name != "" {
		parts = append(parts, code(name))
	}
	return strings.Join(parts, ", ")
}

// optStep names optimizer step k.
func (r *renderer) optStep(k int) string { return r.tf("w.optstep", k) }

func (r *renderer) anomalyCoord(a *model.Anomaly) string {
	opt := a.OptStep()
	return r.coord(&opt, a.MicroStep, a.Rank, a.TargetName)
}

func (r *renderer) coordinateText(c *model.Coordinate) string {
	opt := c.OptimizerStep
	if opt == nil {
		opt = c.Step
	}
	return r.coord(opt, c.MicroStep, c.Rank, c.TargetName)
}

// sortedCandidates returns the Phase 1 candidates earliest first (opt_step,
// then micro step); ties keep the analysis's order (non-finite first, then
// deviation). It sorts indices: an Anomaly is too large to move around, and
// the result points into as.
func sortedCandidates(as []model.Anomaly) []*model.Anomaly {
	type key struct{ opt, micro, i int }
	keys := make([]key, len(as))
	for i := range as {
		keys[i] = key{as[i].OptStep(), as[i].Micro(), i}
	}
	// The index as last key makes the fast unstable sort stable.
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.opt, b.opt); c != 0 {
			return c
		}
		if c := cmp.Compare(a.micro, b.micro); c != 0 {
			return c
		}
		return cmp.Compare(a.i, b.i)
	})
	out := make([]*model.Anomaly, len(as))
	for k, x := range keys {
		out[k] = &as[x.i]
	}
	return out
}

// candidates is sortedCandidates of Phase 1, computed once per report.
func (r *renderer) candidates() []*model.Anomaly {
	if r.sorted == nil && r.in.P1 != nil {
		r.sorted = sortedCandidates(r.in.P1.Anomalies)
	}
	return r.sorted
}

// summary is the short answer on top: one line per phase.
func (r *renderer) summary() {
	r.heading(2, r.t("summary"))
	in := r.in
	switch {
	case in.P1 == nil:
		r.bullet(r.t("sum.p1.none"))
	case len(in.P1.Anomalies) == 0:
		r.bullet(r.t("sum.p1.empty"))
	default:
		c := r.candidates()
		r.bullet(r.tf("sum.p1", len(in.P1.Anomalies), r.anomalyCoord(c[0]), ratio(float64(c[0].DeviationRatio))))
	}
	switch {
	case in.P2 == nil:
		r.bullet(r.t("sum.p2.none"))
	case in.P2.RootCauseCoordinate == nil:
		r.bullet(r.t("sum.p2.empty"))
	default:
		s := r.tf("sum.p2", r.coordinateText(in.P2.RootCauseCoordinate))
		if in.P2.Pinned {
			s += " (" + r.t("pinned") + ")"
		}
		r.bullet(s)
	}
	if in.P3 == nil {
		if r.noCoordinate() {
			r.bullet(r.t("sum.p3.nocoord"))
		} else {
			r.bullet(r.t("sum.p3.none"))
		}
	} else {
		c := r.p3Conclusion()
		s := r.tf("sum.p3", r.layer(c.FwdStart), r.layer(c.BwdStart))
		if c.Operator != nil {
			s += "; " + r.tf("sum.p3.op", code(c.Operator.Operator))
		}
		r.bullet(s)
	}
	if len(in.Missing) > 0 {
		r.bullet(r.tf("sum.missing", len(in.Missing)))
	}
	r.endList()
}

// Renderer is the renderer of a --as value: "md", "html", or "" to follow
// the output file out (.html or .htm: HTML, else Markdown); nil for any
// other value.
func Renderer(as, out string) func(Input, string) string {
	switch as {
	case "html":
		return RenderHTML
	case "md":
		return Render
	case "":
		if ext := strings.ToLower(filepath.Ext(out)); ext == ".html" || ext == ".htm" {
			return RenderHTML
		}
		return Render
	}
	return nil
}

// lang is the renderer's language code ("zh" or "en").
func (r *renderer) lang() string {
	if r.zh {
		return "zh"
	}
	return "en"
}
