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

// chainPane shows the upstream chain of one operator, nearest first.
type chainPane struct {
	common
	op    string
	self  chainLink
	chain []chainLink
	note  string // the analysis's note on how far upstream was checked
	sv    scrollView
}

type chainLink struct {
	key     string
	flagged bool
	aligned bool
	known   bool // the op is in the layer's list
}

// newChainPane builds the chain of op: the drill-down's own chain when op
// is the drill-down operator, else the operators before it in the layer
// that share its construct.json parent, nearest first.
func newChainPane(c common, dp *drillPane, op *model.DrillOp) *chainPane {
	d := c.data
	p := &chainPane{common: c, op: op.Key}
	byKey := map[string]*model.DrillOp{}
	for i := range dp.ops {
		byKey[dp.ops[i].Key] = &dp.ops[i]
	}
	var keys []string
	var dd *model.Drilldown
	if d != nil && d.P3 != nil {
		dd = d.P3.DivergenceSummary.Drilldown
	}
	if dd != nil && dd.Operator == op.Key && len(dd.Chain) > 0 {
		keys = dd.Chain
		p.note = dd.Note
		if p.note == "" {
			p.note = "the drill-down's upstream chain"
		}
	} else {
		keys = upstreamOps(dp.ops, op)
	}
	for _, k := range keys {
		if k == op.Key { // the analysis lists the operator itself first
			continue
		}
		l := chainLink{key: k}
		if o, ok := byKey[k]; ok {
			l.known, l.flagged, l.aligned = true, o.Flagged, o.Aligned
		}
		p.chain = append(p.chain, l)
	}
	p.self = chainLink{key: op.Key, known: true, flagged: op.Flagged, aligned: op.Aligned}
	return p
}

// upstreamOps lists the operators computed before op in the layer (the
// list is in completion order), nearest first, leaving out the records
// that contain it: a container finishes after its contents, it is not
// upstream of them.
func upstreamOps(ops []model.DrillOp, op *model.DrillOp) []string {
	byKey := make(map[string]*model.DrillOp, len(ops))
	at := -1
	for i := range ops {
		byKey[ops[i].Key] = &ops[i]
		if ops[i].Key == op.Key {
			at = i
		}
	}
	anc := map[string]bool{}
	for w, n := op.Within, 0; w != "" && !anc[w] && n <= len(ops); n++ {
		anc[w] = true
		if o := byKey[w]; o != nil {
			w = o.Within
		} else {
			w = ""
		}
	}
	var out []string
	for i := at - 1; i >= 0; i-- {
		if !anc[ops[i].Key] {
			out = append(out, ops[i].Key)
		}
	}
	return out
}

func (p *chainPane) SetSize(w, h int) { p.common.SetSize(w, h); p.sv.height = h - 3 }

// Update scrolls the chain.
func (p *chainPane) Update(m tea.Msg) reply {
	if msg, ok := m.(tea.KeyPressMsg); ok {
		return reply{handled: p.sv.navigate(msg, p.keys, len(p.lines()))}
	}
	return reply{}
}

func (p *chainPane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Back, k.Phase3, k.Help, k.Quit}
}

func (p *chainPane) FullHelp() [][]key.Binding { return [][]key.Binding{p.keys.rows()} }

func (p *chainPane) Crumb() string { return "chain of " + namesOf(p.data).ops.fit(p.op, 28) }

func (p *chainPane) marks() []string {
	return []string{
		legendLine("◆", "the operator itself; ↑1 ↑2 … the operators computed before it, nearest first"),
		legendLine("same", "agrees with B · F!/B! diverges · unaligned: no counterpart in B · outside: not in this layer's list"),
	}
}

func (p *chainPane) copyText() (string, string) { return p.op, "operator key" }

// linkLine is one chain entry: state first (names are long and get cut).
func (p *chainPane) linkLine(pos string, l chainLink) string {
	state := "same"
	switch {
	case !l.known:
		state = "outside"
	case l.flagged:
		state = "F!/B!"
	case !l.aligned:
		state = "unaligned"
	}
	line := fmt.Sprintf("%3s  %-9s %s", pos, state, namesOf(p.data).ops.fit(l.key, max(10, p.width-15)))
	if l.flagged {
		return p.st.Flag.Render(line)
	}
	return line
}

func (p *chainPane) lines() []string {
	out := []string{p.linkLine("◆", p.self)}
	for i, l := range p.chain {
		out = append(out, p.linkLine("↑"+strconv.Itoa(i+1), l))
	}
	if len(p.chain) == 0 {
		out = append(out, "     no upstream operator in this layer (first operator of the layer)")
	}
	return out
}

// noteLine is the analysis' note in one line of the pane's width: the
// operator key it names shortened from the middle like the rows' names.
func (p *chainPane) noteLine() string {
	note := p.note
	if ansi.StringWidth(note) <= p.width {
		return note
	}
	for _, l := range append([]chainLink{p.self}, p.chain...) {
		if l.key != "" && strings.Contains(note, l.key) {
			room := p.width - (ansi.StringWidth(note) - ansi.StringWidth(l.key))
			return strings.Replace(note, l.key, namesOf(p.data).ops.fit(l.key, max(16, room)), 1)
		}
	}
	return note
}

func (p *chainPane) View() []string {
	head := []string{"upstream chain of " + p.st.Accent.Render(p.op) + ", nearest first"}
	if p.note != "" {
		head = append(head, p.st.Dim.Render(p.noteLine()))
	} else {
		head = append(head, p.st.Dim.Render("operators of the layer computed earlier, not the modules containing it"))
	}
	all := p.lines()
	win := p.sv.window(all)
	head = append(head, p.st.Dim.Render(scrollInfo("link", p.sv.offset, len(win), len(all))))
	return append(head, win...)
}
