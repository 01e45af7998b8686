package ui

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/NimbleMarkets/ntcharts/v2/canvas"
	"github.com/NimbleMarkets/ntcharts/v2/canvas/graph"
	"github.com/NimbleMarkets/ntcharts/v2/linechart"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// seriesPane is the detail of one candidate: a line chart of its (rank,
// parameter) curve with the other ranks and the baseline median for
// context, and a rank × step heat map of the parameter.
type seriesPane struct {
	common
	a *model.Anomaly
	// cache of the last rendering (the chart is costly to draw)
	cacheKey string
	cache    []string
	logY     bool // the chart's y axis is logarithmic
	metric   int  // index into metricNames (`m`)
}

// statOf maps a metric name to the monitor statistic.
var statOf = map[string]model.Stat{"Norm": model.StatNorm, "Max": model.StatMax, "Min": model.StatMin, "Mean": model.StatMean}

func (s *seriesPane) stat() model.Stat { return statOf[metricNames[s.metric]] }

// nextMetric switches to the next statistic the monitor recorded.
func (s *seriesPane) nextMetric() {
	if s.data == nil || s.data.Monitor == nil {
		return
	}
	for k := 1; k <= len(metricNames); k++ {
		m := (s.metric + k) % len(metricNames)
		if s.data.Monitor.HasStat[statOf[metricNames[m]]] {
			s.metric = m
			s.cacheKey = ""
			return
		}
	}
}

// minChartRows/minChartWidth: below this the chart is not drawn.
const minChartRows, minChartWidth = 4, 30

// logYRatio is the max/min span above which the chart's y axis turns
// logarithmic.
const logYRatio = 50

func newSeriesPane(c common, a *model.Anomaly) *seriesPane {
	return &seriesPane{common: c, a: a}
}

// seriesOf is enter's reply on a candidate list: the candidate's series.
func seriesOf(c common, a *model.Anomaly) reply {
	if a == nil {
		return used
	}
	return reply{handled: true, open: newSeriesPane(c, a)}
}

// Update: m switches the statistic; p (the root's) pins the candidate.
func (s *seriesPane) Update(m tea.Msg) reply {
	if msg, ok := m.(tea.KeyPressMsg); ok && key.Matches(msg, s.keys.Metric) {
		s.nextMetric()
		return used
	}
	return reply{}
}

func (s *seriesPane) candidate() *model.Anomaly { return s.a }

func (s *seriesPane) ShortHelp() []key.Binding {
	k := s.keys
	return []key.Binding{k.Back, k.Metric, k.Pin, k.Phase3, k.Help, k.Quit}
}

func (s *seriesPane) FullHelp() [][]key.Binding { return [][]key.Binding{{s.keys.Metric}} }

func (s *seriesPane) Crumb() string {
	if s.a == nil {
		return "series"
	}
	return fmt.Sprintf("series r%d %s", s.a.Rank, namesOf(s.data).title(s.a, 24))
}

func (s *seriesPane) View() []string {
	key := fmt.Sprintf("%dx%d/%d", s.width, s.height, s.metric)
	if key == s.cacheKey && s.cache != nil {
		return s.cache
	}
	s.cache, s.cacheKey = s.render(), key
	return s.cache
}

func (s *seriesPane) render() []string {
	st, a := s.st, s.a
	if a == nil {
		return []string{"no candidate selected"}
	}
	var ix *seriesIndex
	if s.data != nil {
		ix = s.data.series
	}
	// the rank, metric and statistic stay visible: a long parameter name
	// gives way from the left
	tail := fmt.Sprintf(" · rank %d · %s", a.Rank, a.Metric)
	stat := "  metric: " + metricNames[s.metric]
	name := namesOf(s.data).title(a, max(8, s.width-ansi.StringWidth(tail+stat)))
	title := st.Title.Render(name+tail) + "  metric: " + st.Accent.Render(metricNames[s.metric])
	info := fmt.Sprintf("spike at %s: norm %s, baseline median %s, %s× (%s)",
		stepLabel(a), fmtNum(float64(a.Norm)), fmtNum(float64(a.BaselineMedian)), fmtNum(float64(a.DeviationRatio)), a.Trigger)
	lines := []string{title, info}
	if ix == nil {
		return append(lines, "", "no monitor series for this candidate (dump statistics hold one value per step)")
	}
	sel, spike := ix.statCurve(a, a.Rank, s.stat())
	if len(sel.Vals) == 0 {
		return append(lines, "", "no monitor rows for this rank and parameter")
	}
	heatRows := len(ix.ranksOf(a))
	avail := s.height - len(lines) - 2 // legend + heat map title
	if avail < minChartRows+3 || s.width < minChartWidth {
		return append(lines, "(the terminal is too small for the chart and heat map)")
	}
	chartH := avail * 3 / 5
	if chartH < 6 {
		chartH = 6
	}
	if heatRows > avail-chartH-2 {
		heatRows = avail - chartH - 2
	}
	if heatRows < 1 {
		heatRows = 1
		chartH = avail - 3
	}
	lines = append(lines, s.chart(ix, sel, spike, chartH)...)
	lines = append(lines, s.legend())
	lines = append(lines, st.Title.Render("rank × step heat map ("+metricNames[s.metric]+")"))
	lines = append(lines, s.heatmap(ix, sel, spike, heatRows)...)
	return lines
}

