package analysis

import (
	"math"
	"sort"

	"spikescope/model"
)

// Phase 3 divergence summary: the anchors combined per metric, the
// starts, the metric iteration, the direction verdicts and the drill-down.

// emptySummary is a summary with every list and map empty, not null.
func emptySummary() model.DivergenceSummary {
	return model.DivergenceSummary{
		MetricStarts: map[string]model.MetricStart{}, Disagreements: []string{},
		UncomparedLayers: model.DirLayers{Fwd: []int{}, Bwd: []int{}},
		Thresholds:       map[string]map[string]model.Band{},
		Directions:       []model.DirectionVerdict{},
	}
}

// metricStart is one metric's starts (seed rule) and the reference's
// main segments.
func metricStart(dl model.DirLayers) model.MetricStart {
	return model.MetricStart{
		FwdStart:       divergenceStart(dl.Fwd, "fwd"),
		BwdStart:       divergenceStart(dl.Bwd, "bwd"),
		FwdMainSegment: mainSegment(dl.Fwd),
		BwdMainSegment: mainSegment(dl.Bwd),
	}
}

// summary combines the anchors (seed Steps 3.4–3.6): per metric the
// flagged layers of any anchor, the starts, the metric iteration, the
// direction verdicts and the drill-down (Step 3.5) at the P0 direction's
// start. It takes the anchors' cells and tables (their bands), the control
// ratios pooled over every anchor and the non-finite origins, and returns
// the summary, the warnings it says, and per pass the layers it flagged
// (judged: the degraded drill-down band leaves them out).
func summary(g *p3Groups, bi bandInputs, call int, origins [2]*nfOrigin, anchors []string, layers []int, cells [][][2]cell, pooled map[model.Stat]map[string][]float64,
	tables []model.AnchorTable, anchorWarning *model.AnchorWarning) (s model.DivergenceSummary, warnings []model.Reason, judged [2]map[int]bool) {
	s = emptySummary()
	s.IterationPath = map[string][]string{}
	for _, m := range metricOrder {
		s.Thresholds[metricName(m)] = map[string]model.Band{
			"fwd": noiseBand(bi, pooled[m]["fwd"]), "bwd": noiseBand(bi, pooled[m]["bwd"]),
		}
	}
	warnings = unusablePassWarnings(bi, anchors, layers, cells, pooled)
	if g.hasCD {
		if w := controlBiasWarning(s.Thresholds); w != nil {
			warnings = append(warnings, w)
		}
	}

	var verdicts [2]model.DirectionVerdict
	// The non-finite origin of each pass counts as a flag of its layer
	// (on its first non-finite metric) even where no anchor's compared
	// tensor shows it (a NaN in a kernel's second output).
	for di, d := range p3Dirs {
		o := origins[di]
		flaggedBy := map[model.Stat][]int{}
		union := map[int]bool{}
		unaligned := map[int]bool{}
		degrees := map[int]float64{}
		usable := false
		for ai := range anchors {
			for _, m := range metricOrder {
				if tables[ai].Thresholds[metricName(m)][d.name].Usable {
					usable = true
				}
			}
			for li, l := range layers {
				c := &cells[ai][li][di]
				if uncompared(c) {
					unaligned[l] = true
				}
				for _, m := range metricOrder {
					if !c.flag[m] {
						continue
					}
					union[l] = true
					if old, ok := degrees[l]; !ok || math.Abs(logMagnitude(c.deg[m])) > math.Abs(logMagnitude(old)) {
						degrees[l] = c.deg[m]
					}
				}
			}
		}
		starts := map[model.Stat]*int{}
		for _, m := range metricOrder {
			set := map[int]bool{}
			for ai := range anchors {
				for li, l := range layers {
					if cells[ai][li][di].flag[m] {
						set[l] = true
					}
				}
			}
			if o != nil && o.layer >= 0 && o.metric == metricName(m) {
				set[o.layer] = true
			}
			flaggedBy[m] = sortedLayerSet(set)
			ms := s.MetricStarts[metricName(m)]
			st := divergenceStart(flaggedBy[m], d.name)
			seg := mainSegment(flaggedBy[m])
			if d.name == "fwd" {
				ms.FwdStart, ms.FwdMainSegment = st, seg
			} else {
				ms.BwdStart, ms.BwdMainSegment = st, seg
			}
			s.MetricStarts[metricName(m)] = ms
			starts[m] = st
		}
		final, path, dis := iterateMetrics(starts, d.name)
		if path != nil {
			s.IteratedMetrics = true
			s.IterationPath[d.name] = path
		}
		for _, x := range dis {
			s.Disagreements = append(s.Disagreements, d.name+" "+x)
		}
		if d.name == "fwd" {
			s.EarliestFwdDivergence = final
			s.UncomparedLayers.Fwd = sortedLayerSet(unaligned)
		} else {
			s.EarliestBwdDivergence = final
			s.UncomparedLayers.Bwd = sortedLayerSet(unaligned)
		}
		if o != nil && o.layer >= 0 {
			union[o.layer] = true
		}
		peak, pv := peakOf(degrees)
		verdicts[di] = directionVerdict(d.name, sortedLayerSet(union), sortedLayerSet(unaligned), usable, final, peak, pv)
		judged[di] = union
		if o != nil {
			verdicts[di].FirstNonFinite = originText(g.ia, o)
			verdicts[di].NonFiniteOrigin = originModel(g, o)
		}
		if g.nameB == "C" && verdicts[di].Verdict == verdictDivergent {
			verdicts[di].NoteReasons = addNote(verdicts[di].NoteReasons, model.P3DirStandIn{})
		}
	}
	chooseP0(&verdicts[0], &verdicts[1])
	if anchorWarning != nil {
		for i := range verdicts {
			verdicts[i].NoteReasons = addNote(verdicts[i].NoteReasons, model.P3DirFewAnchors{Anchors: anchorWarning.AnchorsFound})
		}
	}
	s.Directions = verdicts[:]
	for di, v := range verdicts {
		if v.P0 && v.Start != nil {
			dir, name, layer := p3Dirs[di].dir, p3Dirs[di].name, *v.Start
			o := origins[di]
			if o != nil && originApplies(g.ia, o, dir, name, layer) {
				if o.layer >= 0 {
					layer = o.layer
				}
				s.Drilldown = nonFiniteDrill(g.nameB, g.ia, drillDown(g, call, dir, name, layer, drillBands(g, bi, call, judged[di], layer, name, s.Thresholds)), o)
				continue
			}
			s.Drilldown = drillDown(g, call, dir, name, layer, drillBands(g, bi, call, judged[di], layer, name, s.Thresholds))
		}
	}
	return s, warnings, judged
}

