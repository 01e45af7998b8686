package report

import (
	"slices"
	"sort"
	"strconv"
	"strings"

	"spikescope/analysis"
	"spikescope/model"
)

// mainMetric is the Phase 3 table's main column (the seed: 主列 Norm).
const mainMetric = "Norm"

// maxDrillOps caps the drill-down operator table; longer layers show only
// flagged and unaligned operators.
const maxDrillOps = 30

// metricOrder lists the metrics of a map: Norm, Max, Min, Mean, then any
// other name alphabetically (deterministic output).
func metricOrder[V any](m map[string]V) []string {
	rank := map[string]int{"Norm": 0, "Max": 1, "Min": 2, "Mean": 3}
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		ri, oki := rank[out[i]]
		rj, okj := rank[out[j]]
		switch {
		case oki && okj:
			return ri < rj
		case oki != okj:
			return oki
		}
		return out[i] < out[j]
	})
	return out
}

func (r *renderer) phase3() {
	r.heading(2, r.t("p3.title"))
	p3 := r.in.P3
	if p3 == nil {
		if r.noCoordinate() {
			r.line(r.t("p3.notrun.nocoord"))
		} else {
			r.line(r.t("p3.notrun"))
		}
		if c := oneLine(r.in.Control); c != "" {
			r.line(r.t("p3.control") + " " + c)
		}
		return
	}
	r.groups(p3)
	for i := range p3.Anchors {
		r.anchorTable(&p3.Anchors[i], i+1)
		r.anchorFigures(&p3.Anchors[i], &p3.DivergenceSummary)
	}
	if len(p3.Anchors) == 0 {
		r.line(r.t("p3.noanchors"))
	}
	ds := &p3.DivergenceSummary
	r.line(r.t("p3.t2"))
	if len(ds.Directions) == 0 {
		r.line(r.t("p3.nodirs"))
	} else {
		t := &table{header: []string{r.t("h.dir"), r.t("h.verdict"), r.t("h.start"), r.t("h.peak"), r.t("h.evidence")}}
		for _, d := range ds.Directions {
			t.add(r.dirName(d.Direction), r.dirVerdict(d.Verdict), r.startText(d), r.peakText(d), r.dirEvidence(d))
		}
		r.table(t)
	}
	r.divergenceLines(ds)
	r.thresholds(ds)
	r.drilldown(ds.Drilldown)
	r.drillFigure(ds.Drilldown)
	r.notes(nil, p3.Warnings)
	r.writeConclusion(r.phase3Conclusion(p3))
}

// groups prints which dump is which group and how C was chosen.
func (r *renderer) groups(p3 *model.Phase3Result) {
	t := &table{header: []string{r.t("h.group"), r.t("h.role"), r.t("h.path")}}
	for _, g := range []string{"A", "B", "C", "D"} {
		p := p3.Dirs[g]
		switch {
		case p == "":
			p = r.t("c.notgiven")
		case r.zh && strings.HasSuffix(p, model.StandInPath):
			p = code(strings.TrimSuffix(p, model.StandInPath)) + r.t("p3.standinpath")
		default:
			p = code(p)
		}
		t.add(g, r.t("role."+g), p)
	}
	r.table(t)
	control := oneLine(p3.ControlChoice)
	if control == "" {
		control = oneLine(r.in.Control)
	}
	if control != "" {
		r.line(r.t("p3.control") + " " + control)
	}
	if len(p3.ControlCandidates) > 0 {
		r.line(r.t("p3.ccands"))
		t := &table{header: []string{"Step", "Rank", r.t("h.gradnorm"), r.t("h.profile"), r.t("h.samelayers"), r.t("h.hasd"), r.t("h.accepted"), r.t("h.reason")}}
		for i, c := range p3.ControlCandidates {
			if i == r.max {
				break
			}
			t.add(strconv.Itoa(c.Step), strconv.Itoa(c.Rank), num(float64(c.GradNorm)), numOr(c.ProfileDistance, r.t("c.nocompare")), r.yesNo(c.SameLayers), r.yesNo(c.HasD),
				r.yesNo(c.Accepted), c.Reason)
		}
		r.table(t)
		if n := len(p3.ControlCandidates); n > r.max {
			r.line(r.tf("more.rows", r.max, n, n-r.max))
		}
	}
	if p3.Degraded {
		note := r.t("p3.degraded")
		// The analysis' standard note says what the translated line says;
		// only a different note (e.g. C compared in B's place) is added.
		standard := p3.DegradedNoteReason == model.Reason(model.P3NoControlGroup{}) ||
			strings.EqualFold(strings.TrimSuffix(oneLine(p3.DegradedNote), "."), "no control group: A/B may include device bias")
		if s := oneLine(p3.DegradedNote); s != "" && !standard {
			note += " (" + s + ")"
		}
		r.line("> " + note)
	}
	if w := p3.AnchorWarning; w != nil {
		r.line("> " + r.tf("p3.anchorwarn", w.AnchorsFound) + " " + oneLine(w.Message))
	}
	if len(p3.AnchorsUsed) > 0 {
		names := make([]string, len(p3.AnchorsUsed))
		for i, a := range p3.AnchorsUsed {
			names[i] = code(a)
		}
		r.line(r.t("p3.anchors") + " " + strings.Join(names, ", "))
	}
}

