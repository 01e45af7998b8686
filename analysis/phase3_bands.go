package analysis

import (
	"math"
	"sort"

	"spikescope/model"
)

// Phase 3 noise bands: the control ratios a band is learned from, the
// per-anchor band with its peers' spread guard, and the anomaly degree.

// controlBiasLimit: the seed expects C/D ≈ 1.0x ("明显偏离先确认数据"); a
// median control ratio further than this factor from 1 is reported.
const controlBiasLimit = 1.2

// controlBiasWarning checks that the control pair is aligned: a C/D median
// Norm ratio far from 1 means a device bias or mismatched data; the degree
// (A/B)/(C/D) removes a bias, but the data should be confirmed.
func controlBiasWarning(th map[string]map[string]model.Band) model.Reason {
	var parts []model.P3DirRatio
	for _, d := range []string{"fwd", "bwd"} {
		b := th[metricName(model.StatNorm)][d]
		m := float64(b.Median)
		if b.Samples > 0 && model.Finite(m) && m > 0 && (m > controlBiasLimit || m < 1/controlBiasLimit) {
			parts = append(parts, model.P3DirRatio{Dir: d, Median: m})
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return model.P3ControlBias{Parts: parts}
}

// bandInputs are the read-only inputs of Phase 3's band rules: whether the
// control pair C/D is there (degraded: A/B), the IQR multiplier and the
// spread floor, and the comparisons of the trace (familyFactor).
type bandInputs struct {
	hasCD       bool
	iqrMult     float64
	floor       float64
	comparisons int
}

// bandInputs are the band rules' inputs at this point of the trace.
func (p *p3) bandInputs() bandInputs {
	return bandInputs{hasCD: p.hasCD, iqrMult: p.opt.IQRMult, floor: p.opt.SpreadFloor, comparisons: p.comparisons}
}

// controlRatio is the ratio a band is learned from (seed Step 3.1: C/D
// removes the device bias and is the noise reference): C/D, or A/B when degraded;
// fixedSample when the statistic is fixed by construction.
func controlRatio(c *cell, m model.Stat, hasCD bool) float64 {
	if c.fixed[m] {
		return fixedSample
	}
	if hasCD {
		return c.cd[m]
	}
	return c.ab[m]
}

// noiseBand learns a band from control ratios (seed Step 3.3, the
// control group's adaptive threshold: the C/D ratios are the noise the A/B
// ratios are judged by; degraded: from A/B ratios); ratios of fixed statistics (fixedSample) are no samples,
// and when they are all there is, the band is the floor (fixedFloorBand).
// The band carries its rule and notes as typed reasons.
func noiseBand(in bandInputs, rs []float64) model.Band {
	if n := fixedCount(rs); n > 0 && nonFiniteCount(rs) == len(rs) {
		b := fixedFloorBand(in.floor, n)
		if in.hasCD {
			b.RuleReason = bandRuleCD
		} else {
			b.RuleReason = bandRuleDegraded
		}
		return b
	}
	if !in.hasCD {
		// robust spread (robustLogBand): a fault that spans several layers
		// must not widen the band it is judged by
		b := robustLogBand(rs, in.iqrMult, in.floor, in.comparisons)
		b.NoteReasons = append([]model.Reason{noteDegraded}, b.NoteReasons...)
		b.RuleReason = bandRuleDegraded
		return b
	}
	b := degreeBand(rs, in.iqrMult, in.floor, in.comparisons)
	b.RuleReason = bandRuleCD
	return b
}

// opRatios are the control ratios of metric m of every op of the compared
// micro-batch in the layers (pass di) that aligns in C/D (A/B when
// degraded): the band's sample when the layers are too few for an anchor's
// own (two layers give each anchor two ratios). Computed once per call.
func (cl *callAnalysis) opRatios(p *p3, layers []int, m model.Stat, di int) []float64 {
	if cl.ops == nil {
		cl.ops = map[model.Stat][2][]float64{}
		for _, mm := range metricOrder {
			cl.ops[mm] = [2][]float64{}
		}
		type ratioKey struct {
			m   model.Stat
			dir int
			r   float64
		}
		seen := map[ratioKey]bool{}
		for dj, d := range p3Dirs {
			for _, l := range layers {
				var idx []int32
				for _, i := range p.ia.layers[l] {
					if p.ia.d.Ops[i].Direction == d.dir && !p.ia.info[i].Recomp {
						idx = append(idx, i)
					}
				}
				for _, i := range callSegment(p.ia, idx, p.opt.Call) {
					x, y, xi, yj := p.ia, p.ib, i, pair(p.ia, i, p.ib)
					if p.hasCD {
						x, y = p.ic, p.id
						xi = pair(p.ia, i, p.ic)
						yj = pair(p.ic, xi, p.id)
					}
					if ok, _ := checkPair(x, xi, y, yj, "X", "Y"); !ok {
						continue
					}
					bi, ci, dd := yj, xi, yj
					if p.hasCD {
						bi = pair(p.ia, i, p.ib)
					} else {
						ci, dd = -1, -1
					}
					for _, mm := range metricOrder {
						r := pairRatio(x, xi, y, yj, mm)
						if fixedStat(&p.p3Groups, i, bi, ci, dd, mm) {
							r = fixedSample
						}
						if !(model.Finite(r) || r == fixedSample) || seen[ratioKey{mm, dj, r}] {
							continue // a module and its last API hold one tensor: one sample
						}
						seen[ratioKey{mm, dj, r}] = true
						v := cl.ops[mm]
						v[dj] = append(v[dj], r)
						cl.ops[mm] = v
					}
				}
			}
		}
	}
	return cl.ops[m][di]
}

// spreadGuard (seed Step 3.3, an anchor's adaptive threshold) sets an anchor's band from its peers' control ratios (each
// relative to its own anchor's median) as well as its own. The IQR of one
// anchor's L control ratios is itself noisy (at L = 24 its relative
// standard error is about 25%): a band learned from an IQR that came out
// low by chance flags noise, which is why a lone anchor's band uses the
// IQR's one-standard-error upper bound (logBand). Anchors that see the same
// device-pair noise estimate it together far more steadily (anchors × layers
// samples, upper bound ~10% above the estimate): with peers, the band is the
// wider of the peers' band and the anchor's own point estimate (an anchor
// that is genuinely noisier keeps its own width). Peers are the anchors
// whose own band is at most peerRatio times this one's (as wide as sampling
// alone makes two bands of one noise level): an anchor whose pair compares
// different tensors on the two devices (a TE module fused with its norm vs
// a plain linear) scatters far wider and must not blunt the others.
// It returns the band, with a note saying which width it kept.
func spreadGuard(in bandInputs, b model.Band, self int, relative [][]float64, spreads []float64) model.Band {
	if !b.Usable || self >= len(spreads) || !model.Finite(spreads[self]) {
		return b
	}
	var peers []float64
	n := 0
	for aj, rs := range relative {
		if aj == self || model.Finite(spreads[aj]) && spreads[aj] <= peerRatio(b.Samples)*spreads[self] {
			peers = append(peers, rs...)
			n++
		}
	}
	if n < 2 {
		return b
	}
	all := noiseBand(in, peers)
	if all.Samples <= b.Samples || !all.Usable {
		return b
	}
	own := pointSpread(b, in.floor)
	s := math.Log(float64(all.Upper))
	var note model.Reason = model.P3BandPeers{Anchors: n, Samples: all.Samples}
	if own > s {
		s, note = own, model.P3BandOwnSpread{Anchors: n}
	}
	b.Lower, b.Upper = model.Float(math.Exp(-s)), model.Float(math.Exp(s))
	b.NoteReasons = addNote(b.NoteReasons, note)
	return b
}

// pointSpread is a band's log half-width without the IQR's upper-bound
// allowance (logBand), never below the floor.
func pointSpread(b model.Band, floor float64) float64 {
	s, fl := math.Log(float64(b.Upper)), math.Log1p(floor)
	if s <= fl || b.Samples < 1 {
		return fl
	}
	return math.Max(s/(1+iqrLogSE/math.Sqrt(float64(b.Samples))), fl)
}

// peerRatio is how much wider another anchor's band may be and still be a
// peer of an anchor with n control ratios: three standard errors of the
// ratio of two IQRs of one noise level (≈4.1 at n = 12, 2.7 at 24, 2.0 at
// 48). A pair that compares different tensors scatters far beyond it.
func peerRatio(n int) float64 {
	if n < 1 {
		return 1
	}
	return math.Exp(3 * math.Sqrt2 * iqrLogSE / math.Sqrt(float64(n)))
}

// bandSpread is a band's half-width on the log scale (NaN when unusable).
func bandSpread(b model.Band) float64 {
	if !b.Usable || !(float64(b.Upper) > 0) {
		return math.NaN()
	}
	return math.Log(float64(b.Upper))
}

// relativeToMedian divides finite ratios by their median (none when the
// median is not positive).
func relativeToMedian(rs []float64) []float64 {
	var vals []float64
	for _, r := range rs {
		if model.Finite(r) {
			vals = append(vals, r)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	s := append([]float64(nil), vals...)
	sort.Float64s(s)
	med := interpQuantile(s, 0.5)
	if med <= 0 {
		return nil
	}
	for i := range vals {
		vals[i] /= med
	}
	return vals
}

// fixedCount counts the fixedSample entries of rs.
func fixedCount(rs []float64) int {
	n := 0
	for _, r := range rs {
		if r == fixedSample {
			n++
		}
	}
	return n
}

// nonFiniteCount counts the entries of rs that are no sample (NaN, ±Inf,
// fixedSample included).
func nonFiniteCount(rs []float64) int {
	n := 0
	for _, r := range rs {
		if !model.Finite(r) {
			n++
		}
	}
	return n
}

// degree is the anomaly degree of seed Step 3.1, (A/B)/(C/D); degraded:
// (A/B)/median(A/B).
func degree(hasCD bool, ab, cd float64, b *model.Band) float64 {
	if hasCD {
		return groupRatio(ab, cd)
	}
	return groupRatio(ab, float64(b.Median))
}

// ownSpreadGuard (seed Step 3.3, an anchor's adaptive threshold) widens a band learned from other records (an anchor with
// fewer than minBandSamples layers learns it from every aligned op of the
// layers) to what the anchor's own control ratios rs allow. Records differ
// in how much their statistics scatter between two batches of data (a
// linear's output Norm ±10%, a residual's ±1%): a band pooled over every
// op is too narrow for the noisiest of them, and two or three control
// ratios of the anchor itself are all that says how noisy it is. Their
// scale is taken at its one-standard-error upper bound, as elsewhere:
// σ⁺ = sqrt(Σ ln²(r/median) / χ²(0.16; n)) over the anchor's n finite
// ratios around the pooled band's median (χ² with n degrees of freedom:
// the centre is not learned from them), and the band is at least
// √2·k·3·1.349·σ⁺ wide on the log scale (the rule of the layers' band with
// σ for IQR/1.349). With a control group only: degraded, the anchor's own
// A/B ratios are the ones being judged.
func ownSpreadGuard(in bandInputs, b model.Band, rs []float64) model.Band {
	if !in.hasCD || !b.Usable || !(float64(b.Median) > 0) {
		return b
	}
	var ss float64
	n := 0
	for _, r := range rs {
		if model.Finite(r) && r > 0 {
			d := math.Log(r / float64(b.Median))
			ss += d * d
			n++
		}
	}
	if n == 0 {
		return b
	}
	sigma := math.Sqrt(ss / chi2Lower(n))
	k := familyFactor(in.iqrMult, in.comparisons)
	s := degreeSpreadFactor * in.iqrMult * k * iqrPerSigma * sigma
	if s <= math.Log(float64(b.Upper)) {
		return b
	}
	b.Lower, b.Upper = model.Float(math.Exp(-s)), model.Float(math.Exp(s))
	b.NoteReasons = addNote(b.NoteReasons, model.P3BandWidened{N: n})
	return b
}

// chi2Lower is the 16% quantile of χ² with n degrees of freedom (the
// one-standard-error lower bound of a sum of n squared normal deviations
// over σ²): exact at n = 1 (0.0408), the Wilson–Hilferty approximation
// from n = 2 (0.347 against 0.349 exactly, closer as n grows).
func chi2Lower(n int) float64 {
	const z16 = -0.9945 // the normal 16% quantile
	if n == 1 {
		return 0.0408
	}
	v := 2 / (9 * float64(n))
	return float64(n) * math.Pow(1-v+z16*math.Sqrt(v), 3)
}
