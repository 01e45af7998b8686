package analysis

import (
	"math"
	"slices"

	"spikescope/model"
)

// Common-level constants (stepLevelFactors).
const (
	// levelHistory is how many preceding optimizer steps form the reference
	// level that a common jump is measured against.
	levelHistory = 8
	// levelPersist: a common rise that holds for this many steps in a row
	// is a level shift (loss-scale growth, a steady trend, a new phase of
	// training), not a spike.
	levelPersist = 3
	// seriesHeadSteps is the least number of a series' first optimizer
	// steps that set its own scale (seriesScales); a series needs twice as
	// many steps to get one.
	seriesHeadSteps = 4
	// minLevelValues: a step level is a median over at least this many
	// values (typically; the median count over steps decides). With one or
	// two values per step (one or two ranks, no micro steps) the level
	// would be the value itself and hide every spike: levels are not used.
	minLevelValues = 3
	// maxLevelSpan bounds the optimizer-step span (relative to the values)
	// for which levels are computed; sparser data keeps factor 1.
	maxLevelSpan = 4
)

// levelScratch holds the buffers of stepLevelFactors.
type levelScratch struct {
	off, fill []int
	buf       []float64
	level     []float64 // per step (relative to tmin)
	scale     []float64
	present   []int
	jump      []bool  // per step bucket: kept at a preceding level
	steps     []int32 // distinct steps when indexed (sparse step numbers), else empty
	tmin      int32
	head      []float64
	counts    []float64
	scales    []float64
}

// stepLevelFactors is the trend-robust baseline of Phase 1: a parameter's
// values at one optimizer step share a common level — warm-up, a slow
// trend, loss-scale growth move all ranks (and micro-batches) together —
// and each value is judged relative to the level of its own step, so that
// a warm-up or a drift is never a candidate while one rank (or a few) off
// its step's level still is. The level L(t) is the median of the step's
// values over ranks (and micro steps). A common RISE is still an anomaly
// (the explosion after a bad update, a fault on every rank): when L(t) is
// ≥ minEffect × the median reference of the preceding levelHistory steps
// and does not hold for levelPersist steps in a row (a level shift such as
// a loss-scale doubling or a steady trend does), the step keeps that
// preceding reference. The first step has no history: whatever all ranks share there
// (warm-up) is its level.
//
// ts[j] is the optimizer step of vals[j]; the result is, per value, the
// factor (reference level of its step) / (median reference level), ~1 for
// a stationary run, NaN-free; jumps counts the steps kept at a preceding
// level.
func stepLevelFactors(ts []int32, vals []float64, minEffect float64, out []float64, s *levelScratch) ([]float64, int) {
	out = resizeF(out, len(vals))
	for j := range out {
		out[j] = 1
	}
	if len(ts) == 0 {
		return out, 0
	}
	s.jump = s.jump[:0]
	tmin, tmax := ts[0], ts[0]
	for _, t := range ts {
		tmin, tmax = min(tmin, t), max(tmax, t)
	}
	span := int(tmax-tmin) + 1
	s.steps = s.steps[:0]
	if span > maxLevelSpan*len(ts)+64 {
		// sparse step numbers (a monitor's step interval, dumps far
		// apart): index the distinct steps instead of the span
		s.steps = append(s.steps, ts...)
		slices.Sort(s.steps)
		s.steps = slices.Compact(s.steps)
		span = len(s.steps)
	}
	if span < 2 {
		return out, 0
	}
	s.tmin = tmin
	if cap(s.jump) < span {
		s.jump = make([]bool, span)
	}
	s.jump = s.jump[:span]
	clear(s.jump)
	// bucket the finite values by step, one median per step (zeros count:
	// a clamped increment is part of its micro step's distribution)
	s.off = resizeI(s.off, span+1)
	for k := range s.off {
		s.off[k] = 0
	}
	for j, t := range ts {
		if v := vals[j]; v >= 0 && model.Finite(v) {
			s.off[s.index(t)+1]++
		}
	}
	for k := 1; k <= span; k++ {
		s.off[k] += s.off[k-1]
	}
	s.fill = append(s.fill[:0], s.off[:span]...)
	s.buf = resizeF(s.buf, len(vals))
	negZero := false
	for j, t := range ts {
		if v := vals[j]; v >= 0 && model.Finite(v) {
			k := s.index(t)
			s.buf[s.fill[k]] = v
			s.fill[k]++
			negZero = negZero || v == 0 && math.Signbit(v)
		}
	}
	s.level = resizeF(s.level, span)
	s.present = s.present[:0]
	for k := 0; k < span; k++ {
		if s.off[k+1] > s.off[k] {
			s.level[k] = medianFinite(s.buf[s.off[k]:s.off[k+1]], negZero)
			s.present = append(s.present, k)
		} else {
			s.level[k] = math.NaN()
		}
	}
	if len(s.present) < 2 {
		return out, 0
	}
	s.counts = s.counts[:0]
	for _, k := range s.present {
		s.counts = append(s.counts, float64(s.off[k+1]-s.off[k]))
	}
	if medianInPlace(s.counts) < minLevelValues {
		s.jump = s.jump[:0]
		return out, 0
	}
	// reference level per present step
	s.scale = resizeF(s.scale, span)
	for k := range s.scale {
		s.scale[k] = math.NaN()
	}
	jumps := 0
	hist := make([]float64, 0, levelHistory)
	for i, k := range s.present {
		L := s.level[k]
		s.scale[k] = L
		if i == 0 {
			continue
		}
		hist = hist[:0]
		for _, pk := range s.present[max(0, i-levelHistory):i] {
			hist = append(hist, s.scale[pk]) // the references: a past spike never lifts the history
		}
		// the reference is the median of hist, at least its smallest
		// value: a level below minEffect × that is no rise, and the
		// median is not needed (the common case)
		lowest := math.Inf(1)
		for _, v := range hist {
			if v < lowest {
				lowest = v
			}
		}
		if lowest > 0 && L < minEffect*lowest {
			continue
		}
		ref := medianInPlace(hist)
		if !(ref > 0) || !(L >= minEffect*ref) {
			continue
		}
		// a rise that holds (levelPersist steps in a row, t included, within
		// a factor minEffect of L) is a level shift, not a spike; a fault
		// followed by a larger explosion is not a level
		similar := func(x float64) bool { return x >= L/minEffect && x <= L*minEffect }
		run := 1
		for b := i - 1; b >= 0 && similar(s.level[s.present[b]]); b-- {
			run++
		}
		for f := i + 1; f < len(s.present) && similar(s.level[s.present[f]]); f++ {
			run++
		}
		persists := run >= levelPersist
		if !persists {
			s.scale[k] = ref
			s.jump[k] = true
			jumps++
		}
	}
	hist = hist[:0]
	for _, k := range s.present {
		hist = append(hist, s.scale[k])
	}
	norm := medianInPlace(hist)
	if !(norm > 0) {
		return out, 0
	}
	for j, t := range ts {
		if f := s.scale[s.index(t)] / norm; f > 0 && model.Finite(f) {
			out[j] = f
		}
	}
	return out, jumps
}

