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

// drillPane lists the operators of one layer in execution order with the
// four-group columns; the drill-down operator is marked.
type drillPane struct {
	common
	anchor  string
	layer   int
	dir     string
	metric  int
	ops     []model.DrillOp
	note    string
	target  string // the drill-down operator of this layer ("" = none)
	call    string // which call (micro-batch) the operators are compared at, when the layer ran several
	waiting bool   // the operators are being compared (a command runs)
	filter  lineInput
	lower   []string // lower-cased op keys for the filter
	query   string   // the last filter text entered: n/N step through its matches
	tbl     table
	// the marks the operators use, learned once per list (legend.go)
	flags     *quadFlags
	flagsOf   int
	unaligned bool
}

func newDrillPane(c common, anchor string, layer int, dir string, metric int) *drillPane {
	d := c.data
	p := &drillPane{common: c, anchor: anchor, layer: layer, dir: dir, metric: metric,
		filter: lineInput{prompt: "filter operators: "}}
	var dd *model.Drilldown
	if d != nil && d.P3 != nil {
		dd = d.P3.DivergenceSummary.Drilldown
	}
	isDrill := dd != nil && dd.Layer != nil && *dd.Layer == layer && dd.Direction == dir
	if dd != nil && dd.Call != nil && dd.Calls > 1 {
		// every layer's operators are compared at the drill-down's call
		p.call = microBatchOf(*dd.Call, dd.Calls)
	}
	switch {
	case isDrill:
		p.ops = dd.Ops
	case d != nil && d.OpsForLayer != nil:
		p.waiting = true // fetch compares them in a command (setOps)
	case dd != nil && dd.Layer != nil:
		p.note = fmt.Sprintf("operators are compared at the drill-down layer only (L%d, %s): go back and enter on it", *dd.Layer, dd.Direction)
	default:
		p.note = "no drill-down: no layer diverged, so no operator was compared"
	}
	if isDrill {
		p.target = dd.Operator
		if dd.Note != "" && p.note == "" {
			p.note = dd.Note
		}
		if dd.Metric != "" && len(p.ops) > 0 {
			for i, m := range metricNames {
				if m == dd.Metric {
					p.metric = i
				}
			}
		}
	}
	p.buildTable()
	return p
}

// fetch compares the layer's operators off the loop; nil when they are at
// hand. The reply names this pane: a reply to a pane since closed is dropped.
func (p *drillPane) fetch() tea.Cmd {
	if !p.waiting {
		return nil
	}
	f, layer, dir := p.data.OpsForLayer, p.layer, p.dir
	return safe(func() tea.Msg {
		// the whole layer, not only the anchor's module: what ran before
		// the anchor is where a divergence may start
		return opsMsg{to: p, ops: f("", layer, dir)}
	})
}

// setOps installs operators fetched off the update loop.
func (p *drillPane) setOps(ops []model.DrillOp) {
	p.ops, p.waiting = ops, false
	p.buildTable()
	p.SetSize(p.width, p.height)
}

// buildTable makes the table over p.ops; the cursor starts on the
// drill-down operator.
func (p *drillPane) buildTable() {
	op := func(i int) *model.DrillOp { return &p.ops[i] }
	cols := append([]column{
		{title: "#", width: 4, right: true, freeze: true, less: func(a, b int) bool { return op(a).Order < op(b).Order }},
		{title: "operator", min: 40, freeze: true, less: func(a, b int) bool { return op(a).Key < op(b).Key }},
	}, quadColumns(p.row, p.baseline())...)
	// the other direction's raw values hide first on narrow screens
	other := qBA
	if p.dir == "bwd" {
		other = qFA
	}
	for _, c := range []int{other, other + 1, other + 2, other + 3} {
		cols[2+c].drop += 4
	}
	p.tbl = newTable(cols, len(p.ops))
	for i := range p.ops {
		if p.ops[i].Key == p.target {
			p.tbl.selectData(i)
		}
	}
}

// baseline names the baseline column's group ("C" standing in for B).
func (p *drillPane) baseline() string {
	if p.data == nil || p.data.P3 == nil {
		return ""
	}
	return p.data.P3.BaselineGroup
}

func (p *drillPane) metricName() string { return metricNames[p.metric%len(metricNames)] }

func (p *drillPane) row(i int) *model.MetricRow {
	if i < 0 || i >= len(p.ops) {
		return nil
	}
	r, ok := p.ops[i].Metrics[p.metricName()]
	if !ok {
		return nil
	}
	return &r
}

