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

// phase2Pane shows the cross-step table, the candidates with their
// baseline ratios and device verdict, the chosen coordinate and why.
type phase2Pane struct {
	common
	sv     scrollView
	sel    int   // selected candidate (j/k): p pins it, enter opens its series
	candAt []int // line index of each candidate row, filled by lines()
}

func newPhase2Pane(c common) *phase2Pane { return &phase2Pane{common: c} }

func (p *phase2Pane) SetSize(w, h int) { p.common.SetSize(w, h); p.sv.height = h }

func (p *phase2Pane) lines() []string {
	st := p.st
	d := p.data
	if d == nil || d.P2 == nil {
		return append([]string{"Phase 2 has no result: Phase 1 found no candidate to choose from."}, p.noteLines()...)
	}
	r := d.P2
	var out []string
	coord := coordinateString(r.RootCauseCoordinate)
	head := "root-cause coordinate: " + st.Accent.Render(coord)
	if r.Pinned {
		head += st.Accent.Render("  (pinned)")
	}
	if ansi.StringWidth(head) > p.width { // a dump's long module name: whole, on lines of its own
		out = append(out, "root-cause coordinate:")
		for _, l := range wrap(coord, p.width) {
			out = append(out, st.Accent.Render(l))
		}
		if r.Pinned {
			out = append(out, st.Accent.Render("(pinned)"))
		}
	} else {
		out = append(out, head)
	}
	if c := r.RootCauseCoordinate; c != nil {
		out = append(out, fmt.Sprintf("  norm %s · Δ %s · deviation %s× · mode %s · root opt step %s",
			fmtNum(float64(c.Norm)), fmtPtr(c.Delta), fmtNum(float64(c.DeviationRatio)), modeName(r.Mode), fmtOptInt(r.RootOptStep)))
	}
	// The reference-compatible strings (mode, reasoning, cross-device) are
	// Chinese; the English decisions say the same with their numbers.
	if r.CrossDeviceVerification != "" && len(r.Decisions) == 0 {
		out = append(out, wrap("cross-device: "+r.CrossDeviceVerification, p.width)...)
	}
	out = append(out, p.eventLines(r)...)
	out = append(out, "", st.Title.Render("cross-step growth (same parameter, adjacent optimizer steps)"))
	if len(r.CrossStep) == 0 {
		out = append(out, "  "+noCrossStepReason(r))
	} else {
		vw := 7
		for _, c := range r.CrossStep {
			vw = max(vw, min(28, ansi.StringWidth(c.Verdict)))
		}
		pw := max(10, p.width-34-vw)
		out = append(out, st.Header.Render(fmt.Sprintf("%-7s %s %7s %5s %6s %s", "pair", fit("parameter", pw, false), "≥growth", "ranks", "share", fit("verdict", vw, false))))
		for _, c := range r.CrossStep {
			verdict := c.Verdict
			if verdict == "" {
				verdict = map[bool]string{true: "root earlier", false: "-"}[c.Qualifies]
			}
			line := fmt.Sprintf("%-7s %s %6.1f× %5s %5.0f%% %s",
				fmt.Sprintf("%d→%d", c.From, c.To), fit(shortParam(c.TargetName, pw), pw, false), c.Threshold,
				fmt.Sprintf("%d/%d", c.RanksOver, c.RanksTotal), c.Share*100, fit(verdict, vw, false))
			if c.Qualifies {
				line = st.Flag.Render(line)
			}
			out = append(out, line)
		}
	}
	out = append(out, "", st.Title.Render("candidates against the baseline"))
	if len(r.Candidates) == 0 {
		none := "  none"
		if r.Pinned {
			none = "  pinned by the user: no candidate walk"
		}
		out = append(out, none)
	} else {
		vw := 7
		for _, c := range r.Candidates {
			vw = max(vw, min(24, ansi.StringWidth(c.Verdict)))
		}
		pw := max(10, p.width-48-vw)
		out = append(out, st.Header.Render(fmt.Sprintf("  %-11s %4s %s %9s %9s %7s %s", "step", "rank", fit("parameter", pw, false), "value", "baseline", "ratio", fit("verdict", vw, false))))
		p.candAt = p.candAt[:0]
		for ci, c := range r.Candidates {
			a := c.Anomaly
			mark := "  "
			if c.Selected {
				mark = "▶ "
			}
			p.candAt = append(p.candAt, len(out))
			line := fmt.Sprintf("%s%-11s %4d %s %9s %9s %7s %s", mark, shortStep(&a), a.Rank,
				fit(shortParam(a.TargetName, pw), pw, false), fmtNum(float64(c.Value)), baselineCell(c), fmtRatio(c.Ratio), fit(c.Verdict, vw, false))
			switch {
			case ci == p.sel:
				line = st.Cursor.Render(line)
			case c.Selected:
				line = st.Accent.Render(line)
			}
			out = append(out, line)
		}
	}
	if r.Reasoning != "" || len(r.Decisions) > 0 {
		out = append(out, "", st.Title.Render("reasoning"))
		if len(r.Decisions) == 0 {
			out = append(out, wrap(r.Reasoning, p.width)...)
		}
		for _, dd := range r.Decisions {
			out = append(out, wrap("• "+dd, p.width)...)
		}
	}
	for _, w := range r.Warnings {
		for _, l := range wrap("⚠ "+w, p.width) {
			out = append(out, st.Warn.Render(l))
		}
	}
	return append(out, p.noteLines()...)
}

