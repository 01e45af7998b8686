package analysis

import (
	"math"
	"slices"

	"spikescope/model"
)

// Real gradient noise has heavier tails than its bulk says: on noise-only
// TrainerMon runs (testdata/msprobe-real: 2 and 4 ranks, W = 1 and 2,
// several seeds) a parameter whose values sit tightly around their median
// still reaches 1.6–2.4× it now and then, on one rank at one step, and that
// passes median + 10·MAD. noiseFloor asks of every value that passed the
// robust thresholds that it also stand out of the run's noise on a log
// scale:
//
//	log(value / baseline median) ≥ tailSpreads × max(run spread, own spread)
//
// where a spread is the noise of log(norm) from one optimizer step to the
// next (each series of a parameter on a rank — per micro step for
// cumulative gradients — after the step levels and series scales that the
// rules already divide out), estimated from the lower quartile of
// |Δ log value| (lowQuartileZ): the run's over all parameters and ranks,
// the parameter's own over its ranks (a small parameter — a bias, a
// layernorm — is noisier than a large matrix). Both are measured on the
// steps before the earliest value that passed the thresholds: what follows
// a fault (its propagation, an explosion) is no noise. Step-to-step changes
// carry no trend, so a warm-up or a drift does not widen them.
//
// Why 9: on those real noise-only runs the largest value, with the robust
// thresholds switched off altogether, is 4.1–6.2 such spreads above its
// median (the spreads are 0.09–0.13, i.e. 9–13% per step); every planted
// bad batch (loss × 1000, ×50, a corrupted batch) is 26–63 spreads above,
// its weakest parameter 12. 9 spreads leaves a margin of 1.45 over the
// largest noise; for normal noise it is a tail probability of 1e-19.
const tailSpreads = 9.0

// lowQuartileZ is the lower quartile of |Z| for a standard normal Z: the
// spread from the lower quartile of |Δ log value| (|Δ| ~ √2·σ·|Z|) stays
// right when up to 3/4 of the changes come from something other than noise.
const lowQuartileZ = 0.31864

// tailScratch collects the run's step-to-step changes of log(norm) and the
// values that passed the robust thresholds (held until the run's noise is
// known).
//
// Only changes at steps before the earliest held value count (the run's
// spread and a parameter's own), and that step only falls during the pass:
// the changes are kept in chunks, and those at or after the earliest held
// step so far (cur) are dropped — the current parameter's once it is judged
// (settle), the earlier ones when a new chunk would be needed (compact).
// A held parameter's spread over all its changes is taken when it is held.
// While no value is held, only the latest parameters' changes are kept, at
// most keepEarly (dropEarly): a run where nothing is held keeps no more,
// and the run's spread computes the dropped parameters' changes again
// (redo) when a value is held later. Nothing is reserved per row: ≈ 0
// bytes a row when a value is held early or none is, and 12 (a float64
// change and an int32 step) for the parameters judged between the first
// held value and the end.
type tailScratch struct {
	dc      []*[changeChunk]float64 // |Δ log value| between a series' consecutive steps, in chunks of changeChunk
	ac      []*[changeChunk]int32   // the optimizer step of each change's later value
	n       int                     // changes kept
	cur     int32                   // earliest optimizer step of the values held so far
	packed  int32                   // cur when the kept changes were last compacted
	started bool
	open    int // the current parameter's first change
	settled int // pend[:settled] have their parameter's whole-run spread
	pend    []pending
	maxZ    float64 // largest z of a value left out by the floor
	dropped int
	pre     []float64 // spreadBefore's scratch
	hist    []int     // runSpread's counts
	// the first unstored parameters were judged before any value was held:
	// their changes were dropped (settle); redo(n) computes the changes of
	// the first n parameters again, in the same order, through add, which
	// passes them to sink while it is set
	unstored int
	early    []int // while none is held: the first change of each parameter whose changes are kept
	redo     func(n int)
	sink     func(d float64, at int32)
}

