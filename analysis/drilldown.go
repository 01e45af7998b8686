package analysis

import (
	"math"

	"spikescope/model"
)

// drillDown is seed Step 3.5 at the P0 direction's start layer: every
// record of that layer, pass and call (the micro-batch the layer table
// compares; modules and APIs, not only anchors) is compared with the same
// band, in the order their outputs were computed. The operator is the first
// flagged record (firstDivergent): a leaf, since a container's output is
// computed after everything it contains, and with no flagged upstream
// record. The chain walks its upstream records (computed earlier, not its
// ancestors; nearest first) until one shows no difference. It returns the
// drill-down with its notes as typed reasons.
func drillDown(g *p3Groups, call int, dir model.Direction, dirName string, layer int, bands map[string]map[string]model.Band) *model.Drilldown {
	l := layer
	dd := &model.Drilldown{Direction: dirName, Layer: &l, Chain: []string{}, Ops: []model.DrillOp{}}
	sc := newDrillScope(g.ia, layer, dir, call)
	scCall := sc.call
	dd.Call, dd.Calls = &scCall, sc.calls
	if len(sc.ops) == 0 {
		dd.NoteReasons = []model.Reason{model.P3DrillNoOps{}}
		return dd
	}
	flagged := make([]bool, len(sc.ops))
	alignedOK := make([]bool, len(sc.ops))
	bestMetric := make([]string, len(sc.ops))
	for k, i := range sc.ops {
		op := drillOp(g, i, dirName, bands)
		op.Within = sc.within(k)
		flagged[k], alignedOK[k] = op.Flagged, op.Aligned
		bestMetric[k] = drillMetric(op, dirName, bands)
		dd.Ops = append(dd.Ops, op)
	}
	if k := largestLeaf(sc, dd.Ops, flagged, dirName, bestMetric); k >= 0 {
		dd.Largest = g.ia.d.Ops[sc.ops[k]].Key
	}
	// the single choice of the operator (a non-finite origin at or before it
	// would take its place here)
	first := firstDivergent(sc, flagged)
	if first < 0 {
		dd.NoteReasons = append(sc.callNote(), model.P3DrillNoneLeaves{})
		return dd
	}
	dd.Operator = g.ia.d.Ops[sc.ops[first]].Key
	dd.Metric = bestMetric[first]
	dd.Chain = append(dd.Chain, dd.Operator)
	clean, upstream := false, 0
	for k := first - 1; k >= 0; k-- {
		if sc.ancestor(k, first) {
			continue // a container of the operator is not upstream of it
		}
		upstream++
		dd.Chain = append(dd.Chain, g.ia.d.Ops[sc.ops[k]].Key)
		if alignedOK[k] && !flagged[k] {
			clean = true
			break
		}
	}
	notes := sc.callNote()
	switch {
	case clean:
		notes = append(notes, model.P3DrillUpstreamClean{Op: dd.Chain[len(dd.Chain)-1]})
	case upstream == 0:
		notes = append(notes, model.P3DrillFirstOp{})
	default:
		notes = append(notes, model.P3DrillUpstreamUnaligned{})
	}
	if dd.Largest != "" && dd.Largest != dd.Operator {
		notes = append(notes, model.P3DrillLargestAfter{Op: dd.Largest})
	}
	dd.NoteReasons = notes
	return dd
}

// firstDivergent is the drill-down operator: the position in sc.ops of the
// first flagged record whose upstream records are not flagged and which
// contains no flagged record; -1 when none. In completion order that is the
// first flagged record (a container comes after its contents), whatever the
// file's record order.
func firstDivergent(sc *drillScope, flagged []bool) int {
	below := sc.flaggedBelow(flagged)
	for k := range sc.ops {
		if flagged[k] && !below[k] && !upstreamFlagged(sc, flagged, k) {
			return k
		}
	}
	return -1
}

// upstreamFlagged reports whether a record upstream of ops[k] is flagged:
// one computed before it that is not one of its ancestors (the modules
// containing it finish after it, wherever their records sit in the file).
func upstreamFlagged(sc *drillScope, flagged []bool, k int) bool {
	for j := 0; j < k; j++ {
		if flagged[j] && !sc.ancestor(j, k) {
			return true
		}
	}
	return false
}

