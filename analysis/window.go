package analysis

import (
	"math"

	"spikescope/model"
)

// Accumulation-window detection constants (method.md Phase 1 step 1).
const (
	// maxWindow is the largest accumulation window considered.
	maxWindow = 64
	// minWindowDropShare: at the window starts at least this share of the
	// series transitions must be drops (a real reset drops on every series).
	minWindowDropShare = 0.75
	// minWindowRiseShare: inside windows at least this share must be rises
	// (a cumulative norm grows; step-level noise rises only half the time).
	minWindowRiseShare = 0.6
	// minCommonRiseShare is the same for common reset points of short
	// series, where fewer transitions make chance agreement likelier.
	minCommonRiseShare = 0.75
	// minResetDrop is the smallest geometric-mean drop N(t-1)/N(t) at the
	// window starts: √2 is the ideal reset of W=2 uncorrelated micro-batches,
	// so 1.25 leaves room for noise while rejecting ±10% jitter.
	minResetDrop = 1.25
	// minResetDrops is the least number of observed drops at window starts.
	minResetDrops = 2
	// nearEqualScore: candidate windows whose scores differ less than this
	// are equal, and the smaller window wins (multiples of W also fit).
	nearEqualScore = 0.02
	// ambiguousRise: a rise by this factor or more between consecutive
	// steps is neither evidence of a window interior nor against a window
	// start. Inside a window the cumulative norm of similar micro-batches
	// grows at most ~2× per micro step; a larger jump is a spike, and a
	// spiking first micro-batch makes a true reset rise too (an explosion
	// at an optimizer-step boundary must not hide the boundary).
	ambiguousRise = 3.0
	// commonResetShare: a short-series reset point needs this share of the
	// series observed at that step to drop, and at least 2 of them.
	commonResetShare = 0.8
)

// windowResult is the outcome of accumulationWindow.
type windowResult struct {
	W, Phase   int   // window and phase (t ≡ Phase mod W starts a window)
	Base       int   // a window start ≤ the first recorded step
	Bounds     []int // explicit window starts (non-periodic); nil = periodic
	Overridden bool
	Notes      []model.Reason
}

// stepTally counts, per step t, how many series drop (N(t) < N(t-1)) or
// rise between consecutive steps, and the sum of log drop factors.
type stepTally struct {
	min           int
	drop, rise    []int32
	logDrop       []float64
	total         [2]int // drops, rises
	series        int
	distinctSteps int
}

// tallyTransitions scans every series of the metric once.
func tallyTransitions(d *model.MonitorData, ix *seriesIndex) *stepTally {
	span := ix.maxStep - ix.minStep + 1
	if span <= 0 || span > 4*ix.rows+1024 {
		return nil
	}
	t := &stepTally{min: ix.minStep, drop: make([]int32, span), rise: make([]int32, span), logDrop: make([]float64, span)}
	seen := make([]bool, span)
	for _, g := range ix.groups {
		t.series++
		for k := int(g.Lo); k < int(g.Hi); k++ {
			seen[int(ix.step[k])-t.min] = true
			if k == int(g.Lo) || ix.step[k]-ix.step[k-1] != 1 {
				continue
			}
			a, b := ix.norm[k-1], ix.norm[k]
			if !(a > 0) || !(b > 0) || !model.Finite(a) || !model.Finite(b) {
				continue
			}
			s := int(ix.step[k]) - t.min
			switch {
			case b < a:
				t.drop[s]++
				t.logDrop[s] += math.Log(a / b)
				t.total[0]++
			case b >= ambiguousRise*a:
				// a spike: says nothing about the window
			case b > a:
				t.rise[s]++
				t.total[1]++
			}
		}
	}
	for _, s := range seen {
		if s {
			t.distinctSteps++
		}
	}
	return t
}