// changeChunk is the number of changes in a chunk (256 KiB of changes).
const (
	changeShift = 15
	changeChunk = 1 << changeShift
	changeMask  = changeChunk - 1
)

func (t *tailScratch) init() {
	if !t.started {
		t.cur, t.packed, t.started = math.MaxInt32, math.MaxInt32, true
	}
}

// mark starts a parameter's changes (settle ends them).
func (t *tailScratch) mark() {
	t.init()
	t.open = t.n
}

// add keeps one change d of a value at optimizer step at (microDiffs has
// its common case inline: it is called once a row).
func (t *tailScratch) add(d float64, at int32) {
	if t.sink != nil {
		t.sink(d, at)
		return
	}
	c := t.n >> changeShift
	if c == len(t.dc) {
		if t.packed > t.cur {
			t.compact()
			c = t.n >> changeShift
		}
		if c == len(t.dc) {
			t.dc = append(t.dc, new([changeChunk]float64))
			t.ac = append(t.ac, new([changeChunk]int32))
		}
	}
	t.dc[c][t.n&changeMask] = d
	t.ac[c][t.n&changeMask] = at
	t.n++
}

func (t *tailScratch) diff(i int) float64 { return t.dc[i>>changeShift][i&changeMask] }
func (t *tailScratch) step(i int) int32   { return t.ac[i>>changeShift][i&changeMask] }

// compactRange moves the changes of [i0, i1) before cur to w on, returning
// the next w (w ≤ i0: nothing is overwritten before it is read).
func (t *tailScratch) compactRange(i0, i1, w int) int {
	for i := i0; i < i1; i++ {
		if at := t.step(i); at < t.cur {
			t.dc[w>>changeShift][w&changeMask] = t.diff(i)
			t.ac[w>>changeShift][w&changeMask] = at
			w++
		}
	}
	return w
}

// compact drops the changes at or after cur, keeping their order and the
// held values' spans, and frees the chunks no longer needed. Only settled
// parameters' changes are compacted: the current one's are kept whole
// until settle.
func (t *tailScratch) compact() {
	end := t.open
	w, i := 0, 0
	oldLo, oldHi, newLo, newHi := -1, -1, 0, 0
	for k := range t.pend[:t.settled] {
		p := &t.pend[k]
		if p.lo != oldLo || p.hi != oldHi {
			oldLo, oldHi = p.lo, p.hi
			w = t.compactRange(i, p.lo, w)
			newLo = w
			w = t.compactRange(p.lo, p.hi, w)
			newHi, i = w, p.hi
		}
		p.lo, p.hi = newLo, newHi
	}
	w = t.compactRange(i, end, w)
	// the current parameter's changes (not settled) move down whole
	t.open = w
	for i := end; i < t.n; i++ {
		t.dc[w>>changeShift][w&changeMask] = t.diff(i)
		t.ac[w>>changeShift][w&changeMask] = t.step(i)
		w++
	}
	t.n = w
	keep := (w + changeMask) >> changeShift
	clear(t.dc[keep:])
	clear(t.ac[keep:])
	t.dc, t.ac = t.dc[:keep], t.ac[:keep]
	t.packed = t.cur
}

// pending is a value that passed the robust thresholds.
type pending struct {
	a      model.Anomaly
	ell    float64 // log(value / baseline median)
	lo, hi int     // its parameter's changes before cur
	all    float64 // its parameter's spread over all its changes (settle)
}

