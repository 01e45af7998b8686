package report

import (
	"slices"
	"strconv"

	"spikescope/model"
	"spikescope/svg"
)

// gradNormFigure is the grad-norm section's plot: every rank's norm over
// the window's steps (log scale), the rank with the largest norm at the
// peak (else the root) step in colour, the model's norm with pipeline
// stages, the root step dashed.
func (r *renderer) gradNormFigure(g *model.GradNorm) {
	r.figure(func() (string, string) {
		if len(g.Steps) < 2 {
			return "", ""
		}
		return r.tf("fig.gn", model.StepList(g.Steps)), r.gradNormSVG(g)
	})
}

func (r *renderer) gradNormSVG(g *model.GradNorm) string {
	var all []float64
	for i := range g.Norm {
		for _, v := range g.Norm[i] {
			all = append(all, float64(v))
		}
		if g.Model != nil {
			all = append(all, float64(g.Model[i]))
		}
	}
	lo, hi, ok := positiveRange(all)
	if !ok {
		return ""
	}
	// the highlighted rank: the largest norm at the peak step, else the root
	at := g.Peak()
	if at < 0 {
		at = max(0, g.RootIndex())
	}
	// (among the ranks with a row there; none highlighted when none has)
	hl := -1
	if top, _, _, ok := g.RankSpread(at); ok {
		hl = slices.Index(g.Ranks, top.Rank)
	}
	ch := r.newChart(gradNormPlotH, r.tf("fig.gn.alt", model.StepList(g.Steps)))
	fr := ch.fr
	ys := svg.Scale{Min: lo / 1.2, Max: hi * 1.2, Lo: fr.Bottom, Hi: fr.Top, Log: true}
	xs := svg.Scale{Min: 0, Max: float64(len(g.Steps) - 1), Lo: fr.Left + 20, Hi: fr.Right - 20}
	ch.c.YAxis(fr, ys, ys.Ticks(5), svg.Label, r.t("fig.gn.axis"))
	ticks := make([]float64, len(g.Steps))
	for i := range ticks {
		ticks[i] = float64(i)
	}
	ch.c.XAxis(fr, xs, ticks, func(v float64) string { return strconv.Itoa(g.Steps[int(v)]) }, r.t("gn.step"))
	if ri := g.RootIndex(); ri >= 0 {
		x, _ := xs.Px(float64(ri))
		ch.c.Line(x, fr.Top, x, fr.Bottom, svg.Style{Stroke: svg.Blue, Width: 1.5, Dash: "6 4"})
	}
	line := func(vals func(i int) (float64, bool), st svg.Style) {
		pts := make([]*[2]float64, len(g.Steps))
		for i := range g.Steps {
			v, has := vals(i)
			y, ok := ys.Px(v)
			if !has || !ok {
				continue
			}
			x, _ := xs.Px(float64(i))
			pts[i] = &[2]float64{x, y}
		}
		ch.c.Path(pts, st)
	}
	for j := range g.Ranks {
		if j == hl {
			continue
		}
		line(func(i int) (float64, bool) { return float64(g.Norm[i][j]), g.Params[i][j] > 0 }, svg.Style{Stroke: svg.Grey, Width: 1.2})
	}
	if g.Model != nil {
		line(func(i int) (float64, bool) { return float64(g.Model[i]), true }, svg.Style{Stroke: svg.Black, Width: 2})
	}
	var es []legendEntry
	if hl >= 0 {
		line(func(i int) (float64, bool) { return float64(g.Norm[i][hl]), g.Params[i][hl] > 0 }, svg.Style{Stroke: svg.Vermilion, Width: 2.5})
		es = append(es, legendEntry{svg.Style{Stroke: svg.Vermilion, Width: 2.5}, "line", r.tf("gn.rank", g.Ranks[hl])})
	}
	es = append(es, legendEntry{svg.Style{Stroke: svg.Grey, Width: 1.2}, "line", r.t("fig.gn.others")})
	if g.Model != nil {
		es = append(es, legendEntry{svg.Style{Stroke: svg.Black, Width: 2}, "line", r.t("gn.model")})
	}
	if g.RootIndex() >= 0 {
		es = append(es, legendEntry{svg.Style{Stroke: svg.Blue, Width: 1.5, Dash: "6 4"}, "line", r.t("fig.gn.root")})
	}
	ch.legend(es)
	return ch.c.String()
}

// gradNormPlotH is the figure's height: a small plot of a few steps.
const gradNormPlotH = 240.0
