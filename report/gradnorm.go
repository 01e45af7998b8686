package report

import (
	"math"
	"strconv"
	"strings"

	"spikescope/model"
)

// The "where did the grad norm come from" section: the global gradient
// norm per rank around the root step, as the training log prints one
// number per step, and the share of its increase by parameter, layer and
// rank (model.GradNorm).

// gradNormTop is how many parts each share table lists before "others".
const gradNormTop = 5

// gradNormRankColumns is the most ranks shown one column each; more show
// the largest, median and smallest.
const gradNormRankColumns = 8

// gradNorm writes the section (nothing without the view).
func (r *renderer) gradNorm() {
	g := r.in.GradNorm
	if g == nil {
		return
	}
	r.heading(2, r.t("gn.title"))
	if !g.StepsKnown {
		r.line(r.t("gn.steps.unknown"))
		return
	}
	r.line(r.gradNormWhat(g))
	r.table(r.gradNormTable(g))
	r.gradNormFigure(g)
	root := g.RootShare()
	if root == nil {
		r.line(r.t("gn.noroot"))
		return
	}
	r.gradNormStep(g, root)
	if pk := g.Peak(); pk >= 0 && pk != g.RootIndex() {
		r.line(r.tf("gn.peak", g.Steps[pk]))
		r.gradNormStep(g, &g.Shares[pk])
	}
}

// gradNormStep says how one step's Σ n² compares with the reference level
// and, when it rose, how the increase splits.
func (r *renderer) gradNormStep(g *model.GradNorm, sh *model.GradNormShare) {
	switch sh.Outcome {
	case model.ShareNoReference:
		r.line(r.tf("gn.noref", sh.Step))
	case model.ShareNonFinite:
		var where []string
		for _, p := range sh.NonFiniteParts {
			where = append(where, r.tf("gn.rank", p.Rank)+" "+code(p.Param))
		}
		if sh.NonFiniteCount > len(sh.NonFiniteParts) {
			where = append(where, "…")
		}
		r.line(r.tf("gn.nonfinite", sh.Step, sh.NonFiniteCount, strings.Join(where, ", ")))
	case model.ShareDecrease:
		r.line(r.tf("gn.decrease", model.StepList(sh.Reference), num(float64(sh.RefSq)), sh.Step, num(float64(sh.RootSq))))
	case model.ShareIncrease:
		r.line(r.tf("gn.increase", model.StepList(sh.Reference), sh.Step, num(float64(sh.RefSq)), num(float64(sh.RootSq)),
			num(math.Sqrt(float64(sh.RefSq))), num(math.Sqrt(float64(sh.RootSq))), ratio(math.Sqrt(float64(sh.RootSq/sh.RefSq)))))
		r.line("**" + r.gradNormMoved(sh) + "**")
		r.gradNormShares(g, sh)
		if sh.Uncompared > 0 {
			r.line(r.tf("gn.uncompared", sh.Uncompared))
		}
	}
}

// gradNormWhat says what the numbers are and what they cannot know.
func (r *renderer) gradNormWhat(g *model.GradNorm) string {
	params := g.MostParams()
	cum := ""
	if p1 := r.in.P1; p1 != nil && p1.DataKind == "micro_step" && p1.Sharding.AccumulationWindow != 1 {
		cum = r.t("gn.cum")
	}
	s := r.tf("gn.what", params, code(g.Metric), cum)
	switch g.Metric {
	case "grad_unreduced":
		s += " " + r.t("gn.unreduced")
	case "grad_reduced":
		s += " " + r.t("gn.reduced")
	}
	if g.Reduced != nil {
		s += " " + r.tf("gn.reduced.what", model.StepList(g.ReducedRanks))
	}
	if len(g.ModelRanks) > 0 {
		var rs []string
		for _, x := range g.ModelRanks {
			rs = append(rs, strconv.Itoa(x))
		}
		return s + " " + r.tf("gn.stages", len(g.StageRanks), "rank "+strings.Join(rs, ", "))
	}
	return s + " " + r.t("gn.whole")
}

// gradNormTable is one row per step: the model's norm with stages, then
// every rank (few ranks) or the largest, median and smallest.
func (r *renderer) gradNormTable(g *model.GradNorm) *table {
	t := &table{header: []string{r.t("gn.step")}}
	if g.Reduced != nil {
		t.header = append(t.header, r.t("gn.reduced.col"))
	}
	if g.Model != nil {
		t.header = append(t.header, r.t("gn.model"))
	}
	few := len(g.Ranks) <= gradNormRankColumns
	if few {
		for _, rk := range g.Ranks {
			t.header = append(t.header, r.tf("gn.rank", rk))
		}
	} else {
		t.header = append(t.header, r.t("gn.max"), r.t("gn.median"), r.t("gn.min"))
	}
	for i, s := range g.Steps {
		step := strconv.Itoa(s)
		if g.Root != nil && s == *g.Root {
			step = "**" + r.tf("gn.root", s) + "**"
		}
		row := []string{step}
		if g.Reduced != nil {
			row = append(row, num(float64(g.Reduced[i])))
		}
		if g.Model != nil {
			row = append(row, num(float64(g.Model[i])))
		}
		if few {
			for j := range g.Ranks {
				c := num(float64(g.Norm[i][j]))
				if g.Params[i][j] == 0 {
					c = "—"
				} else if n := g.NonFinite[i][j]; n > 0 {
					c += r.tf("gn.nan.row", n)
				}
				row = append(row, c)
			}
		} else {
			hi, med, lo := rankSpread(g, i)
			row = append(row, hi, med, lo)
		}
		t.add(row...)
	}
	return t
}