// shownLayers picks the rows of a long layer table: all of them up to
// maxFullLayers, else flagged/unaligned layers with layerContext neighbours.
func shownLayers(rows []model.LayerRow, interesting func(*model.LayerRow) bool) []bool {
	show := make([]bool, len(rows))
	if len(rows) <= maxFullLayers {
		for i := range show {
			show[i] = true
		}
		return show
	}
	for i := range rows {
		if interesting(&rows[i]) {
			for j := max(0, i-layerContext); j <= min(len(rows)-1, i+layerContext); j++ {
				show[j] = true
			}
		}
	}
	return show
}

// unaligned reports whether a layer row could not be compared in a direction
// (its A/B ratio is missing while some group has a value).
func unaligned(m model.MetricRow, fwd bool) bool {
	q, ab := m.Fwd, m.FAB
	if !fwd {
		q, ab = m.Bwd, m.BAB
	}
	return ab == nil && (q.A != nil || q.B != nil || q.C != nil || q.D != nil)
}

func mainRow(l *model.LayerRow) model.MetricRow {
	if m, ok := l.Metrics[mainMetric]; ok {
		return m
	}
	for _, k := range metricOrder(l.Metrics) {
		return l.Metrics[k]
	}
	return model.MetricRow{}
}

// flagCell is an anomaly degree with its flag mark; why stands for a
// missing degree.
func flagCell(v *model.Float, flag bool, mark, why string) string {
	s := ratioOr(v, why)
	if flag {
		if v == nil {
			return "`" + mark + "`"
		}
		s += " `" + mark + "`"
	}
	return s
}

// anchorTable is the seed's Phase 3 table 1 for one anchor.
// anchorMetric is the metric an anchor's table and plot show: Norm, else
// the first metric its layers have.
func anchorMetric(a *model.AnchorTable) string {
	if len(a.Layers) > 0 {
		if _, ok := a.Layers[0].Metrics[mainMetric]; !ok {
			if ks := metricOrder(a.Layers[0].Metrics); len(ks) > 0 {
				return ks[0]
			}
		}
	}
	return mainMetric
}

