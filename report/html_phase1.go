package report

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
	"spikescope/svg"
)

// Heat map and curve window: at most this many steps around the spike and
// ranks around the root rank (a 1000-rank run stays a readable file).
const (
	plotMaxSteps = 120
	plotMaxRanks = 64
)

// p1Plot is the Phase 1 series cut to the plotted window.
type p1Plot struct {
	s          *Series
	a          *model.Anomaly // the candidate the plots are about
	first, end int            // positions [first, end)
	ranks      []int          // indices into s.Ranks, root rank included
	root       int            // index into s.Ranks of a's rank, -1 when absent
	spike      int            // position of a, -1 when not found
}

// phase1Plot places the earliest candidate of s's parameter in the series.
func (r *renderer) phase1Plot() *p1Plot {
	s := r.in.Series
	if s == nil || len(s.Steps) == 0 {
		return nil
	}
	var a *model.Anomaly
	for _, c := range r.candidates() {
		if c.TargetName == s.Param {
			a = c
			break
		}
	}
	if a == nil {
		return nil
	}
	p := &p1Plot{s: s, a: a, root: -1, spike: -1}
	for i, rk := range s.Ranks {
		if rk == a.Rank {
			p.root = i
		}
	}
	for i, st := range s.Steps {
		if st == a.Step && (s.Micro == nil || s.Micro[i] == a.MicroPos()) {
			p.spike = i
			break
		}
	}
	centre := max(p.spike, 0)
	p.first = max(0, centre-plotMaxSteps/2)
	p.end = min(len(s.Steps), p.first+plotMaxSteps)
	p.first = max(0, p.end-plotMaxSteps)
	lo := max(0, p.root-plotMaxRanks/2)
	hi := min(len(s.Ranks), lo+plotMaxRanks)
	lo = max(0, hi-plotMaxRanks)
	for i := lo; i < hi; i++ {
		p.ranks = append(p.ranks, i)
	}
	return p
}

// stepLabel is the axis label of position i: the input's step number (and
// micro-batch when the input numbers them apart).
func (p *p1Plot) stepLabel(i int) string {
	s := strconv.Itoa(p.s.Steps[i])
	if p.s.Micro != nil && p.s.Micro[i] >= 0 {
		s += "." + strconv.Itoa(p.s.Micro[i])
	}
	return s
}

// windowNote says which steps and ranks the plot shows when it is cut.
func (r *renderer) windowNote(p *p1Plot) string {
	if p.end-p.first == len(p.s.Steps) && len(p.ranks) == len(p.s.Ranks) {
		return ""
	}
	return " " + r.tf("fig.window", p.stepLabel(p.first), p.stepLabel(p.end-1),
		p.s.Ranks[p.ranks[0]], p.s.Ranks[p.ranks[len(p.ranks)-1]], len(p.s.Ranks))
}

// phase1Figures are the norm curve and the rank × step heat map.
func (r *renderer) phase1Figures() {
	r.figure(func() (string, string) {
		p := r.phase1Plot()
		if p == nil {
			return "", ""
		}
		return r.tf("fig.p1.curve", code(p.s.Param), p.a.Rank) + r.windowNote(p), r.curveSVG(p)
	})
	r.figure(func() (string, string) {
		p := r.phase1Plot()
		if p == nil {
			return "", ""
		}
		return r.tf("fig.p1.heat", code(p.s.Param)) + r.windowNote(p), r.heatSVG(p)
	})
}

