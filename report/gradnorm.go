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

var gradNormDict = map[string][2]string{
	"gn.title": {"全局梯度范数从哪里来", "Where did the global grad norm come from"},
	"gn.what": {"每个 rank 的范数 = 该 rank 全部 %d 个参数的 sqrt(Σ n²)，n 为 %s 中每个参数整步梯度的范数%s。请与训练日志同一步打印的全局梯度范数（grad norm）对照。",
		"Each rank's norm is sqrt(Σ n²) over its %d parameters, n being each parameter's norm of the whole step's gradient in %s%s. Compare it with the global grad norm the training log prints at the same step."},
	"gn.cum":       {"（累积梯度：取每个优化器步最后一个 micro step 的累积值）", " (the cumulative norm at each optimizer step's last micro step)"},
	"gn.unreduced": {"`grad_unreduced` 是各 rank 数据并行平均之前自己的梯度；日志打印的是平均之后的范数，通常更小。", "`grad_unreduced` is each rank's own gradient before the data-parallel average; the log prints the norm after it, usually smaller."},
	"gn.reduced":   {"`grad_reduced` 是数据并行平均之后的梯度，即优化器看到的梯度。", "`grad_reduced` is the gradient after the data-parallel average: what the optimizer sees."},
	"gn.whole": {"未发现流水线并行（PP）分段：每个 rank 持有整个模型，其范数即模型的范数。数据无法区分张量并行（TP）分片（名字与整个参数相同时，日志的范数是各分片之和，更大）。",
		"No pipeline stages were found: each rank holds the whole model, so its norm is the model's. The rows cannot tell tensor-parallel shards named like the whole parameter (the log's norm then sums the shards and is larger)."},
	"gn.stages": {"%d 个流水线分段的 rank 持有不相交的参数：模型的范数 = 每个分段取一个 rank（%s）的 sqrt(Σ n²)，见「模型」列。数据无法区分张量并行分片与数据并行副本。",
		"The ranks of the %d pipeline stages hold disjoint parameters: the model's norm is sqrt(Σ n²) over one rank of each stage (%s), the column \"model\". The rows cannot tell tensor-parallel shards from data-parallel replicas."},
	"gn.steps.unknown": {"无法确定各行所属的优化器步（累积窗口不规则）：不给出范数。", "The optimizer step of the rows could not be told (irregular accumulation windows): no norm is shown."},
	"gn.noroot":        {"没有根因步：表中为本次运行最后几步，不计算增量的分摊。", "There is no root step: the table shows the run's latest steps, and no increase is shared out."},
	"gn.step":          {"步", "step"},
	"gn.model":         {"模型", "model"},
	"gn.rank":          {"rank %d", "rank %d"},
	"gn.max":           {"最大（rank）", "largest (rank)"},
	"gn.median":        {"中位数", "median"},
	"gn.min":           {"最小（rank）", "smallest (rank)"},
	"gn.root":          {"%d（根因步）", "%d (root)"},
	"gn.nan.row":       {"（%d 个非有限值）", " (%d non-finite)"},
	"gn.nonfinite": {"第 %d 步有 %d 个参数范数为 NaN/Inf（%s）：非有限的范数本身就是答案——日志在这一步的全局范数也是 NaN/Inf；不计算分摊。",
		"At step %d, %d parameter norms are NaN or Inf (%s): a non-finite norm is the answer by itself — the log's global norm is NaN/Inf at this step; nothing is shared out."},
	"gn.decrease": {"从参考水平（第 %s 步每个参数的中位数，Σ n² = %s）到第 %d 步（Σ n² = %s），Σ n² 没有上升：没有增量可分摊。",
		"From the reference level (each parameter's median over steps %s, Σ n² = %s) to step %d (Σ n² = %s), Σ n² did not rise: there is no increase to share out."},
	"gn.noref": {"第 %d 步之前没有可作参考的步：无法计算增量。", "No step before step %d to take as the reference: the increase cannot be computed."},
	"gn.increase": {"从参考水平（第 %s 步每个参数的中位数）到第 %d 步，所有 rank 的 Σ n² 从 %s 升到 %s（合并范数 %s → %s，%s）。增量按 (rank, 参数) 的 Δn² 精确分摊，每张表的份额合计 100%%：",
		"From the reference level (each parameter's median over steps %s) to step %d, Σ n² over every rank rose from %s to %s (their norm together %s → %s, %s). The increase splits exactly into the (rank, parameter) pairs' Δn²; each table's shares sum to 100%%:"},
	"gn.uncompared":   {"%d 个 (rank, 参数) 只在一侧有有限值，未计入。", "%d (rank, parameter) pairs with a finite value on one side only are left out."},
	"gn.moved.param":  {"一个参数：%s 占增量的 %s。", "One parameter moved: %s holds %s of the increase."},
	"gn.moved.layer":  {"一层：%s 占增量的 %s。", "One layer moved: %s holds %s of the increase."},
	"gn.onrank":       {"其中 rank %d 占 %s。", " Rank %d holds %s."},
	"gn.moved.rank":   {"一个 rank：rank %d 占增量的 %s。", "One rank moved: rank %d holds %s of the increase."},
	"gn.moved.spread": {"整体上升：没有哪个参数、层或 rank 占增量的一半以上（最大：参数 %s，层 %s，rank %s）。", "Everything moved: no parameter, layer or rank holds half of the increase (largest: parameter %s, layer %s, rank %s)."},
	"gn.peak":         {"日志中的尖刺可能在第 %d 步：本窗口从根因步起 Σ n² 最大的一步。", "The log's spike is likely at step %d: the step from the root step on with the largest Σ n² in this window."},
	"fig.gn":          {"第 %s 步各 rank 的全局梯度范数（对数坐标；虚线为根因步）", "Each rank's global grad norm at steps %s (log scale; the dashed line is the root step)"},
	"fig.gn.alt":      {"第 %s 步各 rank 的全局梯度范数", "Global grad norm per rank at steps %s"},
	"fig.gn.axis":     {"范数", "norm"},
	"fig.gn.others":   {"其他 rank", "other ranks"},
	"fig.gn.root":     {"根因步", "root step"},
	"gn.reduced.col":  {"grad_reduced（日志）", "grad_reduced (log)"},
	"gn.reduced.what": {"「grad_reduced（日志）」列：模型在 `grad_reduced`（数据并行平均之后的梯度）中的范数，每个流水线分段取一个 rank（rank %s；同一分段各 rank 相同）：即训练日志在梯度裁剪前打印的数值（TP 分片与整个参数同名时除外）。", "Column \"grad_reduced (log)\": the model's norm in `grad_reduced`, the gradient after the data-parallel average, over one rank of each pipeline stage (rank %s; it is alike on every rank of a stage): the number the training log prints before clipping, unless tensor-parallel shards carry the whole parameter's name."},
	"gn.param":        {"参数", "parameter"},
	"gn.layer":        {"层", "layer"},
	"gn.ranks":        {"rank 数", "ranks"},
	"gn.share":        {"份额", "share"},
	"gn.stage":        {"PP 分段", "pipeline stage"},
	"gn.outside":      {"层外参数", "outside the layers"},
	"gn.others":       {"其余 %d 项", "%d others"},
	"gn.local":        {"%s（分段 %d 本地编号）", "%s (stage %d's own number)"},
}

func init() {
	for k, v := range gradNormDict {
		dict[k] = v
	}
}

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