func (r *renderer) anchorTable(a *model.AnchorTable, n int) {
	metric := anchorMetric(a)
	formula := r.t("p3.formula")
	if r.in.P3.Degraded {
		formula = r.t("p3.formula.degraded")
	}
	r.line(r.tf("p3.t1", n, code(a.Name), metric, formula))
	lh := "L"
	if ds := r.in.P3.DumpStage; ds != nil {
		r.line(r.stageText(ds))
		if ds.LayerOffset != nil && *ds.LayerOffset > 0 {
			lh = r.t("h.layerpp")
		}
	}
	t := &table{header: []string{lh, "F_A", "F_B", "F_C", "F_D", "F_A/B", "F_C/D", r.t("h.fanom"),
		"B_A", "B_B", "B_C", "B_D", "B_A/B", "B_C/D", r.t("h.banom")}}
	show := shownLayers(a.Layers, func(l *model.LayerRow) bool {
		m := mainRow(l)
		return m.FFlag || m.BFlag || unaligned(m, true) || unaligned(m, false)
	})
	hidden := 0
	for i := range a.Layers {
		if !show[i] {
			hidden++
			continue
		}
		l := &a.Layers[i]
		m := mainRow(l)
		ll := layerLabel(l)
		if l.GlobalLayer != nil {
			ll += " (" + strconv.Itoa(*l.GlobalLayer) + ")"
		}
		fc, fwhy := r.quadCells(m.Fwd, m.FAB, m.FCD)
		bc, bwhy := r.quadCells(m.Bwd, m.BAB, m.BCD)
		row := append([]string{ll}, fc...)
		row = append(row, nfFlagCell(m.FAnomaly, m.FFlag, m.FNonFinite, "F!", fwhy))
		row = append(row, bc...)
		t.add(append(row, nfFlagCell(m.BAnomaly, m.BFlag, m.BNonFinite, "B!", bwhy))...)
	}
	standInTable(t, standIn(r.in.P3))
	if len(a.Layers) == 0 {
		r.line(r.t("p3.nolayers"))
	} else {
		r.table(t)
	}
	if hidden > 0 {
		r.line(r.tf("p3.hidden", hidden))
	}
	// Notes: the other metrics where they flag, and why layers are unaligned.
	var notes []string
	for _, k := range []string{"Max", "Min", "Mean"} {
		if k == metric {
			continue
		}
		var fw, bw []string
		for i := range a.Layers {
			m, ok := a.Layers[i].Metrics[k]
			if !ok {
				continue
			}
			if m.FFlag {
				fw = append(fw, layerName(&a.Layers[i])+" ("+ratioOr(m.FAnomaly, r.t("none"))+")")
			}
			if m.BFlag {
				bw = append(bw, layerName(&a.Layers[i])+" ("+ratioOr(m.BAnomaly, r.t("none"))+")")
			}
		}
		if len(fw)+len(bw) > 0 {
			notes = append(notes, r.tf("p3.metricnote", k, joinOr(fw, r.t("none")), joinOr(bw, r.t("none"))))
		}
	}
	var un []string
	for i := range a.Layers {
		l := &a.Layers[i]
		m := mainRow(l)
		if unaligned(m, true) || unaligned(m, false) || len(l.Alignment.Reasons) > 0 {
			why := strings.Join(l.Alignment.Reasons, "; ")
			if why == "" {
				why = r.t("p3.unaligned.noreason")
			}
			un = append(un, layerName(l)+": "+why)
		}
	}
	if len(un) > 0 {
		notes = append(notes, r.t("p3.unalignednote")+" "+strings.Join(un, "; "))
	}
	if bands, ok := a.Thresholds[metric]; ok {
		var parts []string
		for _, d := range []string{"fwd", "bwd"} {
			if b, ok := bands[d]; ok {
				parts = append(parts, r.dirName(d)+" ["+ratio(float64(b.Lower))+", "+ratio(float64(b.Upper))+"]")
			}
		}
		if len(parts) > 0 {
			notes = append(notes, r.tf("p3.anchorband", metric, strings.Join(parts, ", ")))
		}
	}
	if c := a.Conclusion; c.EarliestFwdDivergence != nil || c.EarliestBwdDivergence != nil ||
		len(c.UncomparedLayers.Fwd)+len(c.UncomparedLayers.Bwd) > 0 {
		notes = append(notes, r.tf("p3.anchorconcl", r.layer(c.EarliestFwdDivergence), r.layer(c.EarliestBwdDivergence),
			layerList(c.UncomparedLayers.Fwd, r.noLayers()), layerList(c.UncomparedLayers.Bwd, r.noLayers())))
	}
	for _, n := range notes {
		r.bullet(n)
	}
	if len(notes) > 0 {
		r.endList()
	}
}

func joinOr(s []string, none string) string {
	if len(s) == 0 {
		return none
	}
	return strings.Join(s, ", ")
}

func (r *renderer) dirName(d string) string {
	switch strings.ToLower(d) {
	case "fwd", "forward", "前向":
		return r.t("fwd")
	case "bwd", "backward", "反向":
		return r.t("bwd")
	}
	return d
}

func isFwd(d string) bool {
	d = strings.ToLower(d)
	return d == "fwd" || d == "forward" || d == "前向"
}

func (r *renderer) dirVerdict(v string) string {
	switch strings.ToLower(v) {
	case "divergent":
		return r.t("v.divergent")
	case "consistent":
		return r.t("v.consistent")
	case "undetermined":
		return r.t("v.undetermined")
	}
	return v
}

