package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// p2col is one column of a Phase 2 table: name columns are shortened from
// the middle by the run's shortener (names.go), the wrap column (the last)
// wraps instead of being cut.
type p2col struct {
	head              string
	right, name, wrap bool
	// marks (name column) is each row's model layer mark, " (L3)", put
	// after the layer of the shortened name ("" for none).
	marks []string
}

// mark is row ri's mark of column c.
func (c p2col) mark(ri int) string {
	if ri < len(c.marks) {
		return c.marks[ri]
	}
	return ""
}

// p2line is one printed line of a table: the header (row -1) or a line of
// row (first: the row's first line).
type p2line struct {
	text  string
	row   int
	first bool
}

// p2Table lays rows out in width cells (indent of them taken by the
// caller's marks), every column as wide as its content; when that is too
// wide the name column shrinks to its shortened form and the wrap column
// wraps, so that neither the name's layer and leaf nor the verdict is lost.
func p2Table(ns *nameShortener, cols []p2col, rows [][]string, width, indent int) []p2line {
	cols, rows = p2DropEmpty(cols, rows)
	ws := make([]int, len(cols))
	nameAt, wrapAt := -1, -1
	fixed := len(cols) - 1 + indent // the spaces between columns
	for i, c := range cols {
		ws[i] = ansi.StringWidth(c.head)
		for ri, r := range rows {
			cell := r[i]
			if c.name {
				cell = withMark(ns.short(cell), c.mark(ri))
			}
			ws[i] = max(ws[i], ansi.StringWidth(cell))
		}
		switch {
		case c.name:
			nameAt = i
		case c.wrap:
			wrapAt = i
		default:
			fixed += ws[i]
		}
	}
	avail := width - fixed
	if nameAt >= 0 && wrapAt >= 0 {
		// the name wins (it says which row is which), the wrap column
		// keeps at least 20 cells and wraps
		nameFull, wrapFull := ws[nameAt], ws[wrapAt]
		if nameFull+wrapFull > avail {
			ws[nameAt] = max(8, min(nameFull, avail-min(wrapFull, 20)))
			ws[wrapAt] = max(10, avail-ws[nameAt])
		}
	} else if nameAt >= 0 {
		ws[nameAt] = max(8, min(ws[nameAt], avail))
	} else if wrapAt >= 0 {
		ws[wrapAt] = max(10, min(ws[wrapAt], avail))
	}
	line := func(cells []string) string {
		parts := make([]string, len(cols))
		for i, c := range cols {
			parts[i] = fit(cells[i], ws[i], c.right)
		}
		return strings.TrimRight(strings.Join(parts, " "), " ")
	}
	heads := make([]string, len(cols))
	for i, c := range cols {
		heads[i] = c.head
	}
	out := []p2line{{text: line(heads), row: -1}}
	for ri, r := range rows {
		cells := append([]string(nil), r...)
		var more []string
		for i, c := range cols {
			switch {
			case c.name:
				m := c.mark(ri)
				cells[i] = withMark(ns.fit(cells[i], max(1, ws[i]-ansi.StringWidth(m))), m)
			case c.wrap && ansi.StringWidth(cells[i]) > ws[i]:
				w := wrap(cells[i], ws[i])
				cells[i], more = w[0], w[1:]
			}
		}
		out = append(out, p2line{text: line(cells), row: ri, first: true})
		for _, m := range more {
			blank := make([]string, len(cols))
			blank[wrapAt] = m
			out = append(out, p2line{text: line(blank), row: ri})
		}
	}
	return out
}

// p2DropEmpty leaves out the columns that are empty on every row: a
// column of blanks takes room a useful one needs.
func p2DropEmpty(cols []p2col, rows [][]string) ([]p2col, [][]string) {
	var keep []int
	for i := range cols {
		for _, r := range rows {
			if r[i] != "" {
				keep = append(keep, i)
				break
			}
		}
	}
	if len(keep) == len(cols) || len(rows) == 0 {
		return cols, rows
	}
	kc := make([]p2col, len(keep))
	for j, i := range keep {
		kc[j] = cols[i]
	}
	kr := make([][]string, len(rows))
	for ri, r := range rows {
		kr[ri] = make([]string, len(keep))
		for j, i := range keep {
			kr[ri][j] = r[i]
		}
	}
	return kc, kr
}
