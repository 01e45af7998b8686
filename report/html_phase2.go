package report

import (
	"math"
	"sort"
	"strconv"

	"spikescope/model"
	"spikescope/svg"
)

// judgedPair is the cross-step pair the Phase 2 plot shows: the earliest
// qualifying one, else the first judged, else the first (a saved result
// from before the judged key has none judged).
func judgedPair(p2 *model.Phase2Result) *model.CrossStepPair {
	var out *model.CrossStepPair
	for i := range p2.CrossStep {
		p := &p2.CrossStep[i]
		switch {
		case p.Qualifies && (out == nil || !out.Qualifies || p.From < out.From):
			out = p
		case out == nil, !out.Qualifies && !out.Judged && p.Judged:
			out = p
		}
	}
	return out
}

// pairNorms are the final norms per rank of p's parameter at p.From and
// p.To, from Phase 1's per-step records (nil when Phase 1 has none).
func pairNorms(p1 *model.Phase1Result, p *model.CrossStepPair) (prev, next map[string]model.Float) {
	if p1 == nil {
		return nil, nil
	}
	e, okE := p1.TargetRankNorms[strconv.Itoa(p.From)]
	n, okN := p1.TargetRankNorms[strconv.Itoa(p.To)]
	same := func(name string) bool { return p.TargetName == "" || name == p.TargetName }
	switch {
	case okE && same(e.TargetName) && e.NextStep != nil && *e.NextStep == p.To && len(e.NextRanks) > 0:
		return e.Ranks, e.NextRanks
	case okE && okN && same(e.TargetName) && n.TargetName == e.TargetName:
		return e.Ranks, n.Ranks
	case okN && same(n.TargetName) && n.PrevStep != nil && *n.PrevStep == p.From && len(n.PrevRanks) > 0:
		return n.PrevRanks, n.Ranks
	}
	return nil, nil
}

// phase2GrowthFigure is the growth per rank of the judged pair against the threshold.
func (r *renderer) phase2GrowthFigure(p2 *model.Phase2Result) {
	r.figure(func() (string, string) {
		p := judgedPair(p2)
		if p == nil {
			return "", ""
		}
		prev, next := pairNorms(r.in.P1, p)
		if len(prev) == 0 {
			return "", ""
		}
		return r.tf("fig.p2.growth", p.From, p.To, ratio(p.Threshold)), r.growthSVG(p, prev, next)
	})
}

func (r *renderer) growthSVG(p *model.CrossStepPair, prev, next map[string]model.Float) string {
	type bar struct {
		rank      int
		g         float64
		has, over bool
	}
	var bars []bar
	for k, pv := range prev {
		rk, err := strconv.Atoi(k)
		if err != nil {
			continue
		}
		nv, ok := next[k]
		b := bar{rank: rk, has: ok, g: math.NaN()}
		if ok && float64(pv) > 0 {
			b.g = float64(nv) / float64(pv)
		}
		b.over = ok && model.Finite(float64(pv)) && model.Finite(float64(nv)) && pv > 0 && float64(nv) >= p.Threshold*float64(pv)
		bars = append(bars, b)
	}
	sort.Slice(bars, func(i, j int) bool { return bars[i].rank < bars[j].rank })
	gs := []float64{p.Threshold}
	for _, b := range bars {
		gs = append(gs, b.g)
	}
	lo, hi, ok := positiveRange(gs)
	if !ok {
		return ""
	}
	ch := r.newChart(plotH, r.tf("fig.p2.growth.alt", p.From, p.To, p.RanksOver, p.RanksTotal, ratio(p.Threshold)))
	fr := ch.fr
	ys := svg.Scale{Min: math.Min(lo, 1) / 1.5, Max: hi * 1.5, Lo: fr.Bottom, Hi: fr.Top, Log: true}
	ch.c.YAxis(fr, ys, ys.Ticks(5), func(v float64) string { return svg.Label(v) + "x" }, r.t("fig.axis.growth"))
	n := len(bars)
	w := (fr.Right - fr.Left) / float64(n)
	base, _ := ys.Px(ys.Min)
	every := max(1, (n+r.ticks(20)-1)/r.ticks(20))
	for i, b := range bars {
		x := fr.Left + float64(i)*w
		tip := r.tf("fig.growth.tip", b.rank, ratio(b.g))
		if !b.has {
			tip = r.tf("fig.growth.none", b.rank)
		}
		y, ok := ys.Clamp(b.g)
		switch {
		case ok:
			st := svg.Style{Fill: svg.Grey}
			if b.over {
				st.Fill = svg.Vermilion
			}
			ch.c.Rect(x+w*0.15, y, w*0.7, base-y, st, tip)
		case b.has:
			ch.c.Text(x+w/2, fr.Bottom-6, num(b.g), svg.Middle, svg.Vermilion, 0)
		}
		if i%every == 0 {
			ch.c.Text(x+w/2, fr.Bottom+15, strconv.Itoa(b.rank), svg.Middle, svg.Ink, 0)
		}
	}
	ch.c.Line(fr.Left, fr.Bottom, fr.Right, fr.Bottom, svg.Style{Stroke: svg.Ink})
	ch.c.Text((fr.Left+fr.Right)/2, fr.Bottom+32, r.t("fig.axis.rank"), svg.Middle, svg.Ink, 0)
	if y, ok := ys.Px(p.Threshold); ok {
		ch.c.Line(fr.Left, y, fr.Right, y, svg.Style{Stroke: svg.Blue, Width: 1.5, Dash: "6 4"})
	}
	ch.legend([]legendEntry{
		{svg.Style{Fill: svg.Vermilion}, "box", r.t("fig.growth.over")},
		{svg.Style{Fill: svg.Grey}, "box", r.t("fig.growth.under")},
		{svg.Style{Stroke: svg.Blue, Width: 1.5, Dash: "6 4"}, "line", r.tf("fig.threshold", ratio(p.Threshold))},
	})
	return ch.c.String()
}