// settle ends the current parameter (its changes since mark): its held
// values take the spread of all its changes, and its changes at or after
// the earliest held step are dropped — all of them while no value is held
// (runSpread computes them again when one is).
func (t *tailScratch) settle() {
	t.init()
	lo := t.open
	if t.cur == math.MaxInt32 {
		t.early = append(t.early, lo)
		t.dropEarly()
		t.open = t.n
		return
	}
	t.early = t.early[:0]
	if t.settled < len(t.pend) {
		all := t.spreadBefore(lo, t.n, math.MaxInt32, minOwnChanges)
		for k := t.settled; k < len(t.pend); k++ {
			t.pend[k].all = all
		}
	}
	if t.cur < math.MaxInt32 {
		t.n = t.compactRange(lo, t.n, lo)
	}
	for k := t.settled; k < len(t.pend); k++ {
		t.pend[k].lo, t.pend[k].hi = lo, t.n
	}
	t.settled = len(t.pend)
	t.open = t.n
}

// dropEarly keeps at most keepEarly changes while no value is held: when
// there are more, those of the earliest parameters are dropped (whole
// parameters, down to keepEarly/2 changes or none), and runSpread computes
// them again if a value is held later.
func (t *tailScratch) dropEarly() {
	if t.n <= keepEarly {
		return
	}
	j := 0
	for j < len(t.early) && t.n-t.early[j] > keepEarly/2 {
		j++
	}
	from := t.n
	if j < len(t.early) {
		from = t.early[j]
	}
	w := 0
	for i := from; i < t.n; i++ {
		t.dc[w>>changeShift][w&changeMask] = t.diff(i)
		t.ac[w>>changeShift][w&changeMask] = t.step(i)
		w++
	}
	t.n = w
	t.unstored += j
	t.early = t.early[:copy(t.early, t.early[j:])]
	for k := range t.early {
		t.early[k] -= from
	}
	// the chunks stay, for the next parameters' changes
}

// keepEarly is the most changes (12 B each: 12 MiB) kept while no value is
// held (a variable for the tests).
var keepEarly = 1 << 20

// reset empties the scratch for the next pass.
func (t *tailScratch) reset() {
	clear(t.dc)
	clear(t.ac)
	t.dc, t.ac, t.n, t.open = t.dc[:0], t.ac[:0], 0, 0
	t.cur, t.packed, t.started = math.MaxInt32, math.MaxInt32, true
	t.pend, t.settled = t.pend[:0], 0
	t.unstored, t.redo, t.sink, t.early = 0, nil, nil, t.early[:0]
}

// addDiffs adds the step-to-step changes of log(vals) of one series
// (consecutive finite positive values; steps[i] is vals[i]'s optimizer step).
func (t *tailScratch) addDiffs(vals []float64, steps []int32) {
	prev := math.NaN()
	for i, v := range vals {
		if !(v > 0) || !model.Finite(v) {
			prev = math.NaN()
			continue
		}
		l := math.Log(v)
		if !math.IsNaN(prev) {
			t.add(math.Abs(l-prev), steps[i])
		}
		prev = l
	}
}

// first is the earliest optimizer step of the held values.
func (t *tailScratch) first() int32 {
	first := int32(math.MaxInt32)
	for _, p := range t.pend {
		first = min(first, int32(p.a.OptStep()))
	}
	return first
}

// minOwnChanges is the least number of a parameter's own step-to-step
// changes for its own spread: the lower quartile of n values is off by
// about 1.8/√n of itself (half-normal changes), ±26% at 48; the run's
// spread (all parameters) needs only minHistory.
const minOwnChanges = 4 * minHistory

// spreadBefore is the noise spread of the changes [lo, hi) at steps
// before first: 0 when fewer than need come before it.
//
// The changes are counted first and the scratch sized once. It is for a
// parameter's own changes; the run's spread selects among the chunks
// (runSpread).
func (t *tailScratch) spreadBefore(lo, hi int, first int32, need int) float64 {
	n := 0
	for i := lo; i < hi; i++ {
		if t.step(i) < first {
			n++
		}
	}
	if n < need {
		return 0
	}
	pre := slices.Grow(t.pre[:0], n)
	for i := lo; i < hi; i++ {
		if t.step(i) < first {
			pre = append(pre, t.diff(i))
		}
	}
	t.pre = pre
	return lowQuartileSpread(pre)
}