func (r *renderer) startText(d model.DirectionVerdict) string {
	if d.Start == nil {
		return r.t("none")
	}
	why := r.t("start.bwd")
	if isFwd(d.Direction) {
		why = r.t("start.fwd")
	}
	if r.zh { // the seed's form: L4（浅→深第一个 `F!`）
		return r.layer(d.Start) + "（" + why + "）"
	}
	return r.layer(d.Start) + " (" + why + ")"
}

func (r *renderer) peakText(d model.DirectionVerdict) string {
	if d.Peak == nil {
		return r.t("none")
	}
	s := r.layer(d.Peak)
	if d.PeakValue != nil {
		s += " (" + ratio(float64(*d.PeakValue)) + ")"
	}
	return s
}

func (r *renderer) dirEvidence(d model.DirectionVerdict) string {
	mark := "B!"
	if isFwd(d.Direction) {
		mark = "F!"
	}
	s := "`" + mark + "` " + layerList(d.Flagged, r.t("none"))
	if len(d.Unaligned) > 0 {
		s += "; " + r.t("unaligned") + " " + layerList(d.Unaligned, "")
	}
	if d.P0 {
		s += "; " + r.t("tracefirst")
	}
	if d.Amplified {
		s += "; " + r.t("amplified")
	}
	if f := oneLine(d.FirstNonFinite); f != "" {
		s += "; " + r.t("firstnonfinite") + " " + f
	}
	if n := oneLine(d.Note); n != "" {
		s += "; " + n
	}
	return s
}

// divergenceLines are the lines the seed says a Phase 3 conclusion must
// quote: per-metric starts, the earliest divergence, uncompared_layers, and
// whether the other metrics were checked for an earlier start.
func (r *renderer) divergenceLines(ds *model.DivergenceSummary) {
	r.line("**" + r.t("p3.starts") + "**")
	for _, k := range metricOrder(ds.MetricStarts) {
		ms := ds.MetricStarts[k]
		s := k + ": " + r.t("fwd") + " " + r.layer(ms.FwdStart) + ", " + r.t("bwd") + " " + r.layer(ms.BwdStart)
		if len(ms.FwdMainSegment)+len(ms.BwdMainSegment) > 0 {
			s += " (" + r.tf("p3.mainseg", r.segText(ms.FwdMainSegment), r.segText(ms.BwdMainSegment)) + ")"
		}
		r.bullet(s)
	}
	if len(ds.MetricStarts) == 0 {
		r.bullet(r.t("none"))
	}
	r.endList()
	r.bullet(r.tf("p3.earliest", r.layer(ds.EarliestFwdDivergence), r.layer(ds.EarliestBwdDivergence)))
	r.bullet(r.tf("p3.uncompared", layerList(ds.UncomparedLayers.Fwd, r.noLayers()), layerList(ds.UncomparedLayers.Bwd, r.noLayers())))
	if ds.IteratedMetrics {
		r.bullet(r.t("p3.iterated"))
		var dirs []string
		for d := range ds.IterationPath {
			dirs = append(dirs, d)
		}
		sort.Slice(dirs, func(i, j int) bool {
			if isFwd(dirs[i]) != isFwd(dirs[j]) {
				return isFwd(dirs[i])
			}
			return dirs[i] < dirs[j]
		})
		for _, d := range dirs {
			if p := ds.IterationPath[d]; len(p) > 0 {
				r.bullet(r.t("p3.iterpath") + " " + r.dirName(d) + ": " + strings.Join(p, " → "))
			}
		}
	} else {
		r.bullet(r.t("p3.notiterated"))
	}
	if len(ds.Disagreements) > 0 {
		r.bullet(r.t("p3.disagree") + " " + strings.Join(ds.Disagreements, "; "))
	}
	if df := ds.DataFeature; df != nil {
		s := r.t("p3.datafeature") + " " + r.featureVerdict(df.Verdict)
		if d := oneLine(df.Detail); d != "" {
			s += " (" + d + "; " + r.t("p3.df.baseline") + " " + r.featureBaseline(df.Baseline) + ")"
		}
		r.bullet(s)
	}
	r.endList()
}

