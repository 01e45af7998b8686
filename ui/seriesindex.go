package ui

import (
	"math"
	"sort"
	"sync"

	"spikescope/model"
)

// seriesKey identifies one curve: a target's metric on one rank.
type seriesKey struct {
	target, rank int32
	metric       uint8
}

// seriesIndex maps the curves of the candidates' parameters (every rank)
// to their row indices in step order. It is built once, off the update
// loop, in one pass over the rows, so drawing a sparkline or a chart never
// scans the whole monitor table.
type seriesIndex struct {
	md     *model.MonitorData
	rows   map[seriesKey][]int32
	ranks  []int32
	byName map[string][]int32 // target name → target indices

	// curves already read, so that a redraw (a new metric, the screen
	// opened again) copies no rows and widens no float32 twice; bounded by
	// maxCachedPoints and emptied when full
	mu     sync.Mutex
	cached map[seriesKey]*cachedCurve
	points int
}

// cachedCurve is one curve's steps and the values of each statistic read
// so far (nil: not yet).
type cachedCurve struct {
	steps, micro []int32
	vals         [model.NumStats][]float64
	lo, hi       [model.NumStats]float64
}

// maxCachedPoints bounds the values the curve cache holds (8 bytes each; a
// curve's steps and micro steps count as one): 64 ranks × 4,000 steps × 4
// statistics and the steps is 1.3M, the whole cache about 32 MB.
const maxCachedPoints = 4 << 20

// curve is one (rank, parameter) series in step order.
type curve struct {
	Steps []int32
	Micro []int32
	Vals  []float64
	// Lo, Hi: the finite range of Vals (+Inf, -Inf when none), kept with
	// the cached curve so a chart does not scan every rank again
	Lo, Hi float64
}

// buildSeriesIndex indexes the curves of every parameter that appears in
// the candidates.
func buildSeriesIndex(md *model.MonitorData, anomalies []model.Anomaly) *seriesIndex {
	if md == nil {
		return nil
	}
	ix := &seriesIndex{md: md, rows: map[seriesKey][]int32{}, byName: map[string][]int32{}}
	for i, t := range md.Targets {
		ix.byName[t.Name] = append(ix.byName[t.Name], int32(i))
	}
	want := make([]bool, len(md.Targets))
	for i := range anomalies {
		for _, t := range ix.targets(&anomalies[i]) {
			want[t] = true
		}
	}
	r := &md.Rows
	var seen []bool // ranks are small non-negative numbers
	seenOther := map[int32]bool{}
	for run := range r.Runs() {
		rk := run.Rank
		switch {
		case rk >= 0 && rk < 1<<20:
			if int(rk) >= len(seen) {
				seen = append(seen, make([]bool, int(rk)+1-len(seen))...)
			}
			if !seen[rk] {
				seen[rk] = true
				ix.ranks = append(ix.ranks, rk)
			}
		case !seenOther[rk]:
			seenOther[rk] = true
			ix.ranks = append(ix.ranks, rk)
		}
		t := run.Target
		if t < 0 || int(t) >= len(want) || !want[t] {
			continue
		}
		k := seriesKey{t, rk, run.Metric}
		for i := run.Lo; i < run.Hi; i++ {
			ix.rows[k] = append(ix.rows[k], int32(i))
		}
	}
	sort.Slice(ix.ranks, func(a, b int) bool { return ix.ranks[a] < ix.ranks[b] })
	for k, rows := range ix.rows {
		sort.SliceStable(rows, func(a, b int) bool {
			ra, rb := rows[a], rows[b]
			if r.Step[ra] != r.Step[rb] {
				return r.Step[ra] < r.Step[rb]
			}
			return r.MicroOf(int(ra)) < r.MicroOf(int(rb))
		})
		ix.rows[k] = rows
	}
	return ix
}

// targets returns the target indices an anomaly names (same name; the
// same pipeline chunk when that matches).
func (ix *seriesIndex) targets(a *model.Anomaly) []int32 {
	byName := ix.byName[a.TargetName]
	var exact []int32
	for _, i := range byName {
		if ix.md.Targets[i].VPPStage == a.VPPStage {
			exact = append(exact, i)
		}
	}
	if len(exact) > 0 {
		return exact
	}
	return byName
}

// metric returns the metric index of an anomaly (the only metric when the
// name does not match).
func (ix *seriesIndex) metric(a *model.Anomaly) uint8 {
	if m := ix.md.MetricIndex(a.Metric); m >= 0 {
		return uint8(m)
	}
	return 0
}

// curveOf returns the norm curve of a's parameter on rank, and the
// position of a's own point in it (-1 when absent).
func (ix *seriesIndex) curveOf(a *model.Anomaly, rank int) (curve, int) {
	return ix.statCurve(a, rank, model.StatNorm)
}

