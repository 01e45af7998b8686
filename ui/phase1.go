package ui

import (
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
	"spikescope/words"
)

// Phase 1 candidate table columns.
const (
	p1ColIdx = iota
	p1ColOpt
	p1ColMicro
	p1ColStep
	p1ColRank
	p1ColParam
	p1ColNorm
	p1ColDelta
	p1ColDev
	p1ColTrigger
	p1ColCurve
)

// phase1Pane is the data overview and the candidate table.
type phase1Pane struct {
	common
	anoms  []model.Anomaly
	tbl    table
	filter lineInput
	jump   lineInput
	query  string // the last filter text entered: n/N step through its matches
	// legendCache is the screen's marks, learned once (legend.go)
	legendCache []string
}

func newPhase1Pane(c common) *phase1Pane {
	p := &phase1Pane{common: c}
	d := c.data
	if d != nil && d.P1 != nil {
		p.anoms = d.P1.Anomalies
	}
	p.filter = lineInput{prompt: "filter (parameter/rank): "}
	p.jump = lineInput{prompt: "jump to step: ", digits: true}
	a := func(i int) *model.Anomaly { return &p.anoms[i] }
	cmpF := func(x, y model.Float) bool { return float64(x) < float64(y) || (isNaN(x) && !isNaN(y)) }
	p.tbl = newTable([]column{
		{title: "#", width: 4, right: true, freeze: true, less: func(x, y int) bool { return x < y }},
		{title: "opt", width: 4, right: true, freeze: true, less: func(x, y int) bool { return a(x).OptStep() < a(y).OptStep() }},
		{title: "ms", width: 3, right: true, freeze: true, less: func(x, y int) bool { return a(x).Micro() < a(y).Micro() }},
		{title: "step", width: 6, right: true, drop: 4, less: func(x, y int) bool { return a(x).Step < a(y).Step }},
		{title: "rank", width: 4, right: true, freeze: true, less: func(x, y int) bool { return a(x).Rank < a(y).Rank }},
		{title: "parameter", min: 14, freeze: true, less: func(x, y int) bool { return a(x).TargetName < a(y).TargetName }},
		{title: "norm", width: 9, right: true, less: func(x, y int) bool { return cmpF(a(x).Norm, a(y).Norm) }},
		{title: "Δ", width: 9, right: true, drop: 2, less: func(x, y int) bool { return cmpF(deltaOf(a(x)), deltaOf(a(y))) }},
		{title: "dev×", width: 7, right: true, less: func(x, y int) bool { return cmpF(a(x).DeviationRatio, a(y).DeviationRatio) }},
		{title: "trigger", width: 8, drop: 3, less: func(x, y int) bool { return a(x).Trigger < a(y).Trigger }},
		// the name wins over the sparkline when room is short
		{title: "curve", width: 16, drop: 6, keep: true},
	}, len(p.anoms))
	// a step-level run (no gradient accumulation) has no micro steps: its
	// steps are the optimizer steps, one column
	// Δ is the change from the previous micro step: a run without any has
	// no column for it (not a column of "-")
	p.tbl.cols[p1ColDelta].off = true
	for i := range p.anoms {
		if p.anoms[i].Delta != nil {
			p.tbl.cols[p1ColDelta].off = false
			break
		}
	}
	if anyMicro(p.anoms) { // the opt column, not the global step column
		p.jump.prompt = "jump to optimizer step: "
	} else {
		p.tbl.cols[p1ColOpt].title = "step"
		p.tbl.cols[p1ColOpt].width = 6
		p.tbl.cols[p1ColMicro].off = true
		p.tbl.cols[p1ColStep].off = true
	}
	return p
}

// anyMicro reports whether any candidate has a micro step.
func anyMicro(as []model.Anomaly) bool {
	for i := range as {
		if as[i].MicroStep != nil {
			return true
		}
	}
	return false
}

func isNaN(f model.Float) bool { v := float64(f); return v != v }

