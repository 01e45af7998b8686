package report

import "spikescope/model"

// maxAnswerFigures is how many plots the answer shows beside the verdict.
const maxAnswerFigures = 3

// answer is what the report opens with: the verdict (cause, coordinate,
// layer and operator, evidence, the next step) and, in the HTML report, the
// plots that prove it. Everything after it is detail.
func (r *renderer) answer() {
	r.verdictSection()
	r.out.figureRow(func() [][2]string {
		r.small = true
		defer func() { r.small = false }()
		return r.answerFigures()
	})
	r.out.endAnswer()
}

// plot is one figure the answer may show: its caption and SVG ("" when the
// run has nothing to draw there).
type plot = func() (caption, svg string)

// answerFigures draws (caption, SVG) the plots that prove the verdict.
// It picks the plots that prove the verdict, from what the run
// has: first one per phase — Phase 1's curve of the verdict's parameter
// (else its heat map), Phase 2's growth across the root step's transition
// (else the spike events), Phase 3's layer degree plot of the direction to
// trace (else the drill-down, else the other direction) — then, when a
// phase has none, the others in that order, up to three.
func (r *renderer) answerFigures() [][2]string {
	if r.in.verdict() == nil {
		return nil
	}
	type choice struct {
		phase int
		f     plot
	}
	var all []choice
	if p := r.phase1Plot(); p != nil {
		all = append(all,
			choice{1, func() (string, string) {
				return r.tf("fig.p1.curve", code(p.s.Param), p.a.Rank) + r.windowNote(p), r.curveSVG(p)
			}},
			choice{1, func() (string, string) {
				return r.tf("fig.p1.heat", code(p.s.Param)) + r.windowNote(p), r.heatSVG(p)
			}})
	}
	if p2 := r.in.P2; p2 != nil {
		if p := judgedPair(p2); p != nil {
			if prev, next := pairNorms(r.in.P1, p); len(prev) > 0 {
				all = append(all, choice{2, func() (string, string) {
					return r.tf("fig.p2.growth", p.From, p.To, ratio(p.Threshold)), r.growthSVG(p, prev, next)
				}})
			}
		}
		if len(p2.Events) > 1 {
			all = append(all, choice{2, func() (string, string) { return r.t("fig.p2.events"), r.eventsSVG(p2) }})
		}
	}
	if p3 := r.in.P3; p3 != nil {
		if a, dir := r.answerAnchor(p3); a != nil {
			all = append(all, choice{3, func() (string, string) {
				metric := anchorMetric(a)
				return r.tf("fig.p3.layers", code(a.Name), r.dirName(dir), metric), r.layersSVG(a, &p3.DivergenceSummary, dir, metric)
			}})
		}
		if d := p3.DivergenceSummary.Drilldown; d != nil && len(d.Ops) > 0 {
			all = append(all, choice{3, func() (string, string) {
				return r.tf("fig.p3.drill", r.dirName(d.Direction), r.layer(d.Layer), d.Metric), r.drillSVG(d)
			}})
		}
		if a, dir := r.answerAnchor(p3); a != nil { // the other direction of the same anchor
			other := "bwd"
			if dir == "bwd" {
				other = "fwd"
			}
			all = append(all, choice{3, func() (string, string) {
				metric := anchorMetric(a)
				return r.tf("fig.p3.layers", code(a.Name), r.dirName(other), metric), r.layersSVG(a, &p3.DivergenceSummary, other, metric)
			}})
		}
	}
	// draw each candidate once: a plot without data is no choice
	type drawn struct {
		phase        int
		caption, svg string
	}
	var ok []drawn
	for _, c := range all {
		if caption, svg := c.f(); svg != "" {
			ok = append(ok, drawn{c.phase, caption, svg})
		}
	}
	var pick []drawn
	used := make([]bool, len(ok))
	for _, ph := range []int{1, 2, 3} {
		for i, d := range ok {
			if d.phase == ph && !used[i] {
				used[i] = true
				pick = append(pick, d)
				break
			}
		}
	}
	for i, d := range ok {
		if len(pick) >= maxAnswerFigures {
			break
		}
		if !used[i] {
			used[i] = true
			pick = append(pick, d)
		}
	}
	// in the order of the phases, whichever filled the places
	var out [][2]string
	for _, ph := range []int{1, 2, 3} {
		for _, d := range pick {
			if d.phase == ph && len(out) < maxAnswerFigures {
				out = append(out, [2]string{d.caption, d.svg})
			}
		}
	}
	return out
}

// answerAnchor is the anchor and direction the answer's Phase 3 plot
// shows: the direction to trace first (the verdict's, else the one the
// conclusion reads), on the anchor whose own earliest divergence there is
// the start layer, else the first anchor flagging that direction, else the
// first with layers.
func (r *renderer) answerAnchor(p3 *model.Phase3Result) (*model.AnchorTable, string) {
	pc := r.p3Conclusion()
	dir, start := "fwd", pc.FwdStart
	switch {
	case r.in.verdict().DirectionName() != "":
		if !isFwd(r.in.verdict().DirectionName()) {
			dir, start = "bwd", pc.BwdStart
		}
	case pc.FwdStart == nil && pc.BwdStart != nil:
		dir, start = "bwd", pc.BwdStart
	}
	fwd := dir == "fwd"
	earliest := func(a *model.AnchorTable) *int {
		if fwd {
			return a.Conclusion.EarliestFwdDivergence
		}
		return a.Conclusion.EarliestBwdDivergence
	}
	if start != nil {
		for i := range p3.Anchors {
			if e := earliest(&p3.Anchors[i]); e != nil && *e == *start {
				return &p3.Anchors[i], dir
			}
		}
	}
	for i := range p3.Anchors {
		for j := range p3.Anchors[i].Layers {
			if _, flag := degreeOf(mainRow(&p3.Anchors[i].Layers[j]), fwd); flag {
				return &p3.Anchors[i], dir
			}
		}
	}
	for i := range p3.Anchors {
		if len(p3.Anchors[i].Layers) > 0 {
			return &p3.Anchors[i], dir
		}
	}
	return nil, dir
}
