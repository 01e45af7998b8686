package ui

import (
	"fmt"
	"sort"
	"strconv"
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
	// freeze: always shown when the others scroll (the row's name).
	freeze bool
	// shrink: how many cells a flexible column gives up below its min when
	// that shows every column (a name cut in the middle rather than a
	// column scrolled away for a few cells).
	shrink int
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
	// horizontal scroll, when the columns do not all fit: colOff is the
	// first shown of the scrolling columns (scroll, in the order they are
	// reached); empty marks columns whose cells are all "-" on the rows
	// shown (render fills it), which give way to useful ones.
	colOff int
	scroll []int
	empty  []bool
	shownN int        // how many scrolling columns the last layout showed
	shown  []shownCol // the last layout (what render draws)
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

// moveCol moves the column cursor over the columns as they stand on
// screen; past the last one shown it brings in the next scrolling column
// (the table scrolls right), before the first one the previous (left).
func (t *table) moveCol(d int, width int) {
	shown := t.layout(width)
	pos := 0
	for p, c := range shown {
		if c.idx == t.colCur {
			pos = p
		}
	}
	first := len(shown) - t.shownN // the window's first column on screen
	switch np := pos + d; {
	case d < 0 && pos == first && t.colOff > 0 && t.colOff <= len(t.scroll):
		t.colCur = t.scroll[t.colOff-1] // scroll left before the frozen columns
	case np >= 0 && np < len(shown):
		t.colCur = shown[np].idx
	case np >= len(shown) && t.colOff+t.shownN < len(t.scroll):
		t.colCur = t.scroll[t.colOff+t.shownN]
	case np < 0 && t.colOff > 0 && t.colOff <= len(t.scroll):
		t.colCur = t.scroll[t.colOff-1]
	}
	t.layout(width)
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

// widthOf is the width of column i at its minimum.
func (t *table) widthOf(i int) int {
	if c := t.cols[i]; c.width > 0 {
		return c.width
	}
	return t.cols[i].min
}

// layout decides which columns fit into width and how wide the flexible
// column is. When all fit they are shown in their order. Otherwise the
// frozen columns stay at the left and the others scroll to their right, in
// the order of their drop rank (lower first); columns that are all "-" on
// the rows shown are left out, and the window starts at colOff, moved so
// that the column cursor is in view.
func (t *table) layout(width int) []shownCol {
	var all []int
	total := 0
	for i, c := range t.cols {
		if !c.off && (i >= len(t.empty) || !t.empty[i]) {
			all = append(all, i)
			total += t.widthOf(i)
		}
	}
	total += colGap * max(0, len(all)-1)
	t.scroll, t.shownN = t.scroll[:0], 0
	give := 0
	for _, i := range all {
		if t.cols[i].width == 0 {
			give += t.cols[i].shrink
		}
	}
	if total-give <= width {
		t.colOff = 0
		return t.place(all, width)
	}
	var frozen []int
	base := 0
	for _, i := range all {
		empty := i < len(t.empty) && t.empty[i]
		if t.cols[i].freeze && !empty {
			frozen = append(frozen, i)
			base += t.widthOf(i) + colGap
		} else if !empty {
			t.scroll = append(t.scroll, i)
		}
	}
	sort.SliceStable(t.scroll, func(a, b int) bool { return t.cols[t.scroll[a]].drop < t.cols[t.scroll[b]].drop })
	fits := func(off int) int { // how many scrolling columns from off fit
		n, w := 0, base
		for _, i := range t.scroll[off:] {
			if w+t.widthOf(i) > width {
				break
			}
			w += t.widthOf(i) + colGap
			n++
		}
		return n
	}
	t.colOff = max(0, min(t.colOff, len(t.scroll)-1))
	cur := -1
	for p, i := range t.scroll {
		if i == t.colCur {
			cur = p
		}
	}
	if cur >= 0 && cur < t.colOff {
		t.colOff = cur
	}
	for cur >= 0 && cur >= t.colOff+fits(t.colOff) && t.colOff < cur {
		t.colOff++
	}
	// after a widening, no room left empty while columns wait on the left
	for t.colOff > 0 && t.colOff-1+fits(t.colOff-1) >= len(t.scroll) {
		t.colOff--
	}
	t.shownN = fits(t.colOff)
	// the frozen columns first, then the window in the order it scrolls,
	// so → always brings the next column in at the right edge
	shown := append(append([]int{}, frozen...), t.scroll[t.colOff:t.colOff+t.shownN]...)
	return t.place(shown, width)
}

// colWidth is column c's width in the layout being drawn (cells ask it
// while render runs), 0 when it is not shown.
func (t *table) colWidth(c int) int {
	for _, s := range t.shown {
		if s.idx == c {
			return s.width
		}
	}
	return 0
}

// place gives the flexible column what the others leave; when even the
// shown columns do not fit, the caller truncates.
func (t *table) place(shown []int, width int) []shownCol {
	total, flex := 0, -1
	for _, i := range shown {
		total += t.widthOf(i)
		if t.cols[i].width == 0 {
			flex = i
		}
	}
	total += colGap * max(0, len(shown)-1)
	out := make([]shownCol, 0, len(shown))
	for _, i := range shown {
		w := t.widthOf(i)
		if i == flex && total != width {
			// the leftover, or what it may give up (shrink) when short
			w = max(t.cols[i].min-t.cols[i].shrink, w+width-total)
		}
		out = append(out, shownCol{i, w})
	}
	t.shown = out
	return out
}

// render draws the header and the visible rows. cell returns the (possibly
// styled) text of one cell; rowStyle may restyle a whole non-cursor row.
func (t *table) render(width int, st Styles, cell func(row, col int) string) []string {
	t.markEmpty(width, cell)
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

// markEmpty notes the columns whose cells are all "-" (or blank) on the
// rows on screen: those give way (the position line names them), even
// when everything would fit, since their room goes to the names.
func (t *table) markEmpty(width int, cell func(row, col int) string) {
	if cap(t.empty) < len(t.cols) {
		t.empty = make([]bool, len(t.cols))
	}
	t.empty = t.empty[:len(t.cols)]
	clear(t.empty)
	end := min(t.offset+t.height, len(t.view))
	for c, col := range t.cols {
		if col.off || col.width == 0 || col.keep || end <= t.offset { // the name column always shows
			continue
		}
		empty := true
		for p := t.offset; p < end && empty; p++ {
			txt := strings.TrimSpace(ansi.Strip(cell(t.view[p], c)))
			empty = txt == "-" || txt == ""
		}
		t.empty[c] = empty
	}
}

// position says where the cursor is in the rows: "23 of 1250", and whether
// more rows are above or below the screen.
func (t *table) position() string {
	if len(t.view) == 0 {
		return "0 of 0"
	}
	s := strconv.Itoa(t.cursor+1) + " of " + strconv.Itoa(len(t.view))
	return s + moreNote(t.offset > 0, t.offset+t.height < len(t.view))
}

// colsInfo says which columns are on screen when they do not all fit
// ("◂ cols 4–9 of 15 ▸": the arrows say on which side more wait) and
// which were left out as empty; "" when every column is shown.
func (t *table) colsInfo(width int) string {
	shown := t.layout(width)
	var empties []string
	nAll := 0
	for i, c := range t.cols {
		if c.off {
			continue
		}
		nAll++
		if i < len(t.empty) && t.empty[i] {
			empties = append(empties, c.title)
		}
	}
	if len(shown) == nAll {
		return ""
	}
	frozen := len(shown) - t.shownN
	n := frozen + len(t.scroll)
	s := ""
	if t.shownN < len(t.scroll) || len(empties) == 0 {
		first, last := frozen+t.colOff+1, frozen+t.colOff+t.shownN
		if t.colOff == 0 {
			first = 1
		}
		s = "cols " + strconv.Itoa(first) + "–" + strconv.Itoa(last) + " of " + strconv.Itoa(n)
		if t.colOff > 0 {
			s = "◂ " + s
		}
		if t.colOff+t.shownN < len(t.scroll) {
			s += " ▸"
		}
	}
	if len(empties) > 0 {
		e := strings.Join(empties, ", ") + " empty here"
		if len(empties) > 3 {
			e = strconv.Itoa(len(empties)) + " columns hidden: no values here"
		}
		if s != "" {
			s += " · "
		}
		s += e
	}
	return s
}

// scrollInfo is the position line of a list without a cursor: "links
// 1–5 of 9 · more below".
func scrollInfo(what string, offset, shown, total int) string {
	if total == 0 {
		return "no " + what + "s"
	}
	s := fmt.Sprintf("%ss %d–%d of %d", what, offset+1, offset+shown, total)
	return s + moreNote(offset > 0, offset+shown < total)
}

// moreNote says on which sides of the screen a list has more rows.
func moreNote(above, below bool) string {
	switch {
	case above && below:
		return " · more above and below"
	case above:
		return " · more above"
	case below:
		return " · more below"
	}
	return ""
}

// info is the line under a table: the position and the columns.
func (t *table) info(width int) string {
	s := t.position()
	if c := t.colsInfo(width); c != "" {
		s += " · " + c
	}
	return s
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