func deltaOf(a *model.Anomaly) model.Float {
	if a.Delta == nil {
		return model.Float(-1e300)
	}
	return *a.Delta
}

// overviewLines is the data overview: format, parameters, ranks, steps,
// pass unit, window.
func (p *phase1Pane) overviewLines() []string {
	d := p.data
	if d == nil || d.P1 == nil {
		return []string{"no Phase 1 result"}
	}
	r := d.P1
	params := r.Summary.TotalTargets
	if d.Monitor != nil && params == 0 {
		params = len(d.Monitor.Targets)
	}
	// what fits of: the format as users name it, then the run's extent
	l1 := fitJoin(p.width, words.FormatName(r.Format), fmt.Sprintf("%d parameters", params), "ranks "+fmtRange(r.Summary.Ranks),
		"steps "+fmtRange(r.Summary.Steps), rowCount(r.Summary.TotalRows)+" rows")
	sa := r.Sharding
	// what a pass is, then how many candidates while the width allows
	l2 := fitJoin(p.width, words.PassUnitText(sa), fmt.Sprintf("%d candidates, earliest first", len(p.anoms)))
	out := []string{l1, l2}
	if pl := sa.Stages; pl != nil && pl.Inferred && pl.Stages > 1 {
		out = append(out, "pipeline: "+runShape(d)+" · "+strings.Join(pl.StageSummary("stage", "ranks", "layers"), " · "))
	} else if pl != nil && pl.Note != "" {
		out = append(out, "pipeline: "+pl.Note)
	}
	if len(p.anoms) > 1 {
		// the earliest is the answer, the largest usually its propagation:
		// show both so the difference is visible
		big := 0
		for i := range p.anoms {
			if float64(p.anoms[i].DeviationRatio) > float64(p.anoms[big].DeviationRatio) {
				big = i
			}
		}
		e, g := &p.anoms[0], &p.anoms[big]
		if big != 0 {
			out = append(out, fitJoin(p.width, fmt.Sprintf("earliest #1 %s r%d %s× · largest #%d %s r%d %s×",
				shortStep(e), e.Rank, fmtNum(float64(e.DeviationRatio)),
				big+1, shortStep(g), g.Rank, fmtNum(float64(g.DeviationRatio))), "the largest is often its propagation"))
		}
	}
	if n := len(r.Warnings) + len(r.Missing) + len(d.Missing); n > 0 {
		var parts []string
		parts = append(parts, r.Missing...)
		parts = append(parts, d.Missing...)
		parts = append(parts, r.Warnings...)
		out = append(out, p.st.Warn.Render(fitJoin(p.width, notesOnScreen2(n), "first: "+missingHead(parts[0]))))
	}
	return out
}

func (p *phase1Pane) SetSize(w, h int) {
	p.common.SetSize(w, h)
	curve := 16
	switch {
	case w >= 140:
		curve = 32
	case w < 100:
		curve = 12 // room for the parameter name at 80 columns
	}
	p.tbl.cols[p1ColCurve].width = curve
	p.tbl.cols[p1ColTrigger].width = 8
	if w >= 140 {
		p.tbl.cols[p1ColTrigger].width = 16 // "micro-step jump" in full
	}
	// overview, status line, table header, detail line, flag line
	p.tbl.setHeight(h - len(p.overviewLines()) - 4)
}

// nameMin is the parameter column's minimum width: what the shortened
// names of the rows on screen need (with the non-finite mark), so that
// the layer and the leaf show before the columns to its right.
func (p *phase1Pane) nameMin() int {
	rn := namesOf(p.data)
	need := 14
	if p.width >= 100 {
		need = 28
	}
	end := min(p.tbl.offset+p.tbl.height, len(p.tbl.view))
	longest := 0
	for pos := p.tbl.offset; pos < end; pos++ {
		a := &p.anoms[p.tbl.view[pos]]
		n := ansi.StringWidth(withGlobal(rn.params.short(rn.param(a)), a)) + 1
		longest = max(longest, n)
	}
	// at most what leaves the norm and dev× columns beside it
	room := p.width
	for i, c := range p.tbl.cols {
		if !c.off && i != p1ColParam && (c.freeze || i == p1ColNorm || i == p1ColDev) {
			room -= c.width + colGap
		}
	}
	return max(need, min(longest, room))
}

