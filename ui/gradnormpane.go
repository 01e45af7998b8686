package ui

import (
	"math"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// gradNormPane answers "where did the grad norm come from?" for a user who
// arrives with a global grad-norm spike from the training log: the global
// gradient norm of every rank at the root step and the steps around it
// (model.GradNorm, computed by the pipeline), and for the selected step
// the share of its increase by parameter, layer and rank — one parameter,
// one layer, one rank, or everything. `t` opens it on every screen.
type gradNormPane struct {
	common
	sel int // the selected step (index into Steps)
	sv  scrollView
	// shown is lines() of shownOf for shownSel at shownW: a frame reuses
	// it (the view is fixed for a view, a selected step and a width)
	shown            []string
	shownOf          *model.GradNorm
	shownSel, shownW int
}

func newGradNormPane(c common) *gradNormPane {
	p := &gradNormPane{common: c}
	if g := p.gn(); g != nil {
		p.sel = max(0, len(g.Steps)-1)
		if pk := g.Peak(); pk >= 0 {
			p.sel = pk // the step the log shows as the spike
		} else if ri := g.RootIndex(); ri >= 0 {
			p.sel = ri
		}
	}
	p.SetSize(c.width, c.height)
	return p
}

func (p *gradNormPane) gn() *model.GradNorm {
	if p.data == nil {
		return nil
	}
	return p.data.GradNorm
}

func (p *gradNormPane) SetSize(w, h int) {
	p.common.SetSize(w, h)
	p.sv.height = max(1, h-1) // the last line says where the view is
}

func (p *gradNormPane) Crumb() string { return "grad norm" }

// the step cursor and the page scroll
func (p *gradNormPane) stepKeys() (up, down key.Binding) {
	k := p.keys
	return key.NewBinding(key.WithKeys(k.Up.Keys()...), key.WithHelp("↑/k", "earlier step")),
		key.NewBinding(key.WithKeys(k.Down.Keys()...), key.WithHelp("↓/j", "later step"))
}

func (p *gradNormPane) ShortHelp() []key.Binding {
	up, down := p.stepKeys()
	k := p.keys
	return []key.Binding{up, down, k.PageDown, k.Back, k.Help, k.Quit}
}

func (p *gradNormPane) FullHelp() [][]key.Binding {
	up, down := p.stepKeys()
	k := p.keys
	return [][]key.Binding{{up, down, k.Top, k.Bottom}, {k.PageUp, k.PageDown, k.HalfUp, k.HalfDown}}
}

func (p *gradNormPane) Update(m tea.Msg) reply {
	msg, ok := m.(tea.KeyPressMsg)
	if !ok {
		return reply{}
	}
	k := p.keys
	n := 0
	if g := p.gn(); g != nil {
		n = len(g.Steps)
	}
	switch {
	case key.Matches(msg, k.Up):
		p.sel = max(0, p.sel-1)
	case key.Matches(msg, k.Down):
		p.sel = max(0, min(n-1, p.sel+1))
	case key.Matches(msg, k.Top):
		p.sel = 0
	case key.Matches(msg, k.Bottom):
		p.sel = max(0, n-1)
	case key.Matches(msg, k.PageUp, k.PageDown, k.HalfUp, k.HalfDown):
		return reply{handled: p.sv.navigate(msg, k, len(p.lines()))}
	default:
		return reply{}
	}
	return used
}

func (p *gradNormPane) View() []string {
	all := p.lines()
	win := p.sv.window(all)
	if len(all) <= p.sv.height {
		return win
	}
	return append(win, p.st.Dim.Render(scrollInfo("line", p.sv.offset, len(win), len(all))+" · pgdn/pgup scroll"))
}

// lines is the whole screen: the norms, the selected step's share, what
// the number is.
func (p *gradNormPane) lines() []string {
	if g := p.gn(); p.shown == nil || p.shownOf != g || p.shownSel != p.sel || p.shownW != p.width {
		p.shown, p.shownOf, p.shownSel, p.shownW = p.build(), g, p.sel, p.width
	}
	return p.shown
}

// build makes the lines of the selected step at the pane's width.
func (p *gradNormPane) build() []string {
	g := p.gn()
	w := max(20, p.width)
	switch {
	case g == nil:
		return wrap("No global grad norm: it is summed from the monitor's per-parameter gradient norms (trend.db or CSV), and none were loaded.", w)
	case !g.StepsKnown:
		return wrap("No global grad norm: the optimizer step of the monitor rows could not be told (irregular accumulation windows), so the parameters' norms cannot be summed per step.", w)
	}
	st := p.st
	var out []string
	for _, l := range wrap("global grad norm per rank · "+g.Metric+" · sqrt(Σn²) of each rank's parameters", w) {
		out = append(out, st.Title.Render(l))
	}
	out = append(out, p.table(g, w)...)
	out = append(out, "")
	out = append(out, p.share(g, w)...)
	out = append(out, "")
	out = append(out, wrapAll(p.what(g), w)...)
	return out
}

func wrapAll(paras []string, w int) []string {
	var out []string
	for _, s := range paras {
		out = append(out, wrap(s, w)...)
	}
	return out
}

// table is one row per step: its mark (root, peak), the model's norm with
// pipeline stages, then every rank when they fit, else the largest,
// median and smallest with their ranks.
func (p *gradNormPane) table(g *model.GradNorm, w int) []string {
	const stepW, numW = 12, 9
	model0 := 0
	if g.Model != nil {
		model0 = numW + 1
	}
	if g.Reduced != nil {
		model0 += numW + 1
	}
	fitRanks := (w - 2 - stepW - model0) / (numW + 1)
	few := len(g.Ranks) <= fitRanks
	hdr := "  " + fit("step", stepW, false)
	if g.Reduced != nil {
		hdr += fit("reduced", numW, true) + " "
	}
	if g.Model != nil {
		hdr += fit("model", numW, true) + " "
	}
	if few {
		for _, r := range g.Ranks {
			hdr += fit("rank "+strconv.Itoa(r), numW, true) + " "
		}
	} else {
		hdr += fit("largest", 14, true) + " " + fit("median", numW, true) + " " + fit("smallest", 14, true)
	}
	out := []string{p.st.Header.Render(strings.TrimRight(hdr, " "))}
	ri, pk := g.RootIndex(), g.Peak()
	for i, s := range g.Steps {
		mark := ""
		switch {
		case i == ri && i == pk:
			mark = " root·peak"
		case i == ri:
			mark = " root"
		case i == pk:
			mark = " peak"
		}
		row := fit(strconv.Itoa(s)+mark, stepW, false)
		if g.Reduced != nil {
			row += fit(fmtNum(float64(g.Reduced[i])), numW, true) + " "
		}
		if g.Model != nil {
			row += fit(fmtNum(float64(g.Model[i])), numW, true) + " "
		}
		if few {
			for j := range g.Ranks {
				c := fmtNum(float64(g.Norm[i][j]))
				if g.Params[i][j] == 0 {
					c = "—"
				}
				row += fit(c, numW, true) + " "
			}
		} else {
			hi, med, lo := spread(g, i)
			row += fit(hi, 14, true) + " " + fit(med, numW, true) + " " + fit(lo, 14, true)
		}
		row = strings.TrimRight(row, " ")
		if i == p.sel {
			out = append(out, p.st.Cursor.Render("▸ "+row))
		} else {
			out = append(out, "  "+row)
		}
	}
	if !few {
		for _, l := range wrap(strconv.Itoa(len(g.Ranks))+" ranks: largest, median, smallest (a wider screen shows each)", w-2) {
			out = append(out, p.st.Dim.Render("  "+l))
		}
	}
	return out
}

// spread is the largest (rank), median and smallest (rank) norm of step i.
func spread(g *model.GradNorm, i int) (hi, med, lo string) {
	h, l, m, ok := g.RankSpread(i)
	if !ok {
		return "—", "—", "—"
	}
	at := func(x model.RankValue) string { return fmtNum(x.Norm) + " r" + strconv.Itoa(x.Rank) }
	return at(h), fmtNum(m), at(l)
}

// share is the selected step against the reference level and, when it
// rose, the share of the increase by parameter, layer and rank.
func (p *gradNormPane) share(g *model.GradNorm, w int) []string {
	st := p.st
	if p.sel < 0 || p.sel >= len(g.Shares) {
		return nil
	}
	sh := &g.Shares[p.sel]
	step := "step " + strconv.Itoa(sh.Step)
	switch sh.Outcome {
	case model.ShareNoRoot:
		return wrap("No root step: these are the run's latest steps, and no increase is shared out.", w)
	case model.ShareReference:
		return wrap(step+" is before the root step: part of the reference level (each parameter's median over steps "+model.StepList(g.RootShare().Reference)+"). Select the root step or a later one (↓) to see what rose.", w)
	case model.ShareNoReference:
		return wrap(step+": no step before the root step in the data, so there is no reference level to compare with.", w)
	case model.ShareNonFinite:
		var where []string
		for _, pt := range sh.NonFiniteParts[:min(3, len(sh.NonFiniteParts))] {
			where = append(where, "rank "+strconv.Itoa(pt.Rank)+" "+pt.Param+" "+fmtNum(float64(pt.Root)))
		}
		if sh.NonFiniteCount > len(where) {
			where = append(where, "…")
		}
		return append([]string{st.Warn.Render(fit(step+": "+strconv.Itoa(sh.NonFiniteCount)+" parameter norms are NaN/Inf", w, false))},
			wrap("A non-finite norm is the answer by itself: the log's global norm is NaN/Inf at this step, and nothing is shared out. "+strings.Join(where, ", "), w)...)
	case model.ShareDecrease:
		return wrap(step+": Σn² "+fmtNum(float64(sh.RootSq))+" did not rise above the reference level "+fmtNum(float64(sh.RefSq))+
			" (median of steps "+model.StepList(sh.Reference)+"): there is no increase to share out.", w)
	}
	out := wrap(step+" vs the reference (median of steps "+model.StepList(sh.Reference)+"): Σn² "+fmtNum(float64(sh.RefSq))+" → "+
		fmtNum(float64(sh.RootSq))+" (norm ×"+fmtNum(math.Sqrt(float64(sh.RootSq/sh.RefSq)))+")", w)
	for _, l := range wrap(movedText(sh), w) {
		out = append(out, st.Accent.Render(l))
	}
	rn := namesOf(p.data)
	longest, layerW := 0, len("layer")+1
	for _, pt := range sh.ByParam[:min(3, len(sh.ByParam))] {
		longest = max(longest, ansi.StringWidth(rn.params.fit(pt.Param, 1000)))
		layerW = max(layerW, ansi.StringWidth(layerWord(&pt))+1)
	}
	nameW := max(10, min(w-2-layerW-6-7, longest+2))
	out = append(out, st.Header.Render("  "+fit("parameter", nameW, false)+fit("layer", layerW, false)+fit("ranks", 6, true)+fit("share", 7, true)))
	for _, pt := range sh.ByParam[:min(3, len(sh.ByParam))] {
		out = append(out, "  "+fit(rn.params.fit(pt.Param, nameW-1), nameW, false)+fit(layerWord(&pt), layerW, false)+
			fit(strconv.Itoa(pt.Ranks), 6, true)+fit(model.ShareText(pt.Share), 7, true))
	}
	var ls, rs []string
	for _, pt := range sh.ByLayer[:min(5, len(sh.ByLayer))] {
		ls = append(ls, layerWord(&pt)+" "+model.ShareText(pt.Share))
	}
	for _, pt := range sh.ByRank[:min(6, len(sh.ByRank))] {
		rs = append(rs, strconv.Itoa(pt.Rank)+" "+model.ShareText(pt.Share))
	}
	out = append(out, fitParts("  layers  ", ls, w), fitParts("  ranks   ", rs, w))
	return out
}

// fitParts is head and the parts that fit whole in w cells, the largest
// first, then how many more ("+2 more").
func fitParts(head string, parts []string, w int) string {
	line := head
	for i, pt := range parts {
		sep := ""
		if i > 0 {
			sep = " · "
		}
		more := ""
		if i+1 < len(parts) {
			more = " · +" + strconv.Itoa(len(parts)-i-1) + " more"
		}
		if ansi.StringWidth(line+sep+pt+more) > w && i > 0 {
			return line + " · +" + strconv.Itoa(len(parts)-i) + " more"
		}
		line += sep + pt
	}
	return line
}

// movedText says what moved the norm in one line.
func movedText(sh *model.GradNormShare) string {
	m, pt := sh.Moved()
	onRank := ""
	if m != model.MovedRank && len(sh.ByRank) > 0 && float64(sh.ByRank[0].Share) > model.DominantShare {
		onRank = ", rank " + strconv.Itoa(sh.ByRank[0].Rank) + " " + model.ShareText(sh.ByRank[0].Share)
	}
	switch m {
	case model.MovedParam:
		return "one parameter moved: " + model.StageBaseName(pt.Param) + " (" + layerWord(pt) + ") " + model.ShareText(pt.Share) + onRank
	case model.MovedLayer:
		return "one layer moved: " + layerWord(pt) + " " + model.ShareText(pt.Share) + onRank
	case model.MovedRank:
		return "one rank moved: rank " + strconv.Itoa(pt.Rank) + " " + model.ShareText(pt.Share)
	}
	return "everything moved: no parameter, layer or rank holds half of the increase"
}

// layerWord names a part's layer: "L3", a stage's own number, or the
// parameters outside the layers.
func layerWord(pt *model.GradNormPart) string {
	switch {
	case pt.Layer < 0:
		return "outside layers"
	case pt.GlobalLayer:
		return "L" + strconv.Itoa(pt.Layer)
	}
	l := "L" + strconv.Itoa(pt.Layer)
	if pt.VPP > 0 {
		l = "vpp" + strconv.Itoa(pt.VPP) + ":" + l
	}
	if pt.Stage >= 0 {
		return "pp" + strconv.Itoa(pt.Stage) + " " + l
	}
	return l
}

// what says what the shown number is, so that the user can match it to the
// log line, and what it cannot know.
func (p *gradNormPane) what(g *model.GradNorm) []string {
	params := g.MostParams()
	s := "Each rank's norm is sqrt(Σ n²) over its parameters (up to " + strconv.Itoa(params) + "), n being each parameter's norm of the whole step's gradient"
	if p1 := p.data.P1; p1 != nil && p1.DataKind == "micro_step" && p1.Sharding.AccumulationWindow != 1 {
		s += " (the cumulative norm at the step's last micro step)"
	}
	s += ". Compare it with the global grad norm of the training log at the same step."
	out := []string{s}
	switch g.Metric {
	case "grad_unreduced":
		out = append(out, "grad_unreduced is each rank's own gradient before the data-parallel average; the log prints the norm after it, usually smaller.")
	case "grad_reduced":
		out = append(out, "grad_reduced is the gradient after the data-parallel average: what the optimizer sees.")
	}
	if g.Reduced != nil {
		from := "rank " + model.StepList(g.ReducedRanks) + ": it is alike on every rank"
		if len(g.ReducedRanks) > 1 {
			from = "ranks " + model.StepList(g.ReducedRanks) + ": one per pipeline stage"
		}
		out = append(out, "Column reduced: the model's norm in grad_reduced, the gradient after the data-parallel average ("+from+"): the number the training log prints before clipping, unless tensor-parallel shards carry the whole parameter's name.")
	}
	if len(g.ModelRanks) > 0 {
		out = append(out, "The ranks of the "+strconv.Itoa(len(g.StageRanks))+" pipeline stages hold disjoint parameters: the model's norm (column model) sums one rank of each stage (ranks "+model.StepList(g.ModelRanks)+"). The rows cannot tell tensor-parallel shards from data-parallel replicas.")
	} else {
		out = append(out, "No pipeline stages were found: each rank holds the whole model, so its norm is the model's — unless tensor-parallel shards carry the whole parameter's name (the log then sums the shards: larger).")
	}
	out = append(out, "The share of a part is its Δn² over the increase of Σn² of every rank from the reference level (each parameter's median over the steps before the root step) to the selected step; a part that fell has a negative share.")
	return out
}
