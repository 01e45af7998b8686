package analysis

import (
	"math"

	"spikescope/model"
)

// callCurve is the per-call (micro-step) record of one (parameter, rank)
// of a single-step dump: where its increment jumps, and its first
// non-finite call.
type callCurve struct {
	jump      int // position of the earliest call whose increment jumps, -1 none
	inc       float64
	delta     float64
	nonFinite int // position of the first non-finite norm, -1 none
}

// dumpCallMicroSteps is method.md's "Dumps with several micro-batches" for
// a single-step dump: with parameters_grad.0..W-1 (Megatron's cumulative
// main_grad, one call per micro-batch) a candidate's micro step is the call
// whose increment jumps, judged like the micro-step rule (microStepSpikes):
// the increment inc_k = sqrt(max(N_k² − N_{k−1}², 0)) (inc_0 = N_0) of every
// (parameter, rank) curve, relative to the median of the curve's other
// increments (a jump never sets its own scale), pooled over all curves —
// per call when every call has ≥ minMicroPool curves (correlated
// micro-batches grow their increments with k), else over all calls — and
// flagged with the robust thresholds, the judged point left out, ≥
// MinEffect × the pool's median, and with its delta N_k − N_{k−1} ≥
// MinEffect × the curve's other deltas. The earliest flagged call is the
// candidate's micro step; a non-finite candidate's is its first non-finite
// call; a gradient that grew evenly names none (micro_step null). Curves
// whose norm fell on more than maxDecreaseShare of their calls are not
// judged. It names the micro step of the candidates as (in place) and
// returns what it said.
func dumpCallMicroSteps(c *p1, metric int, as []model.Anomaly) model.Reason {
	ix := buildSeriesIndexOf(c.d, metric, microRows)
	type key struct{ target, rank int32 }
	curves := map[key]*callCurve{}
	type point struct {
		pos   int
		ratio float64
		curve *callCurve
		inc   float64
		delta float64
	}
	var pts []point
	maxPos := 0
	skipped := 0
	var norms, incs, deltas, others []float64
	for _, g := range ix.groups {
		cc := &callCurve{jump: -1, nonFinite: -1}
		curves[key{g.Target, g.Rank}] = cc
		norms, incs, deltas = norms[:0], incs[:0], deltas[:0]
		ok := true
		for k := int(g.Lo); k < int(g.Hi); k++ {
			if int(ix.microAt(k)) != k-int(g.Lo) {
				ok = false // a call missing: positions cannot be lined up
				break
			}
			norms = append(norms, ix.norm[k])
		}
		if !ok {
			skipped++
			continue
		}
		clamped := 0
		prev := 0.0
		for k, n := range norms {
			if !model.Finite(n) {
				if cc.nonFinite < 0 {
					cc.nonFinite = k
				}
				incs = append(incs, math.NaN())
				deltas = append(deltas, math.NaN())
				prev = math.NaN()
				continue
			}
			if !model.Finite(prev) {
				incs = append(incs, math.NaN())
				deltas = append(deltas, math.NaN())
				prev = n
				continue
			}
			if n < prev {
				clamped++
			}
			incs = append(incs, math.Sqrt(max(n*n-prev*prev, 0)))
			deltas = append(deltas, n-prev)
			prev = n
		}
		if len(norms) < 2 || float64(clamped) > maxDecreaseShare*float64(len(norms)) {
			skipped++
			continue
		}
		for k, v := range incs {
			if !model.Finite(v) {
				continue
			}
			mi := medianOthers(incs, k, &others)
			if !(mi > 0) {
				continue
			}
			md := medianOthers(deltas, k, &others)
			maxPos = max(maxPos, k)
			if md > 0 && !(deltas[k] >= c.opt.MinEffect*md) || !(md > 0) && !(deltas[k] > 0) {
				// the cumulative norm itself did not jump: judged (it is part
				// of the pool) but never a micro step
				pts = append(pts, point{pos: k, ratio: v / mi})
				continue
			}
			pts = append(pts, point{pos: k, ratio: v / mi, curve: cc, inc: v, delta: deltas[k]})
		}
	}
	// pools: per call when each has enough curves, else all together
	counts := make([]int, maxPos+1)
	for _, p := range pts {
		counts[p.pos]++
	}
	perCall := len(pts) > 0
	for _, n := range counts {
		if n < minMicroPool {
			perCall = false
		}
	}
	jumps := 0
	judge := robustJudge{rule: c.judge.rule}
	var vals []float64
	var idx, cand []int
	pools := 1
	if perCall {
		pools = maxPos + 1
	}
	for k := 0; k < pools; k++ {
		vals, idx = vals[:0], idx[:0]
		for i, p := range pts {
			if !perCall || p.pos == k {
				vals = append(vals, p.ratio)
				idx = append(idx, i)
			}
		}
		cand = judge.prescreen(vals, cand)
		for _, ci := range cand {
			p := &pts[idx[ci]]
			if p.curve == nil || !judge.judge(vals[ci]).Flagged {
				continue
			}
			if p.curve.jump < 0 || p.pos < p.curve.jump {
				if p.curve.jump < 0 {
					jumps++
				}
				p.curve.jump, p.curve.inc, p.curve.delta = p.pos, p.inc, p.delta
			}
		}
	}
	// the candidates' micro steps
	targets := map[string]int32{}
	for t := range c.d.Targets {
		targets[c.d.Targets[t].Name] = int32(t)
	}
	named := 0
	for i := range as {
		a := &as[i]
		t, ok := targets[a.TargetName]
		if !ok {
			continue
		}
		cc := curves[key{t, int32(a.Rank)}]
		if cc == nil {
			continue
		}
		switch {
		case a.NonFinite && cc.nonFinite >= 0:
			c.num.setMicro(a, int32(a.Rank), int32(a.Step), cc.nonFinite)
		case !a.NonFinite && cc.jump >= 0:
			c.num.setMicro(a, int32(a.Rank), int32(a.Step), cc.jump)
			a.Increment, a.Delta = model.FloatPtr(cc.inc), model.FloatPtr(cc.delta)
		default:
			continue
		}
		named++
	}
	return model.DumpCallMicro{PerCall: perCall, MinPool: minMicroPool, MinEffect: c.opt.MinEffect,
		Jumps: jumps, Curves: len(curves), Named: named, Candidates: len(as), Skipped: skipped, MaxDecreasePct: 100 * maxDecreaseShare}
}

// medianOthers is the median of the finite vals other than vals[k].
func medianOthers(vals []float64, k int, buf *[]float64) float64 {
	p := (*buf)[:0]
	for j, v := range vals {
		if j != k && model.Finite(v) {
			p = append(p, v)
		}
	}
	*buf = p
	return medianInPlace(p)
}