// unusablePassWarnings: one warning per pass that has records to compare
// but no statistic with a usable band (nothing in it can be flagged). A
// single unusable statistic (the Mean of the backward pass, whose
// gradients are centred) is said in its band's note only: the other
// statistics judge the pass (seed Step 3.4: a pass with nothing judged is
// not a normal one).
func unusablePassWarnings(bi bandInputs, anchors []string, layers []int, cells [][][2]cell, pooled map[model.Stat]map[string][]float64) []model.Reason {
	var out []model.Reason
	for di, d := range p3Dirs {
		present := false
		for ai := range anchors {
			for li := range layers {
				if c := &cells[ai][li][di]; c.present && !c.masked {
					present = true
				}
			}
		}
		if !present {
			continue
		}
		var why []model.P3MetricNote
		usable := false
		for _, m := range metricOrder {
			if fixedCount(pooled[m][d.name]) > 0 && nonFiniteCount(pooled[m][d.name]) == len(pooled[m][d.name]) {
				usable = true // fixed by construction: the floor band
				continue
			}
			raw := controlBand(pooled[m][d.name], bi.iqrMult, bi.floor)
			if raw.Usable {
				usable = true
				continue
			}
			for _, n := range raw.NoteReasons {
				why = append(why, model.P3MetricNote{Metric: metricName(m), Note: n})
			}
		}
		if !usable {
			out = append(out, model.P3PassUnjudgeable{Dir: d.name, Why: why})
		}
	}
	return out
}

// logMagnitude is ln|v|, 0 for zero or a non-finite v (compares how far
// degrees are from 1).
func logMagnitude(v float64) float64 {
	if v == 0 || !model.Finite(v) {
		return 0
	}
	return math.Log(math.Abs(v))
}

// sortedLayerSet lists the layers of a set in ascending order.
func sortedLayerSet(m map[int]bool) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Ints(out)
	return out
}
