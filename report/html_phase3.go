package report

import (
	"math"
	"slices"

	"spikescope/model"
	"spikescope/svg"
)

// startColours mark each metric's first divergent layer.
var startColours = map[string]string{"Norm": svg.Orange, "Max": svg.Green, "Min": svg.Purple, "Mean": svg.SkyBlue}

// anchorFigures are the anomaly degree per layer of one anchor, forward
// and backward, against the control band.
func (r *renderer) anchorFigures(a *model.AnchorTable, ds *model.DivergenceSummary) {
	for _, dir := range []string{"fwd", "bwd"} {
		r.figure(func() (string, string) {
			if len(a.Layers) == 0 {
				return "", ""
			}
			metric := anchorMetric(a)
			return r.tf("fig.p3.layers", code(a.Name), r.dirName(dir), metric), r.layersSVG(a, ds, dir, metric)
		})
	}
}

// degreeOf is a metric row's anomaly degree and flag in a direction.
func degreeOf(m model.MetricRow, fwd bool) (*model.Float, bool) {
	if fwd {
		return m.FAnomaly, m.FFlag
	}
	return m.BAnomaly, m.BFlag
}

func ptrVal(f *model.Float) float64 {
	if f == nil {
		return math.NaN()
	}
	return float64(*f)
}

func (r *renderer) layersSVG(a *model.AnchorTable, ds *model.DivergenceSummary, dir, metric string) string {
	fwd := isFwd(dir)
	mark := "F!"
	if !fwd {
		mark = "B!"
	}
	n := len(a.Layers)
	vals := make([]float64, n)
	for i := range a.Layers {
		d, _ := degreeOf(mainRow(&a.Layers[i]), fwd)
		vals[i] = ptrVal(d)
	}
	band, hasBand := a.Thresholds[metric][dir]
	// drawn where the table's note gives one: finite bounds, lower below upper
	hasBand = hasBand && model.Finite(float64(band.Lower)) && model.Finite(float64(band.Upper)) && band.Lower < band.Upper
	rng := slices.Clone(vals)
	if hasBand {
		rng = append(rng, float64(band.Lower), float64(band.Upper))
	}
	lo, hi, ok := positiveRange(rng)
	if !ok {
		return ""
	}
	ch := r.newChart(plotH, r.tf("fig.p3.layers.alt", a.Name, r.dirName(dir), metric, n))
	fr := ch.fr
	xs := svg.Scale{Min: 0, Max: float64(max(n-1, 1)), Lo: fr.Left + 10, Hi: fr.Right - 10}
	ys := svg.Scale{Min: lo / 1.5, Max: hi * 1.5, Lo: fr.Bottom, Hi: fr.Top, Log: true}
	if hasBand {
		y1, ok1 := ys.Clamp(float64(band.Upper))
		y0, ok0 := ys.Clamp(math.Max(float64(band.Lower), ys.Min))
		if ok0 && ok1 {
			ch.c.Rect(fr.Left, y1, fr.Right-fr.Left, y0-y1, svg.Style{Fill: svg.SkyBlue, Opacity: 0.3},
				r.tf("fig.band.tip", ratio(float64(band.Lower)), ratio(float64(band.Upper))))
		}
	}
	ch.c.YAxis(fr, ys, ys.Ticks(5), func(v float64) string { return svg.Label(v) + "x" }, r.t("fig.axis.degree"))
	ticks := indexTicks(n, r.ticks(16), -1)
	ch.c.XAxis(fr, xs, ticks, func(v float64) string { return layerLabel(&a.Layers[int(v)]) }, r.t("fig.axis.layer"))
	// metric starts: a dashed line at each metric's first divergent layer
	// of this anchor (its own table's starts, not the pooled summary's)
	starts := a.Conclusion.MetricStarts
	if len(starts) == 0 && len(a.Conclusion.MetricLayers) == 0 {
		starts = ds.MetricStarts // a saved result without per-anchor conclusions
	}
	var es []legendEntry
	for _, k := range metricOrder(starts) {
		st := starts[k]
		at := st.FwdStart
		if !fwd {
			at = st.BwdStart
		}
		if at == nil {
			continue
		}
		for i := range a.Layers {
			if a.Layers[i].Layer == *at {
				x, _ := xs.Px(float64(i))
				x += 3 * float64(len(es)) // starts at one layer stay apart
				c := startColours[k]
				if c == "" {
					c = svg.Ink
				}
				ch.c.Line(x, fr.Top, x, fr.Bottom, svg.Style{Stroke: c, Width: 1.5, Dash: "4 3"})
				es = append(es, legendEntry{svg.Style{Stroke: c, Width: 1.5, Dash: "4 3"}, "line", r.tf("fig.start", k)})
				break
			}
		}
	}
	pts := make([]*[2]float64, n)
	for i, v := range vals {
		x, _ := xs.Px(float64(i))
		if y, ok := ys.Px(v); ok {
			pts[i] = &[2]float64{x, y}
		}
	}
	ch.c.Path(pts, svg.Style{Stroke: svg.Black, Width: 1.5})
	unalignedSeen := false
	for i := range a.Layers {
		l := &a.Layers[i]
		m := mainRow(l)
		d, flag := degreeOf(m, fwd)
		x, _ := xs.Px(float64(i))
		if unaligned(m, fwd) {
			unalignedSeen = true
			ch.c.Rect(x-4, fr.Bottom-10, 8, 8, svg.Style{Stroke: svg.Grey, Width: 1.5, Fill: "#FFFFFF"}, r.tf("fig.unaligned.tip", layerName(l)))
			continue
		}
		if d == nil {
			continue
		}
		v := float64(*d)
		tip := r.tf("fig.degree.tip", layerName(l), ratio(v))
		y, ok := ys.Clamp(v)
		if !ok {
			ch.c.Text(x, fr.Top+10, num(v), svg.Middle, svg.Vermilion, 0)
			continue
		}
		if flag {
			ch.c.Circle(x, y, 5, svg.Style{Fill: svg.Vermilion}, tip)
			ch.c.Text(x, y-9, mark, svg.Middle, svg.Vermilion, 0)
		} else {
			ch.c.Circle(x, y, 3, svg.Style{Fill: svg.Black}, tip)
		}
	}
	legend := []legendEntry{
		{svg.Style{Stroke: svg.Black, Width: 1.5}, "line", r.tf("fig.degree", metric)},
		{svg.Style{Fill: svg.Vermilion}, "dot", r.tf("fig.flagged", mark)},
	}
	if hasBand {
		legend = append(legend, legendEntry{svg.Style{Fill: svg.SkyBlue, Opacity: 0.3}, "box", r.t("fig.band")})
	}
	if unalignedSeen {
		legend = append(legend, legendEntry{svg.Style{Stroke: svg.Grey, Width: 1.5, Fill: "#FFFFFF"}, "box", r.t("unaligned")})
	}
	ch.legend(append(legend, es...))
	return ch.c.String()
}

