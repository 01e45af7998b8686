package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// maxNoteLines caps the warnings under the layer table.
const maxNoteLines = 3

// phase3Pane is the four-group layer table of one anchor, one tab per
// anchor, one metric at a time, with the divergence starts and the
// direction summary.
type phase3Pane struct {
	common
	anchor int
	metric int
	tbl    table
	flags  *quadFlags // the marks the rows use, learned once (legend.go)
}

func newPhase3Pane(c common) *phase3Pane {
	p := &phase3Pane{common: c}
	p.anchor, p.metric = p.openingView()
	p.rebuild()
	p.cursorToEarliest()
	return p
}

// openingView picks the anchor and metric the screen opens on: where the
// earliest divergent layer is flagged — Norm first (the seed's main
// column), then the drill-down's metric, so the F!/B! that decided it is
// on screen.
func (p *phase3Pane) openingView() (anchor, metric int) {
	r, l := p.result(), p.earliestLayer()
	if r == nil || l == nil {
		return 0, 0
	}
	fwd := p.conclusion().FwdStart != nil
	order := append([]string{}, metricNames...)
	if dd := r.DivergenceSummary.Drilldown; dd != nil && dd.Metric != "" {
		order = append([]string{"Norm", dd.Metric}, order...)
	}
	for _, m := range order {
		for ai, a := range r.Anchors {
			for _, lr := range a.Layers {
				row, ok := lr.Metrics[m]
				if lr.Layer != *l || !ok {
					continue
				}
				if (fwd && row.FFlag) || (!fwd && row.BFlag) {
					for mi, name := range metricNames {
						if name == m {
							return ai, mi
						}
					}
				}
			}
		}
	}
	return 0, 0
}

// conclusion is the result's one conclusion (the pipeline's
// analysis.ConcludePhase3); empty when there is none.
func (p *phase3Pane) conclusion() *model.Phase3Conclusion {
	if r := p.result(); r != nil && r.Conclusion != nil {
		return r.Conclusion
	}
	return &model.Phase3Conclusion{}
}

// r3BaselineGroup is the group in a result's baseline column ("" = B).
func r3BaselineGroup(r *model.Phase3Result) string {
	if r == nil {
		return ""
	}
	return r.BaselineGroup
}

func (p *phase3Pane) result() *model.Phase3Result {
	if p.data == nil {
		return nil
	}
	return p.data.P3
}

// anchorTable returns the current anchor's table, nil when none.
func (p *phase3Pane) anchorTable() *model.AnchorTable {
	r := p.result()
	if r == nil || len(r.Anchors) == 0 {
		return nil
	}
	if p.anchor >= len(r.Anchors) {
		p.anchor = 0
	}
	return &r.Anchors[p.anchor]
}

func (p *phase3Pane) metricName() string { return metricNames[p.metric%len(metricNames)] }

// row returns the current metric's row of layer i.
func (p *phase3Pane) row(i int) *model.MetricRow {
	t := p.anchorTable()
	if t == nil || i < 0 || i >= len(t.Layers) {
		return nil
	}
	r, ok := t.Layers[i].Metrics[p.metricName()]
	if !ok {
		return nil
	}
	return &r
}

// rebuild makes the table for the current anchor, keeping sort and cursor
// column.
func (p *phase3Pane) rebuild() {
	t := p.anchorTable()
	n := 0
	if t != nil {
		n = len(t.Layers)
	}
	layer := func(i int) int { return p.anchorTable().Layers[i].Layer }
	cols := append([]column{{title: "L", width: 6, right: true, freeze: true, less: func(a, b int) bool { return layer(a) < layer(b) }}},
		quadColumns(p.row, r3BaselineGroup(p.result()))...)
	old := p.tbl
	p.tbl = newTable(cols, n)
	if old.cols != nil {
		p.tbl.colCur, p.tbl.height = old.colCur, old.height
		if old.sortCol >= 0 {
			p.tbl.sortCol, p.tbl.sortDesc = old.sortCol, old.sortDesc
			p.tbl.applySort()
		}
	}
}