func (r *renderer) curveSVG(p *p1Plot) string {
	if p.end-p.first < 2 { // one step (a dump's): no curve to draw
		return ""
	}
	a := p.a
	var all [][]float64
	for _, i := range p.ranks {
		all = append(all, p.s.Norm[i][p.first:p.end])
	}
	med, q1, q3, hasBand := p.rootBand()
	lo, hi, ok := positiveRange(append(all, []float64{q1, q3})...)
	if !ok {
		return ""
	}
	ch := r.newChart(plotH, r.tf("fig.p1.curve.alt", p.s.Param, a.Rank, len(p.s.Ranks)-1)+r.spikeAt(p))
	fr := ch.fr
	xs := svg.Scale{Min: 0, Max: float64(p.end - p.first - 1), Lo: fr.Left + 6, Hi: fr.Right - 6}
	ys := svg.Scale{Min: lo / 1.5, Max: hi * 1.5, Lo: fr.Bottom, Hi: fr.Top, Log: true}
	// the baseline band, then the faint ranks, then the root rank on top
	if hasBand {
		y1, ok1 := ys.Clamp(q3)
		y0, ok0 := ys.Clamp(math.Max(q1, ys.Min))
		if ok0 && ok1 {
			ch.c.Rect(fr.Left, y1, fr.Right-fr.Left, y0-y1, svg.Style{Fill: svg.SkyBlue, Opacity: 0.3}, "")
		}
		if y, ok := ys.Px(med); ok {
			ch.c.Line(fr.Left, y, fr.Right, y, svg.Style{Stroke: svg.Blue, Dash: "5 4"})
		}
	}
	ch.c.YAxis(fr, ys, ys.Ticks(5), svg.Label, r.t("fig.axis.norm"))
	ch.c.XAxis(fr, xs, indexTicks(p.end-p.first, r.ticks(10), p.spike-p.first), func(v float64) string {
		return p.stepLabel(p.first + int(v))
	}, r.axisStep(p))
	line := func(row []float64) []*[2]float64 {
		pts := make([]*[2]float64, 0, len(row))
		for j, v := range row {
			y, ok := ys.Px(v)
			if !ok {
				pts = append(pts, nil)
				continue
			}
			x, _ := xs.Px(float64(j))
			pts = append(pts, &[2]float64{x, y})
		}
		return pts
	}
	for _, i := range p.ranks {
		if i != p.root {
			ch.c.Path(line(p.s.Norm[i][p.first:p.end]), svg.Style{Stroke: svg.Grey, Width: 1, Opacity: 0.45})
		}
	}
	if p.root >= 0 {
		row := p.s.Norm[p.root][p.first:p.end]
		ch.c.Path(line(row), svg.Style{Stroke: svg.Black, Width: 1.6})
		for j, v := range row {
			if !model.Finite(v) && p.s.Has[p.root][p.first+j] {
				x, _ := xs.Px(float64(j))
				ch.c.Text(x, fr.Top+10, num(v), svg.Middle, svg.Vermilion, 0)
			}
		}
	}
	if p.spike >= 0 && p.root >= 0 {
		x, _ := xs.Px(float64(p.spike - p.first))
		v := p.s.Norm[p.root][p.spike]
		tip := r.tf("fig.spike.tip", plain(r.anomalyCoord(a)), num(v), ratio(float64(a.DeviationRatio)))
		if y, ok := ys.Clamp(v); ok {
			ch.c.Circle(x, y, 5.5, svg.Style{Stroke: svg.Vermilion, Width: 2.5}, tip)
		} else {
			ch.c.Line(x, fr.Top, x, fr.Bottom, svg.Style{Stroke: svg.Vermilion, Width: 1.5, Dash: "3 3"})
		}
	}
	es := []legendEntry{
		{svg.Style{Stroke: svg.Black, Width: 1.6}, "line", r.tf("fig.rank", a.Rank)},
		{svg.Style{Stroke: svg.Grey, Opacity: 0.6}, "line", r.t("fig.otherranks")},
	}
	if hasBand {
		es = append(es, legendEntry{svg.Style{Stroke: svg.Blue, Dash: "5 4"}, "line", r.t("fig.median")},
			legendEntry{svg.Style{Fill: svg.SkyBlue, Opacity: 0.3}, "box", r.t("fig.iqr")})
	}
	if p.spike >= 0 {
		es = append(es, legendEntry{svg.Style{Stroke: svg.Vermilion, Width: 2.5}, "dot", r.t("fig.spike")})
	}
	ch.legend(es)
	return ch.c.String()
}

// spikeAt ends a Phase 1 plot's text alternative: where the spike is, or
// that the candidate's row was not among the monitor rows.
func (r *renderer) spikeAt(p *p1Plot) string {
	if p.spike < 0 {
		return r.tf("fig.nospike", p.a.Rank)
	}
	return r.tf("fig.spikeat", p.a.Rank, p.stepLabel(p.spike))
}

// axisStep names the x axis of the Phase 1 plots.
func (r *renderer) axisStep(p *p1Plot) string {
	if p.s.Micro != nil {
		return r.t("fig.axis.stepmicro")
	}
	return r.t("fig.axis.step")
}