// stepLabel names the step of an anomaly ("opt 3 ms 2 (step 14)").
func stepLabel(a *model.Anomaly) string {
	if a.MicroStep != nil {
		return fmt.Sprintf("opt %d ms %d (step %d)", a.OptStep(), *a.MicroStep, a.Step)
	}
	return "step " + strconv.Itoa(a.Step)
}

// chart draws the line chart with ntcharts: other ranks first (dim), the
// baseline median line, the selected rank on top, the spike marked.
func (s *seriesPane) chart(ix *seriesIndex, sel curve, spike, h int) []string {
	st, a := s.st, s.a
	// other ranks are drawn at the selected curve's x positions (a rank
	// may lack some steps); their points at steps sel lacks are left out
	at := make(map[stepKey]int, len(sel.Vals))
	for i := range sel.Vals {
		at[pointKey(sel, i)] = i
	}
	var others [][]float64
	for _, r := range ix.ranks {
		if int(r) == a.Rank {
			continue
		}
		c, _ := ix.statCurve(a, int(r), s.stat())
		if len(c.Vals) == 0 {
			continue
		}
		o := make([]float64, len(sel.Vals))
		for i := range o {
			o[i] = math.NaN()
		}
		for i, v := range c.Vals {
			if j, ok := at[pointKey(c, i)]; ok {
				o[j] = v
			}
		}
		others = append(others, o)
	}
	var bandLo, bandHi []float64
	if s.data != nil {
		bandLo, bandHi, _ = s.data.baseSeries.bandOf(a, sel, s.stat())
	}
	lo, hi := finiteRange(append(others, sel.Vals, bandLo, bandHi)...)
	if b := float64(a.BaselineMedian); !math.IsNaN(b) && !math.IsInf(b, 0) {
		lo, hi = math.Min(lo, b), math.Max(hi, b)
	}
	// a spike that propagates into a much larger explosion would sit flat on
	// the axis of a linear chart: span over logYRatio → log scale
	logY := lo > 0 && hi/lo > logYRatio
	tf := func(v float64) float64 {
		if !logY {
			return v
		}
		if v <= 0 {
			return math.Inf(-1)
		}
		return math.Log10(v)
	}
	lo, hi = tf(lo), tf(hi)
	if hi <= lo {
		hi = lo + 1
	}
	s.logY = logY
	n := len(sel.Vals)
	maxX := float64(n - 1)
	if maxX < 1 {
		maxX = 1
	}
	lc := linechart.New(s.width, h, 0, maxX, lo, hi,
		linechart.WithXYSteps(4, 2),
		linechart.WithStyles(st.Dim, st.Dim, st.Selected),
		linechart.WithYLabelFormatter(func(_ int, v float64) string {
			if logY {
				v = math.Pow(10, v)
			}
			return fmtNum(v)
		}),
		linechart.WithXLabelFormatter(func(_ int, v float64) string {
			i := int(math.Round(v))
			if i < 0 || i >= n {
				return ""
			}
			return strconv.Itoa(int(sel.Steps[i]))
		}),
	)
	lc.DrawXYAxisAndLabel()
	gw, gh := lc.GraphWidth(), lc.GraphHeight()
	startX := lc.Origin().X + 1
	draw := func(vals []float64, style lipgloss.Style, sparse bool) {
		g := graph.NewBrailleGrid(gw, gh, 0, maxX, lo, hi)
		prev := canvas.Float64Point{X: -1}
		for i, v := range vals {
			if math.IsNaN(v) {
				prev.X = -1
				continue
			}
			v = math.Max(lo, math.Min(hi, tf(v))) // Inf clips to the frame
			p := canvas.Float64Point{X: float64(i), Y: v}
			if sparse || prev.X < 0 {
				g.Set(g.GridPoint(p))
			} else {
				for _, q := range graph.GetLinePoints(g.GridPoint(prev), g.GridPoint(p)) {
					g.Set(q)
				}
			}
			prev = p
		}
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: startX, Y: 0}, g.BraillePatterns(), style)
	}
	if bandLo != nil { // the baseline run's min–max over ranks, as vertical strokes
		g := graph.NewBrailleGrid(gw, gh, 0, maxX, lo, hi)
		for i := range bandLo {
			if math.IsNaN(bandLo[i]) {
				continue
			}
			p1 := g.GridPoint(canvas.Float64Point{X: float64(i), Y: math.Max(lo, tf(bandLo[i]))})
			p2 := g.GridPoint(canvas.Float64Point{X: float64(i), Y: math.Min(hi, tf(bandHi[i]))})
			for _, q := range graph.GetLinePoints(p1, p2) {
				g.Set(q)
			}
		}
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: startX, Y: 0}, g.BraillePatterns(), st.Band)
	}
	for _, o := range others {
		draw(o, st.Context, true)
	}
	if b := tf(float64(a.BaselineMedian)); !math.IsNaN(b) && !math.IsInf(b, 0) && gh > 0 {
		y := int(math.Round((hi - b) / (hi - lo) * float64(gh-1)))
		for x := 0; x < gw; x += 2 {
			lc.Canvas.SetCell(canvas.Point{X: startX + x, Y: y}, canvas.NewCellWithStyle('─', st.Band))
		}
	}
	draw(sel.Vals, st.Selected, false)
	for i, v := range sel.Vals { // NaN has no height: marked on the top row
		if math.IsNaN(v) && gw > 0 {
			x := startX + int(math.Round(float64(i)/maxX*float64(gw-1)))
			lc.Canvas.SetCell(canvas.Point{X: x, Y: 0}, canvas.NewCellWithStyle([]rune(nanRune)[0], st.Flag))
		}
	}
	if spike >= 0 && gw > 0 {
		x := startX + int(math.Round(float64(spike)/maxX*float64(gw-1)))
		lc.Canvas.SetCell(canvas.Point{X: x, Y: 0}, canvas.NewCellWithStyle('▲', st.Spike))
	}
	return strings.Split(lc.View(), "\n")
}

