package ui

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

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
	candAt []int // line index of each candidate row's first line, filled by layout
	cache  p2cache
}

// p2cache is the screen laid out for one width and result without the
// cursor: a frame restyles only the cursor's rows and inserts its full
// name, so that moving over thousands of candidates stays fast.
type p2cache struct {
	w        int
	d        *Data
	r        *model.Phase2Result
	base     []string
	cand     map[int]p2candLine // line index → the candidate row it shows
	cursorAt int                // where the cursor's full name goes, -1: no candidates
	sections []p2section        // where each section starts in base
}

// p2section is a section of the page: its first line in base and the
// short name the position line gives it when it starts below the screen.
type p2section struct {
	at   int
	name string
}

// p2candLine is one line of a candidate row: which candidate and its
// text before styling.
type p2candLine struct {
	row   int
	plain string
}

func newPhase2Pane(c common) *phase2Pane { return &phase2Pane{common: c} }

func (p *phase2Pane) SetSize(w, h int) { p.common.SetSize(w, h); p.sv.height = h }

func (p *phase2Pane) lines() []string {
	d := p.data
	if d == nil || d.P2 == nil {
		return append([]string{"Phase 2 has no result: Phase 1 found no candidate to choose from."}, p.noteLines()...)
	}
	c := &p.cache
	if c.w != p.width || c.d != d || c.r != d.P2 {
		*c = p2cache{w: p.width, d: d, r: d.P2, cand: map[int]p2candLine{}, cursorAt: -1}
		c.base = p.layout(d.P2)
	}
	if c.cursorAt < 0 {
		return c.base
	}
	out := make([]string, 0, len(c.base)+2)
	out = append(out, c.base[:c.cursorAt]...)
	if p.sel >= 0 && p.sel < len(p.candAt) {
		for i := p.candAt[p.sel]; i < c.cursorAt; i++ {
			cl, ok := c.cand[i]
			if !ok || cl.row != p.sel {
				break
			}
			out[i] = p.st.Cursor.Render(cl.plain)
		}
	}
	if a := p.candidate(); a != nil {
		for _, l := range wrap("cursor: "+coordString(a), p.width-2) {
			out = append(out, "  "+p.st.Dim.Render(l))
		}
	}
	return append(out, c.base[c.cursorAt:]...)
}

// layout lays the screen out for p.cache, the cursor aside (lines adds
// it): the answer and the two tables that justify it come first (the
// candidate cursor is on the first screen at 80×24 unless the cross-step
// table is long), the events after; each section's start is recorded for
// the position line (View).
func (p *phase2Pane) layout(r *model.Phase2Result) []string {
	out := p.headLines(r)
	c := &p.cache
	section := func(name string, add func([]string) []string) {
		at := len(out)
		out = add(out)
		for at < len(out) && out[at] == "" { // the blank line above its title
			at++
		}
		if at < len(out) {
			c.sections = append(c.sections, p2section{at: at, name: name})
		}
	}
	section("cross-step", func(o []string) []string { return append(o, p.crossStepLines(r)...) })
	section("candidates", func(o []string) []string { return p.candidateLines(r, o) })
	section("spike events", func(o []string) []string { return append(o, p.eventLines(r)...) })
	section("reasoning", func(o []string) []string { return append(o, p.reasoningLines(r)...) })
	section("warnings", func(o []string) []string {
		for _, w := range r.Warnings {
			for _, l := range wrap("⚠ "+w, p.width) {
				o = append(o, p.st.Warn.Render(l))
			}
		}
		return o
	})
	section("notes", func(o []string) []string { return append(o, p.noteLines()...) })
	return out
}