func (p *drillPane) SetSize(w, h int) {
	p.common.SetSize(w, h)
	// head, note, the table's header; under it its info line, the selected
	// operator's flag line and its full name
	p.tbl.setHeight(h - 5 - p.nameLines())
}

// nameLines is the room under the table for the selected operator's full
// name: two lines below 120 columns, where module paths do not fit one.
func (p *drillPane) nameLines() int {
	if p.width < 120 {
		return 2
	}
	return 1
}

// opMin is the operator column's minimum width: what the shortened names
// of the rows on screen need (with the mark), at most what leaves the two
// anomaly degrees beside it.
func (p *drillPane) opMin() int {
	ns := namesOf(p.data).ops
	end := min(p.tbl.offset+p.tbl.height, len(p.tbl.view))
	longest := 16
	for pos := p.tbl.offset; pos < end; pos++ {
		longest = max(longest, ansi.StringWidth(ns.short(p.ops[p.tbl.view[pos]].Key))+2)
	}
	return min(longest, max(16, p.width-4-9-9-3))
}

func (p *drillPane) capturing() bool { return p.filter.active }

// Update handles the operator table's keys and the pane's operator list;
// enter opens the selected operator's upstream chain.
func (p *drillPane) Update(m tea.Msg) reply {
	if o, ok := m.(opsMsg); ok && o.to == p {
		p.setOps(o.ops)
	}
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	if p.filter.active {
		done, cancel := p.filter.update(msg)
		if cancel {
			p.filter.text = ""
		}
		if q := strings.ToLower(strings.TrimSpace(p.filter.text)); done && q != "" {
			p.query = q
		}
		p.applyFilter()
		return used
	}
	k := p.keys
	switch {
	case key.Matches(msg, k.Metric):
		p.metric = (p.metric + 1) % len(metricNames)
		return used
	case key.Matches(msg, k.PrevMetric):
		p.metric = (p.metric + len(metricNames) - 1) % len(metricNames)
		return used
	case key.Matches(msg, k.Next), key.Matches(msg, k.Prev):
		return p.tbl.searchStep(key.Matches(msg, k.Prev), p.query, func() func(int) bool {
			p.lowerKeys()
			return func(i int) bool { return strings.Contains(p.lower[i], p.query) }
		})
	case key.Matches(msg, k.Filter):
		p.filter.active = true
		return used
	case key.Matches(msg, k.Back) && p.filter.text != "":
		p.filter.text = ""
		p.applyFilter()
		return used
	case key.Matches(msg, k.Enter):
		if op := p.selected(); op != nil {
			return reply{handled: true, open: newChainPane(p.common, p, op), at: screenChain}
		}
		return used
	}
	return reply{handled: p.tbl.navigate(msg, k, p.width)}
}

func (p *drillPane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.enterAs("operator chain"), k.Back, k.Metric, k.Filter, k.Sort, k.Help, k.Quit}
}

func (p *drillPane) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{append(append([]key.Binding{k.enterAs("operator chain"), k.Metric, k.PrevMetric}, k.search()...), k.columns()...), k.rows()}
}

func (p *drillPane) Crumb() string { return fmt.Sprintf("L%d ops (%s)", p.layer, p.dir) }

func (p *drillPane) marks() []string {
	out := []string{
		legendLine("◆", "the drill-down operator: the first of the layer to diverge"),
		legendLine("!", "a flagged operator (its degree diverges)"),
	}
	if p.flags == nil || p.flagsOf != len(p.ops) { // the ops arrive later (setOps)
		p.flags, p.flagsOf, p.unaligned = &quadFlags{}, len(p.ops), false
		for i := range p.ops {
			for _, m := range p.ops[i].Metrics {
				p.flags.merge(&m)
			}
			p.unaligned = p.unaligned || !p.ops[i].Aligned
		}
	}
	f := *p.flags
	if p.unaligned {
		out = append(out, legendLine("(unaligned) ≠", "the operator has no counterpart in B: it is not compared"))
	}
	out = append(out, legendLine("L3 fwd.0", "layer 3 (the module path every name shares and the class are left out), the pass and its call"))
	out = append(out, degreeLegend(f)...)
	return append(out, colsLegend(&p.tbl, p.width)...)
}

func (p *drillPane) copyText() (string, string) {
	if op := p.selected(); op != nil {
		return op.Key, "operator key"
	}
	return "", "operator key"
}

