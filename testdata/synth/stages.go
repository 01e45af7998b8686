package synth

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// StagesConfig shapes a pipeline-parallel monitor run without VPP (one
// model chunk per stage): msprobe writes vpp_stage 0 on every stage and
// every stage numbers its layers from 0 (Megatron builds each stage's
// layers with local indices), so stage 0 and stage 1 both hold
// "layers.0.self_attention.linear_qkv.weight" — different parameters at
// different gradient levels. Ranks are laid out as Megatron's default order
// (pipeline outermost): rank = stage·DP + dp. Stage 0 also holds the
// embedding, the last stage the final norm and the output layer.
type StagesConfig struct {
	PP, DP         int // stages; data-parallel ranks per stage
	LayersPerStage int
	Window         int // micro steps per optimizer step (cumulative main_grad)
	OptSteps       int
	Seed           uint64
	// StageLevel is the gradient level of stage s+1's layers relative to
	// stage s's (e.g. 0.2: every later stage's same-named weights sit 5×
	// lower); 0 = 0.2.
	StageLevel float64
	// Fault is the planted spike; nil for a run without any.
	Fault *StageFault
	// LayersOnly limits the monitored targets to the transformer layers
	// (a filtered target list): no embedding, final norm or output layer
	// tells the stages apart.
	LayersOnly bool
}

// StageFault is the planted spike: at optimizer step OptStep, micro step
// MicroStep, on rank Rank, the increment of the stage-local layer Layer's
// mlp.linear_fc2 weight is multiplied by Scale (linear_fc1 less).
type StageFault struct {
	OptStep, MicroStep, Rank, Layer int
	Scale                           float64
}

// StagesRun is a generated pipeline run held in memory.
type StagesRun struct {
	Cfg StagesConfig
	// Stage[s] are the parameters of stage s (squashed names as msprobe
	// writes them; Layer is the stage-local layer, -1 outside the stack).
	Stage [][]Param
	// unreduced[rank][(s·Window+m)·P_stage + p], cumulative per step
	unreduced [][]GradStat
	// reduced[stage][s·P_stage + p]: the DP average of the stage's ranks
	reduced [][]GradStat
	dirTag  []string
}

// StageOf is the pipeline stage of a rank.
func (r *StagesRun) StageOf(rank int) int { return rank / r.Cfg.DP }

// Ranks is the number of ranks (PP·DP).
func (r *StagesRun) Ranks() int { return r.Cfg.PP * r.Cfg.DP }

// FaultTarget is the name spikescope gives the faulty parameter: the stage
// and the stage-local name, "pp1:layers.2.mlp.linear_fc2.weight".
func (r *StagesRun) FaultTarget() string {
	f := r.Cfg.Fault
	if f == nil {
		return ""
	}
	return fmt.Sprintf("pp%d:layers.%d.mlp.linear_fc2.weight", r.StageOf(f.Rank), f.Layer)
}

// FaultGlobalLayer is the global layer number of the faulty layer.
func (r *StagesRun) FaultGlobalLayer() int {
	f := r.Cfg.Fault
	if f == nil {
		return -1
	}
	return r.StageOf(f.Rank)*r.Cfg.LayersPerStage + f.Layer
}

// stageParams lists stage s's weights: the embedding on stage 0,
// the stage's layers with local numbers, the final norm and the output
// layer on the last stage. Layer weights of stage s sit at level^s of
// stage 0's, and shrink a little with depth inside the stage.
func stageParams(c StagesConfig, s int) []Param {
	all := buildParams(c.LayersPerStage)
	scale := math.Pow(c.StageLevel, float64(s))
	var ps []Param
	for _, p := range all {
		switch {
		case p.Layer < 0 && c.LayersOnly:
			continue
		case p.Kind == pEmbedding && s != 0, (p.Kind == pFinalLN || p.Kind == pOutput) && s != c.PP-1:
			continue
		case p.Layer >= 0:
			p.BaseNorm *= scale
		}
		ps = append(ps, p)
	}
	return ps
}

