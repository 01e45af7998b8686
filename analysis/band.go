package analysis

import (
	"math"

	"spikescope/model"
)

// The control band (seed Step 3.3: "median(C/D) + max(3*IQR, 0.03)"),
// applied on the scale it is learned on: the control ratios C/D define how
// much a device pair normally scatters around its own median; a layer is
// flagged when its anomaly degree (A/B)/(C/D) leaves 1 ± that relative
// spread on either side. The reference compares the degree with the raw C/D
// threshold and only upward, so a uniform device bias flags every layer and
// shrinking divergences are never flagged (bugs 1, 2).

const (
	// bandIQRMult is the seed's IQR multiplier.
	bandIQRMult = 3.0
	// bandSpreadFloor is the seed's minimal band half-width (0.03 = 3%).
	bandSpreadFloor = 0.03
	// minBandSamples: an anchor with fewer control ratios than this (a
	// dump of two or three layers) learns nothing reliable from its own
	// IQR (two samples give an IQR of half their difference); its band is
	// then learned from the control ratios of every anchor pooled.
	minBandSamples = 8
)

// degreeSpreadFactor widens the control's relative spread before it is
// applied to the anomaly degree. The band is learned on C/D, which carries
// the noise of one device pair; the degree (A/B)/(C/D) divides two such
// independent ratios, so with no divergence its log-spread is √2 times the
// control's (var(log A/B) + var(log C/D) = 2·var(log C/D)). Applying the
// control's 3·IQR unchanged to the degree puts the flag at ≈2.9σ of the
// degree instead of the ≈4σ the seed's rule gives on its own scale, and
// noise alone then flags a layer every few hundred comparisons (a
// borderline upstream flag becomes the "earliest" start). The seed's 3%
// floor is kept as is: when the control is quiet (C/D ≈ 1.0x) any A/B
// deviation beyond 3% is a real divergence (seed Step 3.3). In degraded mode
// (no C/D) the band is learned from A/B itself and the degree is A/B over
// its own median: no widening.
const degreeSpreadFactor = math.Sqrt2

// bandRuleCD / bandRuleDegraded are the flag rule of the output's
// thresholds (package words says it).
var (
	bandRuleCD       model.Reason = model.P3RuleControl{}
	bandRuleDegraded model.Reason = model.P3RuleDegraded{}
)

// familyFactor widens the seed's IQR multiplier for the number of
// comparisons a trace makes. For normal noise 3·IQR is 4.05σ: a two-sided
// false-flag rate α ≈ 5e-5 for ONE comparison. A trace compares every
// anchor × layer × metric of a pass (hundreds to thousands), and one false
// flag upstream of the real divergence becomes the "earliest" start, so
// the seed's α is kept for the whole pass (Bonferroni: α/N per comparison)
// by scaling the multiplier with the normal quantiles z(α/N)/z(α). Never
// narrower than the seed's rule; the 3% floor is unchanged, so a quiet
// control still flags any deviation beyond 3%.
func familyFactor(iqrMult float64, comparisons int) float64 {
	if comparisons <= 1 {
		return 1
	}
	z := iqrMult * iqrPerSigma // the seed's threshold in σ
	alpha := math.Erfc(z / math.Sqrt2)
	zN := math.Sqrt2 * math.Erfcinv(alpha/float64(comparisons))
	if !model.Finite(zN) || zN <= z {
		return 1
	}
	return zN / z
}

// iqrLogSE is the standard error of ln(IQR) of n normal samples times √n
// (≈1.16: the sample IQR's relative standard error is 1.16/√n); the log
// ratio of two anchors' IQRs has √2 times that.
const iqrLogSE = 1.16

// iqrPerSigma is the IQR of a normal distribution in units of σ.
const iqrPerSigma = 1.349

// degreeBand learns the band of the anomaly degree from control ratios:
// the median, IQR and usability are controlBand's (the seed's
// median + max(3·IQR, 0.03) on the C/D scale); the limits are set on the
// degree's own scale: its null spread is √2 times the control's
// (degreeSpreadFactor), and both are measured on the log scale, where a
// multiplicative device noise is symmetric (a linear band 1 ± s is
// lopsided for wide bands: its upper side sits closer to 1 in log terms and
// flags noise). For narrow bands 3·IQR(ln r) ≈ 3·IQR(r)/median(r): the
// seed's rule. The seed's 3% floor is kept as is.
func degreeBand(ratios []float64, iqrMult, floor float64, comparisons int) model.Band {
	return logBand(ratios, iqrMult, floor, comparisons, degreeSpreadFactor)
}