// headLines are the coordinate, its numbers and, when pinned, what the
// automatic choice would have been.
func (p *phase2Pane) headLines(r *model.Phase2Result) []string {
	st := p.st
	var out []string
	coord := coordinateString(r.RootCauseCoordinate)
	if r.RootCauseCoordinate == nil {
		coord = "none found"
	}
	label := "root-cause coordinate: "
	if r.Pinned {
		label = "root-cause coordinate (pinned by you): "
	}
	if head := label + st.Accent.Render(coord); ansi.StringWidth(head) <= p.width {
		out = append(out, head)
	} else { // a dump's long module name: whole, on lines of its own
		out = append(out, strings.TrimSpace(label))
		for _, l := range wrap(coord, p.width) { // not indented: a copy of the lines is the whole --pin
			out = append(out, st.Accent.Render(l))
		}
	}
	if c := r.RootCauseCoordinate; c != nil {
		items := []string{"norm " + fmtNum(float64(c.Norm))}
		if c.Delta != nil {
			items = append(items, "Δ "+fmtNum(float64(*c.Delta)))
		}
		if c.GlobalLayer != nil { // a stage-local name's layer in the model's numbering
			if n, ok := model.LayerIndex(c.TargetName); !ok || n != *c.GlobalLayer {
				items = append(items, "model layer "+strconv.Itoa(*c.GlobalLayer))
			}
		}
		if model.Finite(float64(c.Norm)) && model.Finite(float64(c.DeviationRatio)) {
			items = append(items, fmtNum(float64(c.DeviationRatio))+"× its own history")
		} else { // a NaN/Inf has no ratio to its baseline: it is anomalous by itself
			items = append(items, "non-finite (NaN/Inf)")
		}
		if r.RootOptStep != nil {
			items = append(items, "root optimizer step "+strconv.Itoa(*r.RootOptStep))
		}
		if m := modeName(r.Mode); m != "" {
			items = append(items, m)
		}
		out = append(out, p2Indent(wrap(strings.Join(items, " · "), p.width-2), "  ")...)
	}
	if s := eventsSummary(r); s != "" {
		out = append(out, p2Indent(wrap(s+"; listed below", p.width-2), "  ")...)
	}
	if r.Pinned {
		auto := "without the pin, Phase 2 would have chosen no coordinate"
		if r.Automatic != nil {
			auto = "without the pin, Phase 2 would have chosen " + coordinateString(r.Automatic)
			if r.AutomaticOptStep != nil && (r.Automatic.OptimizerStep == nil || *r.Automatic.OptimizerStep != *r.AutomaticOptStep) {
				auto += " (root optimizer step " + strconv.Itoa(*r.AutomaticOptStep) + ")"
			}
			if sameCoordinate(r.Automatic, r.RootCauseCoordinate) {
				auto = "the automatic choice is the same coordinate"
			}
		}
		out = append(out, p2Indent(wrap(auto, p.width-2), "  ")...) // not dim: it is what the pin overrides
	}
	return out
}

// pairVerdict is a cross-step row's verdict in a few words (the
// reasoning below has the sentence with its numbers and, for a pair that
// was not judged, why).
func pairVerdict(r *model.Phase2Result, c model.CrossStepPair) string {
	switch {
	case !c.Judged && c.RanksTotal > 0 && c.RanksTotal < c.MinCommonRanks:
		// too few ranks with a finite norm at both steps, beside the
		// number the pair needed
		return fmt.Sprintf("not judged (%d of %d ranks)", c.RanksTotal, c.MinCommonRanks)
	case !c.Judged:
		// no next step, another parameter there (the reasoning says which)
		return fmt.Sprintf("not judged (%d ranks)", c.RanksTotal)
	case c.Qualifies && r.RootOptStep != nil && c.From == *r.RootOptStep:
		return "root: step " + strconv.Itoa(c.From)
	case c.Qualifies:
		return "grows too (after the root)"
	}
	return "no turning point"
}

// fmtGrowth is a growth factor with three significant digits at most
// ("0.17×", "2.05×", "13.4×", "552×").
func fmtGrowth(v float64) string {
	switch {
	case !model.Finite(v):
		return "∞"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64) + "×"
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64) + "×"
	}
	return strconv.FormatFloat(v, 'f', 2, 64) + "×"
}

// sameCoordinate tells whether two coordinates name the same point.
func sameCoordinate(a, b *model.Coordinate) bool {
	return a != nil && b != nil && coordinateString(a) == coordinateString(b)
}

