package ui

import (
	"context"
	"fmt"
	"strconv"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// chooserPane lists candidate C dumps when the control group is missing.
type chooserPane struct {
	common
	tbl table
}

func newChooserPane(c common) *chooserPane {
	d := c.data
	p := &chooserPane{common: c}
	o := func(i int) ControlOption { return d.Controls[i] }
	p.tbl = newTable([]column{
		{title: "step", width: 5, right: true, less: func(a, b int) bool { return o(a).Step < o(b).Step }},
		{title: "rank", width: 5, right: true, less: func(a, b int) bool { return o(a).Rank < o(b).Rank }},
		{title: "ok", width: 3},
		{title: "dump", min: 20},
		{title: "why", width: 30, drop: 1},
	}, len(d.Controls))
	for i, o := range d.Controls {
		if o.Usable {
			p.tbl.selectData(i)
			break
		}
	}
	return p
}

// chooserWhyLines is the room under the table for the selected dump's
// full reason (the why column is cut or hidden on narrow screens).
const chooserWhyLines = 3

func (p *chooserPane) SetSize(w, h int) {
	p.common.SetSize(w, h)
	p.tbl.setHeight(h - 4 - chooserWhyLines)
}

// Update moves in the list; enter runs Phase 3 with the selected dump as C.
func (p *chooserPane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	if !key.Matches(msg, p.keys.Enter) {
		return reply{handled: p.tbl.navigate(msg, p.keys, p.width)}
	}
	o := p.selected()
	if o == nil {
		return used
	}
	step, rank := o.Step, o.Rank
	return reply{handled: true, request: &request{what: fmt.Sprintf("control C step %d rank %d", step, rank),
		run: func(ctx context.Context, b Backend, d *Data) (*Data, error) { return b.Control(ctx, d, step, rank) }}}
}

// use is enter's meaning here.
func (p *chooserPane) use() key.Binding {
	return key.NewBinding(key.WithKeys(p.keys.Enter.Keys()...), key.WithHelp("enter", "use this C"))
}

func (p *chooserPane) ShortHelp() []key.Binding {
	return []key.Binding{p.use(), p.keys.Back, p.keys.Help, p.keys.Quit}
}

func (p *chooserPane) FullHelp() [][]key.Binding {
	return [][]key.Binding{append([]key.Binding{p.use()}, p.keys.columns()...), p.keys.rows()}
}

func (p *chooserPane) Crumb() string { return "choose C" }

func (p *chooserPane) selected() *ControlOption {
	i := p.tbl.selected()
	if i < 0 {
		return nil
	}
	return &p.data.Controls[i]
}

func (p *chooserPane) View() []string {
	st := p.st
	lines := []string{
		ansi.Truncate(st.Title.Render("choose the control group C")+": a normal dump near A (D: B's tree, same step/rank)", p.width, "…"),
	}
	if p.data.ControlNote != "" {
		lines = append(lines, st.Warn.Render(p.data.ControlNote))
	} else {
		lines = append(lines, fmt.Sprintf("candidate %s · enter uses the selected dump · esc back", p.tbl.position()))
	}
	lines = append(lines, "")
	if len(p.data.Controls) == 0 {
		return append(lines, "no candidate C dump in A's tree")
	}
	dumpW := 20
	for _, c := range p.tbl.layout(p.width) {
		if c.idx == 3 {
			dumpW = c.width
		}
	}
	lines = append(lines, p.tbl.render(p.width, st, func(i, c int) string {
		o := p.data.Controls[i]
		switch c {
		case 0:
			return strconv.Itoa(o.Step)
		case 1:
			return strconv.Itoa(o.Rank)
		case 2:
			if o.Usable {
				return "yes"
			}
			return "no"
		case 3: // the folder's tail (…/step5/rank5) tells the dumps apart
			return shortParam(o.Label, dumpW)
		case 4:
			return o.Reason
		}
		return ""
	})...)
	if o := p.selected(); o != nil && o.Reason != "" {
		why := wrap("why: "+o.Reason, p.width)
		if len(why) > chooserWhyLines {
			why = why[:chooserWhyLines]
			why[chooserWhyLines-1] = fit(why[chooserWhyLines-1]+" …", p.width, false)
		}
		lines = append(append(lines, ""), why...)
	}
	return lines
}
