package ui

import (
	"fmt"
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

func (p *chooserPane) setSize(w, h int) { p.w = w; p.tbl.setHeight(h - 4) }

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
		st.Title.Render("choose the control group C") + " (nearby normal dump; D is taken from B's tree at C's step and rank)",
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
	return append(lines, p.tbl.render(p.w, st, func(i, c int) string {
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
		case 3:
			return shortParam(o.Label, 60)
		case 4:
			return o.Reason
		}
		return ""
	})...)
}
