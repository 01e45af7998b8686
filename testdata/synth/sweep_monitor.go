package synth

import (
	"strconv"

	"spikescope/model"
)

// recorded reports whether (t, m) is recorded (the first Skip micro steps
// of the first optimizer step are not).
func (r *SweepRun) recorded(t, m int) bool {
	return !(t == 0 && m < r.C.Skip) && !(t == r.C.Steps-1 && m >= r.C.W-r.C.Trunc)
}

// firstRecorded is the first recorded micro step of optimizer step t.
func (r *SweepRun) firstRecorded(t int) int {
	if t == 0 {
		return r.C.Skip
	}
	return 0
}

// visit calls f for every recorded cumulative norm of device dev.
func (r *SweepRun) visit(dev int, f func(rank, t, m, p int, v float64)) {
	c := r.C
	for rank := 0; rank < c.Ranks; rank++ {
		P := len(r.Params[rank])
		for t := 0; t < c.Steps; t++ {
			for m := 0; m < c.W; m++ {
				if !r.recorded(t, m) {
					continue
				}
				for p := 0; p < P; p++ {
					f(rank, t, m, p, r.norms[dev][rank][(t*c.W+m)*P+p])
				}
			}
		}
	}
}

func sweepStats(v float64) [model.NumStats]float64 {
	return [model.NumStats]float64{v, -v / 50, v / 50, 0}
}

// Monitor is the device's data as a trend.db built with --micro_step true
// holds it: global micro-step index (plain step for W = 1), grad_reduced at
// each optimizer step's first micro step.
func (r *SweepRun) Monitor(dev int) *model.MonitorData {
	c := r.C
	d := &model.MonitorData{Path: "sweep", Format: model.FormatTrendDB, Metrics: []string{"grad_unreduced", "grad_reduced"}}
	d.HasStat = [model.NumStats]bool{true, true, true, true}
	tid := map[[2]string]int32{}
	target := func(p SweepParam) int32 {
		k := [2]string{p.Name, strconv.Itoa(p.VPP)}
		if i, ok := tid[k]; ok {
			return i
		}
		d.Targets = append(d.Targets, model.Target{Name: p.Name, VPPStage: p.VPP})
		tid[k] = int32(len(d.Targets) - 1)
		return tid[k]
	}
	r.visit(dev, func(rank, t, m, p int, v float64) {
		par := r.Params[rank][p]
		step := int32(t*c.W + m)
		d.Rows.Append(int32(rank), step, model.NoMicro, target(par), 0, sweepStats(v))
		if c.Reduced && m == r.firstRecorded(t) {
			d.Rows.Append(int32(rank), int32(t*c.W), model.NoMicro, target(par), 1, sweepStats(r.red[dev][rank][t*len(r.Params[rank])+p]))
		}
	})
	return d
}