// applyFilter keeps rows whose parameter contains the text, or whose rank
// is the text ("3", "r3", "rank3", "rank=3").
func (p *phase1Pane) applyFilter() {
	q := strings.ToLower(strings.TrimSpace(p.filter.text))
	if q == "" {
		p.tbl.setRows(len(p.anoms), nil)
		return
	}
	p.tbl.setRows(len(p.anoms), p.matcher(q))
}

// matcher accepts the rows of the lower-cased query q (see applyFilter).
func (p *phase1Pane) matcher(q string) func(i int) bool {
	rank := -1
	rq := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(q, "rank"), "r"), "=")
	if n, err := strconv.Atoi(rq); err == nil {
		rank = n
	}
	rn := namesOf(p.data)
	return func(i int) bool {
		a := &p.anoms[i]
		name := a.TargetName
		if rn.chunks {
			name = rn.param(a) // "vpp1" finds the chunk's parameters
		}
		return strings.Contains(strings.ToLower(name), q) || a.Rank == rank
	}
}

// jumpTo moves the cursor to the first visible row at or after step n
// (optimizer step for micro-step data).
func (p *phase1Pane) jumpTo(n int) bool {
	best, bestStep := -1, 0
	for pos, i := range p.tbl.view {
		s := p.anoms[i].OptStep()
		if s >= n && (best < 0 || s < bestStep) {
			best, bestStep = pos, s
		}
	}
	if best < 0 {
		return false
	}
	p.tbl.centre(best)
	return true
}

// candidate returns the anomaly under the cursor, nil when none.
func (p *phase1Pane) candidate() *model.Anomaly {
	i := p.tbl.selected()
	if i < 0 {
		return nil
	}
	return &p.anoms[i]
}

// capturing reports whether the pane is reading text (filter / jump):
// then every key goes to it first.
func (p *phase1Pane) capturing() bool { return p.filter.active || p.jump.active }

// Update handles the pane's keys; enter opens the candidate's series.
func (p *phase1Pane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	k := p.keys
	switch {
	case p.filter.active:
		done, cancel := p.filter.update(msg)
		if cancel {
			p.filter.text = ""
		}
		if q := strings.TrimSpace(p.filter.text); done && q != "" {
			p.query = q
		}
		p.applyFilter()
		return used
	case p.jump.active:
		done, _ := p.jump.update(msg)
		if done {
			n, err := strconv.Atoi(p.jump.text)
			p.jump.text = ""
			if err == nil && !p.jumpTo(n) {
				return reply{handled: true, status: fmt.Sprintf("no candidate at or after step %d", n)}
			}
		}
		return used
	}
	switch {
	case key.Matches(msg, k.Filter):
		p.filter.active = true
		return used
	case key.Matches(msg, k.Jump):
		p.jump.active, p.jump.text = true, ""
		return used
	case key.Matches(msg, k.Back) && p.filter.text != "":
		p.filter.text = ""
		p.applyFilter()
		return reply{handled: true, status: "filter cleared"}
	case key.Matches(msg, k.Enter):
		return seriesOf(p.common, p.candidate())
	case key.Matches(msg, k.Next), key.Matches(msg, k.Prev):
		return p.tbl.searchStep(key.Matches(msg, k.Prev), p.query, func() func(int) bool { return p.matcher(strings.ToLower(p.query)) })
	}
	return reply{handled: p.tbl.navigate(msg, k, p.width)}
}

