package synth

import (
	"fmt"
	"sort"
)

// Demo layout: paths under testdata/demo (see its README.md). "npu" is the
// anomalous device, "gpu" its baseline.
const (
	DemoTrendDB         = "npu/trend.db"       // anomalous device, data2db --micro_step true
	DemoCSVDir          = "npu/monitor_output" // anomalous device's monitor CSV tree
	DemoDumpDir         = "npu/dump"           // anomalous device's dump tree (A, C candidates)
	DemoBaselineTrendDB = "gpu/trend.db"       // baseline device
	DemoBaselineDumpDir = "gpu/dump"           // baseline device's dump tree (B, D)
)

// Truth is the planted answer (written to testdata/demo/TRUTH.json).
type Truth struct {
	// Phase 1/2: the root-cause coordinate.
	FaultOptStep   int `json:"fault_optimizer_step"`
	FaultMicroStep int `json:"fault_micro_step"`
	// FaultTrendStep is the trend.db step (global micro-step index).
	FaultTrendStep int `json:"fault_trenddb_step"`
	FaultRank      int `json:"fault_rank"`
	FaultLayer     int `json:"fault_layer"`
	// Parameter is the faulty parameter with the largest cumulative-norm
	// increment at the fault coordinate (trend.db / CSV name).
	Parameter string `json:"parameter"`
	// Parameters are all parameters whose increment was scaled, largest first.
	Parameters []string `json:"parameters"`
	// ParameterFullNames are their named_parameters() names.
	ParameterFullNames []string `json:"parameter_full_names"`
	// DumpGradKeys are the parameters_grad keys of those parameters in the A
	// dump (each holds a "weight" entry).
	DumpGradKeys []string `json:"dump_grad_keys"`
	// ParameterNorm / ParameterDelta: the anomalous cumulative norm at the
	// coordinate and its increment over the previous micro step (6 digits).
	ParameterNorm  float64 `json:"parameter_norm"`
	ParameterDelta float64 `json:"parameter_delta"`
	// The propagated, larger anomaly: the step after the fault, where most
	// ranks explode ("earliest beats largest").
	ExplosionOptStep int   `json:"explosion_optimizer_step"`
	ExplosionRanks   []int `json:"explosion_ranks"`
	// Phase 3.
	PlantedOperator   string   `json:"planted_operator"`
	PlantedModule     string   `json:"planted_module"`
	OperatorScale     float64  `json:"operator_scale"`
	ExpectedFwdLayer  int      `json:"expected_fwd_divergence_layer"`
	ExpectedBwdLayer  int      `json:"expected_bwd_divergence_layer"`
	DumpA             string   `json:"dump_a"`
	DumpB             string   `json:"dump_b"`
	DumpC             string   `json:"dump_c"`
	DumpD             string   `json:"dump_d"`
	ControlCandidates []string `json:"control_candidates"`
	// Run shape.
	Ranks            int `json:"ranks"`
	Layers           int `json:"layers"`
	Window           int `json:"window"`
	OptSteps         int `json:"optimizer_steps"`
	FirstStep        int `json:"first_step"`
	ParameterCount   int `json:"parameter_count"`
	TrendRows        int `json:"trenddb_rows_per_device"`
	DumpMicroBatches int `json:"dump_micro_batches"`
	// Paths of the demo layout, relative to the demo folder.
	Paths map[string]string `json:"paths"`
}

// TrendRows is the number of trend_data rows of one device: every
// (rank, micro step, parameter) of grad_unreduced plus every
// (rank, optimizer step, parameter) of grad_reduced.
func (r *Run) TrendRows() int {
	c := r.Cfg
	return c.Ranks * c.OptSteps * len(r.Params) * (c.Window + 1)
}

// Truth returns the planted answer.
func (r *Run) Truth() Truth {
	c := r.Cfg
	f := c.Fault
	s := f.OptStep - c.FirstStep
	type cand struct {
		p           int
		norm, delta float64
	}
	var cands []cand
	for p, par := range r.Params {
		if par.Layer != f.Layer || faultFactor(par.Kind, f.Scale) == 1 {
			continue
		}
		cur := r.unreduced[Anomalous][r.uIndex(f.Rank, s, f.MicroStep, p)].Norm
		prev := 0.0
		if f.MicroStep > 0 {
			prev = r.unreduced[Anomalous][r.uIndex(f.Rank, s, f.MicroStep-1, p)].Norm
		}
		cands = append(cands, cand{p, stored(cur), stored(cur) - stored(prev)})
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].delta > cands[j].delta })
	t := Truth{
		FaultOptStep: f.OptStep, FaultMicroStep: f.MicroStep, FaultTrendStep: r.GlobalStep(f.OptStep, f.MicroStep),
		FaultRank: f.Rank, FaultLayer: f.Layer,
		ExplosionOptStep: f.OptStep + 1, ExplosionRanks: r.explodeRanks,
		OperatorScale:    f.OpScale,
		ExpectedFwdLayer: f.Layer, ExpectedBwdLayer: f.Layer,
		Ranks: c.Ranks, Layers: c.Layers, Window: c.Window, OptSteps: c.OptSteps, FirstStep: c.FirstStep,
		ParameterCount: len(r.Params), TrendRows: r.TrendRows(), DumpMicroBatches: c.DumpMicroBatches,
	}
	if f.OptStep+1 >= c.FirstStep+c.OptSteps {
		t.ExplosionOptStep, t.ExplosionRanks = -1, nil
	}
	session := 0
	if c.DumpPrevStep {
		session = 1
	}
	for i, cd := range cands {
		par := r.Params[cd.p]
		if i == 0 {
			t.Parameter, t.ParameterNorm, t.ParameterDelta = par.Squashed, cd.norm, roundDigits(cd.delta, monitorDigits)
		}
		t.Parameters = append(t.Parameters, par.Squashed)
		t.ParameterFullNames = append(t.ParameterFullNames, par.Full)
		t.DumpGradKeys = append(t.DumpGradKeys, par.DumpKey(session*c.DumpMicroBatches+c.DumpMicroBatches-1))
	}
	apiIdx := c.faultMicroBatch()*c.Layers + f.Layer
	t.PlantedOperator = fmt.Sprintf("NPU.npu_swiglu.%d.forward", apiIdx)
	t.PlantedModule = fmt.Sprintf("Module.%s.%d.mlp.MLP.forward.%d", layersPath, f.Layer, c.faultMicroBatch())
	a := DumpFolder{Step: f.OptStep, Rank: f.Rank}.Path()
	t.DumpA = DemoDumpDir + "/" + a
	t.DumpB = DemoBaselineDumpDir + "/" + a
	for _, d := range r.DumpFolders() {
		if d.Rank == f.Rank && d.Step == f.OptStep {
			continue
		}
		t.ControlCandidates = append(t.ControlCandidates, DemoDumpDir+"/"+d.Path())
	}
	if len(c.ControlRanks) > 0 {
		cp := DumpFolder{Step: f.OptStep, Rank: c.ControlRanks[0]}.Path()
		t.DumpC = DemoDumpDir + "/" + cp
		t.DumpD = DemoBaselineDumpDir + "/" + cp
	}
	t.Paths = map[string]string{
		"trenddb":          DemoTrendDB,
		"csv":              DemoCSVDir,
		"baseline_trenddb": DemoBaselineTrendDB,
		"dump":             DemoDumpDir,
		"baseline_dump":    DemoBaselineDumpDir,
	}
	return t
}