// flaggedBelow marks the records that contain a flagged record: a container
// is never the operator while one of its descendants is flagged.
func (s *drillScope) flaggedBelow(flagged []bool) []bool {
	below := make([]bool, len(s.ops))
	for k := range s.ops {
		if !flagged[k] {
			continue
		}
		for p, d := s.parent[k], 0; p >= 0 && !below[p] && d <= len(s.ops); p, d = s.parent[p], d+1 {
			below[p] = true
		}
	}
	return below
}

// largestLeaf is the seed's "op with the largest difference" among the
// flagged records that contain no flagged record (a container repeats its
// contents' difference); -1 when nothing is flagged.
func largestLeaf(sc *drillScope, ops []model.DrillOp, flagged []bool, dirName string, metric []string) int {
	below := sc.flaggedBelow(flagged)
	best, bestA := -1, 0.0
	for k := range ops {
		if !flagged[k] || below[k] {
			continue
		}
		if a := math.Abs(logMagnitude(drillDegree(ops[k], dirName, metric[k]))); a > bestA {
			best, bestA = k, a
		}
	}
	return best
}

// callNote warns when the layer ran fewer times than the call the anchors
// compare (the drill-down then compares call 0, as the layer table does).
func (s *drillScope) callNote() []model.Reason {
	if s.fellBack {
		return []model.Reason{model.P3DrillCallFellBack{Calls: s.calls, Asked: s.asked + 1}}
	}
	return nil
}

// drillOp compares one op of A with its counterparts (seed Step 3.5, the
// start layer's sub-module operators, judged by the layer's band): the
// op's row, flagged or not, with why it is not compared.
func drillOp(g *p3Groups, i int32, dirName string, bands map[string]map[string]model.Band) model.DrillOp {
	op := &g.ia.d.Ops[i]
	out := model.DrillOp{Key: op.Key, Order: op.Order, Parent: op.Parent, Metrics: map[string]model.MetricRow{}}
	c := cell{a: i, b: pair(g.ia, i, g.ib), c: -1, d: -1}
	c.abOK, c.abWhy = checkPair(g.ia, c.a, g.ib, c.b, "A", g.nameB)
	if c.b >= 0 {
		out.KeyB = g.ib.d.Ops[c.b].Key
	}
	if g.hasCD {
		c.c = pair(g.ia, i, g.ic)
		c.d = pair(g.ic, c.c, g.id)
		c.cdOK, c.cdWhy = checkPair(g.ic, c.c, g.id, c.d, "C", "D")
	}
	out.Aligned = c.abOK && (!g.hasCD || c.cdOK)
	if !c.abOK {
		out.WhyReason = c.abWhy
		if c.b >= 0 && maskedPair(g.ia, c.a, g.ib, c.b) && (!g.hasCD || maskedPair(g.ia, c.a, g.ic, c.c) && maskedPair(g.ia, c.a, g.id, c.d)) {
			out.WhyReason = whyMasked
		}
	}
	c.va, c.vb, c.vc, c.vd = statsOf(g.ia, c.a), statsOf(g.ib, c.b), statsOf(g.ic, c.c), statsOf(g.id, c.d)
	for _, m := range metricOrder {
		ab, cd := math.NaN(), math.NaN()
		if c.abOK {
			ab = pairRatio(g.ia, c.a, g.ib, c.b, m)
		}
		if c.cdOK {
			cd = pairRatio(g.ic, c.c, g.id, c.d, m)
		}
		b := bands[metricName(m)][dirName]
		deg := degree(g.hasCD, ab, cd, &b)
		fl := out.Aligned && outside(&b, deg)
		if b.Usable {
			if out.Bounds == nil {
				out.Bounds = map[string][2]model.Float{}
			}
			out.Bounds[metricName(m)] = [2]model.Float{b.Lower, b.Upper}
		}
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
	return markNonFinite(g, out, c.a, c.b, dirName)
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

// callSegment keeps the records of one call (micro-batch) of a layer and
// pass (idx, file order), numbered as the drill-down numbers them
// (callsOf); call 0 when the layer ran fewer times.
func callSegment(x *dumpIndex, idx []int32, call int) []int32 {
	calls := callsOf(x, idx, orderOf(x, idx))
	n := 0
	for _, c := range calls {
		n = max(n, c+1)
	}
	if n < 2 {
		return idx
	}
	if call < 0 || call >= n {
		call = 0
	}
	out := make([]int32, 0, len(idx)/n+1)
	for k, i := range idx {
		if calls[k] == call {
			out = append(out, i)
		}
	}
	return out
}