// boundaryFit measures how well a set of window starts explains the drops.
type boundaryFit struct {
	DropAt, RiseElse, DropFactor float64
	Drops                        int
	// Accuracy is the share of all transitions the boundaries explain
	// (drops at window starts, rises elsewhere): one explosion at a window
	// start costs a true window little, missing every other reset costs a
	// doubled window much.
	Accuracy float64
}

func (f boundaryFit) ok(riseShare float64) bool {
	return f.DropAt >= minWindowDropShare && f.RiseElse >= riseShare &&
		f.DropFactor >= minResetDrop && f.Drops >= minResetDrops
}

func (f boundaryFit) score() float64 { return f.Accuracy }

// reset is the fit as a reason's values.
func (f boundaryFit) reset() model.ResetFit {
	return model.ResetFit{DropAt: f.DropAt, DropFactor: f.DropFactor, Drops: f.Drops, RiseElse: f.RiseElse}
}

func fitOf(dAt, uAt int, lAt float64, t *stepTally) boundaryFit {
	var f boundaryFit
	if dAt+uAt > 0 {
		f.DropAt = float64(dAt) / float64(dAt+uAt)
	}
	dElse, uElse := t.total[0]-dAt, t.total[1]-uAt
	if dElse+uElse > 0 {
		f.RiseElse = float64(uElse) / float64(dElse+uElse)
	} else {
		f.RiseElse = 1
	}
	if dAt > 0 {
		f.DropFactor = math.Exp(lAt / float64(dAt))
	}
	f.Drops = dAt
	if n := t.total[0] + t.total[1]; n > 0 {
		f.Accuracy = float64(dAt+uElse) / float64(n)
	}
	return f
}

// periodicFit scores window W with phase p.
func (t *stepTally) periodicFit(W, p int) boundaryFit {
	dAt, uAt, lAt := 0, 0, 0.0
	start := ((p-t.min)%W + W) % W
	for s := start; s < len(t.drop); s += W {
		dAt += int(t.drop[s])
		uAt += int(t.rise[s])
		lAt += t.logDrop[s]
	}
	return fitOf(dAt, uAt, lAt, t)
}

// accumulationWindow finds the gradient-accumulation window and its phase
// when the step column is a global micro-step index (trend.db built with
// --micro_step true). Evidence, strongest first:
//  1. grad_reduced rows exist only at each optimizer step's first micro
//     step: their spacing is the window, the first one gives the phase;
//  2. the recurrence of drops of the cumulative norms over all (rank,
//     target) series: a window W with phase p must explain drops at
//     t ≡ p (mod W) and rises elsewhere. Drop size alone is not used (a
//     real reset of W uncorrelated micro-batches is only ~√W×);
//  3. for short series, reset points common to several series.
//
// override > 0 forces the window (override 1 = no accumulation).
func accumulationWindow(d *model.MonitorData, ix *seriesIndex, metric int, override int) windowResult {
	var res windowResult
	if override == 1 {
		res.Notes = append(res.Notes, model.WindowOff{})
		return res
	}
	if w, ok := reducedWindow(d, ix, metric); ok && (override == 0 || override == w.W) {
		return w
	}
	t := tallyTransitions(d, ix)
	if override > 1 {
		res.W, res.Overridden = override, true
		best := -1.0
		if t != nil {
			for p := 0; p < override; p++ {
				if f := t.periodicFit(override, p); f.score() > best {
					best, res.Phase = f.score(), p
				}
			}
		}
		res.Base = windowBase(ix.minStep, res.W, res.Phase)
		res.Notes = append(res.Notes, model.WindowGiven{W: override, Phase: res.Phase})
		return res
	}
	if t == nil || t.distinctSteps < 5 {
		res.Notes = append(res.Notes, model.WindowTooFewSteps{})
		return res
	}
	// 2. periodic fit
	bestW, bestP := 0, 0
	var bestF boundaryFit
	for W := 2; W <= min(maxWindow, t.distinctSteps/2); W++ {
		for p := 0; p < W; p++ {
			f := t.periodicFit(W, p)
			if !f.ok(minWindowRiseShare) {
				continue
			}
			if bestW == 0 || f.score() > bestF.score()+nearEqualScore {
				bestW, bestP, bestF = W, p, f
			}
		}
	}
	if bestW > 0 {
		res.W, res.Phase = bestW, bestP
		res.Base = windowBase(ix.minStep, bestW, bestP)
		res.Notes = append(res.Notes, model.WindowPeriodic{W: bestW, Phase: bestP, Series: t.series, Fit: bestF.reset()})
		if ix.minStep != res.Base {
			res.Notes = append(res.Notes, model.WindowPartial{First: ix.minStep, Last: res.Base + bestW - 1})
		}
		return res
	}
	// 3. common reset points (short series, or windows that are not periodic)
	var bounds []int
	dAt, uAt, lAt := 0, 0, 0.0
	for s := range t.drop {
		dr, ri := int(t.drop[s]), int(t.rise[s])
		if dr >= 2 && float64(dr) >= commonResetShare*float64(dr+ri) && math.Exp(t.logDrop[s]/float64(dr)) >= minResetDrop {
			bounds = append(bounds, s+t.min)
			dAt, uAt, lAt = dAt+dr, uAt+ri, lAt+t.logDrop[s]
		}
	}
	if len(bounds) > 0 {
		f := fitOf(dAt, uAt, lAt, t)
		if f.ok(minCommonRiseShare) {
			res.Bounds = bounds
			prev, longest := ix.minStep, 0
			for _, b := range append(bounds, ix.maxStep+1) {
				longest = max(longest, b-prev)
				prev = b
			}
			res.W = longest
			res.Notes = append(res.Notes, model.WindowCommonResets{Bounds: bounds, Fit: f.reset(), Longest: longest})
			return res
		}
	}
	res.Notes = append(res.Notes, model.WindowNone{Series: t.series, Steps: t.distinctSteps})
	return res
}

