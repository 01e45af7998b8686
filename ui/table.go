package ui

import (
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// column describes one table column.
type column struct {
	title string
	width int  // fixed width; 0 = flexible (takes what is left, at least min)
	min   int  // minimum width of a flexible column
	right bool // right-aligned (numbers)
	// drop orders columns for narrow screens: columns with a higher drop
	// are hidden first; 0 = never hidden.
	drop int
	// less orders two data rows by this column; nil = not sortable.
	less func(a, b int) bool
	// keep: the cursor row keeps this cell's own styles (a sparkline's
	// spike mark) instead of drawing it in reverse video.
	keep bool
	// off: never shown (a column the data has no values for).
	off bool
}

// colGap is the space between columns.
const colGap = 1

// table is a virtualised table state: it keeps the visible order of data
// row indices (after filter and sort) and renders only the rows on screen,
// so a 100k-row table costs the same per frame as a 20-row one.
type table struct {
	cols     []column
	view     []int // data row indices in display order
	cursor   int   // position in view
	offset   int   // first displayed position
	colCur   int   // column cursor (index into cols)
	sortCol  int   // -1: original order
	sortDesc bool
	height   int // displayed data rows
}

func newTable(cols []column, n int) table {
	t := table{cols: cols, sortCol: -1, height: 10}
	t.view = make([]int, n)
	for i := range t.view {
		t.view[i] = i
	}
	return t
}

// setRows resets the view to rows 0..n-1 filtered by keep (nil keeps all),
// then re-applies the current sort. The cursor stays on the same data row
// when it is still visible.
func (t *table) setRows(n int, keep func(i int) bool) {
	cur := t.selected()
	t.view = t.view[:0]
	for i := 0; i < n; i++ {
		if keep == nil || keep(i) {
			t.view = append(t.view, i)
		}
	}
	t.applySort()
	t.cursor = 0
	for p, i := range t.view {
		if i == cur {
			t.cursor = p
			break
		}
	}
	t.clamp()
}

// selected returns the data index under the cursor, -1 when empty.
func (t *table) selected() int {
	if t.cursor < 0 || t.cursor >= len(t.view) {
		return -1
	}
	return t.view[t.cursor]
}

// selectData moves the cursor onto data row i if it is visible.
func (t *table) selectData(i int) bool {
	for p, v := range t.view {
		if v == i {
			t.cursor = p
			t.clamp()
			return true
		}
	}
	return false
}

// sortBy sorts by column c; sorting again by the same column flips the
// direction (k9s, csvlens).
func (t *table) sortBy(c int) bool {
	if c < 0 || c >= len(t.cols) || t.cols[c].less == nil {
		return false
	}
	cur := t.selected()
	if t.sortCol == c {
		t.sortDesc = !t.sortDesc
	} else {
		t.sortCol, t.sortDesc = c, false
	}
	t.applySort()
	t.selectData(cur)
	return true
}

func (t *table) applySort() {
	if t.sortCol < 0 {
		sort.Ints(t.view)
		return
	}
	less := t.cols[t.sortCol].less
	if t.sortDesc {
		sort.SliceStable(t.view, func(a, b int) bool { return less(t.view[b], t.view[a]) })
	} else {
		sort.SliceStable(t.view, func(a, b int) bool { return less(t.view[a], t.view[b]) })
	}
}

// move moves the cursor by d rows, clamped.
func (t *table) move(d int) {
	t.cursor += d
	t.clamp()
}

func (t *table) top()    { t.cursor = 0; t.clamp() }
func (t *table) bottom() { t.cursor = len(t.view) - 1; t.clamp() }

// moveCol moves the column cursor, skipping columns that are hidden at
// the current width.
func (t *table) moveCol(d int, width int) {
	shown := t.layout(width)
	pos := 0
	for p, c := range shown {
		if c.idx == t.colCur {
			pos = p
		}
	}
	pos += d
	if pos < 0 {
		pos = 0
	}
	if pos >= len(shown) {
		pos = len(shown) - 1
	}
	if pos >= 0 {
		t.colCur = shown[pos].idx
	}
}

func (t *table) setHeight(h int) {
	if h < 1 {
		h = 1
	}
	t.height = h
	t.clamp()
}

// clamp keeps cursor and offset inside the view and the cursor on screen.
func (t *table) clamp() {
	if t.cursor >= len(t.view) {
		t.cursor = len(t.view) - 1
	}
	if t.cursor < 0 {
		t.cursor = 0
	}
	if t.cursor < t.offset {
		t.offset = t.cursor
	}
	if t.cursor >= t.offset+t.height {
		t.offset = t.cursor - t.height + 1
	}
	if max := len(t.view) - t.height; t.offset > max {
		t.offset = max
	}
	if t.offset < 0 {
		t.offset = 0
	}
}

// shownCol is a column placed at a width.
type shownCol struct {
	idx, width int
}

// layout decides which columns fit into width and how wide the flexible
// column is. Columns are dropped by their drop rank until the rest fits.
func (t *table) layout(width int) []shownCol {
	hidden := make([]bool, len(t.cols))
	for i, c := range t.cols {
		hidden[i] = c.off
	}
	for {
		total, flex := 0, -1
		n := 0
		for i, c := range t.cols {
			if hidden[i] {
				continue
			}
			n++
			if c.width == 0 {
				flex = i
				total += c.min
			} else {
				total += c.width
			}
		}
		total += colGap * (n - 1)
		if total <= width {
			var out []shownCol
			for i, c := range t.cols {
				if hidden[i] {
					continue
				}
				w := c.width
				if i == flex {
					w = c.min + width - total
				}
				out = append(out, shownCol{i, w})
			}
			return out
		}
		worst, wd := -1, 0
		for i, c := range t.cols {
			if !hidden[i] && c.drop > wd {
				worst, wd = i, c.drop
			}
		}
		// columns of the same drop rank go together (F_C with F_D)
		for i, c := range t.cols {
			if worst >= 0 && c.drop == wd {
				hidden[i] = true
			}
		}
		if worst < 0 { // nothing left to drop: the caller truncates
			var out []shownCol
			for i, c := range t.cols {
				if !hidden[i] {
					w := c.width
					if w == 0 {
						w = c.min
					}
					out = append(out, shownCol{i, w})
				}
			}
			return out
		}
	}
}

// render draws the header and the visible rows. cell returns the (possibly
// styled) text of one cell; rowStyle may restyle a whole non-cursor row.
func (t *table) render(width int, st Styles, cell func(row, col int) string) []string {
	shown := t.layout(width)
	lines := make([]string, 0, t.height+1)
	var hb strings.Builder
	for k, c := range shown {
		if k > 0 {
			hb.WriteString(strings.Repeat(" ", colGap))
		}
		title := t.cols[c.idx].title
		if c.idx == t.sortCol {
			if t.sortDesc {
				title += "↓"
			} else {
				title += "↑"
			}
		}
		txt := fit(title, c.width, t.cols[c.idx].right)
		if c.idx == t.colCur {
			hb.WriteString(st.ColCur.Render(txt))
		} else {
			hb.WriteString(st.Header.Render(txt))
		}
	}
	lines = append(lines, hb.String())
	end := t.offset + t.height
	if end > len(t.view) {
		end = len(t.view)
	}
	for p := t.offset; p < end; p++ {
		row := t.view[p]
		var b strings.Builder
		cursor := p == t.cursor
		// the cursor row is reverse video in runs, broken only by kept cells
		var run strings.Builder
		flush := func() {
			if run.Len() > 0 {
				b.WriteString(st.Cursor.Render(run.String()))
				run.Reset()
			}
		}
		for k, c := range shown {
			txt := fit(cell(row, c.idx), c.width, t.cols[c.idx].right)
			switch {
			case !cursor:
				if k > 0 {
					b.WriteString(strings.Repeat(" ", colGap))
				}
				b.WriteString(txt)
			case t.cols[c.idx].keep:
				if k > 0 {
					run.WriteString(strings.Repeat(" ", colGap))
				}
				flush()
				b.WriteString(txt)
			default:
				if k > 0 {
					run.WriteString(strings.Repeat(" ", colGap))
				}
				run.WriteString(ansi.Strip(txt))
			}
		}
		flush()
		lines = append(lines, b.String())
	}
	return lines
}

// fit pads or truncates s (which may hold ANSI styles) to exactly w cells.
func fit(s string, w int, right bool) string {
	sw := ansi.StringWidth(s)
	if sw > w {
		if w <= 1 {
			return ansi.Truncate(s, w, "")
		}
		return ansi.Truncate(s, w, "…")
	}
	pad := strings.Repeat(" ", w-sw)
	if right {
		return pad + s
	}
	return s + pad
}