// GenerateStages builds the run. Same config → same values.
func GenerateStages(c StagesConfig) *StagesRun {
	if c.PP < 1 {
		c.PP = 1
	}
	if c.DP < 1 {
		c.DP = 2
	}
	if c.LayersPerStage < 1 {
		c.LayersPerStage = 4
	}
	if c.Window < 1 {
		c.Window = 4
	}
	if c.OptSteps < 1 {
		c.OptSteps = 6
	}
	if c.StageLevel <= 0 {
		c.StageLevel = 0.2
	}
	r := &StagesRun{Cfg: c}
	for s := 0; s < c.PP; s++ {
		r.Stage = append(r.Stage, stageParams(c, s))
	}
	rng := rand.New(rand.NewPCG(c.Seed, 0x9199e11e))
	n := r.Ranks()
	r.unreduced = make([][]GradStat, n)
	for rank := 0; rank < n; rank++ {
		ps := r.Stage[r.StageOf(rank)]
		P := len(ps)
		r.unreduced[rank] = make([]GradStat, c.OptSteps*c.Window*P)
		for s := 0; s < c.OptSteps; s++ {
			sq := make([]float64, P)
			drift := 1 - driftPerStep*float64(s)
			for m := 0; m < c.Window; m++ {
				for p, par := range ps {
					v := par.BaseNorm * drift * (1 + 0.1*gauss(rng))
					if f := c.Fault; f != nil && rank == f.Rank && s == f.OptStep && m == f.MicroStep && par.Layer == f.Layer {
						v *= faultFactor(par.Kind, f.Scale)
					}
					sq[p] += v * v
					norm := math.Sqrt(sq[p])
					rms := norm / math.Sqrt(float64(par.Elements()))
					tail := tailRatio(par.Elements())
					r.unreduced[rank][(s*c.Window+m)*P+p] = GradStat{
						Norm: norm,
						Max:  rms * tail * (1 + 0.08*gauss(rng)),
						Min:  -rms * tail * (1 + 0.08*gauss(rng)),
						Mean: rms * meanRel * gauss(rng),
					}
				}
			}
		}
	}
	// grad_reduced: the DP average of the final accumulated gradients
	for st := 0; st < c.PP; st++ {
		ps := r.Stage[st]
		P := len(ps)
		red := make([]GradStat, c.OptSteps*P)
		for s := 0; s < c.OptSteps; s++ {
			for p, par := range ps {
				var sum float64
				for k := 0; k < c.DP; k++ {
					g := r.unreduced[st*c.DP+k][(s*c.Window+c.Window-1)*P+p]
					sum += g.Norm * g.Norm
				}
				norm := math.Sqrt(sum) / float64(c.DP) * math.Sqrt(1+dpSignal*float64(c.DP-1))
				rms := norm / math.Sqrt(float64(par.Elements()))
				tail := tailRatio(par.Elements())
				red[s*P+p] = GradStat{Norm: norm, Max: rms * tail, Min: -rms * tail, Mean: rms * meanRel * gauss(rng)}
			}
		}
		r.reduced = append(r.reduced, red)
	}
	for rank := 0; rank < n; rank++ {
		r.dirTag = append(r.dirTag, hex8(rng.Uint32()))
	}
	return r
}

// rankDir is a rank's monitor folder name.
func (r *StagesRun) rankDir(rank int) string {
	t := runStart[Anomalous].Add(secondsDur(rank))
	return fmt.Sprintf("%s-rank%d-%s", t.Format("Jan02_15-04-05"), rank, r.dirTag[rank])
}

// WriteCSVTree writes the monitor_output tree: one folder per rank with
// grad_unreduced_{s}-{s}.csv (micro_step column, vpp_stage 0 on every
// stage) and grad_reduced_{s}-{s}.csv, as msprobe's CSV writer does.
func (r *StagesRun) WriteCSVTree(dir string) error {
	c := r.Cfg
	for rank := 0; rank < r.Ranks(); rank++ {
		rd := filepath.Join(dir, r.rankDir(rank))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		st := r.StageOf(rank)
		ps := r.Stage[st]
		P := len(ps)
		for s := 0; s < c.OptSteps; s++ {
			stepStr := strconv.Itoa(s)
			b := append([]byte(csvHeaderMicro), '\n')
			for m := 0; m < c.Window; m++ {
				for p, par := range ps {
					b = append(b, "0,"...)
					b = append(b, par.Squashed...)
					b = append(b, ',')
					b = append(b, stepStr...)
					b = append(b, ',')
					b = strconv.AppendInt(b, int64(m), 10)
					b = appendStats(b, r.unreduced[rank][(s*c.Window+m)*P+p])
					b = append(b, ',')
					b = append(b, shapeCell(par.Shape)...)
					b = append(b, ","+gradDtype+"\n"...)
				}
			}
			if err := os.WriteFile(filepath.Join(rd, fmt.Sprintf("%s_%d-%d.csv", MetricUnreduced, s, s)), b, 0o644); err != nil {
				return err
			}
			b = append(b[:0], csvHeaderReduced...)
			b = append(b, '\n')
			for p, par := range ps {
				b = append(b, "0,"...)
				b = append(b, par.Squashed...)
				b = append(b, ',')
				b = append(b, stepStr...)
				b = appendStats(b, r.reduced[st][s*P+p])
				b = append(b, ',')
				b = append(b, shapeCell(par.Shape)...)
				b = append(b, ","+gradDtype+"\n"...)
			}
			if err := os.WriteFile(filepath.Join(rd, fmt.Sprintf("%s_%d-%d.csv", MetricReduced, s, s)), b, 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}

// WriteTrendDB writes the run as `msprobe data2db --micro_step true` would
// from its CSV tree: one target per distinct (name, vpp_stage 0) — the
// stages' same-named parameters share a target id — and step the global
// micro-step index.
func (r *StagesRun) WriteTrendDB(path string) error {
	c := r.Cfg
	var union []Param
	id := map[string]int{}
	for _, ps := range r.Stage {
		for _, p := range ps {
			if _, ok := id[p.Squashed]; !ok {
				union = append(union, p)
				id[p.Squashed] = len(union) // target ids 1..n
			}
		}
	}
	db, tx, err := beginTrendDB(path, union, c.OptSteps*c.Window-1, r.Ranks()-1)
	if err != nil {
		return err
	}
	defer db.Close()
	defer tx.Rollback()
	ins, err := tx.Prepare(insertTrendRows(1))
	if err != nil {
		return err
	}
	defer ins.Close()
	for rank := 0; rank < r.Ranks(); rank++ {
		st := r.StageOf(rank)
		ps := r.Stage[st]
		P := len(ps)
		for s := 0; s < c.OptSteps; s++ {
			for m := 0; m < c.Window; m++ {
				step := s*c.Window + m
				for p, par := range ps {
					if err := insertStat(ins, rank, step, id[par.Squashed], 1, r.unreduced[rank][(s*c.Window+m)*P+p]); err != nil {
						return err
					}
					if m == 0 {
						if err := insertStat(ins, rank, step, id[par.Squashed], 2, r.reduced[st][s*P+p]); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	return db.Close()
}