// crossStepLines is the cross-step table: per pair the measured growth
// (median and largest over the ranks at both steps), how many ranks reach
// the threshold, and the verdict, which wraps rather than being cut.
func (p *phase2Pane) crossStepLines(r *model.Phase2Result) []string {
	st := p.st
	out := []string{"", st.Title.Render("cross-step growth (same parameter, adjacent optimizer steps)")}
	if len(r.CrossStep) == 0 {
		return append(out, p2Indent(wrap(noCrossStepReason(r), p.width-2), "  ")...)
	}
	thr := r.CrossStep[0].Threshold
	share := r.Thresholds["rank_share"]
	rule := fmt.Sprintf("a pair k→k+1 puts the root at k when ≥ %.0f%% of the ranks' final norms grow ≥ %s×; median and max: the growth measured over the ranks", 100*share, fmtNum(thr))
	if share == 0 {
		rule = fmt.Sprintf("a pair k→k+1 puts the root at k when most ranks' final norms grow ≥ %s×; median and max: the growth measured over the ranks", fmtNum(thr))
	}
	for _, l := range wrap(rule, p.width-2) {
		out = append(out, "  "+st.Dim.Render(l))
	}
	over := "ranks ≥" + fmtNum(thr) + "×"
	cols := []p2col{{head: "pair"}, {head: "parameter", name: true}, {head: "median", right: true}, {head: "max", right: true},
		{head: over, right: true}, {head: "verdict", wrap: true}}
	rows := make([][]string, len(r.CrossStep))
	marks := make([]string, len(r.CrossStep))
	for i := range r.CrossStep {
		marks[i] = layerMark(r.CrossStep[i].TargetName, pairLayer(p.data, &r.CrossStep[i]))
	}
	cols[1].marks = marks
	for i, c := range r.CrossStep {
		verdict := pairVerdict(r, c)
		if c.BaselineGrowth != nil && *c.BaselineGrowth {
			verdict += "; the baseline grows too"
		}
		med, mx, ranks := "", "", ""
		if c.GrowthMedian != nil {
			med, mx = fmtGrowth(float64(*c.GrowthMedian)), fmtGrowth(float64(*c.GrowthMax))
		}
		if c.RanksTotal > 0 { // the count and the share the rule compares with its threshold
			ranks = fmt.Sprintf("%d/%d %3.0f%%", c.RanksOver, c.RanksTotal, 100*c.Share)
		}
		rows[i] = []string{fmt.Sprintf("%d→%d", c.From, c.To), c.TargetName, med, mx, ranks, verdict}
	}
	lines := p2Table(namesOf(p.data).params, cols, rows, p.width, 0)
	out = append(out, st.Header.Render(lines[0].text))
	for _, l := range lines[1:] {
		text := l.text
		if r.CrossStep[l.row].Qualifies {
			text = st.Flag.Render(text)
		}
		out = append(out, text)
	}
	return out
}