// isJump reports whether step t was kept at a preceding level by the last
// stepLevelFactors call.
func (s *levelScratch) isJump(t int32) bool {
	k := s.index(t)
	return k >= 0 && k < len(s.jump) && s.jump[k]
}

// index is the bucket of optimizer step t: t − tmin, or its rank among
// the distinct steps when they were indexed (sparse step numbers); -1 for
// a step not seen.
func (s *levelScratch) index(t int32) int {
	if len(s.steps) == 0 {
		return int(t - s.tmin)
	}
	return s.indexSparse(t)
}

// indexSparse is index with the distinct steps indexed (kept out of index,
// which is inlined: it runs a few times a value).
//
//go:noinline
func (s *levelScratch) indexSparse(t int32) int {
	i, ok := slices.BinarySearch(s.steps, t)
	if !ok {
		return -1
	}
	return i
}

func resizeI(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// seriesScales is the second half of the trend-robust baseline: the
// series of one parameter on different ranks may sit at different scales
// for good (pipeline stages number their layers from 0 again, so
// "layers.0.…" of stage 0 and of stage 3 are different layers under one
// name), and pooling them widens the baseline until weak spikes vanish.
// Each series (values vals[ends[i-1]:ends[i]], in step order) is scaled by
// the median of its step-normalised values over its FIRST optimizer steps
// (max(seriesHeadSteps, a quarter of its steps)): the head, so that a
// device that degrades later in the run still stands out from its own
// start; steps that stepLevelFactors kept at a preceding level (common
// spikes, an explosion early in the run) are left out of the head. It must
// follow stepLevelFactors on the same values. Series shorter than 2·seriesHeadSteps steps keep scale 1. The
// scales are normalised by their median and multiplied into fac.
func seriesScales(ts []int32, vals, fac []float64, ends []int, s *levelScratch) int {
	s.scales = s.scales[:0]
	scaled := 0
	a := 0
	for _, b := range ends {
		sc := math.NaN()
		if b > a {
			steps := 1
			for j := a + 1; j < b; j++ {
				if ts[j] != ts[j-1] {
					steps++
				}
			}
			if steps >= 2*seriesHeadSteps {
				head := max(seriesHeadSteps, steps/4)
				s.head = s.head[:0]
				// the first `head` steps that are not common spikes (an
				// explosion never sets the scale)
				seen := 0
				for j := a; j < b; j++ {
					if s.isJump(ts[j]) {
						continue
					}
					if j == a || ts[j] != ts[j-1] {
						seen++
					}
					if seen > head {
						break
					}
					if v := vals[j] / fac[j]; v > 0 && model.Finite(v) {
						s.head = append(s.head, v)
					}
				}
				sc = medianInPlace(s.head)
			}
		}
		s.scales = append(s.scales, sc)
		a = b
	}
	s.head = append(s.head[:0], s.scales...)
	norm := medianInPlace(s.head)
	if !(norm > 0) {
		return 0
	}
	a = 0
	for i, b := range ends {
		if f := s.scales[i] / norm; f > 0 && model.Finite(f) {
			scaled++
			for j := a; j < b; j++ {
				fac[j] *= f
			}
		}
		a = b
	}
	return scaled
}

func resizeB(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}
