package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"spikescope/model"
)

// The sweep generator: runs unlike the demo (window 1…16, resumed runs,
// pipeline stages whose parameter names restart per stage, 100× scale
// differences, warm-up, trends, loss-scale doubling, NaN faults, faults on
// two ranks, baselines that share the fault) written through every reader.
// The sweeps package runs its matrix; analysis' rule tests use its runs in
// memory.

// SweepBase is the sweep's reference run: window 4, 8 ranks, a 4× fault at
// optimizer step 5 / micro step 2 / rank 3 on a layer's fc2 weight, most
// ranks exploding one step later.
func SweepBase() Sweep {
	return Sweep{W: 4, Ranks: 8, Layers: 8, Steps: 12,
		Fault: &SweepFault{T: 5, Micro: 2, Rank: 3, Param: "mid", Scale: 4, Rank2: -1}, Explode: 1}
}

// SweepWith is SweepBase named name and changed by f (on its own copy of
// the fault).
func SweepWith(name string, f func(c *Sweep)) Sweep {
	c := SweepBase()
	c.Name = name
	if c.Fault != nil {
		fc := *c.Fault
		c.Fault = &fc
	}
	f(&c)
	return c
}

// SweepFault is the planted root cause.
type SweepFault struct {
	T, Micro, Rank int     // optimizer step index (0-based), micro step, rank
	Param          string  // "mid" (a layer's fc2), "small" (a layernorm), "large" (the largest on the rank)
	Scale          float64 // micro-batch gradient factor
	NaN            bool    // the cumulative norm becomes NaN from that micro step on
	Inf            bool    // … +Inf instead
	Rank2          int     // a second faulty rank at the same micro step (-1: none)
	Persist        bool    // the fault stays on every later micro step (a degrading device)
	AllRanks       bool    // the fault hits every rank (a bad batch everywhere, a faulty kernel)
}

// Sweep shapes one generated run.
type Sweep struct {
	Name                    string
	W, Ranks, Layers, Steps int
	First                   int // number of the first optimizer step (resumed runs: 1000)
	Skip                    int // leading micro steps of the first optimizer step not recorded
	PP, VPP                 int // pipeline stages (layer names restart per stage) and chunks per rank
	Fault                   *SweepFault
	Explode                 int     // 0 none, 1 most ranks explode at T+1, 2 same but sparing the faulty parameter, 3 NaN everywhere after T
	Warmup                  float64 // factor of step 0, decaying by half per step
	Trend                   float64 // growth of every gradient over the run
	LossScale               int     // period of loss-scale-like doubling (factors 1,2,4,8 then reset)
	Reduced                 bool    // grad_reduced rows too
	Baseline                int     // 0 none, 1 healthy, 2 shares the fault
	Noise                   float64
	Seed                    uint64
	// ExplodeHalf: only about a third of the ranks explode (below the 60% rank
	// share of the cross-step rule).
	ExplodeHalf bool
	// Trunc drops the last Trunc micro steps of the last optimizer step (a
	// run stopped mid-step).
	Trunc int
	// Interval records every Interval-th optimizer step (monitor
	// step_interval): step numbers First, First+Interval, …
	Interval int
	// BatchNoise is the log-sd of a per-(rank, micro-batch) factor common
	// to all parameters (a hard batch has larger gradients everywhere).
	BatchNoise float64
	// Limit documents a known limit: the case is logged, not failed.
	Limit string
}

// SweepParam is one parameter held by a rank.
type SweepParam struct {
	Name string
	VPP  int
	Base float64
	Kind int // index into sweepKinds, -1 embedding, -2 output
}

var sweepKinds = []struct {
	suffix string
	base   float64
}{
	{"input_layernorm.weight", 0.0118},
	{"self_attention.linear_qkv.weight", 0.0628},
	{"self_attention.linear_proj.weight", 0.0352},
	{"pre_mlp_layernorm.weight", 0.0097},
	{"mlp.linear_fc1.weight", 0.0601},
	{"mlp.linear_fc2.weight", 0.0443},
}