// noLayers is an empty layer list: the method's "[]" in the Chinese
// report (its headers and notation), "none" in the English one.
func (r *renderer) noLayers() string {
	if r.zh {
		return "[]"
	}
	return r.t("none")
}

// segText is a layer segment ("L2-L3"), or none in words.
func (r *renderer) segText(s []int) string {
	if len(s) == 0 {
		return r.t("none")
	}
	return prefixedRange(s, "L")
}

// thresholds prints the control bands the flags came from.
func (r *renderer) thresholds(ds *model.DivergenceSummary) {
	if len(ds.Thresholds) == 0 {
		return
	}
	r.line("**" + r.t("p3.bands") + "**")
	t := &table{header: []string{r.t("h.metric"), r.t("h.dir"), r.t("h.median"), "IQR", r.t("h.lower"), r.t("h.upper"),
		r.t("h.samples"), r.t("h.usable")}}
	var rules []string
	for _, k := range metricOrder(ds.Thresholds) {
		dirs := ds.Thresholds[k]
		var names []string
		for d := range dirs {
			names = append(names, d)
		}
		sort.Slice(names, func(i, j int) bool { // fwd before bwd
			if isFwd(names[i]) != isFwd(names[j]) {
				return isFwd(names[i])
			}
			return names[i] < names[j]
		})
		for _, d := range names {
			b := dirs[d]
			usable := r.t("yes")
			if !b.Usable {
				usable = r.t("no")
			}
			if n := oneLine(b.Note); n != "" {
				usable += " (" + n + ")"
			}
			// a band without control ratios has no numbers (NaN: not
			// computed, unlike a recorded NaN): none, says the cell
			none := r.t("none")
			t.add(k, r.dirName(d), ratioNaN(b.Median, none), numNaN(b.IQR, none), ratioNaN(b.Lower, none),
				ratioNaN(b.Upper, none), strconv.Itoa(b.Samples), usable)
			if rule := oneLine(b.Rule); rule != "" && !slices.Contains(rules, rule) {
				rules = append(rules, rule)
			}
		}
	}
	r.table(t)
	sort.Strings(rules)
	for _, rule := range rules {
		r.bullet(r.t("p3.bandrule") + " " + rule)
	}
	if len(rules) > 0 {
		r.endList()
	}
}

// drilldown prints the operator-level drill-down of the start layer.
func (r *renderer) drilldown(d *model.Drilldown) {
	r.line("**" + r.t("p3.drill") + "**")
	if d == nil {
		r.line(r.t("p3.nodrill"))
		return
	}
	dir := r.dirName(d.Direction)
	op := r.t("none")
	if d.Operator != "" {
		op = code(d.Operator)
	}
	r.bullet(r.tf("p3.drill.at", dir, r.layer(d.Layer), op, d.Metric))
	if d.Call != nil && d.Calls > 1 {
		r.bullet(r.tf("p3.drill.call", *d.Call+1, d.Calls))
	}
	if len(d.Chain) > 0 {
		parts := make([]string, len(d.Chain))
		for i, c := range d.Chain {
			parts[i] = code(c)
		}
		r.bullet(r.t("p3.chain") + " " + strings.Join(parts, " ← "))
	}
	if d.Largest != "" && d.Largest != d.Operator {
		r.bullet(r.t("p3.largest") + " " + code(d.Largest))
	}
	if n := oneLine(d.Note); n != "" {
		r.bullet(n)
	}
	r.endList()
	if len(d.Ops) == 0 {
		return
	}
	fwd := isFwd(d.Direction)
	t := &table{header: []string{"#", r.t("h.op"), "A", "B", "C", "D", "A/B", "C/D", r.t("h.anom")}}
	hidden := 0
	for _, o := range d.Ops {
		if len(d.Ops) > maxDrillOps && !o.Flagged && o.Aligned {
			hidden++
			continue
		}
		m := o.Metrics[d.Metric]
		q, ab, cd, an, mark, nf := m.Fwd, m.FAB, m.FCD, m.FAnomaly, "F!", m.FNonFinite
		if !fwd {
			q, ab, cd, an, mark, nf = m.Bwd, m.BAB, m.BCD, m.BAnomaly, "B!", m.BNonFinite
		}
		name := code(o.Key)
		if o.Key == d.Operator {
			name = "**" + name + "**"
		}
		cells, why := r.quadCells(q, ab, cd)
		an2 := nfFlagCell(an, o.Flagged, nf, mark, why)
		if !o.Aligned {
			an2 = r.t("unaligned")
		}
		t.add(append(append([]string{strconv.Itoa(o.Order), name}, cells...), an2)...)
	}
	standInTable(t, standIn(r.in.P3))
	r.table(t)
	if hidden > 0 {
		r.line(r.tf("p3.hiddenops", hidden))
	}
}

