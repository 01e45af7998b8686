package synth

import (
	"math"
	"math/rand/v2"
	"sort"

	"spikescope/model"
)

// GradStat is the four statistics of one gradient tensor.
type GradStat struct{ Norm, Min, Max, Mean float64 }

// Run is one generated run held in memory: per device the cumulative
// grad_unreduced of every (rank, optimizer step, micro step, parameter) and
// the grad_reduced of every (optimizer step, parameter). Values are exact
// (not yet rounded to the CSV's 6 digits).
type Run struct {
	Cfg    Config
	Params []Param
	// unreduced[dev][((rank·OptSteps + s)·Window + m)·P + p]
	unreduced [numDevices][]GradStat
	// reduced[dev][s·P + p]; identical on all ranks.
	reduced [numDevices][]GradStat
	// explodeRanks are the ranks that blow up one step after the fault.
	explodeRanks []int
	// dirTag is the 8-hex uuid part of each rank folder, per device.
	dirTag [numDevices][]string
}

// Grad returns the cumulative grad_unreduced statistic (exact values).
func (r *Run) Grad(dev Device, rank, optStep, micro, param int) GradStat {
	return r.unreduced[dev][r.uIndex(rank, optStep-r.Cfg.FirstStep, micro, param)]
}

// Reduced returns the grad_reduced statistic of an optimizer step.
func (r *Run) Reduced(dev Device, optStep, param int) GradStat {
	return r.reduced[dev][(optStep-r.Cfg.FirstStep)*len(r.Params)+param]
}

func (r *Run) uIndex(rank, s, m, p int) int {
	c := r.Cfg
	return ((rank*c.OptSteps+s)*c.Window+m)*len(r.Params) + p
}

// Generation constants.
const (
	// dpSignal is the share of the squared gradient common to all DP ranks;
	// the rest is rank-specific and averages out in grad_reduced.
	dpSignal = 0.3
	// driftPerStep makes gradients shrink slowly as training proceeds.
	driftPerStep = 0.01
	// meanRel is the typical |mean| of a gradient relative to its rms.
	meanRel = 0.02
	// afterglowExp: the step after the explosion still carries factor^exp.
	afterglowExp = 0.4
	// explodeShare is the share of ranks that explode after the fault.
	explodeShare = 0.75
)

// faultFactor is the planted increment factor of each MLP weight kind: the
// fc2 weight takes the full scale, fc1 a bit more than half, the norm less.
func faultFactor(k paramKind, scale float64) float64 {
	switch k {
	case pFC2:
		return scale
	case pFC1:
		return 1 + 0.55*(scale-1)
	case pPreMLPLN:
		return 1 + 0.35*(scale-1)
	}
	return 1
}

// explodes tells whether a parameter is polluted by the bad update: every
// weight of layers ≥ the fault layer, the final norm and the output layer.
func explodes(p Param, faultLayer int) bool {
	return p.Layer >= faultLayer || p.Kind == pFinalLN || p.Kind == pOutput
}

// tailRatio is the typical max|x| / rms(x) of a gradient with n elements:
// heavier tails for the large matrices.
func tailRatio(n int64) float64 {
	ln := math.Log(float64(n))
	return math.Sqrt(2*ln) * (0.8 + 0.11*math.Max(0, ln-8.3))
}

// gauss draws a standard normal value clipped to ±3 (keeps noise "±x%").
func gauss(rng *rand.Rand) float64 {
	return math.Max(-3, math.Min(3, rng.NormFloat64()))
}