// applyFilter keeps the operators whose key contains the filter text.
func (p *drillPane) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(p.filter.text))
	if q == "" {
		p.tbl.setRows(len(p.ops), nil)
		return
	}
	p.lowerKeys()
	p.tbl.setRows(len(p.ops), func(i int) bool { return strings.Contains(p.lower[i], q) })
}

// lowerKeys lower-cases the operator keys once: typing re-filters 200k
// keys per key press.
func (p *drillPane) lowerKeys() {
	if len(p.lower) != len(p.ops) {
		p.lower = make([]string, len(p.ops))
		for i := range p.ops {
			p.lower[i] = strings.ToLower(p.ops[i].Key)
		}
	}
}

func (p *drillPane) selected() *model.DrillOp {
	i := p.tbl.selected()
	if i < 0 {
		return nil
	}
	return &p.ops[i]
}

func (p *drillPane) View() []string {
	st := p.st
	head := fmt.Sprintf("layer %d%s (%s) · %d operators in execution order · metric %s", p.layer, p.modelLayer(), p.dir, len(p.ops), st.Accent.Render(p.metricName()))
	if p.call != "" {
		head += " · " + p.call
	}
	lines := []string{head}
	flagged := 0
	for i := range p.ops {
		if p.ops[i].Flagged {
			flagged++
		}
	}
	switch {
	case p.target != "":
		lines = append(lines, "drill-down operator: "+st.Accent.Render(namesOf(p.data).ops.fit(p.target, max(16, p.width-26)))+" (◆)")
	case p.note != "":
		lines = append(lines, st.Warn.Render(p.note))
	default:
		lines = append(lines, st.Dim.Render(fmt.Sprintf("%d flagged (!) · the drill-down chose an operator of another layer", flagged)))
	}
	if p.waiting {
		return append(lines, "", "comparing the operators of this layer…")
	}
	if len(p.ops) == 0 {
		return append(lines, "", "no operators to show")
	}
	switch {
	case p.filter.active:
		lines[1] = p.filter.view()
	case p.filter.text != "":
		lines[1] = fmt.Sprintf("filter %q: %d of %d operators (esc clears)", p.filter.text, len(p.tbl.view), len(p.ops))
	}
	ns := namesOf(p.data).ops
	p.tbl.cols[1].min = p.opMin()
	p.tbl.cols[1].shrink = p.tbl.cols[1].min / 4 // cut names in the middle before a column scrolls away
	lines = append(lines, p.tbl.render(p.width, st, func(i, c int) string {
		o := &p.ops[i]
		switch c {
		case 0:
			return strconv.Itoa(o.Order)
		case 1:
			mark := "  "
			if o.Key == p.target {
				mark = "◆ "
			} else if o.Flagged {
				mark = "! "
			}
			w, unaligned := p.opWidth()-2, ""
			if !o.Aligned && w >= 28 {
				unaligned = " (unaligned)"
			} else if !o.Aligned {
				unaligned = " ≠"
			}
			txt := mark + ns.fit(o.Key, w-ansi.StringWidth(unaligned)) + unaligned
			if o.Flagged {
				return st.Flag.Render(txt)
			}
			return txt
		}
		return quadCell(p.row(i), c-2, st)
	})...)
	lines = append(lines, st.Dim.Render("operator "+p.tbl.info(p.width)))
	why := ""
	if o := p.selected(); o != nil && o.Aligned { // what decided its mark
		why = flagWhy(p.metricName(), p.row(p.tbl.selected()), boundsOf(o, p.metricName(), p.dir), p.dir)
	}
	lines = append(lines, st.Dim.Render(fit(why, p.width, false)))
	if o := p.selected(); o != nil { // the selected operator's full name
		line := o.Key
		if o.Why != "" { // why it could not be compared with B
			line += " — " + o.Why
		}
		for _, l := range detailLines(line, p.width, p.nameLines()) {
			lines = append(lines, st.Dim.Render(l))
		}
	}
	return lines
}

// opWidth is the operator column's width in the table being drawn.
func (p *drillPane) opWidth() int {
	if w := p.tbl.colWidth(1); w > 0 {
		return w
	}
	return 20
}

// modelLayer is " = model layer 7" when A is a later pipeline stage whose
// first layer is known (the dump's layer numbers are stage-local).
func (p *drillPane) modelLayer() string {
	if p.data == nil || p.data.P3 == nil {
		return ""
	}
	if ds := p.data.P3.DumpStage; ds != nil && ds.LayerOffset != nil && *ds.LayerOffset > 0 {
		return fmt.Sprintf(" = model layer %d", p.layer+*ds.LayerOffset)
	}
	return ""
}
