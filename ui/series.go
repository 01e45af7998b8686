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
	rankTop  int  // the first rank of the heat map the user scrolled to; -1: around the selected rank
	rankRows int  // how many ranks the heat map shows (the last rendering)
	// the chart of the last rendering and its axis, kept while only the
	// heat map's ranks scroll
	chartKey   string
	chartLines []string
	ax         xAxis
	axKeys     []stepKey // the axis's points, the same for every metric
}

// statOf maps a metric name to the monitor statistic.
var statOf = map[string]model.Stat{"Norm": model.StatNorm, "Max": model.StatMax, "Min": model.StatMin, "Mean": model.StatMean}

func (s *seriesPane) stat() model.Stat { return statOf[metricNames[s.metric]] }

// nextMetric switches to the next (d = 1) or previous (d = -1) statistic
// the monitor recorded.
func (s *seriesPane) nextMetric(d int) {
	if s.data == nil || s.data.Monitor == nil {
		return
	}
	n := len(metricNames)
	for k := 1; k <= n; k++ {
		m := ((s.metric+d*k)%n + n) % n
		if s.data.Monitor.HasStat[statOf[metricNames[m]]] {
			s.metric = m
			s.cacheKey, s.chartKey = "", ""
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
	return &seriesPane{common: c, a: a, rankTop: -1}
}

// seriesOf is enter's reply on a candidate list: the candidate's series.
func seriesOf(c common, a *model.Anomaly) reply {
	if a == nil {
		return used
	}
	s := newSeriesPane(c, a)
	return reply{handled: true, open: s, at: screenSeries, cmd: s.warmCurves()}
}

// warmCurves reads, off the loop, the curves of the statistics the screen
// is not showing yet, so that m / M draws from read curves.
func (s *seriesPane) warmCurves() tea.Cmd {
	if s.data == nil || s.data.series == nil || s.data.Monitor == nil {
		return nil
	}
	ix, a, md := s.data.series, s.a, s.data.Monitor
	var stats []model.Stat
	for _, name := range metricNames {
		if st := statOf[name]; md.HasStat[st] && st != s.stat() {
			stats = append(stats, st)
		}
	}
	return func() tea.Msg {
		ix.warm(a, stats)
		return nil
	}
}

// Update: m switches the statistic; p (the root's) pins the candidate.
func (s *seriesPane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	switch {
	case !ok:
	case key.Matches(msg, s.keys.Metric):
		s.nextMetric(1)
		return used
	case key.Matches(msg, s.keys.PrevMetric):
		s.nextMetric(-1)
		return used
	case key.Matches(msg, s.keys.Up), key.Matches(msg, s.keys.Down):
		s.scrollRanks(msg)
		return used
	}
	return reply{}
}

func (s *seriesPane) candidate() *model.Anomaly { return s.a }

// scrollRanks moves the heat map's window of ranks by one (↑/↓) when not
// every rank fits.
func (s *seriesPane) scrollRanks(msg tea.KeyPressMsg) {
	if s.data == nil || s.data.series == nil || s.rankRows < 1 {
		return
	}
	ranks := s.data.series.ranksOf(s.a)
	first := s.heatWindow(ranks, s.rankRows)
	if key.Matches(msg, s.keys.Up) {
		first--
	} else {
		first++
	}
	s.rankTop = max(0, min(first, len(ranks)-s.rankRows))
}

func (s *seriesPane) ShortHelp() []key.Binding {
	k := s.keys
	return []key.Binding{k.Back, k.Metric, k.Pin, k.Phase3, k.Help, k.Quit}
}

// heatKeys are ↑/↓ with the heat map's words.
func (s *seriesPane) heatKeys() []key.Binding {
	up, down := s.keys.Up, s.keys.Down
	up.SetHelp(up.Help().Key, "ranks up (heat map)")
	down.SetHelp(down.Help().Key, "ranks down (heat map)")
	return []key.Binding{up, down}
}

func (s *seriesPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{append([]key.Binding{s.keys.Metric, s.keys.PrevMetric}, s.heatKeys()...)}
}

func (s *seriesPane) Crumb() string {
	if s.a == nil {
		return "series"
	}
	return fmt.Sprintf("series r%d %s", s.a.Rank, namesOf(s.data).title(s.a, 24))
}

func (s *seriesPane) marks() []string {
	heat := "each cell the largest value of its steps on that rank, "
	if s.st.NoColor || len(s.st.Ramp) == 0 {
		heat += "shades " + string(shadeRunes) + " from low to high"
	} else {
		var b strings.Builder
		for _, c := range s.st.Ramp {
			b.WriteString(lipgloss.NewStyle().Foreground(c).Render("█"))
		}
		heat += "colours " + b.String() + " from low to high"
	}
	out := []string{legendLine("▲", "the candidate's step")}
	// the NaN mark only when the chart or the heat map draws one (the heat
	// map's scale note then says "× NaN")
	if strings.Contains(strings.Join(s.chartLines, "\n"), nanRune) || strings.Contains(strings.Join(s.cache, "\n"), nanRune+" NaN/Inf") {
		out = append(out, legendLine(nanRune, "a NaN/Inf value"))
	}
	rank := "▸r"
	if s.a != nil {
		rank += strconv.Itoa(s.a.Rank)
	}
	return append(out, legendLine(rank, "the candidate's rank"), legendLine("heat map", heat))
}

func (s *seriesPane) copyText() (string, string) { return s.a.Coord().String(), "coordinate" }

func (s *seriesPane) View() []string {
	key := fmt.Sprintf("%dx%d/%d/%d", s.width, s.height, s.metric, s.rankTop)
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
	info := fmt.Sprintf("spike at %s: norm %s, its own median %s, %s×",
		stepLabel(a), fmtNum(float64(a.Norm)), fmtNum(float64(a.BaselineMedian)), fmtNum(float64(a.DeviationRatio)))
	if !finite(float64(a.BaselineMedian)) { // no steps to take a median of
		info = fmt.Sprintf("spike at %s: norm %s, no baseline", stepLabel(a), fmtNum(float64(a.Norm)))
	}
	// why it was flagged comes last: in a sentence, or its word on a
	// narrow screen, or not at all (the Phase 1 row says it)
	if why := info + " · " + triggerWhy(a.Trigger); ansi.StringWidth(why) <= s.width {
		info = why
	} else {
		info = fitJoin(s.width, info, "flagged: "+triggerText(a.Trigger, triggerLongW))
	}
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
	s.rankRows = heatRows
	// the chart and its axis (every rank's curve) are drawn again only on
	// a new size or metric, not when the heat map's ranks scroll
	if ck := fmt.Sprintf("%dx%d/%d/%d", s.width, s.height, s.metric, chartH); ck != s.chartKey {
		s.ax = s.axisFor(ix, sel)
		s.chartLines = s.chart(ix, sel, spike, chartH, &s.ax)
		s.chartKey = ck
	}
	lines = append(lines, s.chartLines...)
	lines = append(lines, s.legend())
	lines = append(lines, s.heatTitle(ix, heatRows))
	lines = append(lines, s.heatmap(ix, sel, spike, heatRows, s.ax)...)
	return lines
}

// stepLabel names the step of an anomaly ("opt 3 ms 2 (step 14)").
func stepLabel(a *model.Anomaly) string {
	if a.MicroStep != nil {
		return fmt.Sprintf("opt %d ms %d (step %d)", a.OptStep(), *a.MicroStep, a.Step)
	}
	return "step " + strconv.Itoa(a.Step)
}

// xAxis is the x axis the chart and the heat map share: the (step, micro
// step) points of every rank, in order, drawn from column startX over width
// columns, so a step sits in the same column in both.
type xAxis struct {
	keys          []stepKey // sorted
	startX, width int
}

// axisFor is the axis of a's curves on every rank; it starts right of the
// heat map's rank labels until the chart places it.
func (s *seriesPane) axisFor(ix *seriesIndex, sel curve) xAxis {
	if s.axKeys == nil { // the steps are every statistic's: one axis for all
		curves := []curve{sel}
		for _, r := range ix.ranks {
			c, _ := ix.statCurve(s.a, int(r), s.stat())
			curves = append(curves, c)
		}
		s.axKeys = axisKeys(curves)
	}
	lw := heatLabelWidth(ix.ranksOf(s.a))
	return xAxis{keys: s.axKeys, startX: lw, width: s.width - lw}
}

// axisKeys is the distinct (step, micro step) points of curves, in order.
// Ranks usually share their steps: a curve with the same steps as the one
// before adds nothing and costs one comparison per point.
func axisKeys(curves []curve) []stepKey {
	var keys []stepKey
	var last curve
	seen := map[stepKey]bool{}
	for _, c := range curves {
		if len(c.Vals) == 0 || (slices.Equal(c.Steps, last.Steps) && slices.Equal(c.Micro, last.Micro)) {
			continue
		}
		last = c
		for i := range c.Vals {
			if k := pointKey(c, i); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, cmpKey)
	return keys
}

func cmpKey(a, b stepKey) int {
	if a.step != b.step {
		return cmp.Compare(a.step, b.step)
	}
	return cmp.Compare(a.micro, b.micro)
}

// find is the axis position of k (the position it would have when absent).
func (x xAxis) find(k stepKey) int {
	p, _ := slices.BinarySearchFunc(x.keys, k, cmpKey)
	return p
}

// positions is the axis position of every point of c; a curve in step
// order is walked, not searched.
func (x xAxis) positions(c curve) []int {
	out := make([]int, len(c.Vals))
	p := 0
	for i := range c.Vals {
		k := pointKey(c, i)
		if p >= len(x.keys) || x.keys[p] != k {
			p = x.find(k)
		}
		out[i] = p
		p++
	}
	return out
}

func (x xAxis) maxX() float64 { return math.Max(1, float64(len(x.keys)-1)) }

// col is the column (from startX) of axis position p.
func (x xAxis) col(p int) int {
	return int(math.Round(float64(p) / x.maxX() * float64(x.width-1)))
}

// heatLabelWidth is the width of the heat map's rank labels ("▸r12 ").
func heatLabelWidth(ranks []int32) int {
	w := 4
	for _, r := range ranks {
		w = max(w, len(fmt.Sprintf("r%d ", r))+1) // +1: the ▸ of the selected rank
	}
	return w
}

// axisLabels formats the y labels of lo..hi in one notation: exponents for
// all when any needs one (a value ≥ 1e5 or below 1e-3), else plain decimals
// of four significant digits; padded to at least width cells.
func axisLabels(lo, hi float64, width int) func(float64) string {
	big := math.Max(math.Abs(lo), math.Abs(hi))
	small := math.Min(math.Abs(lo), math.Abs(hi))
	exp := big >= 1e5 || (small > 0 && small < 1e-3)
	return func(v float64) string {
		var t string
		switch {
		case v == 0:
			t = "0"
		case exp:
			t = strconv.FormatFloat(v, 'e', 2, 64)
			t = strings.NewReplacer("e+0", "e", "e+", "e", "e-0", "e-").Replace(t)
		default:
			d := max(0, 3-int(math.Floor(math.Log10(math.Abs(v)))))
			t = strconv.FormatFloat(v, 'f', d, 64)
			if strings.Contains(t, ".") {
				t = strings.TrimRight(strings.TrimRight(t, "0"), ".")
			}
		}
		if n := width - len(t); n > 0 {
			t = strings.Repeat(" ", n) + t
		}
		return t
	}
}

// chart draws the line chart with ntcharts on axis x: other ranks first
// (dim), the baseline median line, the selected rank on top, the spike
// marked. It sets x's start and width to the plot's.
func (s *seriesPane) chart(ix *seriesIndex, sel curve, spike, h int, x *xAxis) []string {
	st, a := s.st, s.a
	var others []curve
	for _, r := range ix.ranks {
		if int(r) == a.Rank {
			continue
		}
		if c, _ := ix.statCurve(a, int(r), s.stat()); len(c.Vals) > 0 {
			others = append(others, c)
		}
	}
	var bandLo, bandHi []float64
	if s.data != nil {
		bandLo, bandHi, _ = s.data.baseSeries.bandOf(a, sel, s.stat())
	}
	lo, hi := rawRange(sel.Vals, bandLo, bandHi)
	for _, o := range others { // their ranges were taken when they were read
		lo, hi = math.Min(lo, o.Lo), math.Max(hi, o.Hi)
	}
	if lo > hi {
		lo, hi = 0, 0
	}
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
	label := axisLabels(lo, hi, x.startX-1)
	lo, hi = tf(lo), tf(hi)
	if hi <= lo {
		hi = lo + 1
	}
	s.logY = logY
	maxX := x.maxX()
	lc := linechart.New(s.width, h, 0, maxX, lo, hi,
		linechart.WithXYSteps(4, 2),
		linechart.WithStyles(st.Dim, st.Dim, st.Selected),
		linechart.WithYLabelFormatter(func(_ int, v float64) string {
			if logY {
				v = math.Pow(10, v)
			}
			return label(v)
		}),
		linechart.WithXLabelFormatter(func(_ int, v float64) string {
			i := int(math.Round(v))
			if i < 0 || i >= len(x.keys) {
				return ""
			}
			return strconv.Itoa(int(x.keys[i].step))
		}),
	)
	lc.DrawXYAxisAndLabel()
	gw, gh := lc.GraphWidth(), lc.GraphHeight()
	startX := lc.Origin().X + 1
	x.startX, x.width = startX, gw
	// plot sets the points of c at their axis positions in g; connected: a
	// line through consecutive points, else dots
	plot := func(g *graph.BrailleGrid, c curve, vals []float64, connected bool) {
		prev := canvas.Float64Point{X: -1}
		pos := x.positions(c)
		for i, v := range vals {
			if math.IsNaN(v) {
				prev.X = -1
				continue
			}
			v = math.Max(lo, math.Min(hi, tf(v))) // Inf clips to the frame
			p := canvas.Float64Point{X: float64(pos[i]), Y: v}
			if !connected || prev.X < 0 {
				g.Set(g.GridPoint(p))
			} else {
				for _, q := range graph.GetLinePoints(g.GridPoint(prev), g.GridPoint(p)) {
					g.Set(q)
				}
			}
			prev = p
		}
	}
	paint := func(g *graph.BrailleGrid, style lipgloss.Style) {
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: startX, Y: 0}, g.BraillePatterns(), style)
	}
	if bandLo != nil { // the baseline run's min–max over ranks, as vertical strokes
		g := graph.NewBrailleGrid(gw, gh, 0, maxX, lo, hi)
		selPos := x.positions(sel)
		for i := range bandLo {
			if math.IsNaN(bandLo[i]) {
				continue
			}
			px := float64(selPos[i])
			p1 := g.GridPoint(canvas.Float64Point{X: px, Y: math.Max(lo, tf(bandLo[i]))})
			p2 := g.GridPoint(canvas.Float64Point{X: px, Y: math.Min(hi, tf(bandHi[i]))})
			for _, q := range graph.GetLinePoints(p1, p2) {
				g.Set(q)
			}
		}
		graph.DrawBraillePatterns(&lc.Canvas, canvas.Point{X: startX, Y: 0}, g.BraillePatterns(), st.Band)
	}
	if len(others) > 0 { // one grid for all of them: one drawing, not one per rank
		g := graph.NewBrailleGrid(gw, gh, 0, maxX, lo, hi)
		dots := newDotGrid(g, gw, gh, maxX, lo, hi, len(x.keys))
		var pos []int
		var last curve
		for _, o := range others {
			if len(pos) == 0 || !slices.Equal(o.Steps, last.Steps) || !slices.Equal(o.Micro, last.Micro) {
				pos, last = x.positions(o), o
			}
			dots.plot(pos, o.Vals, tf)
		}
		paint(g, st.Context)
	}
	if b := tf(float64(a.BaselineMedian)); !math.IsNaN(b) && !math.IsInf(b, 0) && gh > 0 {
		y := int(math.Round((hi - b) / (hi - lo) * float64(gh-1)))
		for c := 0; c < gw; c += 2 {
			lc.Canvas.SetCell(canvas.Point{X: startX + c, Y: y}, canvas.NewCellWithStyle('─', st.Band))
		}
	}
	g := graph.NewBrailleGrid(gw, gh, 0, maxX, lo, hi)
	plot(g, sel, sel.Vals, true)
	paint(g, st.Selected)
	for i, v := range sel.Vals { // NaN and Inf have no height: marked on the top row
		if (math.IsNaN(v) || math.IsInf(v, 0)) && gw > 0 {
			lc.Canvas.SetCell(canvas.Point{X: startX + x.col(x.find(pointKey(sel, i))), Y: 0}, canvas.NewCellWithStyle([]rune(nanRune)[0], st.Flag))
		}
	}
	if spike >= 0 && gw > 0 {
		lc.Canvas.SetCell(canvas.Point{X: startX + x.col(x.find(pointKey(sel, spike))), Y: 0}, canvas.NewCellWithStyle('▲', st.Spike))
	}
	return canvasLines(&lc.Canvas)
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// nanRune marks a NaN value in the chart (top row) and the heat map.
const nanRune = "×"

// heatWindow is the first of the ranks shown when only rows of them fit:
// the user's scroll (↑/↓), else a window around the selected rank.
func (s *seriesPane) heatWindow(ranks []int32, rows int) int {
	if len(ranks) <= rows {
		return 0
	}
	first := 0
	if s.rankTop >= 0 {
		first = s.rankTop
	} else {
		for i, r := range ranks {
			if int(r) == s.a.Rank {
				first = i - rows/2
			}
		}
	}
	return max(0, min(first, len(ranks)-rows))
}

// heatTitle names the heat map and, when not every rank fits, which are
// shown and how to reach the others.
func (s *seriesPane) heatTitle(ix *seriesIndex, rows int) string {
	t := s.st.Title.Render("rank × step heat map (" + metricNames[s.metric] + ")")
	ranks := ix.ranksOf(s.a)
	if len(ranks) <= rows {
		return t
	}
	first := s.heatWindow(ranks, rows)
	var more []string
	if first > 0 {
		more = append(more, fmt.Sprintf("%d above", first))
	}
	if n := len(ranks) - first - rows; n > 0 {
		more = append(more, fmt.Sprintf("%d below", n))
	}
	return t + s.st.Dim.Render(fmt.Sprintf(" · ranks r%d–r%d of %d (%s: ↑/↓)",
		ranks[first], ranks[first+rows-1], len(ranks), strings.Join(more, ", ")))
}

// heatmap draws ranks × steps on axis x: each column the largest value of
// the steps it covers (a step that gets no column of its own shares one;
// a column between steps shows the nearest), on a log scale (a spike is
// orders of magnitude above the rest), with a colour ramp or (NO_COLOR)
// shade characters. When not every rank fits, rows of them are shown
// (heatWindow).
func (s *seriesPane) heatmap(ix *seriesIndex, sel curve, spike, rows int, x xAxis) []string {
	st, a := s.st, s.a
	ranks := ix.ranksOf(a) // a pipeline stage's parameter: that stage's ranks
	if len(ranks) == 0 || rows < 1 || x.width < 1 || len(x.keys) == 0 {
		return nil
	}
	if len(ranks) > rows {
		first := s.heatWindow(ranks, rows)
		ranks = ranks[first : first+rows]
	}
	cells, n := x.width, len(x.keys)
	// the axis positions each column covers: from[c] ≤ p < to[c]
	from, to := make([]int, cells), make([]int, cells)
	for c := range from {
		from[c] = -1
	}
	for p := 0; p < n; p++ {
		c := x.col(p)
		if from[c] < 0 {
			from[c] = p
		}
		to[c] = p + 1
	}
	for c := range from {
		if from[c] < 0 { // between two steps: the nearest one
			p := int(math.Round(float64(c) / float64(max(1, cells-1)) * x.maxX()))
			from[c], to[c] = p, p+1
		}
	}
	all := make([][]float64, len(ranks))
	nan := make([][]bool, len(ranks)) // a NaN in the column: drawn as ×, above any value
	anyNaN := false
	var finite []float64
	for k, r := range ranks {
		c, _ := ix.statCurve(a, int(r), s.stat())
		at := make([]float64, n)
		isNaN := make([]bool, n)
		for i := range at {
			at[i] = math.NaN()
		}
		pos := x.positions(c)
		for i, v := range c.Vals {
			p := pos[i]
			if math.IsNaN(v) || math.IsInf(v, 0) { // no colour on the scale says NaN or Inf
				isNaN[p] = true
				continue
			}
			at[p] = v
		}
		b := make([]float64, cells)
		nan[k] = make([]bool, cells)
		for col := range b {
			b[col] = math.NaN()
			for p := from[col]; p < to[col]; p++ {
				v := at[p]
				if isNaN[p] {
					nan[k][col], anyNaN = true, true
				}
				if !math.IsNaN(v) && (math.IsNaN(b[col]) || v > b[col]) {
					b[col] = v
				}
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
		b.WriteString(fit(label, x.startX, false))
		// cells of one colour are drawn as one run: one style per run, not
		// per cell (a 160-column row is 150 cells)
		run, runColour := 0, -1
		flush := func() {
			if run > 0 {
				b.WriteString(lipgloss.NewStyle().Foreground(st.Ramp[runColour]).Render(strings.Repeat("█", run)))
			}
			run, runColour = 0, -1
		}
		for cell, v := range all[k] {
			colour := -1
			f := math.Max(0, math.Min(1, scale(v)))
			colourful := !st.NoColor && len(st.Ramp) > 0
			if colourful && !nan[k][cell] && !math.IsNaN(v) {
				colour = int(f*float64(len(st.Ramp)-1) + 0.5)
			}
			if colour != runColour {
				flush()
			}
			switch {
			case colour >= 0:
				run, runColour = run+1, colour
			case nan[k][cell]:
				b.WriteString(st.Flag.Render(nanRune))
			case math.IsNaN(v):
				b.WriteString(" ")
			default:
				b.WriteRune(shadeRunes[int(f*float64(len(shadeRunes)-1)+0.5)])
			}
		}
		flush()
		out = append(out, b.String())
	}
	if spike >= 0 && spike < len(sel.Vals) {
		col := x.col(x.find(pointKey(sel, spike)))
		tag := "▲ " + stepLabel(a)
		if col+ansi.StringWidth(tag) > cells { // near the right edge: the text goes left of the mark
			tag = stepLabel(a) + " ▲"
			col -= ansi.StringWidth(tag) - 1
		}
		out = append(out, strings.Repeat(" ", max(0, x.startX+col))+tag)
	}
	scaleNote := "linear"
	if logScale {
		scaleNote = "log"
	}
	note := fmt.Sprintf("%s scale %s … %s", scaleNote, fmtNum(lo), fmtNum(hi))
	if anyNaN {
		note += " · " + nanRune + " NaN/Inf"
	}
	out = append(out, st.Dim.Render(note))
	return out
}

// legend explains the chart's marks; shorter on narrow screens.
func (s *seriesPane) legend() string {
	st, wide := s.st, s.width >= 120
	self, other, med, base := "rank "+strconv.Itoa(s.a.Rank), "other ranks", "its own median", "baseline device (min–max of ranks)"
	if !wide {
		self, other, med, base = "r"+strconv.Itoa(s.a.Rank), "others", "median", "baseline device"
	}
	selMark, otherMark := st.Selected.Render("⣿"), st.Context.Render("⡀")
	if st.NoColor {
		selMark, otherMark = "⣿", "⡀"
		self += " (line)"
		other += " (dots)"
	}
	parts := []string{selMark + " " + self, otherMark + " " + other}
	if finite(float64(s.a.BaselineMedian)) { // else no median line is drawn
		parts = append(parts, st.Band.Render("──")+" "+med)
	}
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
