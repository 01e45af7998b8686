package analysis

import (
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	_ "modernc.org/sqlite" // trend.db writer of the sweep

	"spikescope/model"
)

// The sweep generator: runs unlike the demo (window 1…16, resumed runs,
// pipeline stages whose parameter names restart per stage, 100× scale
// differences, warm-up, trends, loss-scale doubling, NaN faults, faults on
// two ranks, baselines that share the fault) written through every reader.

// swFault is the planted root cause.
type swFault struct {
	T, Micro, Rank int     // optimizer step index (0-based), micro step, rank
	Param          string  // "mid" (a layer's fc2), "small" (a layernorm), "large" (the largest on the rank)
	Scale          float64 // micro-batch gradient factor
	NaN            bool    // the cumulative norm becomes NaN from that micro step on
	Inf            bool    // … +Inf instead
	Rank2          int     // a second faulty rank at the same micro step (-1: none)
	Persist        bool    // the fault stays on every later micro step (a degrading device)
	AllRanks       bool    // the fault hits every rank (a bad batch everywhere, a faulty kernel)
}

// swCase shapes one generated run.
type swCase struct {
	Name                    string
	W, Ranks, Layers, Steps int
	First                   int // number of the first optimizer step (resumed runs: 1000)
	Skip                    int // leading micro steps of the first optimizer step not recorded
	PP, VPP                 int // pipeline stages (layer names restart per stage) and chunks per rank
	Fault                   *swFault
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

// swParam is one parameter held by a rank.
type swParam struct {
	Name string
	VPP  int
	Base float64
	Kind int // index into swKinds, -1 embedding, -2 output
}

var swKinds = []struct {
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

// swRun is a generated run: per device, per rank the cumulative norms
// norms[dev][rank][(t·W+m)·P_r + p].
type swRun struct {
	C      swCase
	Params [][]swParam // per rank
	norms  [2][][]float64
	red    [2][][]float64 // per rank: [t·P_r + p] grad_reduced-like value
}

func (c swCase) norm() swCase {
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
func (c swCase) stageParams(s int) []swParam {
	per := max(1, c.Layers/(c.PP*c.VPP))
	var ps []swParam
	for v := 0; v < c.VPP; v++ {
		if s == 0 && v == 0 {
			ps = append(ps, swParam{Name: "embedding.word_embeddings.weight", VPP: v, Base: 4.0, Kind: -1})
		}
		for l := 0; l < per; l++ {
			global := (v*c.PP+s)*per + l
			depth := 1 - 0.5*float64(global)/float64(max(1, c.Layers))
			for k, kd := range swKinds {
				ps = append(ps, swParam{Name: fmt.Sprintf("layers.%d.%s", l, kd.suffix), VPP: v, Base: kd.base * depth, Kind: k})
			}
		}
		if s == c.PP-1 && v == c.VPP-1 {
			ps = append(ps, swParam{Name: "final_layernorm.weight", VPP: v, Base: 0.0154, Kind: 0},
				swParam{Name: "output_layer.weight", VPP: v, Base: 5.0, Kind: -2})
		}
	}
	return ps
}

// optNum is the recorded number of optimizer step index t.
func (c swCase) optNum(t int) int { return c.First + t*max(1, c.Interval) }

func (c swCase) stageOf(rank int) int { return rank / max(1, c.Ranks/c.PP) }

// faultParam is the index of the faulty parameter on the fault rank.
func (r *swRun) faultParam() int {
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
func (r *swRun) FaultName() string { return r.Params[r.C.Fault.Rank][r.faultParam()].Name }

func swGenerate(c swCase) *swRun {
	c = c.norm()
	r := &swRun{C: c}
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

// recorded reports whether (t, m) is recorded (the first Skip micro steps
// of the first optimizer step are not).
func (r *swRun) recorded(t, m int) bool {
	return !(t == 0 && m < r.C.Skip) && !(t == r.C.Steps-1 && m >= r.C.W-r.C.Trunc)
}

// visit calls f for every recorded cumulative norm of device dev.
func (r *swRun) visit(dev int, f func(rank, t, m, p int, v float64)) {
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

func swStats(v float64) [model.NumStats]float64 {
	return [model.NumStats]float64{v, -v / 50, v / 50, 0}
}

// Monitor is the device's data as a trend.db built with --micro_step true
// holds it: global micro-step index (plain step for W = 1), grad_reduced at
// each optimizer step's first micro step.
func (r *swRun) Monitor(dev int) *model.MonitorData {
	c := r.C
	d := &model.MonitorData{Path: "sweep", Format: model.FormatTrendDB, Metrics: []string{"grad_unreduced", "grad_reduced"}}
	d.HasStat = [model.NumStats]bool{true, true, true, true}
	tid := map[[2]string]int32{}
	target := func(p swParam) int32 {
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
		d.Rows.Append(int32(rank), step, model.NoMicro, target(par), 0, swStats(v))
		if c.Reduced && m == max(0, c.Skip*boolInt(t == 0)) {
			d.Rows.Append(int32(rank), int32(t*c.W), model.NoMicro, target(par), 1, swStats(r.red[dev][rank][t*len(r.Params[rank])+p]))
		}
	})
	return d
}

// WriteTrendDB writes a trend.db; microStep false = built with
// --micro_step false (step = optimizer step, micro step in the target).
func (r *swRun) WriteTrendDB(path string, dev int, microStep bool) error {
	c := r.C
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	ddl := []string{
		`CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step))`,
		`CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL)`,
		`CREATE TABLE global_stats (min_step INTEGER DEFAULT 0, max_step INTEGER DEFAULT 0, max_rank INTEGER DEFAULT 0, grad_reduced TEXT DEFAULT NULL, grad_unreduced TEXT DEFAULT NULL)`,
		`CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID`,
		`INSERT INTO monitoring_metrics(metric_name) VALUES ('grad_unreduced'), ('grad_reduced')`,
	}
	for _, q := range ddl {
		if _, err := db.Exec(q); err != nil {
			return err
		}
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	tids := map[string]int{}
	tgt := func(p swParam, micro int) (int, error) {
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
	ins, err := tx.Prepare(`INSERT INTO trend_data VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	var werr error
	val := func(v float64) any {
		switch {
		case math.IsNaN(v):
			return nil
		case math.IsInf(v, 1):
			return 1000000001.0
		case math.IsInf(v, -1):
			return -1000000001.0
		}
		return v
	}
	put := func(rank, step, id, metric int, v float64) {
		if werr != nil {
			return
		}
		s := swStats(v)
		_, werr = ins.Exec(rank, step, id, metric, val(s[0]), val(s[1]), val(s[2]), val(s[3]))
	}
	maxStep := 0
	r.visit(dev, func(rank, t, m, p int, v float64) {
		par := r.Params[rank][p]
		step, micro := t*c.W+m, 0
		if !microStep {
			step, micro = c.optNum(t), m
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
				rs = c.optNum(t)
			}
			put(rank, rs, rid, 2, r.red[dev][rank][t*len(r.Params[rank])+p])
		}
	})
	if werr != nil {
		return werr
	}
	if _, err := tx.Exec(`INSERT INTO global_stats VALUES (0, ?, ?, 'norm,min,max,mean', 'norm,min,max,mean')`, maxStep, c.Ranks-1); err != nil {
		return err
	}
	return tx.Commit()
}

// WriteCSV writes a monitor CSV tree: v1 (rank folders "…-rank<R>-…",
// grad_unreduced_<a>-<b>.csv, 0-based micro steps, no micro_step column for
// W = 1) or v2 (rank_<r>/weight_grad_step<a>-<b>.csv, 1-based micro steps,
// "<vpp>:" name prefix).
func (r *swRun) WriteCSV(dir string, dev int, v2 bool) error {
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
			step := c.optNum(t)
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
					s := swStats(r.norms[dev][rank][(t*c.W+m)*len(ps)+p])
					stats := fmt.Sprintf("%s,%s,%s,%s", csvNum(s[1]), csvNum(s[2]), csvNum(s[3]), csvNum(s[0]))
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
				s := swStats(r.red[dev][rank][t*len(ps)+p])
				stats := fmt.Sprintf("%s,%s,%s,%s", csvNum(s[1]), csvNum(s[2]), csvNum(s[3]), csvNum(s[0]))
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

func csvNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "nan"
	case math.IsInf(v, 1):
		return "inf"
	case math.IsInf(v, -1):
		return "-inf"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// WriteDumps writes a dump tree step<First+t>/rank<R>/dump.json whose
// parameters_grad hold each step's final gradient (one call per step).
func (r *swRun) WriteDumps(dir string, dev int) error { return r.writeDumps(dir, dev, false) }

// WriteDumpsMicro writes every micro step's cumulative gradient as its own
// parameters_grad call (W calls per step and parameter).
func (r *swRun) WriteDumpsMicro(dir string, dev int) error { return r.writeDumps(dir, dev, true) }

func (r *swRun) writeDumps(dir string, dev int, micro bool) error {
	c := r.C
	for t := 0; t < c.Steps; t++ {
		for rank := 0; rank < c.Ranks; rank++ {
			rd := filepath.Join(dir, fmt.Sprintf("step%d", c.optNum(t)), fmt.Sprintf("rank%d", rank))
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
						par.VPP, mod, t*c.W+m, pyNum(v/50), pyNum(-v/50), pyNum(v))
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

func pyNum(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
