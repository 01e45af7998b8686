package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
	"spikescope/words"
)

// verdict is the run's one verdict (the pipeline's, computed once): the
// session's, else the one the Phase 3 or Phase 2 result carries.
func (d *Data) verdict() *model.Verdict {
	switch {
	case d == nil:
		return nil
	case d.session != nil:
		return d.session.Verdict
	case d.P3 != nil && d.P3.Verdict != nil:
		return d.P3.Verdict
	case d.P2 != nil:
		return d.P2.Verdict
	}
	return nil
}

// verdictLine is the verdict in one line of width cells, above every phase
// screen: the cause first, then the direction and layer, the place (rank,
// step, micro step), and the operator and parameter, each shortened from
// the left to share what room is left (the full verdict is behind v).
func verdictLine(d *Data, st Styles, width int) string {
	if d == nil || d.P1 == nil && d.P3 == nil {
		return ""
	}
	v := d.verdict()
	if v == nil {
		return st.Dim.Render("verdict: nothing anomalous")
	}
	fixed := []string{"verdict: " + words.VerdictCause(v, words.English)}
	if dir, l := v.DirectionName(), v.Layer; dir != "" || l != nil {
		s := dir
		if l != nil {
			s = strings.TrimSpace(s + " L" + strconv.Itoa(*l))
		}
		fixed = append(fixed, s)
	}
	if co := v.Coordinate; co != nil {
		s := "rank " + strconv.Itoa(co.Rank)
		if co.OptimizerStep != nil {
			s += " step " + strconv.Itoa(*co.OptimizerStep)
		} else if co.Step != nil {
			s += " step " + strconv.Itoa(*co.Step)
		}
		if co.MicroStep != nil {
			s += " ms " + strconv.Itoa(*co.MicroStep)
		}
		fixed = append(fixed, s)
	}
	line := strings.Join(fixed, " · ")
	const hint = "  v: why"
	var names []string
	var fits []func(string, int) string // each name shortened from the middle, as the tables do
	rn := namesOf(d)
	if op := v.OperatorName(); op != "" {
		names, fits = append(names, op), append(fits, rn.ops.fit)
	}
	if p := v.Parameter(); p != "" {
		if !v.Coordinate.ParamDecides() {
			p += " (any)"
		}
		names, fits = append(names, p), append(fits, rn.params.fit)
	}
	room := width - ansi.StringWidth(line)
	if len(names) == 2 && room < 46 { // too narrow for both readable: the operator is the finer answer (the parameter is behind v)
		names, fits = names[:1], fits[:1]
	}
	full := 0
	for _, n := range names {
		full += 3 + ansi.StringWidth(n)
	}
	withHint := full+len(hint) <= room
	if !withHint {
		// the names share the room left; each keeps at least 10 cells
		for i, n := range names {
			left := len(names) - i
			share := (room-3*left)/left + 0
			if i == 0 && len(names) == 2 {
				share = min(ansi.StringWidth(n), max(10, (room-6)/2))
			}
			if share < 10 {
				break
			}
			n = fits[i](n, share)
			line += " · " + n
			room -= 3 + ansi.StringWidth(n)
		}
	} else {
		for _, n := range names {
			line += " · " + n
		}
	}
	style := st.Accent
	if v.Cause == model.CauseUndetermined {
		style = st.Warn
	}
	if withHint {
		return style.Render(line) + st.Dim.Render(hint)
	}
	return style.Render(line)
}

// verdictPane shows the verdict in full: cause, where, the evidence (each
// rule with its numbers), the action and what would decide it. `v` opens
// it on every phase screen.
type verdictPane struct{ textPage }

func newVerdictPane(c common) *verdictPane {
	p := &verdictPane{textPage{common: c}}
	p.text = p.lines
	return p
}

func (p *verdictPane) lines() []string {
	v := p.data.verdict()
	if v == nil {
		return []string{"verdict: nothing anomalous — no root cause to classify (no spike candidate, no divergence)"}
	}
	st := p.st
	w := max(20, p.width-4)
	var out []string
	add := func(title string, items ...string) {
		out = append(out, st.Title.Render(title))
		for _, it := range items {
			for i, l := range wrap(it, w) {
				if i == 0 {
					out = append(out, "  - "+l)
				} else {
					out = append(out, "    "+l)
				}
			}
		}
		out = append(out, "")
	}
	for _, l := range wrap(words.Headline(v, words.English), max(20, p.width-1)) {
		out = append(out, st.Accent.Render(l))
	}
	out = append(out, "")
	add("problem", fmt.Sprintf("cause: %s", words.VerdictCause(v, words.English)), "where: "+orNone(words.Where(v, words.English)))
	var ev []string
	for i := range v.Evidence {
		ev = append(ev, words.Evidence(&v.Evidence[i], words.English))
	}
	if len(ev) == 0 {
		ev = []string{"none"}
	}
	add("evidence", ev...)
	add("suggestion", words.Action(v, words.English))
	if v.Decide != "" {
		add("what would decide it", v.Decide)
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (p *verdictPane) Crumb() string { return "verdict" }

// VerdictLine is the verdict line the TUI shows above every phase screen
// for d at width cells, without colour.
func VerdictLine(d *Data, width int) string {
	return ansi.Strip(verdictLine(d, NewStyles(true), width))
}