// candidateLines is the root step's candidates; with a baseline run each
// one's baseline value, ratio and verdict, with one device a sentence
// saying so instead of a column of "no baseline". The selected row's full
// name follows the table (the table shortens it).
func (p *phase2Pane) candidateLines(r *model.Phase2Result, out []string) []string {
	st := p.st
	withBase := r.Mode != modeSingleRef
	title := "candidates of the root step against the baseline"
	if !withBase {
		title = "candidates of the root step"
	}
	out = append(out, "", st.Title.Render(title))
	p.candAt = p.candAt[:0]
	if len(r.Candidates) == 0 {
		none := "  none"
		if r.Pinned {
			none = "  none: the pin replaces the candidate walk"
		}
		return append(out, none)
	}
	if !withBase {
		for _, l := range wrap("one device: no monitor data of the baseline device to check device specificity against (give it with --baseline)", p.width-2) {
			out = append(out, "  "+st.Dim.Render(l))
		}
	}
	val := "value"
	switch kind := candidateValueKind(r.Candidates); kind {
	case "delta", "norm":
		val = kind
	}
	cols := []p2col{{head: "step"}, {head: "rank", right: true}, {head: "parameter", name: true}, {head: val, right: true}}
	if withBase {
		cols = append(cols, p2col{head: "baseline", right: true}, p2col{head: "ratio", right: true}, p2col{head: "verdict", wrap: true})
	}
	rows := make([][]string, len(r.Candidates))
	marks := make([]string, len(r.Candidates))
	for i := range r.Candidates {
		marks[i] = globalMark(&r.Candidates[i].Anomaly)
	}
	cols[2].marks = marks
	for i, c := range r.Candidates {
		a := &c.Anomaly
		row := []string{p2Step(a), strconv.Itoa(a.Rank), namesOf(p.data).param(a), fmtNum(float64(c.Value))}
		if withBase {
			ratio := ""
			if c.Ratio != nil {
				ratio = fmtRatio(c.Ratio)
			}
			row = append(row, baselineCell(c), ratio, c.Verdict)
		}
		rows[i] = row
	}
	lines := p2Table(namesOf(p.data).params, cols, rows, p.width, 2)
	out = append(out, st.Header.Render("  "+lines[0].text))
	for _, l := range lines[1:] {
		c := r.Candidates[l.row]
		mark := "  "
		if l.first {
			p.candAt = append(p.candAt, len(out))
			if c.Selected {
				mark = "▶ "
			}
		}
		text := mark + l.text
		p.cache.cand[len(out)] = p2candLine{row: l.row, plain: text}
		if c.Selected {
			text = st.Accent.Render(text)
		}
		out = append(out, text)
	}
	p.cache.cursorAt = len(out)
	return out
}

// reasoningLines are the English decisions, each with its numbers. The
// reference-compatible reasoning is Chinese: shown only when there are no
// decisions and it has no Chinese in it.
func (p *phase2Pane) reasoningLines(r *model.Phase2Result) []string {
	var body []string
	for _, dd := range r.Decisions {
		body = append(body, p2Bullet(dd, p.width)...)
	}
	if len(r.Decisions) == 0 && r.Reasoning != "" && !p2HasHan(r.Reasoning) {
		body = wrap(r.Reasoning, p.width)
	}
	if len(body) == 0 {
		return nil
	}
	return append([]string{"", p.st.Title.Render("reasoning")}, body...)
}

// p2Bullet wraps text as a list item: "• " and its continuation lines
// indented under the text.
func p2Bullet(text string, width int) []string {
	l := wrap(text, width-2)
	for i := range l {
		pre := "  "
		if i == 0 {
			pre = "• "
		}
		l[i] = pre + l[i]
	}
	return l
}

// p2Indent puts pre before every line.
func p2Indent(lines []string, pre string) []string {
	for i := range lines {
		lines[i] = pre + lines[i]
	}
	return lines
}

// p2HasHan tells whether s has Chinese characters.
func p2HasHan(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Han, r) })
}

// candidateValueKind is "delta" when every candidate's value is its delta,
// "norm" when it is its norm, "" when mixed.
func candidateValueKind(cs []model.CandidateVerdict) string {
	delta, norm := true, true
	for _, c := range cs {
		a := &c.Anomaly
		delta = delta && a.Delta != nil && *a.Delta == c.Value
		norm = norm && a.Norm == c.Value
	}
	switch {
	case delta:
		return "delta"
	case norm:
		return "norm"
	}
	return ""
}

// p2Step is a candidate's step in words a reader parses: "5 ms 2"
// (optimizer step 5, micro step 2) or "14" (the step itself).
func p2Step(a *model.Anomaly) string {
	if a.MicroStep != nil {
		return fmt.Sprintf("opt %d ms %d", a.OptStep(), *a.MicroStep)
	}
	return strconv.Itoa(a.Step)
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
		out = append(out, p2Bullet(n, p.width)...)
	}
	return out
}