// rankSpread is the largest (with its rank), median and smallest norm of
// the ranks with rows at step i; a non-finite norm counts as the largest.
func rankSpread(g *model.GradNorm, i int) (hi, med, lo string) {
	h, l, m, ok := g.RankSpread(i)
	if !ok {
		return "—", "—", "—"
	}
	at := func(x model.RankValue) string { return num(x.Norm) + " (" + strconv.Itoa(x.Rank) + ")" }
	return at(h), num(m), at(l)
}

// gradNormLayer names a layer part: "L3", stage-local "L1 (stage 1's own
// number)", or the parameters outside the layers.
func (r *renderer) gradNormLayer(p *model.GradNormPart) string {
	switch {
	case p.Layer < 0:
		return r.t("gn.outside")
	case p.GlobalLayer:
		return "L" + strconv.Itoa(p.Layer)
	}
	l := "L" + strconv.Itoa(p.Layer)
	if p.VPP > 0 {
		l = "vpp" + strconv.Itoa(p.VPP) + ":" + l
	}
	if p.Stage >= 0 {
		return r.tf("gn.local", l, p.Stage)
	}
	return l
}

// gradNormMoved is the one sentence that says what moved.
func (r *renderer) gradNormMoved(sh *model.GradNormShare) string {
	m, p := sh.Moved()
	onRank := ""
	if top := sh.ByRank; m != model.MovedRank && len(top) > 0 && float64(top[0].Share) > model.DominantShare {
		onRank = r.tf("gn.onrank", top[0].Rank, model.ShareText(top[0].Share))
	}
	switch m {
	case model.MovedParam:
		return r.tf("gn.moved.param", code(p.Param), model.ShareText(p.Share)) + onRank
	case model.MovedLayer:
		return r.tf("gn.moved.layer", r.gradNormLayer(p), model.ShareText(p.Share)) + onRank
	case model.MovedRank:
		return r.tf("gn.moved.rank", p.Rank, model.ShareText(p.Share))
	}
	return r.tf("gn.moved.spread", model.ShareText(sh.ByParam[0].Share), model.ShareText(sh.ByLayer[0].Share), model.ShareText(sh.ByRank[0].Share))
}

// gradNormShares writes the three share tables, the largest parts first
// and the rest in one row, so that each sums to 100%.
func (r *renderer) gradNormShares(g *model.GradNorm, sh *model.GradNormShare) {
	rest := func(t *table, parts []model.GradNormPart, cols int) {
		if len(parts) <= gradNormTop {
			return
		}
		s := model.Float(0)
		for _, p := range parts[gradNormTop:] {
			s += p.Share
		}
		row := []string{r.tf("gn.others", len(parts)-gradNormTop)}
		for range cols - 2 {
			row = append(row, "—")
		}
		t.add(append(row, model.ShareText(s))...)
	}
	tp := &table{header: []string{r.t("gn.param"), r.t("gn.layer"), r.t("gn.ranks"), r.t("gn.share")}}
	for _, p := range sh.ByParam[:min(gradNormTop, len(sh.ByParam))] {
		tp.add(code(p.Param), r.gradNormLayer(&p), strconv.Itoa(p.Ranks), model.ShareText(p.Share))
	}
	rest(tp, sh.ByParam, 4)
	r.table(tp)
	tl := &table{header: []string{r.t("gn.layer"), r.t("gn.ranks"), r.t("gn.share")}}
	for _, p := range sh.ByLayer[:min(gradNormTop, len(sh.ByLayer))] {
		tl.add(r.gradNormLayer(&p), strconv.Itoa(p.Ranks), model.ShareText(p.Share))
	}
	rest(tl, sh.ByLayer, 3)
	r.table(tl)
	hdr := []string{"rank", r.t("gn.share")}
	if g.StageRanks != nil {
		hdr = []string{"rank", r.t("gn.stage"), r.t("gn.share")}
	}
	tr := &table{header: hdr}
	for _, p := range sh.ByRank[:min(gradNormTop, len(sh.ByRank))] {
		if g.StageRanks != nil {
			tr.add(strconv.Itoa(p.Rank), stageOfRank(g, p.Rank), model.ShareText(p.Share))
		} else {
			tr.add(strconv.Itoa(p.Rank), model.ShareText(p.Share))
		}
	}
	rest(tr, sh.ByRank, len(hdr))
	r.table(tr)
}

// stageOfRank is the pipeline stage holding rank, "" when unknown.
func stageOfRank(g *model.GradNorm, rank int) string {
	for s, rs := range g.StageRanks {
		for _, x := range rs {
			if x == rank {
				return strconv.Itoa(s)
			}
		}
	}
	return ""
}
