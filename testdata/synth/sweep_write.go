package synth

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// WriteTrendDB writes a trend.db; microStep false = built with
// --micro_step false (step = optimizer step, micro step in the target).
// Targets carry their VPP chunk and micro step, so the dimension tables are
// filled here rather than by writeDimensions.
func (r *SweepRun) WriteTrendDB(path string, dev int, microStep bool) error {
	c := r.C
	db, err := createTrendDB(path)
	if err != nil {
		return err
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO monitoring_metrics(metric_name) VALUES (?), (?)`, MetricUnreduced, MetricReduced); err != nil {
		return err
	}
	tids := map[string]int{}
	tgt := func(p SweepParam, micro int) (int, error) {
		k := fmt.Sprintf("%s|%d|%d", p.Name, p.VPP, micro)
		if id, ok := tids[k]; ok {
			return id, nil
		}
		res, err := tx.Exec(`INSERT INTO monitoring_targets(target_name, vpp_stage, micro_step) VALUES (?, ?, ?)`, p.Name, p.VPP, micro)
		if err != nil {
			return 0, err
		}
		id, _ := res.LastInsertId()
		tids[k] = int(id)
		return int(id), nil
	}
	ins, err := tx.Prepare(insertTrendRows(1))
	if err != nil {
		return err
	}
	defer ins.Close()
	var werr error
	put := func(rank, step, id, metric int, v float64) {
		if werr != nil {
			return
		}
		s := sweepStats(v)
		_, werr = ins.Exec(rank, step, id, metric, trendValue(s[0]), trendValue(s[1]), trendValue(s[2]), trendValue(s[3]))
	}
	maxStep := 0
	r.visit(dev, func(rank, t, m, p int, v float64) {
		par := r.Params[rank][p]
		step, micro := t*c.W+m, 0
		if !microStep {
			step, micro = c.OptNum(t), m
		}
		maxStep = max(maxStep, step)
		id, err := tgt(par, micro)
		if err != nil {
			werr = err
			return
		}
		put(rank, step, id, 1, v)
		if c.Reduced && m == c.W-1 {
			rid, err := tgt(par, 0)
			if err != nil {
				werr = err
				return
			}
			rs := t * c.W
			if !microStep {
				rs = c.OptNum(t)
			}
			put(rank, rs, rid, 2, r.red[dev][rank][t*len(r.Params[rank])+p])
		}
	})
	if werr != nil {
		return werr
	}
	if _, err := tx.Exec(`INSERT INTO global_stats VALUES (0, ?, ?, ?, ?)`, maxStep, c.Ranks-1, trendStatList, trendStatList); err != nil {
		return err
	}
	return tx.Commit()
}

// WriteCSV writes a monitor CSV tree: v1 (rank folders "…-rank<R>-…",
// grad_unreduced_<a>-<b>.csv, 0-based micro steps, no micro_step column for
// W = 1) or v2 (rank_<r>/weight_grad_step<a>-<b>.csv, 1-based micro steps,
// "<vpp>:" name prefix).
func (r *SweepRun) WriteCSV(dir string, dev int, v2 bool) error {
	c := r.C
	for rank := 0; rank < c.Ranks; rank++ {
		rd := filepath.Join(dir, fmt.Sprintf("Feb20_16-27-56-rank%d-5c9d13e7", rank))
		if v2 {
			rd = filepath.Join(dir, fmt.Sprintf("rank_%d", rank))
		}
		if err := os.MkdirAll(rd, 0o755); err != nil {
			return err
		}
		ps := r.Params[rank]
		for t := 0; t < c.Steps; t++ {
			step := c.OptNum(t)
			var b, rb strings.Builder
			switch {
			case v2:
				b.WriteString("vpp_stage,step,module_name,scope,micro_step,min,max,mean,norm,nans\n")
			case c.W > 1:
				b.WriteString("vpp_stage,name,step,micro_step,min,max,mean,norm,shape,dtype\n")
			default:
				b.WriteString("vpp_stage,name,step,min,max,mean,norm,shape,dtype\n")
			}
			rb.WriteString("vpp_stage,name,step,min,max,mean,norm,shape,dtype\n")
			for m := 0; m < c.W; m++ {
				if !r.recorded(t, m) {
					continue
				}
				for p, par := range ps {
					s := sweepStats(r.norms[dev][rank][(t*c.W+m)*len(ps)+p])
					stats := fmt.Sprintf("%s,%s,%s,%s", csvNumber(s[1]), csvNumber(s[2]), csvNumber(s[3]), csvNumber(s[0]))
					switch {
					case v2:
						fmt.Fprintf(&b, "%d,%d,%d:%s,unreduced,%d,%s,0\n", par.VPP, step, par.VPP, par.Name, m+1, stats)
					case c.W > 1:
						fmt.Fprintf(&b, "%d,%s,%d,%d,%s,[4096],torch.float32\n", par.VPP, par.Name, step, m, stats)
					default:
						fmt.Fprintf(&b, "%d,%s,%d,%s,[4096],torch.float32\n", par.VPP, par.Name, step, stats)
					}
				}
			}
			for p, par := range ps {
				s := sweepStats(r.red[dev][rank][t*len(ps)+p])
				stats := fmt.Sprintf("%s,%s,%s,%s", csvNumber(s[1]), csvNumber(s[2]), csvNumber(s[3]), csvNumber(s[0]))
				if v2 {
					fmt.Fprintf(&b, "%d,%d,%d:%s,reduced,%d,%s,0\n", par.VPP, step, par.VPP, par.Name, c.W, stats)
				} else {
					fmt.Fprintf(&rb, "%d,%s,%d,%s,[4096],torch.float32\n", par.VPP, par.Name, step, stats)
				}
			}
			name := fmt.Sprintf("grad_unreduced_%d-%d.csv", step, step)
			if v2 {
				name = fmt.Sprintf("weight_grad_step%d-%d.csv", step, step)
			}
			if err := os.WriteFile(filepath.Join(rd, name), []byte(b.String()), 0o644); err != nil {
				return err
			}
			if !v2 && c.Reduced {
				if err := os.WriteFile(filepath.Join(rd, fmt.Sprintf("grad_reduced_%d-%d.csv", step, step)), []byte(rb.String()), 0o644); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// WriteDumps writes a dump tree step<First+t>/rank<R>/dump.json whose
// parameters_grad hold each step's final gradient (one call per step).
func (r *SweepRun) WriteDumps(dir string, dev int) error { return r.writeDumps(dir, dev, false) }

// WriteDumpsMicro writes every micro step's cumulative gradient as its own
// parameters_grad call (W calls per step and parameter).
func (r *SweepRun) WriteDumpsMicro(dir string, dev int) error { return r.writeDumps(dir, dev, true) }

func (r *SweepRun) writeDumps(dir string, dev int, micro bool) error {
	c := r.C
	for t := 0; t < c.Steps; t++ {
		for rank := 0; rank < c.Ranks; rank++ {
			rd := filepath.Join(dir, fmt.Sprintf("step%d", c.OptNum(t)), fmt.Sprintf("rank%d", rank))
			if err := os.MkdirAll(rd, 0o755); err != nil {
				return err
			}
			ps := r.Params[rank]
			var b strings.Builder
			b.WriteString(`{"task": "statistics", "level": "mix", "framework": "pytorch", "dump_data_dir": null, "data": {`)
			first := true
			for m := 0; m < c.W; m++ {
				if !micro && m < c.W-1 {
					continue
				}
				for p, par := range ps {
					v := r.norms[dev][rank][(t*c.W+m)*len(ps)+p]
					if !first {
						b.WriteString(", ")
					}
					first = false
					mod := strings.TrimSuffix(par.Name, ".weight")
					fmt.Fprintf(&b, `"Module.module.module.%d.%s.Linear.parameters_grad.%d": {"weight": {"type": "torch.Tensor", "dtype": "torch.float32", "shape": [4096], "Max": %s, "Min": %s, "Mean": 0.0, "Norm": %s, "requires_grad": false}}`,
						par.VPP, mod, t*c.W+m, pyRepr(v/50), pyRepr(-v/50), pyRepr(v))
				}
			}
			b.WriteString("}}")
			if err := os.WriteFile(filepath.Join(rd, "dump.json"), []byte(b.String()), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
