package report

import (
	"strings"

	"spikescope/plan"
)

// nextSteps is the "next steps" section: the next-collection plan (what
// to rerun where, what is unknown, the dump size), when there is one.
func (r *renderer) nextSteps() {
	p := r.in.Plan
	if p == nil || p.Nothing {
		return
	}
	t := func(x plan.Text) string {
		if r.zh && x.Zh != "" {
			return x.Zh
		}
		return x.En
	}
	r.heading(2, r.t("next.title"))
	r.line(r.t("next.intro"))
	for _, a := range p.Actions {
		if s := t(a); strings.HasPrefix(s, "  ") {
			r.out.subBullet(strings.TrimSpace(s))
		} else {
			r.bullet(s)
		}
	}
	if len(p.Actions) > 0 {
		r.endList()
	}
	if len(p.Unknown) > 0 {
		r.line("**" + r.t("next.unknown") + "**")
		for _, u := range p.Unknown {
			r.bullet(t(u))
		}
		r.endList()
	}
	if len(p.Estimate) > 0 {
		r.line("**" + r.t("next.size") + "**")
		for _, e := range p.Estimate {
			r.bullet(t(e))
		}
		r.endList()
	}
}