// nanRune marks a NaN value in the chart (top row) and the heat map.
const nanRune = "×"

// heatmap draws ranks × steps: each cell the largest value of its step
// bucket, on a log scale (a spike is orders of magnitude above the rest),
// with colour ramp or (NO_COLOR) shade characters. Ranks beyond rows are
// shown as a window around the selected rank.
func (s *seriesPane) heatmap(ix *seriesIndex, sel curve, spike, rows int) []string {
	st, a := s.st, s.a
	held := ix.ranksOf(a) // a pipeline stage's parameter: that stage's ranks
	ranks := held
	if len(ranks) == 0 || rows < 1 {
		return nil
	}
	first := 0
	if len(ranks) > rows {
		for i, r := range ranks {
			if int(r) == a.Rank {
				first = i - rows/2
			}
		}
		if first < 0 {
			first = 0
		}
		if first > len(ranks)-rows {
			first = len(ranks) - rows
		}
		ranks = ranks[first : first+rows]
	}
	labelW := len(fmt.Sprintf("r%d ", held[len(held)-1])) + 1
	cells := s.width - labelW
	if cells < 1 {
		return nil
	}
	// The columns are the (step, micro step) points of every shown rank:
	// a rank that misses steps (a dump tree with one step on some ranks)
	// keeps its values under their own steps.
	curves := make([]curve, len(ranks))
	for k, r := range ranks {
		curves[k], _ = ix.statCurve(a, int(r), s.stat())
	}
	pos := stepPositions(append(curves, sel))
	n := len(pos)
	// few steps: each step gets the same whole number of cells
	stretch := 1
	if n > 0 && n < cells {
		stretch = cells / n
		cells = n
	}
	all := make([][]float64, len(ranks))
	nan := make([][]bool, len(ranks)) // a NaN in the bucket: drawn as ×, above any value
	anyNaN := false
	var finite []float64
	for k, c := range curves {
		b := make([]float64, cells)
		nan[k] = make([]bool, cells)
		for i := range b {
			b[i] = math.NaN()
		}
		for i, v := range c.Vals {
			cell := pos[pointKey(c, i)] * cells / n
			if math.IsNaN(v) {
				nan[k][cell], anyNaN = true, true
				continue
			}
			if math.IsNaN(b[cell]) || v > b[cell] || math.IsInf(v, 1) {
				b[cell] = v
			}
		}
		all[k] = b
		finite = append(finite, b...)
	}
	lo, hi := finiteRange(finite)
	logScale := lo > 0
	scale := func(v float64) float64 {
		if math.IsInf(v, 1) {
			return 1
		}
		if hi <= lo {
			return 0
		}
		if logScale {
			return (math.Log(v) - math.Log(lo)) / (math.Log(hi) - math.Log(lo))
		}
		return (v - lo) / (hi - lo)
	}
	var out []string
	for k, r := range ranks {
		label := fmt.Sprintf("r%d", r)
		if int(r) == a.Rank {
			label = "▸" + label
		}
		var b strings.Builder
		b.WriteString(fit(label, labelW, false))
		for cell, v := range all[k] {
			if nan[k][cell] {
				b.WriteString(st.Flag.Render(strings.Repeat(nanRune, stretch)))
				continue
			}
			if math.IsNaN(v) {
				b.WriteString(strings.Repeat(" ", stretch))
				continue
			}
			f := math.Max(0, math.Min(1, scale(v)))
			if st.NoColor || len(st.Ramp) == 0 {
				b.WriteString(strings.Repeat(string(shadeRunes[int(f*float64(len(shadeRunes)-1)+0.5)]), stretch))
				continue
			}
			c := st.Ramp[int(f*float64(len(st.Ramp)-1)+0.5)]
			b.WriteString(lipgloss.NewStyle().Foreground(c).Render(strings.Repeat("█", stretch)))
		}
		out = append(out, b.String())
	}
	if spike >= 0 && spike < len(sel.Vals) && n > 0 {
		mark := strings.Repeat(" ", labelW+(pos[pointKey(sel, spike)]*cells/n)*stretch+stretch/2) + "▲ " + stepLabel(a)
		out = append(out, mark)
	}
	scaleNote := "linear"
	if logScale {
		scaleNote = "log"
	}
	note := fmt.Sprintf("%s scale %s … %s", scaleNote, fmtNum(lo), fmtNum(hi))
	if anyNaN {
		note += " · " + nanRune + " NaN"
	}
	out = append(out, st.Dim.Render(note))
	return out
}