// earliestLayer is the layer the screen opens on: the earliest forward
// divergence (forward runs first), else the backward start.
func (p *phase3Pane) earliestLayer() *int {
	if p.result() == nil {
		return nil
	}
	c := p.conclusion()
	if c.FwdStart != nil {
		return c.FwdStart
	}
	return c.BwdStart
}

// cursorToEarliest puts the cursor on the earliest divergent layer.
func (p *phase3Pane) cursorToEarliest() {
	t, l := p.anchorTable(), p.earliestLayer()
	if t == nil || l == nil {
		return
	}
	for i, lr := range t.Layers {
		if lr.Layer == *l {
			p.tbl.selectData(i)
			return
		}
	}
}

func (p *phase3Pane) summaryLines() []string {
	r := p.result()
	if r == nil {
		return nil
	}
	st := p.st
	s := r.DivergenceSummary
	var out []string
	var starts []string
	for _, m := range metricNames {
		ms, ok := s.MetricStarts[m]
		if !ok {
			continue
		}
		if ms.FwdStart == nil && ms.BwdStart == nil {
			starts = append(starts, m+" none")
			continue
		}
		starts = append(starts, fmt.Sprintf("%s F▶%s B◀%s", m, optOr(ms.FwdStart, "none"), optOr(ms.BwdStart, "none")))
	}
	c := p.conclusion()
	head := "earliest divergence"
	if r.BaselineGroup == "C" {
		head += " of A vs C (no baseline dump: may be a data difference)"
	}
	out = append(out, fmt.Sprintf("%s: forward %s · backward %s", head,
		layerOr(c.FwdStart, "none"), layerOr(c.BwdStart, "none")))
	if len(starts) > 0 {
		out = append(out, "starts: "+strings.Join(starts, " · "))
	}
	var dirs []string
	var p0 []bool
	for _, d := range s.Directions {
		txt := fmt.Sprintf("%s %s", d.Direction, d.Verdict)
		if d.Start != nil {
			txt += " from L" + strconv.Itoa(*d.Start)
		}
		if d.Peak != nil {
			txt += fmt.Sprintf(" peak L%d (%s)", *d.Peak, p.peakSource(d))
		}
		if len(d.Unaligned) > 0 {
			txt += fmt.Sprintf(", %d unaligned", len(d.Unaligned))
		}
		if d.FirstNonFinite != "" {
			txt += ", turns NaN/Inf at " + d.FirstNonFinite
		}
		if d.P0 {
			txt += " ← trace this first"
		}
		dirs, p0 = append(dirs, txt), append(p0, d.P0)
	}
	if len(dirs) > 0 {
		styled := make([]string, len(dirs))
		for i, d := range dirs {
			styled[i] = d
			if p0[i] {
				styled[i] = st.Flag.Render(d)
			}
		}
		if line := "direction: " + strings.Join(dirs, " │ "); ansi.StringWidth(line) <= p.width {
			out = append(out, "direction: "+strings.Join(styled, " │ "))
		} else { // one line per direction, wrapped, rather than a cut verdict
			for i, d := range dirs {
				// "← trace this first" stays on one line: one word while wrapping
				for _, l := range wrap("direction: "+strings.ReplaceAll(d, "← trace this first", "←_trace_this_first"), p.width) {
					l = strings.ReplaceAll(l, "←_trace_this_first", "← trace this first")
					if p0[i] {
						l = st.Flag.Render(l)
					}
					out = append(out, l)
				}
			}
		}
	}
	if dd := c.Operator; dd != nil {
		what := dd.Metric
		if dd.NonFinite {
			what = "non-finite origin, " + dd.Metric
		}
		head := fmt.Sprintf("drill-down: %s %s → ", dd.Direction, layerOr(dd.Layer, "(no layer)"))
		tail := " (" + what + ")"
		op := dd.Operator // in full when it fits, else shortened from the middle
		if room := p.width - ansi.StringWidth(head+tail); ansi.StringWidth(op) > room {
			op = namesOf(p.data).ops.fit(op, max(16, room))
		}
		out = append(out, head+st.Accent.Render(op)+tail)
	}
	var notes []string
	if r.Degraded {
		note := r.DegradedNote
		if note == "" {
			note = "no control group: A/B may include device bias"
		}
		if p.data != nil && len(p.data.Controls) > 0 {
			note += " (c: choose C)"
		}
		notes = append(notes, note)
	}
	if r.AnchorWarning != nil {
		notes = append(notes, r.AnchorWarning.Message)
	}
	notes = append(notes, r.Warnings...)
	if len(notes) > 0 {
		w := wrap("⚠ "+strings.Join(notes, " · "), p.width)
		if len(w) > maxNoteLines {
			w = w[:maxNoteLines]
			w[maxNoteLines-1] += " …(r: the report has all notes)"
		}
		for _, l := range w {
			out = append(out, st.Warn.Render(l))
		}
	}
	return out
}