// Generate builds the run in memory. Same Config → same values.
func Generate(cfg Config) *Run {
	c := cfg.normalized()
	r := &Run{Cfg: c, Params: buildParams(c.Layers)}
	P := len(r.Params)
	rng := rand.New(rand.NewPCG(c.Seed, 0x5eed5eed))
	n := c.Ranks * c.OptSteps * c.Window * P
	for d := range r.unreduced {
		r.unreduced[d] = make([]GradStat, n)
		r.reduced[d] = make([]GradStat, c.OptSteps*P)
	}
	r.explodeRanks = explodeRanks(c)
	exploding := map[int]bool{}
	for _, k := range r.explodeRanks {
		exploding[k] = true
	}
	fs := c.Fault.OptStep - c.FirstStep // fault step index
	// explosion factor per (rank, param), drawn log-uniformly
	expl := make([]float64, c.Ranks*P)
	lo, hi := math.Log(c.Fault.ExplosionMin), math.Log(c.Fault.ExplosionMax)
	for i := range expl {
		expl[i] = math.Exp(lo + (hi-lo)*rng.Float64())
	}
	type cum struct{ sq [numDevices]float64 }
	acc := make([]cum, P)
	for rank := 0; rank < c.Ranks; rank++ {
		for s := 0; s < c.OptSteps; s++ {
			for p := range acc {
				acc[p] = cum{}
			}
			drift := 1 - driftPerStep*float64(s)
			for m := 0; m < c.Window; m++ {
				for p, par := range r.Params {
					// data: shared by both devices
					inc := par.BaseNorm * drift * (1 + c.NoiseLevel*gauss(rng))
					tailMax := tailRatio(par.Elements()) * (1 + 0.08*gauss(rng))
					tailMin := tailRatio(par.Elements()) * (1 + 0.08*gauss(rng))
					meanZ := gauss(rng)
					for d := Device(0); d < numDevices; d++ {
						v := inc * (1 + c.DeviceNoise*gauss(rng))
						if d == Anomalous && !c.NoFault {
							v *= anomalyFactor(c, par, rank, s, m, fs, exploding, expl[rank*P+p])
						}
						v *= spikeFactor(c, d, par, rank, c.FirstStep+s, m)
						acc[p].sq[d] += v * v
						norm := math.Sqrt(acc[p].sq[d])
						rms := norm / math.Sqrt(float64(par.Elements()))
						r.unreduced[d][r.uIndex(rank, s, m, p)] = GradStat{
							Norm: norm,
							Max:  rms * tailMax * (1 + 0.3*c.DeviceNoise*gauss(rng)),
							Min:  -rms * tailMin * (1 + 0.3*c.DeviceNoise*gauss(rng)),
							Mean: rms * meanRel * (meanZ + 0.05*gauss(rng)),
						}
					}
				}
			}
		}
	}
	r.buildReduced(rng)
	r.dirTag = [numDevices][]string{}
	for d := range r.dirTag {
		for rank := 0; rank < c.Ranks; rank++ {
			r.dirTag[d] = append(r.dirTag[d], hex8(rng.Uint32()))
		}
	}
	return r
}

// anomalyFactor is the anomalous device's multiplier of one increment: the
// planted fault at (k, m, r) on layer L's MLP, the explosion of most ranks at
// k+1 and its afterglow at k+2.
func anomalyFactor(c Config, par Param, rank, s, m, fs int, exploding map[int]bool, expl float64) float64 {
	f := c.Fault
	switch {
	case s == fs && m == f.MicroStep && rank == f.Rank && par.Layer == f.Layer:
		return faultFactor(par.Kind, f.Scale)
	case s == fs+1 && exploding[rank] && explodes(par, f.Layer):
		return expl
	case s == fs+2 && exploding[rank] && explodes(par, f.Layer):
		return math.Pow(expl, afterglowExp)
	}
	return 1
}

// explodeRanks picks ⌈75%⌉ of the ranks (always the fault rank) to explode at
// the step after the fault; the others are spread evenly.
func explodeRanks(c Config) []int {
	cnt := int(math.Ceil(explodeShare * float64(c.Ranks)))
	calm := map[int]bool{}
	if k := c.Ranks - cnt; k > 0 {
		stride := c.Ranks / k
		for i := 0; i < k; i++ {
			calm[(c.Fault.Rank+1+i*stride)%c.Ranks] = true
		}
	}
	var out []int
	for i := 0; i < c.Ranks; i++ {
		if !calm[i] || i == c.Fault.Rank {
			out = append(out, i)
		}
	}
	return out
}