// logBand is degreeBand with the widening factor given: √2 for the degree
// against a control pair, 1 in degraded mode, where the degree is A/B over
// its own median and carries exactly the noise its band was learned from.
// The IQR of n ratios is itself an estimate (relative standard error
// iqrLogSE/√n): its one-standard-error upper bound keeps a band learned
// from few layers from flagging noise when the IQR came out low. The
// median, IQR and usability are controlBand's (and so are the limits of
// an unusable band).
func logBand(ratios []float64, iqrMult, floor float64, comparisons int, factor float64) model.Band {
	return learnBand(ratios, bandSpec{Scale: logScale, Spread: spreadIQR, Mult: iqrMult, Comparisons: comparisons,
		Floor: floor, Factor: factor, SEWiden: true})
}

// Band notes (shown with a metric that is not used for flags).
var (
	noteNoControl  model.Reason = model.P3BandNoRatio{}
	noteSignChange model.Reason = model.P3BandSignChange{}
	noteScatter    model.Reason = model.P3BandScatter{}
	noteDegraded   model.Reason = model.P3BandDegraded{}
)

// controlBand learns the band of one metric and direction from the control
// ratios (C/D per layer; A/B in degraded mode). The band is relative:
// [1 − spread, 1 + spread] around the median with spread =
// max(3·IQR/|median|, 0.03). Ratios that change sign or scatter wider than
// their median make the metric unusable for flags (Usable = false + Note).
func controlBand(ratios []float64, iqrMult, floor float64) model.Band {
	return learnBand(ratios, bandSpec{Scale: linearScale, Spread: spreadIQR, Mult: iqrMult, Floor: floor})
}

// outside reports whether an anomaly degree leaves a usable band.
func outside(b *model.Band, degree float64) bool {
	if !b.Usable || !model.Finite(degree) {
		return false
	}
	return degree < float64(b.Lower) || degree > float64(b.Upper)
}

// groupRatio is a/b, or NaN when either is missing, b is zero or the result is
// not finite (the reference's ratio()). Two zeros are equal: 1 (a ReLU
// output's Min, an all-zero gradient), not "cannot compare".
func groupRatio(a, b float64) float64 {
	if a == 0 && b == 0 {
		return 1
	}
	if !model.Finite(a) || !model.Finite(b) || b == 0 {
		return math.NaN()
	}
	r := a / b
	if !model.Finite(r) {
		return math.NaN()
	}
	return r
}

// centredMeanShare: a tensor whose |Mean| is below this share of its RMS
// (Norm/√elements) is centred; the ratio of two such Means is noise (a
// Mean of 1e-5 vs 4e-7 gives 25x) and is not computed.
const centredMeanShare = 0.05

// centred reports whether a tensor's Mean is near zero relative to its
// spread of values.
func centred(t *model.TensorStat) bool {
	if t == nil || !t.Has[model.StatMean] || !t.Has[model.StatNorm] || t.Elements <= 0 {
		return false
	}
	rms := t.Stat[model.StatNorm] / math.Sqrt(float64(t.Elements))
	return math.Abs(t.Stat[model.StatMean]) < centredMeanShare*rms
}

// pairRatio is statistic s of op i in x over op j in y; NaN when missing,
// and for the Mean when either tensor is centred.
func pairRatio(x *dumpIndex, i int32, y *dumpIndex, j int32, s model.Stat) float64 {
	if x == nil || y == nil || i < 0 || j < 0 {
		return math.NaN()
	}
	ta, tb := primaryTensor(&x.d.Ops[i]), primaryTensor(&y.d.Ops[j])
	if ta == nil || tb == nil || !ta.Has[s] || !tb.Has[s] {
		return math.NaN()
	}
	if s == model.StatMean && (centred(ta) || centred(tb)) {
		return math.NaN()
	}
	return groupRatio(ta.Stat[s], tb.Stat[s])
}

// DegreeBandSpread is the half-width (relative, on the log scale) of the
// anomaly degree's band that the default options learn, before the
// widening for the number of comparisons, when every tensor carries a
// device noise of relative standard deviation sigma on its Norm: C/D then
// scatters by √2·σ, the degree by √2 times that, and the band is the seed's
// 3·IQR of it (IQR = 1.349σ for normal noise), never below the 3% floor.
// Sweeps use it to tell a planted fault that must be found from one that
// may hide in the noise.
func DegreeBandSpread(sigma float64) float64 {
	cd := math.Sqrt2 * sigma // C/D: two devices' noise
	return math.Max(degreeSpreadFactor*bandIQRMult*iqrPerSigma*cd, bandSpreadFloor)
}
