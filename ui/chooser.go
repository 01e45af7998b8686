package ui

import (
	"fmt"
	"github.com/charmbracelet/x/ansi"
	"strconv"
)

// chooserPane lists candidate C dumps when the control group is missing.
type chooserPane struct {
	st   Styles
	data *Data
	tbl  table
	w    int
}

func newChooserPane(st Styles, d *Data) *chooserPane {
	p := &chooserPane{st: st, data: d}
	c := func(i int) ControlOption { return d.Controls[i] }
	p.tbl = newTable([]column{
		{title: "step", width: 5, right: true, less: func(a, b int) bool { return c(a).Step < c(b).Step }},
		{title: "rank", width: 5, right: true, less: func(a, b int) bool { return c(a).Rank < c(b).Rank }},
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

func (p *chooserPane) setSize(w, h int) { p.w = w; p.tbl.setHeight(h - 4 - chooserWhyLines) }

func (p *chooserPane) selected() *ControlOption {
	i := p.tbl.selected()
	if i < 0 {
		return nil
	}
	return &p.data.Controls[i]
}

func (p *chooserPane) view() []string {
	st := p.st
	lines := []string{
		ansi.Truncate(st.Title.Render("choose the control group C")+": a normal dump near A (D: B's tree, same step/rank)", p.w, "…"),
	}
	if p.data.ControlNote != "" {
		lines = append(lines, st.Warn.Render(p.data.ControlNote))
	} else {
		lines = append(lines, fmt.Sprintf("%d candidates · enter uses the selected dump · esc back", len(p.data.Controls)))
	}
	lines = append(lines, "")
	if len(p.data.Controls) == 0 {
		return append(lines, "no candidate C dump in A's tree")
	}
	dumpW := 20
	for _, c := range p.tbl.layout(p.w) {
		if c.idx == 3 {
			dumpW = c.width
		}
	}
	lines = append(lines, p.tbl.render(p.w, st, func(i, c int) string {
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
		why := wrap("why: "+o.Reason, p.w)
		if len(why) > chooserWhyLines {
			why = why[:chooserWhyLines]
			why[chooserWhyLines-1] = fit(why[chooserWhyLines-1]+" …", p.w, false)
		}
		lines = append(append(lines, ""), why...)
	}
	return lines
}