func (r *renderer) heatSVG(p *p1Plot) string {
	if (p.end-p.first)*len(p.ranks) < 2 { // one cell: nothing to compare
		return ""
	}
	var all [][]float64
	for _, i := range p.ranks {
		all = append(all, p.s.Norm[i][p.first:p.end])
	}
	lo, hi, ok := positiveRange(all...)
	if !ok {
		return ""
	}
	nr, nc := len(p.ranks), p.end-p.first
	cellH := math.Max(4, math.Min(18, 360/float64(nr)))
	h := plotTop + cellH*float64(nr) + plotBottom
	if r.small {
		cellH = math.Max(2, math.Min(14, 170/float64(nr)))
		h = smallTop + cellH*float64(nr) + smallBottom
	}
	ch := r.newChart(h, r.tf("fig.p1.heat.alt", p.s.Param, len(p.s.Ranks))+r.spikeAt(p))
	fr := ch.fr
	cellW := (fr.Right - fr.Left) / float64(nc)
	llo, lhi := math.Log10(lo), math.Log10(hi)
	for ri, i := range p.ranks {
		y := fr.Top + float64(ri)*cellH
		for j, v := range p.s.Norm[i][p.first:p.end] {
			x := fr.Left + float64(j)*cellW
			tip := r.tf("fig.cell.tip", p.s.Ranks[i], p.stepLabel(p.first+j), num(v))
			switch {
			case !p.s.Has[i][p.first+j]:
				// no row: a gap
			case math.IsNaN(v) || math.IsInf(v, 0):
				ch.c.Rect(x, y, cellW, cellH, svg.Style{Fill: svg.Vermilion}, tip)
			case v <= 0:
				ch.c.Rect(x, y, cellW, cellH, svg.Style{Fill: svg.Sequential(0)}, tip)
			default:
				t := 0.0
				if lhi > llo {
					t = (math.Log10(v) - llo) / (lhi - llo)
				}
				ch.c.Rect(x, y, cellW, cellH, svg.Style{Fill: svg.Sequential(t)}, tip)
			}
		}
	}
	if p.root >= 0 && p.spike >= 0 {
		ri := p.root - p.ranks[0]
		ch.c.Rect(fr.Left+float64(p.spike-p.first)*cellW-1, fr.Top+float64(ri)*cellH-1, cellW+2, cellH+2,
			svg.Style{Stroke: svg.Orange, Width: 2.5}, "")
	}
	// rank labels on the left (about 12), steps below
	every := max(1, (nr+r.ticks(12)-1)/r.ticks(12))
	for ri, i := range p.ranks {
		// the root rank's label, and every few others not crowding it
		near := p.root >= 0 && i != p.root && abs(i-p.root) < every
		if (ri%every == 0 && !near) || i == p.root {
			ch.c.Text(fr.Left-6, fr.Top+float64(ri)*cellH+cellH/2+4, strconv.Itoa(p.s.Ranks[i]), svg.End, svg.Ink, 0)
		}
	}
	ch.c.Text(fr.Left-44, (fr.Top+fr.Bottom)/2, r.t("fig.axis.rank"), svg.Middle, svg.Ink, -90)
	xs := svg.Scale{Min: 0, Max: float64(nc), Lo: fr.Left, Hi: fr.Right}
	ticks := indexTicks(nc, r.ticks(10), p.spike-p.first)
	for k := range ticks {
		ticks[k] += 0.5
	}
	ch.c.XAxis(fr, xs, ticks, func(v float64) string { return p.stepLabel(p.first + int(v)) }, r.axisStep(p))
	ch.legend([]legendEntry{
		{svg.Style{Fill: svg.Sequential(0.05), Stroke: svg.Grey}, "box", r.tf("fig.heat.low", num(lo))},
		{svg.Style{Fill: svg.Sequential(1)}, "box", r.tf("fig.heat.high", num(hi))},
		{svg.Style{Fill: svg.Vermilion}, "box", r.t("nonfinite")},
		{svg.Style{Fill: "#FFFFFF", Stroke: svg.Grey}, "box", r.t("fig.heat.missing")},
		{svg.Style{Stroke: svg.Orange, Width: 2.5}, "box", r.t("fig.spike")},
	})
	return ch.c.String()
}

// plain drops the code fences of a report text (for SVG tooltips).
func plain(s string) string { return strings.ReplaceAll(s, "`", "") }

// rootBand is the baseline of the root rank's curve: the median and
// quartiles of its finite norms before the spike (the whole window when the
// spike was not placed); ok false with fewer than 3 values.
func (p *p1Plot) rootBand() (med, q1, q3 float64, ok bool) {
	if p.root < 0 {
		return 0, 0, 0, false
	}
	end := p.end
	if p.spike >= 0 {
		end = p.spike
	}
	var vs []float64
	for j := p.first; j < end; j++ {
		if v := p.s.Norm[p.root][j]; p.s.Has[p.root][j] && model.Finite(v) {
			vs = append(vs, v)
		}
	}
	if len(vs) < 3 {
		return 0, 0, 0, false
	}
	sort.Float64s(vs)
	q := func(f float64) float64 {
		x := f * float64(len(vs)-1)
		i := int(x)
		if i+1 >= len(vs) {
			return vs[i]
		}
		return vs[i] + (x-float64(i))*(vs[i+1]-vs[i])
	}
	return q(0.5), q(0.25), q(0.75), true
}
