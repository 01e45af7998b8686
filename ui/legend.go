package ui

import (
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"spikescope/model"
)

// The `?` screen explains the marks of the screen it was opened on, and
// only those: a pane that draws marks lists them (legendSource); the help
// shows them under the keys.

// legendSource is a pane whose screen uses marks that need words.
type legendSource interface{ marks() []string }

// legendLine is one mark and its meaning: "F!  the forward degree is
// flagged".
func legendLine(mark, meaning string) string { return mark + "\t" + meaning }

// degreeLegend is the meaning of the four-group columns and their marks,
// shared by the layer and the operator tables; flags says which marks the
// rows use.
func degreeLegend(f quadFlags) []string {
	out := []string{
		legendLine("F_/B_", "forward / backward pass; A the anomalous dump, B its baseline, C a nearby normal dump of A's run, D C's baseline"),
		legendLine("degree", "(A/B)/(C/D), the F-anomaly and B-anomaly columns: how far A left B beyond the normal difference C/D; 1.000 is none"),
	}
	if f.flag {
		out = append(out, legendLine("F! B!", "the forward / backward degree is flagged: this row diverges"))
	}
	if f.nonFinite {
		out = append(out, legendLine("F!∞ B!∞", "A turns NaN/Inf where the baseline is finite"))
	}
	if f.dash {
		out = append(out, legendLine("-", "no value: the row could not be aligned in that group, or the group is missing"))
	}
	return out
}

// quadFlags says which marks four-group rows use.
type quadFlags struct{ flag, nonFinite, dash bool }

// merge notes the marks a row's cells draw (quadCell).
func (q *quadFlags) merge(r *model.MetricRow) {
	q.flag = q.flag || r.FFlag || r.BFlag
	q.nonFinite = q.nonFinite || r.FNonFinite || r.BNonFinite
	for c := 0; c < numQuadCols && !q.dash; c++ {
		q.dash = quadPtr(r, c) == nil
	}
}

// colsLegend explains the column indicator when the table scrolls.
func colsLegend(t *table, width int) []string {
	if t.colsInfo(width) == "" {
		return nil
	}
	return []string{legendLine("cols ▸ ◂", "more columns to the right / left: ← → (h l) move the column cursor and scroll")}
}

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

func (p *phase3Pane) marks() []string {
	r := p.result()
	if r == nil {
		return nil
	}
	out := []string{
		legendLine("▶ ◀", "in the L column: where the forward / backward divergence starts for the metric shown"),
		legendLine("← trace this first", "the direction that diverges first: where the root cause is"),
	}
	if p.flags == nil {
		p.flags = &quadFlags{}
		for _, a := range r.Anchors {
			for _, lr := range a.Layers {
				for _, m := range lr.Metrics {
					p.flags.merge(&m)
				}
			}
		}
	}
	out = append(out, degreeLegend(*p.flags)...)
	out = append(out, legendLine("peak", "the layer of the largest degree of a direction, over every metric: its metric is named"))
	return append(out, colsLegend(&p.tbl, p.width)...)
}

func (p *drillPane) marks() []string {
	out := []string{
		legendLine("◆", "the drill-down operator: the first of the layer to diverge"),
		legendLine("!", "a flagged operator (its degree diverges)"),
	}
	if p.flags == nil || p.flagsOf != len(p.ops) { // the ops arrive later (setOps)
		p.flags, p.flagsOf, p.unaligned = &quadFlags{}, len(p.ops), false
		for i := range p.ops {
			for _, m := range p.ops[i].Metrics {
				p.flags.merge(&m)
			}
			p.unaligned = p.unaligned || !p.ops[i].Aligned
		}
	}
	f := *p.flags
	if p.unaligned {
		out = append(out, legendLine("(unaligned) ≠", "the operator has no counterpart in B: it is not compared"))
	}
	out = append(out, legendLine("L3 fwd.0", "layer 3 (the module path every name shares and the class are left out), the pass and its call"))
	out = append(out, degreeLegend(f)...)
	return append(out, colsLegend(&p.tbl, p.width)...)
}

func (p *chainPane) marks() []string {
	return []string{
		legendLine("◆", "the operator itself; ↑1 ↑2 … the operators computed before it, nearest first"),
		legendLine("same", "agrees with B · F!/B! diverges · unaligned: no counterpart in B · outside: not in this layer's list"),
	}
}

func (s *seriesPane) marks() []string {
	heat := "each cell the largest value of its steps on that rank, "
	if s.st.NoColor || len(s.st.Ramp) == 0 {
		heat += "shades " + string(shadeRunes) + " from low to high"
	} else {
		var b strings.Builder
		for _, c := range s.st.Ramp {
			b.WriteString(lipgloss.NewStyle().Foreground(c).Render("█"))
		}
		heat += "colours " + b.String() + " from low to high"
	}
	out := []string{legendLine("▲", "the candidate's step")}
	// the NaN mark only when the chart or the heat map draws one (the heat
	// map's scale note then says "× NaN")
	if strings.Contains(strings.Join(s.chartLines, "\n"), nanRune) || strings.Contains(strings.Join(s.cache, "\n"), nanRune+" NaN/Inf") {
		out = append(out, legendLine(nanRune, "a NaN/Inf value"))
	}
	rank := "▸r"
	if s.a != nil {
		rank += strconv.Itoa(s.a.Rank)
	}
	return append(out, legendLine(rank, "the candidate's rank"), legendLine("heat map", heat))
}

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
