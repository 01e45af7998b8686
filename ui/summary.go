package ui

import (
	"fmt"
	"strings"

	"spikescope/model"
	"spikescope/words"
)

// summaryTop is how many candidates the text summary lists.
const summaryTop = 5

// Summary is what spikescope prints instead of the UI when stdout is not a
// terminal: the top candidates, the root-cause coordinate and the earliest
// divergence, plus what was missing.
func Summary(d *Data) string {
	var b strings.Builder
	if d == nil || d.P1 == nil {
		return "spikescope: nothing was analysed\n"
	}
	p1 := d.P1
	fmt.Fprintf(&b, "spikescope summary: %s (%s), %d candidate(s)\n", p1.DBPath, p1.Format, len(p1.Anomalies))
	b.WriteString(verdictSummary(d.verdict()))
	// Loader warnings (skipped files, missing statistics) change what the
	// conclusion may claim, so they come first.
	for _, w := range p1.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	if pl := p1.Sharding.Stages; pl != nil && pl.Inferred && pl.Stages > 1 {
		fmt.Fprintf(&b, "pipeline: %s (%s)\n", runShape(d), strings.Join(pl.StageSummary("stage", "ranks", "layers"), "; "))
	}
	if len(p1.Anomalies) == 0 {
		b.WriteString("no anomaly found\n")
	} else {
		b.WriteString("top candidates (earliest first):\n")
		for i := range p1.Anomalies {
			if i == summaryTop {
				fmt.Fprintf(&b, "  … %d more\n", len(p1.Anomalies)-summaryTop)
				break
			}
			a := &p1.Anomalies[i]
			gl := ""
			if a.GlobalLayer != nil {
				gl = fmt.Sprintf(" (global layer %d)", *a.GlobalLayer)
			}
			if rn := namesOf(d); rn.chunks && rn.param(a) != a.TargetName {
				gl += fmt.Sprintf(" (VPP chunk %d)", a.VPPStage)
			}
			fmt.Fprintf(&b, "  %d. %s%s  norm %s  %s× its own history  (%s)\n", i+1, coordString(a), gl,
				fmtNum(float64(a.Norm)), fmtNum(float64(a.DeviationRatio)), triggerWhy(a.Trigger))
		}
	}
	if d.P2 != nil {
		pinned := ""
		if d.P2.Pinned {
			pinned = " (pinned)"
		}
		fmt.Fprintf(&b, "root-cause coordinate: %s%s\n", coordinateString(d.P2.RootCauseCoordinate), pinned)
		if s := eventsSummary(d.P2); s != "" {
			b.WriteString(s + "\n")
		}
	}
	if d.P3 != nil {
		if c := d.P3.Conclusion; c != nil { // the pipeline's one conclusion
			vs := ""
			if d.P3.BaselineGroup == "C" {
				vs = " (A vs C: no baseline dump, may be a data difference)"
			}
			fmt.Fprintf(&b, "earliest divergence%s: forward layer %s, backward layer %s\n", vs,
				optOr(c.FwdStart, "none"), optOr(c.BwdStart, "none"))
			if dd := c.Operator; dd != nil {
				what := "first divergent operator"
				if dd.NonFinite {
					what = "first operator to turn NaN/Inf"
				}
				layer := "no layer"
				if dd.Layer != nil {
					layer = fmt.Sprintf("layer %d", *dd.Layer)
				}
				fmt.Fprintf(&b, "%s: %s (%s, %s)\n", what, dd.Operator, dd.Direction, layer)
			}
		}
		if d.P3.Degraded {
			fmt.Fprintf(&b, "note: %s\n", d.P3.DegradedNote)
		}
	}
	for _, m := range d.Missing {
		fmt.Fprintf(&b, "missing: %s\n", m)
	}
	return b.String()
}

// verdictSummary is the verdict as the text summary opens with it: the
// headline, each evidence item, the action and what would decide it.
func verdictSummary(v *model.Verdict) string {
	if v == nil {
		return "verdict: nothing anomalous (no cause to classify)\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n", strings.TrimPrefix(words.Headline(v, words.English), "Verdict: "))
	for i := range v.Evidence {
		fmt.Fprintf(&b, "  evidence: %s\n", words.Evidence(&v.Evidence[i], words.English))
	}
	fmt.Fprintf(&b, "  action: %s\n", words.Action(v, words.English))
	if v.Decide != "" && v.ActionID != "collect" {
		fmt.Fprintf(&b, "  would decide: %s\n", v.Decide)
	}
	return b.String()
}