// statCurve is curveOf for any recorded statistic.
func (ix *seriesIndex) statCurve(a *model.Anomaly, rank int, stat model.Stat) (curve, int) {
	if ix == nil {
		return curve{}, -1
	}
	m := ix.metric(a)
	for _, t := range ix.targets(a) {
		k := seriesKey{t, int32(rank), m}
		rows, ok := ix.rows[k]
		if !ok {
			continue
		}
		c := ix.cachedCurve(k, rows, stat)
		spike := -1
		if rank == a.Rank {
			for i, s := range c.Steps {
				if int(s) == a.Step && (c.Micro[i] == model.NoMicro || a.MicroStep == nil || int(c.Micro[i]) == a.MicroPos()) {
					spike = i
					break
				}
			}
		}
		return c, spike
	}
	return curve{}, -1
}

// cachedCurve returns the curve of rows for stat, read once and kept; the
// slices are shared, callers only read them.
func (ix *seriesIndex) cachedCurve(k seriesKey, rows []int32, stat model.Stat) curve {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	cc := ix.cached[k]
	r := &ix.md.Rows
	if cc == nil {
		if ix.cached == nil || ix.points+2*len(rows) > maxCachedPoints {
			ix.cached, ix.points = map[seriesKey]*cachedCurve{}, 0
		}
		cc = &cachedCurve{steps: make([]int32, len(rows)), micro: make([]int32, len(rows))}
		for j, i := range rows {
			cc.steps[j], cc.micro[j] = r.Step[i], r.MicroOf(int(i))
		}
		ix.cached[k] = cc
		ix.points += len(rows)
	}
	if cc.vals[stat] == nil {
		vals := make([]float64, len(rows))
		for j, i := range rows {
			vals[j] = r.Decimal(stat, int(i))
		}
		cc.vals[stat] = vals
		cc.lo[stat], cc.hi[stat] = rawRange(vals)
		ix.points += len(rows)
	}
	return curve{Steps: cc.steps, Micro: cc.micro, Vals: cc.vals[stat], Lo: cc.lo[stat], Hi: cc.hi[stat]}
}

// warm reads a's curves on every rank for each of stats into the cache,
// off the update loop, so switching the metric on the series screen finds
// them read; it does nothing when they would not fit in the cache with
// room to spare (they would push out the curves on screen).
func (ix *seriesIndex) warm(a *model.Anomaly, stats []model.Stat) {
	if ix == nil {
		return
	}
	m, n := ix.metric(a), 0
	for _, r := range ix.ranks {
		for _, t := range ix.targets(a) {
			n += len(ix.rows[seriesKey{t, r, m}])
		}
	}
	if (len(stats)+2)*n > maxCachedPoints/2 {
		return
	}
	for _, st := range stats {
		for _, r := range ix.ranks {
			ix.statCurve(a, int(r), st)
		}
	}
}

// finiteRange returns the min and max finite value of vals (0,0 if none).
func finiteRange(vals ...[]float64) (lo, hi float64) {
	lo, hi = rawRange(vals...)
	if lo > hi {
		return 0, 0
	}
	return lo, hi
}

// rawRange is finiteRange with +Inf, -Inf when no value is finite.
func rawRange(vals ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, vs := range vals {
		for _, v := range vs {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
	}
	return lo, hi
}

// stepKey is a point's position: source step and micro step.
type stepKey struct{ step, micro int32 }

// bandOf returns, for each point of sel, the min and max of a's parameter
// over every rank of ix (the baseline run's band); ok is false when ix has
// no such curve.
func (ix *seriesIndex) bandOf(a *model.Anomaly, sel curve, stat model.Stat) (lo, hi []float64, ok bool) {
	if ix == nil {
		return nil, nil, false
	}
	type mm struct{ lo, hi float64 }
	agg := map[stepKey]mm{}
	for _, r := range ix.ranks {
		c, _ := ix.statCurve(a, int(r), stat)
		for i, v := range c.Vals {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			k := stepKey{c.Steps[i], c.Micro[i]}
			cur, seen := agg[k]
			if !seen {
				cur = mm{v, v}
			}
			cur.lo, cur.hi = math.Min(cur.lo, v), math.Max(cur.hi, v)
			agg[k] = cur
		}
	}
	if len(agg) == 0 {
		return nil, nil, false
	}
	lo, hi = make([]float64, len(sel.Vals)), make([]float64, len(sel.Vals))
	for i := range sel.Vals {
		if b, found := agg[stepKey{sel.Steps[i], sel.Micro[i]}]; found {
			lo[i], hi[i] = b.lo, b.hi
		} else {
			lo[i], hi[i] = math.NaN(), math.NaN()
		}
	}
	return lo, hi, true
}

// ranksOf returns the ranks that hold a's parameter (all ranks when none
// does): with pipeline stages, "pp1:…" lives on stage 1's ranks only.
func (ix *seriesIndex) ranksOf(a *model.Anomaly) []int32 {
	m := ix.metric(a)
	ts := ix.targets(a)
	var out []int32
	for _, r := range ix.ranks {
		for _, t := range ts {
			if _, ok := ix.rows[seriesKey{t, r, m}]; ok {
				out = append(out, r)
				break
			}
		}
	}
	if len(out) == 0 {
		return ix.ranks
	}
	return out
}