// legend explains the chart's marks; shorter on narrow screens.
func (s *seriesPane) legend() string {
	st, wide := s.st, s.width >= 120
	self, other, med, base := "rank "+strconv.Itoa(s.a.Rank), "other ranks", "baseline median", "baseline run (min–max of ranks)"
	if !wide {
		self, other, med, base = "r"+strconv.Itoa(s.a.Rank), "others", "median", "baseline run"
	}
	selMark, otherMark := st.Selected.Render("⣿"), st.Context.Render("⡀")
	if st.NoColor {
		selMark, otherMark = "⣿", "⡀"
		self += " (line)"
		other += " (dots)"
	}
	parts := []string{selMark + " " + self, otherMark + " " + other, st.Band.Render("──") + " " + med}
	if s.data != nil && s.data.baseSeries != nil {
		parts = append(parts, st.Band.Render("┃")+" "+base)
	}
	parts = append(parts, "▲ spike")
	if s.logY {
		parts = append(parts, "log y")
	}
	return strings.Join(parts, "  ")
}

// pointKey is point i of c's (step, micro step).
func pointKey(c curve, i int) stepKey { return stepKey{c.Steps[i], c.Micro[i]} }

// stepPositions numbers the distinct (step, micro step) points of curves
// in order: the heat map's columns.
func stepPositions(curves []curve) map[stepKey]int {
	var keys []stepKey
	seen := map[stepKey]bool{}
	for _, c := range curves {
		for i := range c.Vals {
			if k := pointKey(c, i); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b stepKey) int {
		if a.step != b.step {
			return cmp.Compare(a.step, b.step)
		}
		return cmp.Compare(a.micro, b.micro)
	})
	pos := make(map[stepKey]int, len(keys))
	for i, k := range keys {
		pos[k] = i
	}
	return pos
}