// lowQuartileSpread is the noise spread of the changes d (reordered).
func lowQuartileSpread(d []float64) float64 {
	q := quickSelect(d, len(d)/4)
	return q / (lowQuartileZ * math.Sqrt2)
}

// runSpread is spreadBefore over all the run's changes — the kept ones
// and those of the parameters judged before any value was held, computed
// again (redo) — without a copy of them: the lower quartile is selected by
// the bits of the changes (non-negative finite floats order as their
// bits), 16 bits a pass, until at most collectCap changes share the bits
// selected so far; those are copied and the k-th smallest among them is
// selected — the same value quickSelect picks from a copy of all of them.
//
// The changes computed again are computed once when the lower quartile
// falls near that of the kept ones: that pass also copies those near it
// (window), at most collectCap of them.
func (t *tailScratch) runSpread(first int32, need int) float64 {
	if cap(t.hist) < 2<<16 {
		t.hist = make([]int, 2<<16)
	}
	h, kept := t.hist[:1<<16], t.hist[1<<16:2<<16]
	clear(kept)
	nk := 0
	for i := 0; i < t.n; i++ {
		if t.step(i) < first {
			kept[math.Float64bits(t.diff(i))>>48]++
			nk++
		}
	}
	copy(h, kept)
	n := nk
	// the kept changes' buckets from 1/5 to 3/10 of the way up, and one
	// on each side
	wlo, whi := window(kept, nk)
	pre, full := t.pre[:0], false
	t.again(first, func(d float64) {
		b := math.Float64bits(d) >> 48
		h[b]++
		n++
		if int(b) >= wlo && int(b) <= whi && !full {
			if len(pre) == collectCap {
				full = true
				return
			}
			pre = append(pre, d)
		}
	})
	t.pre = pre[:0]
	if n < need || n == 0 {
		return 0
	}
	k := n / 4
	bucket := 0
	for ; k >= h[bucket]; bucket++ {
		k -= h[bucket]
	}
	prefix, mask := uint64(bucket)<<48, uint64(0xffff)<<48
	if (t.unstored == 0 || !full && bucket >= wlo && bucket <= whi) && h[bucket] <= collectCap {
		// every change of the bucket: the copied ones and the kept ones
		w := 0
		for _, d := range pre {
			if math.Float64bits(d)&mask == prefix {
				pre[w] = d
				w++
			}
		}
		pre = pre[:w]
		for i := 0; i < t.n; i++ {
			if t.step(i) >= first {
				continue
			}
			if d := t.diff(i); math.Float64bits(d)&mask == prefix {
				pre = append(pre, d)
			}
		}
		t.pre = pre[:0]
		return quickSelect(pre, k) / (lowQuartileZ * math.Sqrt2)
	}
	shift := 48
	for shift > 0 && h[bucket] > collectCap {
		shift -= 16
		clear(h)
		sh := uint(shift)
		for i := 0; i < t.n; i++ {
			if t.step(i) >= first {
				continue
			}
			if b := math.Float64bits(t.diff(i)); b&mask == prefix {
				h[(b>>sh)&0xffff]++
			}
		}
		t.again(first, func(d float64) {
			if b := math.Float64bits(d); b&mask == prefix {
				h[(b>>sh)&0xffff]++
			}
		})
		bucket = 0
		for ; k >= h[bucket]; bucket++ {
			k -= h[bucket]
		}
		prefix |= uint64(bucket) << sh
		mask |= 0xffff << sh
	}
	if mask == math.MaxUint64 {
		return math.Float64frombits(prefix) / (lowQuartileZ * math.Sqrt2)
	}
	// the h[bucket] changes with the selected bits hold the k-th smallest
	pre = slices.Grow(t.pre[:0], h[bucket])
	for i := 0; i < t.n; i++ {
		if t.step(i) >= first {
			continue
		}
		if d := t.diff(i); math.Float64bits(d)&mask == prefix {
			pre = append(pre, d)
		}
	}
	t.again(first, func(d float64) {
		if math.Float64bits(d)&mask == prefix {
			pre = append(pre, d)
		}
	})
	t.pre = pre[:0]
	return quickSelect(pre, k) / (lowQuartileZ * math.Sqrt2)
}