// phase2EventsFigure is the events on the optimizer-step axis.
func (r *renderer) phase2EventsFigure(p2 *model.Phase2Result) {
	r.figure(func() (string, string) {
		if len(p2.Events) == 0 {
			return "", ""
		}
		return r.t("fig.p2.events"), r.eventsSVG(p2)
	})
}

func (r *renderer) eventsSVG(p2 *model.Phase2Result) string {
	var evs []*model.SpikeEvent
	lo, hi := math.MaxInt, math.MinInt
	for i := range p2.Events {
		e := &p2.Events[i]
		if len(evs) >= r.max && !e.Root {
			continue
		}
		evs = append(evs, e)
		for _, s := range append([]int{e.RootStep}, e.Steps...) {
			lo, hi = min(lo, s), max(hi, s)
		}
	}
	rowH := 22.0
	h := plotTop + rowH*float64(len(evs)) + plotBottom
	ch := r.newChart(h, r.tf("fig.p2.events.alt", len(p2.Events), lo, hi))
	fr := ch.fr
	xs := svg.Scale{Min: float64(lo) - 0.5, Max: float64(hi) + 0.5, Lo: fr.Left, Hi: fr.Right}
	var ticks []float64
	step := max(1, (hi-lo+12)/12)
	for s := lo; s <= hi; s += step {
		ticks = append(ticks, float64(s))
	}
	ch.c.XAxis(fr, xs, ticks, svg.Label, r.t("fig.axis.optstep"))
	for i, e := range evs {
		y := fr.Top + float64(i)*rowH + rowH/2
		label := r.tf("fig.event", e.ID)
		ch.c.Text(fr.Left-6, y+4, label, svg.End, svg.Ink, 0)
		colour := svg.Blue
		if e.Root {
			colour = svg.Vermilion
		}
		x0, _ := xs.Px(float64(e.RootStep))
		x1 := x0
		for _, s := range e.Steps {
			x, _ := xs.Px(float64(s))
			x1 = math.Max(x1, x)
		}
		ch.c.Line(x0, y, x1, y, svg.Style{Stroke: colour, Width: 2})
		for _, s := range e.Steps {
			if s == e.RootStep {
				continue
			}
			x, _ := xs.Px(float64(s))
			ch.c.Circle(x, y, 4, svg.Style{Stroke: colour, Width: 1.5, Fill: "#FFFFFF"}, r.tf("fig.event.reach", e.ID, s))
		}
		tip := r.tf("fig.event.tip", e.ID, e.RootStep, plain(r.extentText(e)), ratio(float64(e.MaxDeviation)))
		ch.c.Circle(x0, y, 6, svg.Style{Fill: colour}, tip)
	}
	ch.legend([]legendEntry{
		{svg.Style{Fill: svg.Vermilion}, "dot", r.t("fig.event.root")},
		{svg.Style{Fill: svg.Blue}, "dot", r.t("fig.event.other")},
		{svg.Style{Stroke: svg.Blue, Width: 1.5, Fill: "#FFFFFF"}, "dot", r.t("fig.event.conducted")},
	})
	return ch.c.String()
}
