package analysis

import (
	"fmt"
	"math"

	"spikescope/model"
)

// drillDown is seed Step 3.5 at the P0 direction's start layer: every op of
// that layer and pass (modules and APIs, not only anchors) is compared with
// the same band, in execution order. The first flagged op whose upstream
// ops are not flagged is the operator where the divergence appears; the
// chain walks its upstream ops (earlier in execution order within the layer,
// nearest first) until one shows no difference.
func (p *p3) drillDown(dir model.Direction, dirName string, layer int, bands map[string]map[string]model.Band) *model.Drilldown {
	l := layer
	dd := &model.Drilldown{Direction: dirName, Layer: &l, Chain: []string{}, Ops: []model.DrillOp{}}
	var idx []int32
	for _, i := range p.ia.layers[layer] {
		if p.ia.d.Ops[i].Direction == dir {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		dd.Note = "dump A has no ops in this layer and pass"
		return dd
	}
	idx = callSegment(p.ia, idx, p.opt.Call)
	flagged := make([]bool, len(idx))
	alignedOK := make([]bool, len(idx))
	bestMetric := make([]string, len(idx))
	for k, i := range idx {
		op := p.drillOp(i, dirName, bands)
		flagged[k], alignedOK[k] = op.Flagged, op.Aligned
		bestMetric[k] = drillMetric(op, dirName, bands)
		dd.Ops = append(dd.Ops, op)
	}
	largest, largestA := -1, 0.0
	for k := range idx {
		if flagged[k] {
			if a := math.Abs(logMagnitude(drillDegree(dd.Ops[k], dirName, bestMetric[k]))); a > largestA {
				largest, largestA = k, a
			}
		}
	}
	if largest >= 0 {
		dd.Largest = p.ia.d.Ops[idx[largest]].Key
	}
	first := -1
	for k := range idx {
		if flagged[k] && !upstreamFlagged(flagged, k) {
			first = k
			break
		}
	}
	if first < 0 {
		dd.Note = "no op of this layer leaves the band: the layer's divergence is below single-op resolution or lies in unaligned ops"
		return dd
	}
	dd.Operator = p.ia.d.Ops[idx[first]].Key
	dd.Metric = bestMetric[first]
	dd.Chain = append(dd.Chain, dd.Operator)
	clean := false
	for k := first - 1; k >= 0; k-- {
		dd.Chain = append(dd.Chain, p.ia.d.Ops[idx[k]].Key)
		if alignedOK[k] && !flagged[k] {
			clean = true
			break
		}
	}
	switch {
	case clean:
		dd.Note = fmt.Sprintf("upstream checked until no difference (%s)", dd.Chain[len(dd.Chain)-1])
	case first == 0:
		dd.Note = "first op of the layer in this pass: nothing upstream inside the layer"
	default:
		dd.Note = "upstream ops of the layer could not be compared (unaligned): an earlier origin is not excluded"
	}
	return dd
}

// upstreamFlagged reports whether an op upstream of op k is flagged. Every
// op computed before op k in this layer and micro-batch is an earlier record;
// construct.json ancestors (the modules containing op k) are containers,
// recorded after their children by msprobe's post-hooks, so they are never
// upstream of it.
func upstreamFlagged(flagged []bool, k int) bool {
	for j := 0; j < k; j++ {
		if flagged[j] {
			return true
		}
	}
	return false
}

// drillOp compares one op of A with its counterparts.
func (p *p3) drillOp(i int32, dirName string, bands map[string]map[string]model.Band) model.DrillOp {
	op := &p.ia.d.Ops[i]
	out := model.DrillOp{Key: op.Key, Order: op.Order, Parent: op.Parent, Metrics: map[string]model.MetricRow{}}
	c := cell{a: i, b: pair(p.ia, i, p.ib), c: -1, d: -1}
	c.abOK, c.abWhy = checkPair(p.ia, c.a, p.ib, c.b, "A", p.nameB)
	if c.b >= 0 {
		out.KeyB = p.ib.d.Ops[c.b].Key
	}
	if p.hasCD {
		c.c = pair(p.ia, i, p.ic)
		c.d = pair(p.ic, c.c, p.id)
		c.cdOK, c.cdWhy = checkPair(p.ic, c.c, p.id, c.d, "C", "D")
	}
	out.Aligned = c.abOK && (!p.hasCD || c.cdOK)
	c.va, c.vb, c.vc, c.vd = statsOf(p.ia, c.a), statsOf(p.ib, c.b), statsOf(p.ic, c.c), statsOf(p.id, c.d)
	for _, m := range metricOrder {
		ab, cd := math.NaN(), math.NaN()
		if c.abOK {
			ab = pairRatio(p.ia, c.a, p.ib, c.b, m)
		}
		if c.cdOK {
			cd = pairRatio(p.ic, c.c, p.id, c.d, m)
		}
		b := bands[metricName(m)][dirName]
		deg := p.degree(ab, cd, &b)
		fl := out.Aligned && outside(&b, deg)
		row := model.MetricRow{}
		q := quadOf(&c, m)
		if dirName == "fwd" {
			row.Fwd, row.FAB, row.FCD, row.FAnomaly, row.FFlag = q, floatPtr(ab), floatPtr(cd), floatPtr(deg), fl
		} else {
			row.Bwd, row.BAB, row.BCD, row.BAnomaly, row.BFlag = q, floatPtr(ab), floatPtr(cd), floatPtr(deg), fl
		}
		if fl {
			out.Flagged = true
		}
		out.Metrics[metricName(m)] = row
	}
	p.markNonFinite(&out, c.a, c.b, dirName)
	return out
}

// drillMetric names the metric with the largest |log degree| among the
// flagged metrics of a drill-down op.
func drillMetric(op model.DrillOp, dirName string, bands map[string]map[string]model.Band) string {
	best, bestA := "", -1.0
	for _, m := range metricOrder {
		r := op.Metrics[metricName(m)]
		flag, deg := r.FFlag, r.FAnomaly
		if dirName == "bwd" {
			flag, deg = r.BFlag, r.BAnomaly
		}
		if !flag || deg == nil {
			continue
		}
		if a := math.Abs(logMagnitude(float64(*deg))); a > bestA {
			best, bestA = metricName(m), a
		}
	}
	return best
}

// drillDegree is the degree of metric m of a drill-down op in a pass.
func drillDegree(op model.DrillOp, dirName, m string) float64 {
	r, ok := op.Metrics[m]
	if !ok {
		return math.NaN()
	}
	d := r.FAnomaly
	if dirName == "bwd" {
		d = r.BAnomaly
	}
	if d == nil {
		return math.NaN()
	}
	return float64(*d)
}

// callSegment keeps the ops of one call (micro-batch) of a layer: each
// micro-batch runs the layer once, and the layer module's own record
// (post-hook: written last) closes that run. Without several such records
// (one micro-batch, or no layer-module records) the ops are kept as they
// are. Other micro-batches only add their own noise to the drill-down.
func callSegment(x *dumpIndex, idx []int32, call int) []int32 {
	var ends []int // positions in idx of the layer module's own records
	for k, i := range idx {
		op := &x.d.Ops[i]
		if op.Kind == model.KindModule && !x.info[i].Recomp && x.info[i].Sub == "" {
			ends = append(ends, k)
		}
	}
	if len(ends) < 2 || call < 0 || call >= len(ends) {
		return idx
	}
	start := 0
	if call > 0 {
		start = ends[call-1] + 1
	}
	return idx[start : ends[call]+1]
}