// p3Conclusion is the conclusion of the report's Phase 3, the one the
// pipeline read (the same reading for an Input built by hand).
func (r *renderer) p3Conclusion() *model.Phase3Conclusion {
	if c := r.in.P3.Conclusion; c != nil {
		return c
	}
	return analysis.ConcludePhase3(r.in.P3)
}

func (r *renderer) phase3Conclusion(p3 *model.Phase3Result) conclusion {
	var c conclusion
	ds := &p3.DivergenceSummary
	pc := r.p3Conclusion()
	fwd, bwd, uncompared := pc.Fwd, pc.Bwd, pc.Uncompared
	fStart, bStart := pc.FwdStart, pc.BwdStart
	switch pc.Verdict {
	case model.VerdictForward:
		c.problem = []string{r.tf("p3c.fwd", r.layer(fStart))}
		if pc.BwdDivergent {
			c.problem = append(c.problem, r.tf("p3c.alsobwd", r.layer(bStart)))
		}
	case model.VerdictBackward:
		c.problem = []string{r.tf("p3c.bwdonly", r.layer(bStart))}
		if pc.ForwardUnsure {
			c.problem = append(c.problem, r.t("p3c.fwdunsure"))
		}
	case model.VerdictUndetermined:
		c.problem = []string{r.t("p3c.undetermined")}
	default:
		c.problem = []string{r.t("p3c.consistent")}
	}
	for _, d := range []*model.DirectionVerdict{fwd, bwd} {
		if d != nil && d.P0 && d.FirstNonFinite != "" {
			c.problem = append(c.problem, r.tf("p3c.nonfinite", r.dirName(d.Direction), code(d.FirstNonFinite)))
		}
	}
	if standIn(p3) && (pc.FwdDivergent || pc.BwdDivergent) {
		c.problem = append(c.problem, r.t("p3c.standin"))
	}
	// Evidence: the flagged layers, the per-metric starts, the control check.
	for _, d := range []*model.DirectionVerdict{fwd, bwd} {
		if d != nil && len(d.Flagged) > 0 {
			c.evidence = append(c.evidence, r.dirName(d.Direction)+": "+r.dirEvidence(*d)+"; "+r.t("h.peak")+" "+r.peakText(*d))
		}
	}
	if len(ds.Disagreements) > 0 {
		c.evidence = append(c.evidence, r.t("p3.disagree")+" "+strings.Join(ds.Disagreements, "; "))
	}
	if ds.IteratedMetrics {
		c.evidence = append(c.evidence, r.t("p3.iterated"))
	}
	if p3.Degraded {
		c.evidence = append(c.evidence, r.t("p3.degraded"))
	} else if b, ok := ds.Thresholds[mainMetric]; ok {
		var meds []string
		for _, d := range []string{"fwd", "bwd"} {
			if band, ok := b[d]; ok {
				meds = append(meds, r.dirName(d)+" "+ratio(float64(band.Median)))
			}
		}
		if len(meds) > 0 {
			c.evidence = append(c.evidence, r.tf("p3c.control", strings.Join(meds, ", ")))
		}
	}
	if uncompared {
		c.evidence = append(c.evidence, r.tf("p3c.uncompared", layerList(ds.UncomparedLayers.Fwd, r.noLayers()), layerList(ds.UncomparedLayers.Bwd, r.noLayers())))
	}
	// Impact.
	switch pc.Verdict {
	case model.VerdictForward:
		c.impact = []string{r.t("p3c.impact.fwd")}
	case model.VerdictBackward:
		c.impact = []string{r.t("p3c.impact.bwd")}
	default:
		c.impact = []string{r.t("p3c.impact.none")}
	}
	// Suggestion.
	if d := pc.Operator; d != nil {
		s := r.tf("p3c.sugg.op", r.dirName(d.Direction), r.layer(d.Layer), code(d.Operator))
		if len(d.Chain) > 0 {
			s += r.tf("p3c.sugg.chain", code(d.Chain[len(d.Chain)-1]))
		}
		c.suggestion = append(c.suggestion, s)
	} else if pc.FwdDivergent {
		c.suggestion = append(c.suggestion, r.tf("p3c.sugg.fwd", r.layer(fStart)))
	} else if pc.BwdDivergent {
		c.suggestion = append(c.suggestion, r.tf("p3c.sugg.bwd", r.layer(bStart)))
	}
	if uncompared {
		c.suggestion = append(c.suggestion, r.t("p3c.sugg.uncompared"))
	}
	if p3.AnchorWarning != nil {
		c.suggestion = append(c.suggestion, r.t("p3c.sugg.anchors"))
	}
	if p3.Degraded {
		c.suggestion = append(c.suggestion, r.t("p3c.sugg.cd"))
	}
	if len(c.suggestion) == 0 {
		c.suggestion = []string{r.t("p3c.sugg.none")}
	}
	return c
}