// peakSource words a direction's peak degree with where it was read: the
// peak is the largest degree over every metric and anchor, so it may come
// from another metric than the one on screen ("Max degree 1.620 in mlp").
func (p *phase3Pane) peakSource(d model.DirectionVerdict) string {
	v := "degree " + fmtRatio(d.PeakValue)
	r := p.result()
	if r == nil || d.Peak == nil || d.PeakValue == nil {
		return v
	}
	for _, m := range metricNames {
		for _, a := range r.Anchors {
			for _, lr := range a.Layers {
				row, ok := lr.Metrics[m]
				if !ok || lr.Layer != *d.Peak {
					continue
				}
				deg := row.FAnomaly
				if d.Direction == "bwd" {
					deg = row.BAnomaly
				}
				if deg != nil && *deg == *d.PeakValue {
					if len(r.Anchors) > 1 {
						return m + " " + v + " in " + a.Name
					}
					return m + " " + v
				}
			}
		}
	}
	return "largest " + v + " of all metrics"
}

func (p *phase3Pane) SetSize(w, h int) {
	p.common.SetSize(w, h)
	// tabs, what was loaded, the table's header, its info line and the
	// selected row's flag line
	p.tbl.setHeight(h - 3 - len(p.loadedLines()) - p.flagRows() - len(p.summaryLines()))
}

// loadedLine says which dump folders A/B/C/D were compared and at which
// call of the modules, so the user can check the four groups:
// "A step10/rank2 · B step10/rank2 · C step9/rank2 · D step9/rank2 · call 1".
func (p *phase3Pane) loadedLine() string {
	d, r := p.data, p.result()
	if d == nil || r == nil {
		return ""
	}
	var parts []string
	for _, g := range []struct {
		name string
		dump *model.Dump
	}{{"A", d.A}, {"B", d.B}, {"C", d.C}, {"D", d.D}} {
		l := dumpLabel(g.dump)
		if l == "" {
			if dir := r.Dirs[g.name]; dir != "" {
				l = dirTail(dir)
			} else {
				l = "none"
			}
		}
		parts = append(parts, g.name+" "+l)
	}
	if r.BaselineGroup == "C" {
		parts[1] = "B none (C stands in)"
	}
	auto := len(r.ControlCandidates) > 0 && (d.C != nil || r.Dirs["C"] != "") // C was chosen for the user
	if auto {
		parts[2] += " (chosen for you: c shows why)"
	}
	line := strings.Join(parts, " · ")
	// the call (micro-batch) of each anchor module the groups are compared
	// at, when the modules ran more than once
	if c := r.Call; c != nil && (*c > 0 || r.Calls > 1) {
		line += " · " + microBatchOf(*c, r.Calls)
	}
	if auto && ansi.StringWidth(line) > p.width { // the short mark, never a cut line
		line = strings.Replace(line, " (chosen for you: c shows why)", " (auto: c)", 1)
	}
	return line
}

// loadedLines is loadedLine wrapped to the screen: never cut.
func (p *phase3Pane) loadedLines() []string {
	l := p.loadedLine()
	if l == "" {
		return []string{""}
	}
	return wrap(l, p.width)
}