// noteLines lists, in full, what was missing and what Phase 1 warned
// about: the Phase 1 screen and the status line have room for one line.
func (p *phase2Pane) noteLines() []string {
	d := p.data
	if d == nil {
		return nil
	}
	var notes []string
	if d.P1 != nil {
		notes = append(notes, d.P1.Missing...)
	}
	notes = append(notes, d.Missing...)
	if d.P1 != nil {
		notes = append(notes, d.P1.Warnings...)
	}
	if len(notes) == 0 {
		return nil
	}
	out := []string{"", p.st.Title.Render(fmt.Sprintf("notes (%d): missing data and warnings", len(notes)))}
	for _, n := range notes {
		out = append(out, wrap("• "+n, p.width)...)
	}
	return out
}

// modeName translates the reference's Phase 2 mode label.
func modeName(m string) string {
	switch m {
	case "单设备":
		return "single device"
	case "NPU (+GPU 标杆)":
		return "with baseline"
	}
	return m
}

// shortStep is "o3/m2" or "s14".
func shortStep(a *model.Anomaly) string {
	if a.MicroStep != nil {
		return fmt.Sprintf("opt%d ms%d", a.OptStep(), *a.MicroStep)
	}
	return "step " + strconv.Itoa(a.Step)
}

func (p *phase2Pane) View() []string { return p.sv.window(p.lines()) }

// candidate returns the candidate under the cursor, nil when none.
func (p *phase2Pane) candidate() *model.Anomaly {
	if p.data == nil || p.data.P2 == nil || p.sel < 0 || p.sel >= len(p.data.P2.Candidates) {
		return nil
	}
	return &p.data.P2.Candidates[p.sel].Anomaly
}

// Update: j/k move the candidate cursor (scrolling to keep it visible),
// page keys and g/G scroll the text, enter opens the candidate's series.
func (p *phase2Pane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	k := p.keys
	switch {
	case key.Matches(msg, k.Control):
		return openChooser(p.common)
	case key.Matches(msg, k.Enter):
		return seriesOf(p.common, p.candidate())
	}
	return reply{handled: p.navigate(msg, k)}
}

func (p *phase2Pane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.Up, k.Down, k.Pin, k.Unpin, k.Enter, k.Phase3, k.Report, k.Help, k.Quit}
}

func (p *phase2Pane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.keys.Enter, p.keys.Control}, p.keys.rows()}
}

func (p *phase2Pane) Crumb() string { return "Phase 2" }

func (p *phase2Pane) navigate(msg tea.KeyPressMsg, k keyMap) bool {
	lines := p.lines()
	n := len(p.candAt)
	switch {
	case n > 0 && key.Matches(msg, k.Up):
		p.sel = max(0, p.sel-1)
	case n > 0 && key.Matches(msg, k.Down):
		p.sel = min(n-1, p.sel+1)
	default:
		return p.sv.navigate(msg, k, len(lines))
	}
	if l := p.candAt[p.sel]; l < p.sv.offset {
		p.sv.offset = l
	} else if l >= p.sv.offset+p.sv.height {
		p.sv.offset = l - p.sv.height + 1
	}
	p.sv.clamp(len(lines))
	return true
}

// wrap breaks text into lines of at most width cells at spaces.
func wrap(text string, width int) []string {
	if width < 10 {
		width = 10
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		line := ""
		for _, w := range words {
			switch {
			case line == "":
				line = w
			case ansi.StringWidth(line)+1+ansi.StringWidth(w) <= width:
				line += " " + w
			default:
				out = append(out, line)
				line = w
			}
			for ansi.StringWidth(line) > width { // one over-long word
				out = append(out, ansi.Truncate(line, width, ""))
				line = ansi.Cut(line, width, ansi.StringWidth(line))
			}
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// noCrossStepReason says why the cross-step table is empty.
func noCrossStepReason(r *model.Phase2Result) string {
	if r.Pinned {
		return "pinned by the user: the cross-step rule was skipped"
	}
	if len(r.Candidates) == 0 {
		return "no candidate: nothing to compare across steps"
	}
	return "no adjacent optimizer-step pair was judged (the reasoning below says why)"
}

// baselineCell is the baseline's value at a candidate's coordinate; with a
// baseline run but no value the baseline has no candidate there ("no
// spike": that is why the verdict is device-specific), not missing data.
func baselineCell(c model.CandidateVerdict) string {
	if c.BaselineValue == nil && c.Verdict == "device-specific" {
		return "no spike"
	}
	return fmtPtr(c.BaselineValue)
}