// missing lists what data was missing and what to collect next.
func (r *renderer) missing() {
	var items []model.Missing
	items = append(items, r.in.Missing...)
	if r.in.P1 != nil {
		for _, m := range r.in.P1.Missing {
			items = append(items, model.Missing{What: m})
		}
	}
	r.heading(2, r.t("missing.title"))
	if len(items) == 0 {
		r.line(r.t("missing.none"))
		return
	}
	t := &table{header: []string{r.t("h.missing"), r.t("h.next")}}
	for _, m := range items {
		what, next := m.What, m.Next
		if r.zh && m.ZhWhat != "" {
			what = m.ZhWhat
		}
		if r.zh && m.ZhNext != "" {
			next = m.ZhNext
		}
		if next == "" {
			next = r.t("c.nosuggested")
		}
		t.add(what, next)
	}
	r.table(t)
}

// noCoordinate reports whether Phase 3 could not start for want of a
// root-cause coordinate (rather than of dumps).
func (r *renderer) noCoordinate() bool {
	return r.in.P1 != nil && (r.in.P2 == nil || r.in.P2.RootCauseCoordinate == nil)
}

// layerLabel is a layer's number, or its label when several layer stacks
// exist ("encoder.layers.3").
func layerLabel(l *model.LayerRow) string {
	if l.Label != "" {
		return l.Label
	}
	return strconv.Itoa(l.Layer)
}

// layerName is "L3", or the label when the layer has one.
func layerName(l *model.LayerRow) string {
	if l.Label != "" {
		return l.Label
	}
	return "L" + strconv.Itoa(l.Layer)
}

func (r *renderer) yesNo(b bool) string {
	if b {
		return r.t("yes")
	}
	return r.t("no")
}

// featureVerdict translates the data-feature check's verdicts.
func (r *renderer) featureVerdict(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "consistent":
		return r.t("df.consistent")
	case "to verify":
		return r.t("df.toverify")
	case "data not the cause":
		return r.t("df.notcause")
	case "data may be the cause":
		return r.t("df.maybecause")
	}
	return oneLine(v)
}

// featureBaseline translates the data-feature check's baseline side.
func (r *renderer) featureBaseline(v string) string {
	switch k := strings.ToLower(strings.TrimSpace(v)); k {
	case "same difference", "no difference", "unknown", "different difference":
		return r.t("df.base." + k)
	}
	return oneLine(v)
}

// stageText says which pipeline stage A's dump is: its layer numbers are
// the stage's own, and the global layer where known.
func (r *renderer) stageText(ds *model.DumpStage) string {
	var st string
	switch {
	case ds.Stage != nil && ds.Stages > 0:
		st = r.tf("p3.stage.n", *ds.Stage, ds.Stages)
	case ds.Stage != nil:
		st = r.tf("p3.stage.k", *ds.Stage)
	default:
		st = r.tf("p3.stage.pos", r.t("p3.stage."+ds.Position))
	}
	switch {
	case ds.LayerOffset != nil && *ds.LayerOffset > 0:
		st += " " + r.tf("p3.stage.off", *ds.LayerOffset)
	case ds.LayerOffset == nil:
		st += " " + r.t("p3.stage.local")
	}
	return st
}