// dumpLabel names a dump by its step and rank ("step10/rank2"), "" when
// there is none.
// dirTail is the last two elements of a dump folder ("step10/rank2"),
// where the runs' dump trees differ.
func dirTail(dir string) string {
	dir = strings.TrimRight(strings.ReplaceAll(dir, "\\", "/"), "/")
	parts := strings.Split(dir, "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	return strings.Join(parts, "/")
}

func dumpLabel(d *model.Dump) string {
	if d == nil {
		return ""
	}
	var parts []string
	if d.Step >= 0 {
		parts = append(parts, "step"+strconv.Itoa(d.Step))
	}
	if d.Proc != "" {
		parts = append(parts, d.Proc)
	} else {
		parts = append(parts, "rank"+strconv.Itoa(d.Rank))
	}
	return strings.Join(parts, "/")
}

// Update handles the layer table's keys; without a result only `c` (the
// control group may be what is missing). Enter drills into the layer.
func (p *phase3Pane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	k := p.keys
	r := p.result()
	switch {
	case key.Matches(msg, k.Control):
		return openChooser(p.common)
	case r == nil:
		return reply{}
	case key.Matches(msg, k.Tab), key.Matches(msg, k.BackTab):
		if n := len(r.Anchors); n > 0 {
			d := 1
			if key.Matches(msg, k.BackTab) {
				d = n - 1
			}
			p.anchor = (p.anchor + d) % n
			p.rebuild()
			p.cursorToEarliest()
		}
		return used
	case key.Matches(msg, k.Metric), key.Matches(msg, k.PrevMetric):
		d := 1
		if key.Matches(msg, k.PrevMetric) {
			d = len(metricNames) - 1
		}
		p.metric = (p.metric + d) % len(metricNames)
		// the layer order and the flags may change with the metric
		sel := p.tbl.selected()
		p.tbl.applySort()
		p.tbl.selectData(sel)
		return used
	case key.Matches(msg, k.Enter):
		l := p.selectedLayer()
		if l == nil {
			return used
		}
		d := newDrillPane(p.common, p.anchorTable().Name, l.Layer, p.drillDirection(), p.metric)
		return reply{handled: true, open: d, at: screenDrill, cmd: d.fetch()}
	}
	return reply{handled: p.tbl.navigate(msg, k, p.width)}
}

// ShortHelp: without a result the layer table's keys would do nothing.
func (p *phase3Pane) ShortHelp() []key.Binding {
	k := p.keys
	controls := p.data != nil && len(p.data.Controls) > 0
	plan := p.data != nil && len(p.data.PlanFiles) > 0
	if p.result() != nil {
		short := []key.Binding{k.Enter}
		if controls { // which dump is C: the first thing to check after the verdict
			short = append(short, k.Control)
		}
		short = append(short, k.Tab, k.Metric, k.Sort, k.Pin, k.Report)
		if plan {
			short = append(short, k.Plan)
		}
		return append(short, k.Help, k.Quit)
	}
	var short []key.Binding
	if plan { // the screen's text points at w
		short = append(short, k.Plan)
	}
	short = append(short, k.Phase1, k.Phase2)
	if d := p.data; d != nil && d.A != nil && controls {
		short = append(short, k.Control)
	}
	return append(short, k.Report, k.Help, k.Quit)
}

func (p *phase3Pane) FullHelp() [][]key.Binding {
	k := p.keys
	if p.result() == nil {
		return [][]key.Binding{{k.Control}}
	}
	return [][]key.Binding{append([]key.Binding{k.Enter, k.Tab, k.BackTab, k.Metric, k.PrevMetric, k.Control}, k.columns()...), k.rows()}
}

func (p *phase3Pane) Crumb() string {
	if t := p.anchorTable(); t != nil {
		return "Phase 3 " + t.Name
	}
	return "Phase 3"
}

func (p *phase3Pane) marks() []string {
	r := p.result()
	if r == nil {
		return nil
	}
	out := []string{
		legendLine("▶ ◀", "in the L column: where the forward / backward divergence starts for the metric shown"),
		legendLine("← trace this first", "the direction that diverges first: where the root cause is"),
	}
	if p.flags == nil {
		p.flags = &quadFlags{}
		for _, a := range r.Anchors {
			for _, lr := range a.Layers {
				for _, m := range lr.Metrics {
					p.flags.merge(&m)
				}
			}
		}
	}
	out = append(out, degreeLegend(*p.flags)...)
	out = append(out, legendLine("peak", "the layer of the largest degree of a direction, over every metric: its metric is named"))
	return append(out, colsLegend(&p.tbl, p.width)...)
}

func (p *phase3Pane) copyText() (string, string) {
	if p.data == nil || p.data.P2 == nil {
		return "", "coordinate"
	}
	return p.data.P2.RootCauseCoordinate.Coord().String(), "coordinate"
}

// selectedLayer returns the layer row under the cursor.
func (p *phase3Pane) selectedLayer() *model.LayerRow {
	t := p.anchorTable()
	i := p.tbl.selected()
	if t == nil || i < 0 {
		return nil
	}
	return &t.Layers[i]
}

// drillDirection is the direction to drill into at the selected layer: a
// flagged direction first (forward before backward), else the side of
// the column cursor.
func (p *phase3Pane) drillDirection() string {
	r := p.row(p.tbl.selected())
	switch {
	case r != nil && r.FFlag:
		return "fwd"
	case r != nil && r.BFlag:
		return "bwd"
	case p.tbl.colCur > qFAnom+1:
		return "bwd"
	}
	return "fwd"
}

func (p *phase3Pane) View() []string {
	st := p.st
	r := p.result()
	if r == nil {
		out := []string{"Phase 3 did not run."}
		if p.data != nil && len(p.data.Missing) > 0 {
			for _, m := range p.data.Missing {
				out = append(out, wrap("• "+m, p.width)...)
			}
			if len(p.data.PlanFiles) > 0 {
				out = append(out, wrap("w shows the msprobe configs that collect it and writes them beside the reports.", p.width)...)
			}
			return out
		}
		return append(out, wrap("It needs dump statistics: give --dump-a and --dump-b (and --dump-c/--dump-d for the control group).", p.width)...)
	}
	if len(r.Anchors) == 0 {
		out := []string{"no anchor module could be aligned between A and B."}
		return append(out, p.summaryLines()...)
	}
	var tabs []string
	for i, a := range r.Anchors {
		if i == p.anchor {
			tabs = append(tabs, st.TabOn.Render(" "+a.Name+" "))
		} else {
			tabs = append(tabs, st.TabOff.Render(" "+a.Name+" "))
		}
	}
	metric := "metric: " + st.Accent.Render(p.metricName()) + "  "
	head := metric + tabWindow(tabs, p.anchor, p.width-ansi.StringWidth(metric))
	lines := []string{head}
	for _, l := range p.loadedLines() {
		lines = append(lines, p.st.Dim.Render(l))
	}
	if ln := stageLine(r.DumpStage); ln != "" {
		lines = append(lines, ln)
	}
	t := p.anchorTable()
	ms := t.Conclusion.MetricStarts[p.metricName()]
	if len(r.Anchors[p.anchor].Conclusion.MetricStarts) == 0 {
		ms = r.DivergenceSummary.MetricStarts[p.metricName()]
	}
	lines = append(lines, p.tbl.render(p.width, st, func(i, c int) string {
		if c == 0 {
			l := t.Layers[i].Layer
			mark := ""
			if ms.FwdStart != nil && *ms.FwdStart == l {
				mark += "▶"
			}
			if ms.BwdStart != nil && *ms.BwdStart == l {
				mark += "◀"
			}
			return mark + strconv.Itoa(l)
		}
		return quadCell(p.row(i), c-1, st)
	})...)
	lines = append(lines, st.Dim.Render("row "+p.tbl.info(p.width)))
	lines = append(lines, p.flagLine()...)
	lines = append(lines, p.summaryLines()...)
	return lines
}

// flagLine explains the selected layer's marks on the metric shown: its
// degrees against this anchor's band (wrapped, never cut).
func (p *phase3Pane) flagLine() []string {
	r, l := p.result(), p.selectedLayer()
	if r == nil || l == nil {
		return nil
	}
	th := p.anchorTable().Thresholds
	if len(th) == 0 {
		th = r.DivergenceSummary.Thresholds
	}
	row := p.row(p.tbl.selected())
	txt := flagWhy(p.metricName(), row, bandOf(th, p.metricName()))
	if txt == "" {
		return nil
	}
	label := "L" + strconv.Itoa(l.Layer)
	if l.GlobalLayer != nil && *l.GlobalLayer != l.Layer {
		label += " (model layer " + strconv.Itoa(*l.GlobalLayer) + ")"
	}
	var out []string
	for _, w := range wrap(label+" "+txt, p.width) {
		out = append(out, p.st.Dim.Render(w))
	}
	for len(out) < p.flagRows() { // the table keeps its height as the cursor moves
		out = append(out, "")
	}
	return out
}

// flagRows is the room the flag line takes: both directions with their
// bands fit one line from 120 columns on.
func (p *phase3Pane) flagRows() int {
	if p.width < 120 {
		return 2
	}
	return 1
}

// tabWindow joins the tabs that fit in w cells, always including the
// active one: on a narrow screen with many anchors the metric and the
// active tab stay visible, "…" stands for the tabs left out.
func tabWindow(tabs []string, active, w int) string {
	if len(tabs) == 0 {
		return ""
	}
	active = max(0, min(active, len(tabs)-1))
	width := func(lo, hi int) int { // lo..hi joined, with the "…" markers
		n := ansi.StringWidth(strings.Join(tabs[lo:hi+1], " "))
		if lo > 0 {
			n += 2
		}
		if hi < len(tabs)-1 {
			n += 2
		}
		return n
	}
	lo, hi := active, active
	for grown := true; grown; {
		grown = false
		if hi+1 < len(tabs) && width(lo, hi+1) <= w {
			hi, grown = hi+1, true
		}
		if lo > 0 && width(lo-1, hi) <= w {
			lo, grown = lo-1, true
		}
	}
	out := strings.Join(tabs[lo:hi+1], " ")
	if lo > 0 {
		out = "… " + out
	}
	if hi < len(tabs)-1 {
		out += " …"
	}
	if ansi.StringWidth(out) > w { // even the active tab alone is too wide
		return fit(out, max(0, w), false)
	}
	return out
}

// stageLine says which pipeline stage A's dump is and how its stage-local
// layer numbers map to global ones; "" when A is not a known later stage.
func stageLine(ds *model.DumpStage) string {
	if ds == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString("A: ")
	switch {
	case ds.Stage != nil && ds.Stages > 0:
		fmt.Fprintf(&b, "pipeline stage %d of %d", *ds.Stage, ds.Stages)
	case ds.Stage != nil:
		fmt.Fprintf(&b, "pipeline stage %d", *ds.Stage)
	default:
		fmt.Fprintf(&b, "%s pipeline stage?", ds.Position)
	}
	if ds.LayerOffset != nil {
		if *ds.LayerOffset > 0 {
			fmt.Fprintf(&b, " · L is stage-local: global layer = L + %d", *ds.LayerOffset)
		}
	} else {
		b.WriteString(" · L is stage-local, global layer unknown")
	}
	return b.String()
}

// optOr is a layer number, or none when there is none (never "-").
func optOr(p *int, none string) string {
	if p == nil {
		return none
	}
	return strconv.Itoa(*p)
}

// layerOr is "L2", or none when there is no layer.
func layerOr(p *int, none string) string {
	if p == nil {
		return none
	}
	return "L" + strconv.Itoa(*p)
}

// microBatchOf names the call (0-based, as msprobe counts a module's
// forward.N) the groups are compared at as the user counts micro-batches:
// "micro-batch 3 of 4".
func microBatchOf(call, calls int) string {
	if calls > call {
		return fmt.Sprintf("micro-batch %d of %d", call+1, calls)
	}
	return fmt.Sprintf("micro-batch %d", call+1)
}
