package analysis

import (
	"sort"

	"spikescope/model"
)

// The drill-down's band without a control group (method.md: "Without C/D
// (degraded), the band comes from a robust spread of A/B over the aligned
// records that are not being judged"). The layer band pools A/B over every
// anchor and layer: a fault that spans many layers (a forward divergence
// carried by the residual stream to every deeper layer) widens it and
// moves its median, until no op of the faulty layer leaves it. The ops of
// a layer are therefore judged against the A/B ratios of every aligned op
// of the other layers the summary did not flag (all other layers when too
// few remain), with a spread from the median absolute deviation (half the
// records may be off without moving it).

// bandRuleDegradedOps is the degraded drill-down band's rule.
var bandRuleDegradedOps model.Reason = model.P3RuleDegradedOps{}

// cachedDrillBands is drillBands, cached per layer and pass (the drill-down
// of a degraded trace asks for one layer's bands more than once).
func (p *p3) cachedDrillBands(layer int, dirName string, th map[string]map[string]model.Band) map[string]map[string]model.Band {
	if p.hasCD || p.ia == nil || p.ib == nil {
		return th
	}
	k := [2]int{layer, dirIndex(dirName)}
	if b, ok := p.opBands[k]; ok {
		return b
	}
	out := drillBands(&p.p3Groups, p.bandInputs(), p.opt.Call, p.judged[k[1]], layer, dirName, th)
	if p.opBands == nil {
		p.opBands = map[[2]int]map[string]map[string]model.Band{}
	}
	p.opBands[k] = out
	return out
}

// dirIndex is a pass's position in p3Dirs.
func dirIndex(dirName string) int {
	if dirName == "bwd" {
		return 1
	}
	return 0
}

// drillBands are the bands the drill-down judges the ops of a layer with
// (seed Step 3.5 without C/D; method.md's degraded drill-down band): the
// summary's with a control group; degraded, the robust band of the other
// layers' aligned ops, those the summary flagged (judged) left out when
// enough remain. A metric keeps the summary's band when the other layers
// give no usable one.
func drillBands(g *p3Groups, bi bandInputs, call int, judged map[int]bool, layer int, dirName string, th map[string]map[string]model.Band) map[string]map[string]model.Band {
	if g.hasCD || g.ia == nil || g.ib == nil {
		return th
	}
	di := dirIndex(dirName)
	out := make(map[string]map[string]model.Band, len(th))
	for m, v := range th {
		out[m] = make(map[string]model.Band, len(v))
		for d, b := range v {
			out[m][d] = b
		}
	}
	rs, unflagged := otherOpRatios(g, call, layer, di, judged), true
	if len(rs[metricPrimary]) < minBandSamples {
		rs, unflagged = otherOpRatios(g, call, layer, di, nil), false
	}
	for _, m := range metricOrder {
		b := robustLogBand(rs[m], bi.iqrMult, bi.floor, bi.comparisons)
		if !b.Usable || b.Samples < minBandSamples {
			continue
		}
		b.NoteReasons = []model.Reason{noteDegraded, model.P3BandOps{Samples: b.Samples, Unflagged: unflagged, Layer: layer}}
		if out[metricName(m)] == nil {
			out[metricName(m)] = map[string]model.Band{}
		}
		out[metricName(m)][dirName] = b
	}
	return out
}

// otherOpRatios are the A/B ratios per metric of every aligned op of the
// compared micro-batch (call) in pass di of the layers other than layer
// and other than the layers in skip (the ones the summary flagged); a
// module and its last API holding one tensor give one sample.
func otherOpRatios(p *p3Groups, call, layer, di int, skip map[int]bool) map[model.Stat][]float64 {
	dir := p3Dirs[di].dir
	out := map[model.Stat][]float64{}
	type seenKey struct {
		m model.Stat
		r float64
	}
	seen := map[seenKey]bool{}
	ls := make([]int, 0, len(p.ia.layers))
	for l := range p.ia.layers {
		if l != layer && !skip[l] {
			ls = append(ls, l)
		}
	}
	sort.Ints(ls)
	var idx []int32
	for _, l := range ls {
		idx = idx[:0]
		for _, i := range p.ia.layers[l] {
			if p.ia.d.Ops[i].Direction == dir && !p.ia.info[i].Recomp {
				idx = append(idx, i)
			}
		}
		for _, i := range callSegment(p.ia, idx, call) {
			j := pair(p.ia, i, p.ib)
			if ok, _ := checkPair(p.ia, i, p.ib, j, "A", p.nameB); !ok {
				continue
			}
			for _, m := range metricOrder {
				r := pairRatio(p.ia, i, p.ib, j, m)
				if fixedStat(p, i, j, -1, -1, m) {
					continue // fixed by construction: no sample of the noise
				}
				if !model.Finite(r) || seen[seenKey{m, r}] {
					continue
				}
				seen[seenKey{m, r}] = true
				out[m] = append(out[m], r)
			}
		}
	}
	return out
}

// robustLogBand is logBand with the spread from the median absolute
// deviation of ln(ratio / median) (2·MAD is the IQR of normal noise) in
// place of the IQR: up to half the ratios may be off without widening it.
// Ratios that change sign or reach zero, or scatter wider than their
// median, make the metric unusable, as in controlBand.
func robustLogBand(ratios []float64, iqrMult, floor float64, comparisons int) model.Band {
	b := learnBand(ratios, bandSpec{Scale: logScale, Spread: spreadMAD, Mult: iqrMult, Comparisons: comparisons,
		Floor: floor, Factor: 1, SEWiden: true})
	b.RuleReason = bandRuleDegradedOps
	return b
}

// degradedBand is, without a control group, the robust band of the A/B
// ratios of every aligned op of the compared micro-batch in pass di
// (computed once per call): the level and spread of A/B over the records
// of every layer, which a fault spanning most layers of one anchor (the
// residual stream after a fault in an early layer) cannot move. Not usable
// with a control group.
func (cl *callAnalysis) degradedBand(p *p3, layers []int, m model.Stat, di int) model.Band {
	if p.hasCD {
		return model.Band{}
	}
	k := [2]int{int(m), di}
	if b, ok := cl.robust[k]; ok {
		return b
	}
	b := robustLogBand(cl.opRatios(p, layers, m, di), p.opt.IQRMult, p.opt.SpreadFloor, p.comparisons)
	if b.Samples < minBandSamples {
		b.Usable = false
	}
	if cl.robust == nil {
		cl.robust = map[[2]int]model.Band{}
	}
	cl.robust[k] = b
	return b
}

// degradedConfirms: without a control group, an anchor's layer that leaves
// the anchor's own band is flagged only when its A/B also leaves the robust
// band of every aligned op of the pass (degradedBand). The anchor's own
// band is centred on its own median: when a fault reaches most of the
// anchor's layers, that median is the fault's and the clean layers look
// divergent (a start before the fault, whose ops all agree). A metric
// without a usable pass band (always, with a control group) keeps the
// anchor's own verdict. Seed Step 3.3 without C/D.
func degradedConfirms(pass model.Band, ab float64) bool {
	if !pass.Usable {
		return true
	}
	return outside(&pass, groupRatio(ab, float64(pass.Median)))
}

// degradedNote adds the pass band (degradedBand; unusable with a control
// group) to an anchor band's note: the band with its typed reasons.
func degradedNote(pb model.Band, b model.Band) model.Band {
	if pb.Usable {
		b.NoteReasons = append(b.NoteReasons, model.P3BandPass{Ops: pb.Samples, Median: float64(pb.Median), Lower: float64(pb.Lower), Upper: float64(pb.Upper)})
	}
	return b
}