func (p *phase1Pane) ShortHelp() []key.Binding {
	k := p.keys
	return []key.Binding{k.enterAs("series"), k.Pin, k.Filter, k.Sort, k.Phase2, k.Phase3, k.Help, k.Quit}
}

func (p *phase1Pane) FullHelp() [][]key.Binding {
	k := p.keys
	return [][]key.Binding{append(append([]key.Binding{k.enterAs("series"), k.Jump}, k.search()...), k.columns()...), k.rows()}
}

func (p *phase1Pane) Crumb() string { return "Phase 1" }

func (p *phase1Pane) marks() []string {
	if p.legendCache == nil { // the candidates do not change: scan them once
		var nonFinite, layer, stage bool
		rn := namesOf(p.data)
		for i := range p.anoms {
			a := &p.anoms[i]
			nonFinite = nonFinite || a.NonFinite
			_, _, staged := model.SplitStageName(a.TargetName)
			base := model.StageBaseName(a.TargetName)
			stage = stage || staged
			if !layer {
				_, _, _, layer = model.LayerSpan(base)
			}
		}
		var out []string
		if nonFinite {
			out = append(out, legendLine("!", "before a name: the gradient is NaN/Inf at that step"))
		}
		out = append(out,
			legendLine("dev×", "the value over its robust baseline (the median of the parameter's steps)"))
		if layer {
			out = append(out, legendLine("L2", "layer 2 (the module path every layered name shares is left out)"))
		}
		if stage {
			out = append(out, legendLine("pp1:", "pipeline stage 1: the same name on another stage is another parameter"))
		}
		if rn.chunks {
			out = append(out, legendLine("vpp1:", "VPP model chunk 1"))
		}
		out = append(out, legendLine("▸", "under the table: the selected row's full name"))
		p.legendCache = out
	}
	out := append([]string{}, p.legendCache...)
	// the columns a narrow screen scrolled away have no marks on it
	if p.tbl.colWidth(p1ColTrigger) > 0 {
		out = append(out, legendLine("trigger", "the test that flagged it: IQR, MAD (band): outside that robust band of its own history (its other steps and ranks); ms jump: a jump between micro steps; NaN/Inf: not finite"))
	}
	if p.tbl.colWidth(p1ColDelta) > 0 {
		out = append(out, legendLine("-", "no value (Δ: no earlier micro step)"))
	}
	if p.tbl.colWidth(p1ColCurve) > 0 {
		out = append(out, legendLine(p.spikeMark(), "on the curve: the candidate's step (the parameter's norm on its rank; log scale when the span is wide)"))
	}
	return append(out, colsLegend(&p.tbl, p.width)...)
}

// spikeMark is the sparkline's spike mark as this colour mode draws it.
func (p *phase1Pane) spikeMark() string {
	if p.st.NoColor {
		return string(spikeRune)
	}
	return p.st.Spike.Render("▆") + " (coloured)"
}

func (p *phase1Pane) copyText() (string, string) { return p.candidate().Coord().String(), "coordinate" }