// drillFigure is the drill-down's operators in execution order.
func (r *renderer) drillFigure(d *model.Drilldown) {
	r.figure(func() (string, string) {
		if d == nil || len(d.Ops) == 0 {
			return "", ""
		}
		return r.tf("fig.p3.drill", r.dirName(d.Direction), r.layer(d.Layer), d.Metric), r.drillSVG(d)
	})
}

func (r *renderer) drillSVG(d *model.Drilldown) string {
	fwd := isFwd(d.Direction)
	ops := slices.Clone(d.Ops)
	slices.SortStableFunc(ops, func(a, b model.DrillOp) int { return a.Order - b.Order })
	vals := make([]float64, len(ops))
	for i, o := range ops {
		v, _ := degreeOf(o.Metrics[d.Metric], fwd)
		vals[i] = ptrVal(v)
	}
	lo, hi, ok := positiveRange(vals)
	if !ok {
		return ""
	}
	ch := r.newChart(plotH, r.tf("fig.p3.drill.alt", len(ops), plain(code(d.Operator)), len(d.Chain)))
	fr := ch.fr
	n := len(ops)
	xs := svg.Scale{Min: 0, Max: float64(max(n-1, 1)), Lo: fr.Left + 10, Hi: fr.Right - 10}
	ys := svg.Scale{Min: lo / 1.5, Max: hi * 1.5, Lo: fr.Bottom, Hi: fr.Top, Log: true}
	ch.c.YAxis(fr, ys, ys.Ticks(5), func(v float64) string { return svg.Label(v) + "x" }, r.t("fig.axis.degree"))
	ch.c.XAxis(fr, xs, indexTicks(n, r.ticks(16), -1), func(v float64) string { return svg.Label(float64(ops[int(v)].Order)) }, r.t("fig.axis.order"))
	chain := map[string]bool{}
	for _, c := range d.Chain {
		chain[c] = true
	}
	pts := make([]*[2]float64, n)
	for i, v := range vals {
		x, _ := xs.Px(float64(i))
		if y, ok := ys.Px(v); ok && ops[i].Aligned {
			pts[i] = &[2]float64{x, y}
		}
	}
	ch.c.Path(pts, svg.Style{Stroke: svg.Grey, Width: 1})
	for i, o := range ops {
		x, _ := xs.Px(float64(i))
		if !o.Aligned {
			ch.c.Rect(x-4, fr.Bottom-10, 8, 8, svg.Style{Stroke: svg.Grey, Width: 1.5, Fill: "#FFFFFF"}, r.tf("fig.unaligned.tip", o.Key))
			continue
		}
		y, ok := ys.Clamp(vals[i])
		if !ok {
			if deg, _ := degreeOf(o.Metrics[d.Metric], fwd); deg != nil { // a recorded NaN/Inf
				ch.c.Text(x, fr.Top+10, num(vals[i]), svg.Middle, svg.Vermilion, 0)
			}
			continue
		}
		tip := r.tf("fig.degree.tip", o.Key, ratio(vals[i]))
		switch {
		case o.Key == d.Operator:
			ch.c.Circle(x, y, 7, svg.Style{Fill: svg.Vermilion}, tip)
			ch.c.Text(x, y-11, o.Key, svg.Middle, svg.Vermilion, 0)
		case chain[o.Key]:
			ch.c.Circle(x, y, 5, svg.Style{Fill: svg.Orange}, tip)
		case o.Flagged:
			ch.c.Circle(x, y, 4, svg.Style{Stroke: svg.Vermilion, Width: 1.5, Fill: "#FFFFFF"}, tip)
		default:
			ch.c.Circle(x, y, 3, svg.Style{Fill: svg.Black}, tip)
		}
	}
	ch.legend([]legendEntry{
		{svg.Style{Fill: svg.Vermilion}, "dot", r.t("fig.origin")},
		{svg.Style{Fill: svg.Orange}, "dot", r.t("fig.chain")},
		{svg.Style{Stroke: svg.Vermilion, Width: 1.5, Fill: "#FFFFFF"}, "dot", r.t("fig.opflagged")},
		{svg.Style{Fill: svg.Black}, "dot", r.t("fig.opother")},
	})
	return ch.c.String()
}
