package report

import (
	"strconv"
	"strings"

	"spikescope/model"
)

// sigDigits is the precision of every number in the report.
const sigDigits = 4

// num prints v with four significant digits; NaN and ±Inf as NaN, Inf, -Inf.
func num(v float64) string { return model.FormatG(v, sigDigits) }

// ratio prints a ratio as "1.95x": four significant digits, at least one
// decimal so that an exact 1 reads "1.0x" like the seed's tables.
func ratio(v float64) string {
	s := num(v)
	if !model.Finite(v) {
		return s
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s + "x"
}

// layer prints a layer as "L3", and says there is none in words.
func (r *renderer) layer(p *int) string {
	if p == nil {
		return r.t("none")
	}
	return "L" + strconv.Itoa(*p)
}

// layerList prints layers as "L1, L2, L5", or none when empty.
func layerList(ls []int, none string) string {
	if len(ls) == 0 {
		return none
	}
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = "L" + strconv.Itoa(l)
	}
	return strings.Join(parts, ", ")
}

// code wraps s in a code span (parameter and module names hold underscores
// that Markdown would read as emphasis), using a longer fence when s itself
// holds backticks. An empty s stays empty (a table cell then prints its
// empty word).
func code(s string) string {
	if s == "" {
		return ""
	}
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// oneLine folds a free text onto one line (table cells and list items).
func oneLine(s string) string {
	s = strings.ReplaceAll(s, "\r\n", " ")
	s = strings.ReplaceAll(s, "\n", " ")
	return strings.TrimSpace(s)
}

// mdText makes free text (often the analysis's own words) safe as Markdown:
// one line, and a "<" that could open an HTML tag ("<name>") escaped so
// that the renderer does not swallow it.
func mdText(s string) string {
	s = oneLine(s)
	if !strings.Contains(s, "<") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '<' && i+1 < len(s) && isTagStart(s[i+1]) {
			b.WriteString("&lt;")
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isTagStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '/' || c == '!' || c == '?'
}

// cell makes s safe inside a table cell: one line, `|` escaped (GFM reads
// `\|` as a literal pipe, also inside code spans).
func cell(s string) string {
	s = mdText(s)
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '|' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// table is one Markdown table.
type table struct {
	header []string
	rows   [][]string
	empty  string // what a missing or empty cell prints (renderer.table sets "none")
}

func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// write renders the table; every row gets exactly as many cells as the
// header (missing cells print t.empty, extra ones are dropped) so that the
// Markdown stays valid whatever a caller did.
func (t *table) write(b *strings.Builder) {
	n := len(t.header)
	line := func(cells []string) {
		b.WriteString("|")
		for i := 0; i < n; i++ {
			c := cell(t.empty)
			if i < len(cells) && cells[i] != "" {
				c = cell(cells[i])
			}
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	line(t.header)
	b.WriteString("|")
	for _, h := range t.header {
		w := len([]rune(h))
		if w < 3 {
			w = 3
		}
		b.WriteString(strings.Repeat("-", w) + "|")
	}
	b.WriteString("\n")
	for _, r := range t.rows {
		line(r)
	}
	b.WriteString("\n")
}
