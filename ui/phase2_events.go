package ui

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// eventLines is the Phase 2 screen's list of independent spike events,
// earliest first, with the root's marked, and what a baseline said.
func (p *phase2Pane) eventLines(r *model.Phase2Result) []string {
	if len(r.Events) == 0 {
		return nil
	}
	st := p.st
	ns := namesOf(p.data).params
	withBase := false
	for _, e := range r.Events {
		withBase = withBase || e.Baseline != ""
	}
	out := []string{"", st.Title.Render(fmt.Sprintf("spike events (%d independent, earliest first)", len(r.Events)))}
	base := ""
	if withBase {
		base = fmt.Sprintf(" %-15s", "baseline")
	}
	// mark, id, opt, cause, ranks (up to "1000/1024"), params, conducts,
	// baseline; then the
	// largest deviation when the coordinate keeps ≥ 24 columns
	fixed := 2 + 3 + 8 + 14 + 10 + 7 + 11 + len(base)
	showDev := p.width-fixed-10 >= 24
	if showDev {
		fixed += 10
	}
	cw := max(12, p.width-fixed)
	twoLine := cw < 40 // a narrow screen: the coordinate on a line of its own
	if twoLine {
		cw = max(12, p.width-6)
	}
	coHead := " " + fit("root coordinate", cw-1, false)
	if twoLine {
		coHead = ""
	}
	dev := ""
	if showDev {
		dev = fmt.Sprintf(" %9s", "max dev")
	}
	out = append(out, st.Header.Render(strings.TrimRight(fmt.Sprintf("  %-2s %7s %-13s %9s %6s %-10s%s%s%s", "#", "steps", "cause", "ranks", "params", "conducts", base, dev, coHead), " ")))
	sharedBefore, rootShared := 0, false
	for i := range r.Events {
		e := &r.Events[i]
		mark := "  "
		if e.Root {
			mark = "▶ "
			rootShared = e.Baseline == "shared"
		} else if e.Baseline == "shared" && !afterRoot(r, i) {
			sharedBefore++
		}
		cond := "no"
		if e.Conducts {
			cond = "→ " + model.JoinInts(e.ConductsInto, ",")
		}
		b := ""
		if withBase {
			b = fmt.Sprintf(" %-15s", e.Baseline)
		}
		extent := eventCauseText(e)
		if e.NonFinite {
			extent += " ∞"
		}
		co := "-"
		if c := e.Coordinate; c != nil {
			co = "rank " + strconv.Itoa(c.Rank)
			if c.MicroStep != nil {
				co += " micro step " + strconv.Itoa(*c.MicroStep)
			}
			m := layerMark(c.TargetName, c.GlobalLayer)
			co += " " + withMark(ns.fit(c.TargetName, max(8, cw-1-len(co)-1-ansi.StringWidth(m))), m)
		}
		d := ""
		if showDev {
			d = fmt.Sprintf(" %8s×", fmtNum(float64(e.MaxDeviation)))
			if !model.Finite(float64(e.MaxDeviation)) {
				d = fmt.Sprintf(" %9s", "NaN/Inf")
			}
		}
		line := fmt.Sprintf("%s%-2d %7s %-13s %9s %6d %-10s%s%s", mark, e.ID, stepsLabel(e), fit(extent, 13, false),
			fmt.Sprintf("%d/%d", len(e.Ranks), e.RanksTotal), e.Parameters, fit(cond, 10, false), b, d)
		lines := []string{strings.TrimRight(line+" "+fit(co, cw-1, false), " ")}
		if twoLine {
			lines = []string{strings.TrimRight(line, " "), "      " + strings.TrimRight(fit(co, cw-1, false), " ")}
		}
		for _, l := range lines {
			if e.Root {
				l = st.Accent.Render(l)
			}
			out = append(out, l)
		}
	}
	switch {
	case rootShared:
		out = append(out, wrap("every event is on the baseline too (shared): the root is the earliest one — data or numerics both devices have", p.width)...)
	case sharedBefore > 0:
		out = append(out, wrap(fmt.Sprintf("%d event(s) before the root are on the baseline too (shared, e.g. fp16 loss-scale overflows): listed, not the root", sharedBefore), p.width)...)
	}
	for i := range r.Events { // why the root's event is shared or device-specific, with its numbers
		if e := &r.Events[i]; e.Root && e.Baseline != "" && e.BaselineReason != "" {
			out = append(out, wrap(fmt.Sprintf("event %d is %s: %s", e.ID, e.Baseline, e.BaselineReason), p.width)...)
		}
	}
	return out
}

// stepsLabel is the optimizer steps an event spans: "5", "5–6" (steps in
// a row), "5,7" — its root step first, at most 7 cells.
func stepsLabel(e *model.SpikeEvent) string {
	if len(e.Steps) <= 1 {
		return strconv.Itoa(e.RootStep)
	}
	run := true
	for i := 1; i < len(e.Steps); i++ {
		run = run && e.Steps[i] == e.Steps[i-1]+1
	}
	s := model.JoinInts(e.Steps, ",")
	if run {
		s = strconv.Itoa(e.Steps[0]) + "–" + strconv.Itoa(e.Steps[len(e.Steps)-1])
	}
	if len(s) > 7 {
		s = strconv.Itoa(e.RootStep) + "+" + strconv.Itoa(len(e.Steps)-1)
	}
	return s
}

// afterRoot tells whether event i comes after the root event.
func afterRoot(r *model.Phase2Result, i int) bool {
	for j := 0; j < i; j++ {
		if r.Events[j].Root {
			return true
		}
	}
	return false
}

// eventsSummary is the text summary's line on the events (empty with at
// most one event): how many, which one holds the root, how many shared.
func eventsSummary(r *model.Phase2Result) string {
	if len(r.Events) < 2 {
		return ""
	}
	root, shared := -1, 0
	for i, e := range r.Events {
		if e.Root {
			root = i
		}
		if e.Baseline == "shared" {
			shared++
		}
	}
	s := fmt.Sprintf("spike events: %d independent", len(r.Events))
	if root >= 0 {
		s += fmt.Sprintf("; the root is event %d at optimizer step %d", r.Events[root].ID, r.Events[root].RootStep)
	}
	if shared > 0 {
		s += fmt.Sprintf("; %d on the baseline too (shared)", shared)
	}
	return s
}

// eventCauseText is an event's cause in the verdict's words, short: the
// class, or "likely <class>" when one device's data cannot decide it
// (the extent's reading); "?" when not judged (one dumped step).
func eventCauseText(e *model.SpikeEvent) string {
	switch {
	case e.Cause == "":
		return e.Extent
	case e.Cause == model.CauseUndetermined && e.Likely != "":
		return e.Likely + "?"
	case e.Cause == model.CauseUndetermined:
		return "?"
	case e.Cause == model.CauseDynamics:
		return "dynamics"
	}
	return e.Cause
}