// windowBase is the window start at or before first for window W, phase p.
func windowBase(first, W, p int) int {
	return first - ((first-p)%W+W)%W
}

// reducedWindow applies evidence 1: grad_reduced rows mark window starts.
func reducedWindow(d *model.MonitorData, ix *seriesIndex, metric int) (windowResult, bool) {
	red := d.MetricIndex("grad_reduced")
	if red < 0 || red == metric || ix.rows == 0 {
		return windowResult{}, false
	}
	span := ix.maxStep - ix.minStep + 1
	if span <= 0 || span > 4*ix.rows+1024 {
		return windowResult{}, false
	}
	has := make([]bool, span)
	r := &d.Rows
	for run := range r.Runs() {
		if int(run.Metric) != red {
			continue
		}
		for _, st := range r.Step[run.Lo:run.Hi] {
			s := int(st) - ix.minStep
			if s < 0 || s >= span {
				return windowResult{}, false // reduced rows outside the unreduced range
			}
			has[s] = true
		}
	}
	var steps []int
	for s, h := range has {
		if h {
			steps = append(steps, s+ix.minStep)
		}
	}
	if len(steps) < 2 {
		return windowResult{}, false
	}
	gaps := map[int]int{}
	for i := 1; i < len(steps); i++ {
		gaps[steps[i]-steps[i-1]]++
	}
	if gaps[1] > 0 {
		return windowResult{}, false // reduced at consecutive steps: not window starts
	}
	var out windowResult
	if len(gaps) == 1 {
		for g := range gaps {
			out.W = g
		}
		out.Phase = steps[0] % out.W
		out.Base = windowBase(ix.minStep, out.W, out.Phase)
		out.Notes = append(out.Notes, model.WindowReduced{W: out.W, Phase: out.Phase, From: steps[0]})
		return out, true
	}
	common, best := 0, 0
	for g, c := range gaps {
		if c > best || (c == best && g < common) {
			common, best = g, c
		}
	}
	out.W = common
	out.Bounds = steps
	out.Notes = append(out.Notes, model.WindowReducedIrregular{Steps: len(steps), Common: common})
	return out, true
}