// window is the buckets of counts h (n in all) from the one holding the
// n/5-th to the one holding the 3n/10-th, and one more on each side (an
// empty window when n is 0).
func window(h []int, n int) (lo, hi int) {
	if n == 0 {
		return 1, 0
	}
	lo, hi = -1, -1
	at, a, b := 0, n/5, 3*n/10
	for i, c := range h {
		at += c
		if lo < 0 && at > a {
			lo = i
		}
		if at > b {
			hi = i
			break
		}
	}
	return max(lo-1, 0), min(hi+1, len(h)-1)
}

// collectCap is the most changes runSpread copies (8 MiB) to select among
// (a variable for the tests of its passes).
var collectCap = 1 << 20

// again passes fn the changes before first of the parameters whose changes
// settle dropped (none held yet), computed again by redo.
func (t *tailScratch) again(first int32, fn func(d float64)) {
	if t.unstored == 0 {
		return
	}
	t.sink = func(d float64, at int32) {
		if at < first {
			fn(d)
		}
	}
	defer func() { t.sink = nil }()
	t.redo(t.unstored)
}

// ownSpread is a parameter's own noise spread: from its changes before
// first (at least minOwnChanges of them, else 0), or from all its changes
// (all: 0 when fewer) when that is lower — a few steps of history overstate
// the noise by chance as often as they understate it, and the lower
// quartile of the whole run stays right while less than 3/4 of it follows
// a fault.
func (t *tailScratch) ownSpread(lo, hi int, first int32, all float64) float64 {
	pre := t.spreadBefore(lo, hi, first, minOwnChanges)
	if pre == 0 {
		return 0
	}
	if all > 0 {
		return min(pre, all)
	}
	return pre
}

// hold keeps a value that passed the thresholds until noiseFloor; its
// parameter's changes are the current ones (settle ends them).
func (t *tailScratch) hold(a model.Anomaly, v, median float64) {
	t.init()
	t.pend = append(t.pend, pending{a: a, ell: math.Log(v / median)})
	t.cur = min(t.cur, int32(a.OptStep()))
}

// noiseFloor turns the held values into candidates when they stand
// tailSpreads spreads of the run's noise above their median (see
// tailSpreads), and says what it left out. It returns the candidates it
// keeps, the run's noise spread it measured (thresholds; nil when nothing
// was held) and what it says (nil: nothing). It empties t.
func noiseFloor(t *tailScratch) (kept []model.Anomaly, thresholds map[string]float64, said model.Reason) {
	defer t.reset()
	if len(t.pend) == 0 {
		return nil, nil, nil
	}
	first := t.first()
	own := make([]float64, len(t.pend))
	for k, p := range t.pend {
		own[k] = t.ownSpread(p.lo, p.hi, first, p.all)
	}
	run := t.runSpread(first, minHistory)
	thresholds = map[string]float64{"tail_spreads": tailSpreads, "run_noise_spread": run}
	if run == 0 {
		// nothing recorded before the first value that passed: the noise
		// is unknown, the robust thresholds decide alone
		for _, p := range t.pend {
			kept = append(kept, p.a)
		}
		return kept, thresholds, model.TailsUnmeasured{First: int(first), Need: minHistory}
	}
	for k, p := range t.pend {
		sp := max(run, own[k])
		if z := p.ell / sp; z < tailSpreads {
			t.dropped++
			t.maxZ = max(t.maxZ, z)
			continue
		}
		kept = append(kept, p.a)
	}
	if t.dropped > 0 {
		said = model.TailsDropped{Dropped: t.dropped, Spreads: tailSpreads, First: int(first), Spread: run, MaxZ: t.maxZ}
	}
	return kept, thresholds, said
}