// SweepRun is a generated run: per device, per rank the cumulative norms
// norms[dev][rank][(t·W+m)·P_r + p].
type SweepRun struct {
	C      Sweep
	Params [][]SweepParam // per rank
	norms  [2][][]float64
	red    [2][][]float64 // per rank: [t·P_r + p] grad_reduced-like value
}

func (c Sweep) norm() Sweep {
	if c.W <= 0 {
		c.W = 1
	}
	if c.Ranks <= 0 {
		c.Ranks = 8
	}
	if c.Layers <= 0 {
		c.Layers = 8
	}
	if c.Steps <= 0 {
		c.Steps = 12
	}
	if c.PP <= 0 {
		c.PP = 1
	}
	if c.VPP <= 0 {
		c.VPP = 1
	}
	if c.Noise <= 0 {
		c.Noise = 0.1
	}
	if c.Seed == 0 {
		c.Seed = 12
	}
	return c
}

// stageParams lists the parameters of pipeline stage s: VPP chunks, each
// with its layers numbered from 0 again (Megatron's local numbering).
func (c Sweep) stageParams(s int) []SweepParam {
	per := max(1, c.Layers/(c.PP*c.VPP))
	var ps []SweepParam
	for v := 0; v < c.VPP; v++ {
		if s == 0 && v == 0 {
			ps = append(ps, SweepParam{Name: "embedding.word_embeddings.weight", VPP: v, Base: 4.0, Kind: -1})
		}
		for l := 0; l < per; l++ {
			global := (v*c.PP+s)*per + l
			depth := 1 - 0.5*float64(global)/float64(max(1, c.Layers))
			for k, kd := range sweepKinds {
				ps = append(ps, SweepParam{Name: fmt.Sprintf("layers.%d.%s", l, kd.suffix), VPP: v, Base: kd.base * depth, Kind: k})
			}
		}
		if s == c.PP-1 && v == c.VPP-1 {
			ps = append(ps, SweepParam{Name: "final_layernorm.weight", VPP: v, Base: 0.0154, Kind: 0},
				SweepParam{Name: "output_layer.weight", VPP: v, Base: 5.0, Kind: -2})
		}
	}
	return ps
}

// OptNum is the recorded number of optimizer step index t.
func (c Sweep) OptNum(t int) int { return c.First + t*max(1, c.Interval) }

func (c Sweep) stageOf(rank int) int { return rank / max(1, c.Ranks/c.PP) }

// faultParam is the index of the faulty parameter on the fault rank.
func (r *SweepRun) faultParam() int {
	f := r.C.Fault
	ps := r.Params[f.Rank]
	switch f.Param {
	case "small":
		best := 0
		for i, p := range ps {
			if p.Base < ps[best].Base {
				best = i
			}
		}
		return best
	case "large":
		best := 0
		for i, p := range ps {
			if p.Base > ps[best].Base {
				best = i
			}
		}
		return best
	}
	for i, p := range ps { // "mid": fc2 of the middle layer of the first chunk
		if p.Kind == 5 && strings.HasPrefix(p.Name, fmt.Sprintf("layers.%d.", max(0, (len(ps)/6)/2))) {
			return i
		}
	}
	return len(ps) / 2
}

// FaultName is the faulty parameter's name.
func (r *SweepRun) FaultName() string { return r.Params[r.C.Fault.Rank][r.faultParam()].Name }