// modeSingleRef is the reference's Phase 2 mode label of a run without a
// baseline (analysis keeps the reference's Chinese strings in the JSON).
const modeSingleRef = "单设备"

// modeName says the reference's Phase 2 mode label in words.
func modeName(m string) string {
	switch m {
	case modeSingleRef:
		return "one device: no baseline device monitored"
	case "NPU (+GPU 标杆)":
		return "checked against the baseline device"
	}
	if p2HasHan(m) {
		return ""
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

// View is the page's window; when the page is longer than the screen its
// last line says where the window is and which sections lie below it, as
// the help and the plan say "lines 1–22 of 60 · more below".
func (p *phase2Pane) View() []string {
	all := p.lines()
	p.fit(len(all))
	win := p.sv.window(all)
	if len(win) == len(all) {
		return win
	}
	info := scrollInfo("line", p.sv.offset, len(win), len(all))
	if below := p.sectionsBelow(len(all)); len(below) > 0 {
		info += ": " + strings.Join(below, ", ")
	}
	return append(win, p.st.Dim.Render(ansi.Truncate(info, p.width, "…")))
}

// fit sets the scrolled height for a page of n lines: the screen, less the
// position line when the page does not fit.
func (p *phase2Pane) fit(n int) {
	p.sv.height = p.height
	if n > p.height && p.height > 1 {
		p.sv.height = p.height - 1
	}
}

// sectionsBelow names the sections that start below the window (the
// cursor's full name, inserted into the page, moves the later ones down).
func (p *phase2Pane) sectionsBelow(n int) []string {
	c := &p.cache
	if p.data == nil || c.r != p.data.P2 || c.r == nil {
		return nil
	}
	shift := n - len(c.base)
	end := p.sv.offset + p.sv.height
	var out []string
	for _, s := range c.sections {
		at := s.at
		if c.cursorAt >= 0 && at >= c.cursorAt {
			at += shift
		}
		if at >= end {
			out = append(out, s.name)
		}
	}
	return out
}

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
	return []key.Binding{k.Up, k.Down, k.Pin, k.Unpin, k.enterAs("series"), k.Phase3, k.Report, k.Help, k.Quit}
}

func (p *phase2Pane) FullHelp() [][]key.Binding {
	return [][]key.Binding{{p.keys.enterAs("series"), p.keys.Control}, p.keys.rows()}
}

func (p *phase2Pane) Crumb() string { return "Phase 2" }

func (p *phase2Pane) marks() []string {
	if p.data == nil || p.data.P2 == nil {
		return nil
	}
	r := p.data.P2
	var out []string
	if len(r.CrossStep) > 0 {
		out = append(out, legendLine("13.4×", "a pair's growth: the final norm at step k+1 over step k, median and max over the ranks"))
	}
	if len(r.Candidates) > 0 {
		out = append(out, legendLine("▶", "among the candidates: the one chosen as the root-cause coordinate; among the events: the root's event"))
	}
	var nonFinite, conducts bool
	for i := range r.Events {
		nonFinite = nonFinite || r.Events[i].NonFinite
		conducts = conducts || r.Events[i].Conducts
	}
	if nonFinite {
		out = append(out, legendLine("∞", "after an event's extent: the event holds NaN/Inf values"))
	}
	if conducts {
		out = append(out, legendLine("→ 6", "conducts: the event carries on into step 6 (its growth reaches the next step)"))
	}
	return out
}

// copyText on Phase 2 is the candidate under the cursor (the one `p`
// pins), else the root-cause coordinate.
func (p *phase2Pane) copyText() (string, string) {
	if a := p.candidate(); a != nil {
		return a.Coord().String(), "coordinate"
	}
	if p.data == nil || p.data.P2 == nil {
		return "", "coordinate"
	}
	return p.data.P2.RootCauseCoordinate.Coord().String(), "coordinate"
}

func (p *phase2Pane) navigate(msg tea.KeyPressMsg, k keyMap) bool {
	lines := p.lines()
	p.fit(len(lines))
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
		return "pinned by you: the cross-step rule was not applied"
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
