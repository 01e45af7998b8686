package ui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// p2Name shortens a parameter (or module) name to w cells from the middle,
// keeping what tells two rows apart: the pipeline stage, the layer index
// and the leaf. The framework's prefix ("Module.module.module.decoder.",
// "module.language_model.encoder.") goes, the layer becomes "L2", class
// names inside a layer path go, forward/backward become fwd/bwd; what is
// still too long loses segments from the middle ("L2 mlp.…fc2.weight").
//
// Private to the Phase 2 screen until the shared shortener (ui/names.go)
// lands; the lead unifies them.
func p2Name(s string, w int) string {
	pre := p2StageRe.FindString(s)
	s = s[len(pre):]
	head, rest := p2Split(s)
	short := pre + head + rest
	if ansi.StringWidth(short) <= w {
		return short
	}
	return p2Middle(pre+head, rest, w)
}

// p2StageRe is the stage and chunk prefix of a name ("pp1:", "pp1:vpp0:").
var p2StageRe = regexp.MustCompile(`^(?:[a-z]+\d+:)+`)

// p2LayerRe finds the layer index of a module path: the last
// "layers.N." (or layer/h/blocks/block), with what comes before it.
var p2LayerRe = regexp.MustCompile(`(?:^|.*\.)(?:layers|layer|h|blocks|block)\.(\d+)\.`)

// p2Prefixes are the wrapper segments a name starts with that carry no
// identity (DDP/Float16 wrappers, the language-model container).
var p2Prefixes = map[string]bool{"Module": true, "module": true, "model": true, "decoder": true, "encoder": true,
	"language_model": true, "transformer": true, "backbone": true}

// p2Split returns the layer head ("L2 ", or "" without a layer index) and
// the rest of the name without wrapper prefixes and class names.
func p2Split(s string) (head, rest string) {
	if m := p2LayerRe.FindStringSubmatchIndex(s); m != nil {
		head, rest = "L"+s[m[2]:m[3]]+" ", s[m[1]:]
	} else {
		segs := strings.Split(s, ".")
		i := 0
		for i < len(segs)-1 && p2Prefixes[segs[i]] {
			i++
		}
		rest = strings.Join(segs[i:], ".")
	}
	if head == "" {
		return "", rest
	}
	var keep []string
	segs := strings.Split(rest, ".")
	for i, seg := range segs {
		switch {
		case i < len(segs)-1 && p2IsClass(seg):
			continue
		case seg == "forward" || seg == "backward":
			seg = map[string]string{"forward": "fwd", "backward": "bwd"}[seg]
			if len(keep) > 0 { // "linear_fc1 fwd.0": the pass reads apart from the module
				keep[len(keep)-1] += " " + seg
				continue
			}
		}
		keep = append(keep, seg)
	}
	return head, strings.Join(keep, ".")
}

// p2IsClass tells a class name segment ("ColumnParallelLinear",
// "TransformerLayer") from a module attribute (lower case, digits, _).
func p2IsClass(seg string) bool {
	if seg == "" || seg[0] < 'A' || seg[0] > 'Z' {
		return false
	}
	return strings.ContainsAny(seg, "abcdefghijklmnopqrstuvwxyz")
}

// p2Middle fits head+rest into w cells by dropping segments of rest from
// the middle: the last segments (the leaf) first, then the first ones.
func p2Middle(head, rest string, w int) string {
	segs := strings.Split(rest, ".")
	room := w - ansi.StringWidth(head) - 1 // 1 for "…"
	if room < 1 || ansi.StringWidth(segs[len(segs)-1])+2 > room {
		full := head + rest
		return "…" + ansi.TruncateLeft(full, ansi.StringWidth(full)-w+1, "")
	}
	tail := []string{segs[len(segs)-1]}
	used := ansi.StringWidth(tail[0])
	lo, hi := 0, len(segs)-1 // segs[lo:hi] are still out
	// a generic leaf ("weight", "bias", a call index) says little alone:
	// its module comes with it, shortened from the left if need be
	if hi > 0 && len(tail[0]) <= 6 {
		prev := segs[hi-1]
		if ansi.StringWidth(prev)+1+used > room {
			prev = "…" + ansi.TruncateLeft(prev, ansi.StringWidth(prev)-(room-used-1), "")
			return head + prev + "." + tail[0]
		}
		hi--
		tail = append([]string{prev}, tail...)
		used += ansi.StringWidth(prev) + 1
	}
	for hi > lo {
		n := ansi.StringWidth(segs[hi-1]) + 1
		if used+n > room {
			break
		}
		hi--
		tail = append([]string{segs[hi]}, tail...)
		used += n
	}
	var front []string
	for lo < hi {
		n := ansi.StringWidth(segs[lo]) + 1
		if used+n > room {
			break
		}
		front = append(front, segs[lo])
		used += n
		lo++
	}
	if lo == hi { // everything fits after all
		return head + rest
	}
	f := ""
	if len(front) > 0 {
		f = strings.Join(front, ".") + "."
	}
	return head + f + "…" + strings.Join(tail, ".")
}

// p2col is one column of a Phase 2 table: name columns are shortened by
// p2Name, the wrap column (the last) wraps instead of being cut.
type p2col struct {
	head              string
	right, name, wrap bool
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
func p2Table(cols []p2col, rows [][]string, width, indent int) []p2line {
	cols, rows = p2DropEmpty(cols, rows)
	ws := make([]int, len(cols))
	nameAt, wrapAt := -1, -1
	fixed := len(cols) - 1 + indent // the spaces between columns
	for i, c := range cols {
		ws[i] = ansi.StringWidth(c.head)
		for _, r := range rows {
			cell := r[i]
			if c.name {
				cell = p2Name(cell, 1<<20)
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
				cells[i] = p2Name(cells[i], ws[i])
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