func GenerateSweep(c Sweep) *SweepRun {
	c = c.norm()
	r := &SweepRun{C: c}
	for rank := 0; rank < c.Ranks; rank++ {
		r.Params = append(r.Params, c.stageParams(c.stageOf(rank)))
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x12))
	fName, fVPP := "", 0
	if c.Fault != nil {
		fp := r.Params[c.Fault.Rank][r.faultParam()]
		fName, fVPP = fp.Name, fp.VPP
	}
	explodeRank := func(rank int) bool {
		if c.ExplodeHalf {
			return c.Fault != nil && (rank == c.Fault.Rank || rank%3 == 0)
		}
		return c.Fault != nil && (rank == c.Fault.Rank || rank%4 != 3)
	}
	for d := 0; d < 2; d++ {
		r.norms[d] = make([][]float64, c.Ranks)
		r.red[d] = make([][]float64, c.Ranks)
	}
	for rank := 0; rank < c.Ranks; rank++ {
		ps := r.Params[rank]
		P := len(ps)
		for d := 0; d < 2; d++ {
			r.norms[d][rank] = make([]float64, c.Steps*c.W*P)
			r.red[d][rank] = make([]float64, c.Steps*P)
		}
		// per (param) explosion factor
		expl := make([]float64, P)
		for p := range expl {
			expl[p] = math.Exp(math.Log(10) + (math.Log(50)-math.Log(10))*rng.Float64())
		}
		acc := make([][2]float64, P)
		for t := 0; t < c.Steps; t++ {
			common := 1.0
			if c.Warmup > 1 {
				common *= 1 + (c.Warmup-1)*math.Pow(0.5, float64(t))
			}
			if c.Trend > 0 {
				common *= math.Pow(c.Trend, float64(t)/float64(max(1, c.Steps-1)))
			}
			if c.LossScale > 0 {
				common *= math.Pow(2, float64((t/c.LossScale)%4))
			}
			for p := range acc {
				acc[p] = [2]float64{}
			}
			for m := 0; m < c.W; m++ {
				batch := 1.0
				if c.BatchNoise > 0 {
					batch = math.Exp(c.BatchNoise * math.Max(-3, math.Min(3, rng.NormFloat64())))
				}
				for p, par := range ps {
					g := par.Base * common * batch * (1 + c.Noise*math.Max(-3, math.Min(3, rng.NormFloat64())))
					for d := 0; d < 2; d++ {
						v := g * (1 + 0.01*rng.NormFloat64())
						nan := false
						if f := c.Fault; f != nil && (d == 0 || c.Baseline == 2) {
							isF := par.Name == fName && par.VPP == fVPP && (rank == f.Rank || rank == f.Rank2 || f.AllRanks)
							if isF && f.Persist && (t > f.T || t == f.T && m > f.Micro) {
								v *= f.Scale
							}
							if t == f.T && m == f.Micro && isF {
								v *= f.Scale
								nan = f.NaN
							}
							if t == f.T && m > f.Micro && isF && f.NaN {
								nan = true
							}
							spare := c.Explode == 2 && par.Name == fName
							if c.Explode > 0 && !spare && explodeRank(rank) && d == 0 {
								if t == f.T+1 {
									v *= expl[p]
								} else if t == f.T+2 {
									v *= math.Pow(expl[p], 0.4)
								}
							}
						}
						if c.Explode == 3 && c.Fault != nil && t > c.Fault.T && d == 0 {
							nan = true // the NaN reached the weights: every later gradient is NaN
						}
						acc[p][d] += v * v
						n := math.Sqrt(acc[p][d])
						if nan {
							acc[p][d] = math.NaN()
							n = math.NaN()
							if c.Fault.Inf {
								acc[p][d], n = math.Inf(1), math.Inf(1)
							}
						}
						r.norms[d][rank][(t*c.W+m)*P+p] = roundSig(n)
					}
				}
			}
			for p := range ps {
				for d := 0; d < 2; d++ {
					r.red[d][rank][t*P+p] = roundSig(r.norms[d][rank][(t*c.W+c.W-1)*P+p] * 0.6)
				}
			}
		}
	}
	return r
}

func roundSig(v float64) float64 {
	if v == 0 || !model.Finite(v) {
		return v
	}
	s, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 6, 64), 64)
	return s
}
