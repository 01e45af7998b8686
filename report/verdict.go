package report

import (
	"spikescope/model"
	"spikescope/words"
)

// verdictSection opens the report: the verdict of every phase that ran,
// in the problem / evidence / impact / suggestion form.
func (r *renderer) verdictSection() {
	r.heading(2, r.t("v.title"))
	v := r.in.verdict()
	if v == nil {
		r.line(r.t("v.none"))
		return
	}
	l := words.Of(r.lang())
	c := conclusion{}
	c.problem = append(c.problem, r.tf("v.cause", words.VerdictCause(v, l)))
	if w := words.Where(v, l); w != "" {
		c.problem = append(c.problem, r.tf("v.where", w))
	}
	for i := range v.Evidence {
		c.evidence = append(c.evidence, words.Evidence(&v.Evidence[i], l))
	}
	c.impact = r.verdictImpact(v)
	c.suggestion = append(c.suggestion, words.Action(v, l))
	if d := words.Decide(v, l); d != "" && v.ActionID != "collect" {
		c.suggestion = append(c.suggestion, r.tf("v.decide", d))
	}
	r.line("**" + words.Headline(v, l) + "**")
	r.writeConclusion(c)
}

// verdictImpact is what the root spike reaches.
func (r *renderer) verdictImpact(v *model.Verdict) []string {
	var out []string
	p2 := r.in.P2
	if p2 != nil {
		for i := range p2.Events {
			e := &p2.Events[i]
			if !e.Root {
				continue
			}
			if e.Conducts {
				out = append(out, r.tf("v.conducts", model.JoinInts(e.ConductsInto, ", ")))
			} else {
				out = append(out, r.tf("v.impact1", e.RootStep))
			}
		}
		if n := len(p2.Events) - 1; n > 0 {
			out = append(out, r.tf("v.events", n))
		}
	}
	if co := v.Coordinate; co != nil && !co.ParamDecides() && co.ParameterNote != "" {
		out = append(out, r.tf("v.param", r.parameterNote(co)))
	}
	return out
}

// verdictParam is the parameter the HTML Phase 1 figure plots for the
// verdict ("" when none).
func verdictParam(in *Input) string {
	v := in.verdict()
	if v == nil {
		return ""
	}
	return v.Parameter()
}