func (p *phase1Pane) View() []string {
	st := p.st
	lines := p.overviewLines()
	if len(p.anoms) == 0 {
		lines = append(lines, "", st.Good.Render("No anomaly found: no parameter's gradient left its own history."), "")
		if p.data != nil && p.data.P1 != nil {
			lines = append(lines, p.data.P1.Reasoning...)
		}
		return lines
	}
	status := len(lines)
	lines = append(lines, "")
	switch {
	case p.filter.active:
		lines[status] = p.filter.view()
	case p.jump.active:
		lines[status] = p.jump.view()
	case p.filter.text != "":
		lines[status] = fmt.Sprintf("filter %q: %d of %d candidates (esc clears) · %s", p.filter.text, len(p.tbl.view), len(p.anoms), p.tbl.position())
	}
	if len(p.tbl.view) == 0 {
		return append(lines, "", "no candidate matches the filter")
	}
	defer func() { // after the table: its layout says which columns show
		if lines[status] == "" {
			lines[status] = st.Dim.Render(fitJoin(p.width, "candidate "+p.tbl.info(p.width), "enter: series", "p: pin", "/: filter", "o: sort", ":N jump"))
		}
	}()
	curveW := p.tbl.cols[p1ColCurve].width
	rn := namesOf(p.data)
	p.tbl.cols[p1ColParam].min = p.nameMin()
	lines = append(lines, p.tbl.render(p.width, st, func(i, c int) string {
		a := &p.anoms[i]
		switch c {
		case p1ColIdx:
			return newMark(p.data, a) + strconv.Itoa(i+1) // "+": new while following (follow.go)
		case p1ColOpt:
			return strconv.Itoa(a.OptStep())
		case p1ColMicro:
			if a.MicroStep == nil {
				return "-"
			}
			return strconv.Itoa(*a.MicroStep)
		case p1ColStep:
			return strconv.Itoa(a.Step)
		case p1ColRank:
			return strconv.Itoa(a.Rank)
		case p1ColParam:
			// the non-finite mark stands outside the name so a cut never drops it
			mark := " "
			if a.NonFinite {
				mark = "!"
			}
			return mark + rn.fitA(a, p.paramWidth()-1)
		case p1ColNorm:
			return fmtNum(float64(a.Norm))
		case p1ColDelta:
			return fmtPtr(a.Delta)
		case p1ColDev:
			return fmtNum(float64(a.DeviationRatio))
		case p1ColTrigger:
			return triggerText(a.Trigger, p.tbl.cols[p1ColTrigger].width)
		case p1ColCurve:
			var ix *seriesIndex
			if p.data != nil {
				ix = p.data.series
			}
			cv, spike := ix.curveOf(a, a.Rank)
			return sparkline(cv.Vals, spike, curveW, st)
		}
		return ""
	})...)
	if a := p.candidate(); a != nil { // the selected row's full name, and why it is flagged
		lines = append(lines, st.Dim.Render(detailLines(rn.param(a)+modelLayerNote(a), p.width, 1)[0]))
		why := p1FlagWhy(a, p.data.P1.Thresholds)
		lines = append(lines, st.Dim.Render(fit(fitJoin(p.width, why[0], why[1:]...), p.width, false)))
	}
	return lines
}

// paramWidth is the parameter column's width in the table being drawn.
func (p *phase1Pane) paramWidth() int {
	if w := p.tbl.colWidth(p1ColParam); w > 0 {
		return w
	}
	return 20
}

// notesOnScreen2 is the Phase 1 header's count of the notes (what the run
// lacks, warnings) that screen 2 lists.
func notesOnScreen2(n int) string {
	if n == 1 {
		return "⚠ 1 note on screen 2"
	}
	return fmt.Sprintf("⚠ %d notes on screen 2", n)
}

// p1FlagWhy is what decided a candidate, in parts a narrow screen drops
// from the end: its norm against its own history's median, the test that
// flagged it, and the minimum effect (and noise floor) it had to pass.
func p1FlagWhy(a *model.Anomaly, th map[string]float64) []string {
	if a.NonFinite {
		return []string{"flagged: NaN/Inf — a candidate by itself, whatever its history"}
	}
	parts := []string{fmt.Sprintf("why: norm %s = %s× its own median %s", fmtNum(float64(a.Norm)),
		fmtNum(float64(a.DeviationRatio)), fmtNum(float64(a.BaselineMedian)))}
	parts = append(parts, triggerWhy(a.Trigger))
	if me, ok := th["min_effect"]; ok && me > 0 {
		need := "needs ≥ " + strconv.FormatFloat(me, 'f', -1, 64) + "× its median"
		if ts, ok := th["tail_spreads"]; ok && ts > 0 {
			need += " and ≥ " + strconv.FormatFloat(ts, 'f', -1, 64) + " noise spreads above it"
		}
		parts = append(parts, need)
	}
	return parts
}
