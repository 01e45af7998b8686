package synth

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
)

// Spike is a planted spike event beyond Config.Fault: at optimizer step
// OptStep (absolute) and micro step MicroStep (0 for step-level runs,
// Window 1), on Ranks (nil: every rank), the gradient increments of the
// chosen parameters are multiplied by Scale — or turn +Inf (Overflow: an
// fp16 loss-scale overflow, the step is skipped). Shared puts it on the
// baseline device too (same data, same overflow); otherwise only the
// anomalous device has it.
//
// Parameters: Kernel (one weight, Layer's mlp.linear_fc2: a faulty kernel),
// All (every parameter of the rank: bad data), or the Names given.
type Spike struct {
	OptStep, MicroStep int
	Ranks              []int
	Layer              int
	Kernel, All        bool
	Names              []string // squashed parameter names
	Scale              float64
	Overflow           bool
	Shared             bool
}

// hits tells whether the spike applies to parameter par.
func (sp Spike) hits(par Param) bool {
	switch {
	case sp.All:
		return true
	case sp.Kernel:
		return par.Kind == pFC2 && par.Layer == sp.Layer
	}
	return slices.Contains(sp.Names, par.Squashed)
}

// spikeFactor is the product of every planted Spike at (rank, optStep,
// micro) on device d for parameter par (1 when none).
func spikeFactor(c Config, d Device, par Param, rank, optStep, micro int) float64 {
	f := 1.0
	for _, sp := range c.Spikes {
		if sp.OptStep != optStep || sp.MicroStep != micro || d == Baseline && !sp.Shared || !sp.hits(par) {
			continue
		}
		if sp.Ranks != nil && !slices.Contains(sp.Ranks, rank) {
			continue
		}
		if sp.Overflow {
			return math.Inf(1)
		}
		f *= sp.Scale
	}
	return f
}

// ParamName is the squashed name (as in the CSV and trend.db) of layer
// L's parameter of the given kind suffix, e.g. "mlp.linear_fc2.weight".
func (r *Run) ParamName(layer int, suffix string) string {
	for _, p := range r.Params {
		if p.Layer == layer && len(p.Squashed) >= len(suffix) && p.Squashed[len(p.Squashed)-len(suffix):] == suffix {
			return p.Squashed
		}
	}
	return ""
}

// WriteStepCSVTreeFor writes the device's monitor CSVs as a monitor
// without per-micro-batch gradients writes them (no micro_step column):
// one grad_unreduced row per optimizer step, the step's final accumulated
// gradient, and grad_reduced as WriteCSVTreeFor does.
func (r *Run) WriteStepCSVTreeFor(dir string, dev Device) error {
	c := r.Cfg
	P := len(r.Params)
	for rank := 0; rank < c.Ranks; rank++ {
		rd := filepath.Join(dir, r.RankDir(dev, rank))
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		for _, metric := range []string{MetricUnreduced, MetricReduced} {
			for s := 0; s < c.OptSteps; s++ {
				step := c.FirstStep + s
				b := []byte(csvHeaderReduced + "\n")
				for p, par := range r.Params {
					g := r.reduced[dev][s*P+p]
					if metric == MetricUnreduced {
						g = r.unreduced[dev][r.uIndex(rank, s, c.Window-1, p)]
					}
					b = append(b, "0,"...)
					b = append(b, par.Squashed...)
					b = append(b, ',')
					b = strconv.AppendInt(b, int64(step), 10)
					b = appendStats(b, g)
					b = append(b, ',')
					b = append(b, shapeCell(par.Shape)...)
					b = append(b, ","+gradDtype+"\n"...)
				}
				name := fmt.Sprintf("%s_%d-%d.csv", metric, step, step)
				if err := os.WriteFile(filepath.Join(rd, name), b, 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