// buildReduced derives grad_reduced (DP average of the final accumulated
// gradients): a shared signal part plus the rank-specific parts averaged.
func (r *Run) buildReduced(rng *rand.Rand) {
	c := r.Cfg
	P := len(r.Params)
	finals := make([]float64, c.Ranks)
	for s := 0; s < c.OptSteps; s++ {
		for p, par := range r.Params {
			tail := tailRatio(par.Elements())
			tmax, tmin, mz := 1+0.08*gauss(rng), 1+0.08*gauss(rng), gauss(rng)
			for d := Device(0); d < numDevices; d++ {
				var sumSq float64
				for rank := 0; rank < c.Ranks; rank++ {
					f := r.unreduced[d][r.uIndex(rank, s, c.Window-1, p)].Norm
					finals[rank] = f
					sumSq += f * f
				}
				sort.Float64s(finals)
				med := finals[len(finals)/2]
				if len(finals)%2 == 0 {
					med = (finals[len(finals)/2-1] + med) / 2
				}
				norm := math.Sqrt(dpSignal*med*med + (1-dpSignal)*sumSq/float64(c.Ranks*c.Ranks))
				rms := norm / math.Sqrt(float64(par.Elements()))
				r.reduced[d][s*P+p] = GradStat{
					Norm: norm,
					Max:  rms * tail * tmax,
					Min:  -rms * tail * tmin,
					Mean: rms * meanRel * mz,
				}
			}
		}
	}
}

func hex8(v uint32) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 8)
	for i := 7; i >= 0; i-- {
		b[i] = digits[v&15]
		v >>= 4
	}
	return string(b)
}

// Metric names in msprobe's METRICS_TRENDVIS_SUPPORTED order: the trend.db
// ids are 1 and 2 in this order.
const (
	MetricUnreduced = "grad_unreduced"
	MetricReduced   = "grad_reduced"
)

// GlobalStep is the trend.db step of (optimizer step, micro step): csv2db
// --micro_step true numbers micro steps consecutively from the first step.
func (r *Run) GlobalStep(optStep, micro int) int {
	return (optStep-r.Cfg.FirstStep)*r.Cfg.Window + micro
}

// stored is a value as it reaches trend.db (and the CSV): rounded to 6
// digits; -0 becomes 0 (trend.db) — the CSV keeps "-0.0".
func stored(v float64) float64 {
	v = roundDigits(v, monitorDigits)
	if v == 0 {
		return 0
	}
	return v
}

// Monitor returns the device's rows as ingest reads them from the trend.db:
// Format trenddb, ExplicitMicro false, Step the global micro-step index,
// grad_reduced at each optimizer step's first micro step, values rounded to
// 6 digits, rows ordered by (rank, step, target, metric) like the table's
// primary key. Metric 0 is grad_unreduced, 1 grad_reduced.
func (r *Run) Monitor(dev Device) *model.MonitorData {
	c := r.Cfg
	P := len(r.Params)
	md := &model.MonitorData{
		Path:    "synth:" + dev.String(),
		Format:  model.FormatTrendDB,
		Metrics: []string{MetricUnreduced, MetricReduced},
		HasStat: [model.NumStats]bool{true, true, true, true},
	}
	for _, p := range r.Params {
		md.Targets = append(md.Targets, model.Target{Name: p.Squashed})
	}
	md.Rows.Grow(c.Ranks * c.OptSteps * P * (c.Window + 1))
	for rank := 0; rank < c.Ranks; rank++ {
		for s := 0; s < c.OptSteps; s++ {
			for m := 0; m < c.Window; m++ {
				step := int32(s*c.Window + m)
				for p := 0; p < P; p++ {
					g := r.unreduced[dev][r.uIndex(rank, s, m, p)]
					md.Rows.Append(int32(rank), step, model.NoMicro, int32(p), 0, statVals(g))
					if m == 0 {
						md.Rows.Append(int32(rank), step, model.NoMicro, int32(p), 1, statVals(r.reduced[dev][s*P+p]))
					}
				}
			}
		}
	}
	return md
}

func statVals(g GradStat) [model.NumStats]float64 {
	var v [model.NumStats]float64
	v[model.StatNorm] = stored(g.Norm)
	v[model.StatMin] = stored(g.Min)
	v[model.StatMax] = stored(g.Max)
	v[model.StatMean] = stored(g.Mean)
	return v
}
