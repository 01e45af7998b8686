package model

// Phase1Result is the JSON of `spikescope detect`: the reference script's
// keys (reference-scripts.md §3.7) plus spikescope's own additions.
type Phase1Result struct {
	Phase           int                        `json:"phase"`
	DBPath          string                     `json:"db_path"`
	Format          Format                     `json:"format"`
	Sharding        ShardingAnalysis           `json:"sharding_analysis"`
	TargetRankNorms map[string]TargetRankNorms `json:"target_rank_norms"` // key: optimizer step; null when not micro-step data
	Summary         Phase1Summary              `json:"summary"`
	Anomalies       []Anomaly                  `json:"anomalies"`
	Reasoning       []string                   `json:"reasoning"`
	Thresholds      map[string]float64         `json:"thresholds,omitempty"`
	Warnings        []string                   `json:"warnings,omitempty"`
	Missing         []string                   `json:"missing,omitempty"`
	// ReasoningReasons, WarningsReasons and MissingReasons are what the
	// rules said, as data: package words fills Reasoning, Warnings and
	// Missing from them (a result read back from JSON has only the texts).
	ReasoningReasons []Reason `json:"-"`
	WarningsReasons  []Reason `json:"-"`
	MissingReasons   []Reason `json:"-"`
	// DataKind is "step", "micro_step" or "dump": how Phase 1 detected.
	DataKind string `json:"data_kind,omitempty"`
	// Metric is the metric analysed (e.g. grad_unreduced).
	Metric string `json:"metric,omitempty"`
	// Targets names every analysed parameter, OptimizerStepRange is the
	// [first, last] optimizer step (the step for step-level data): what a
	// pinned coordinate is checked against.
	Targets            []string `json:"targets,omitempty"`
	OptimizerStepRange []int    `json:"optimizer_step_range,omitempty"`
	// TargetStages, written when the pipeline stages were inferred, lists
	// the parameters each stage (and VPP chunk) holds, by the input's own
	// names; Targets then lists each name once (AsWritten).
	TargetStages []StageTargets `json:"target_stages,omitempty"`
	// TooLittleHistory lists the values that passed the thresholds in a
	// series with fewer comparable values than a spike test needs
	// (thresholds.min_history): reported, never candidates, never a root.
	TooLittleHistory []ShortHistory `json:"too_little_history,omitempty"`
}

// StageTargets is the parameters one pipeline stage (one of its model
// chunks with VPP) holds, by the input's own names.
type StageTargets struct {
	PPStage  int      `json:"pp_stage"`
	VPPStage *int     `json:"vpp_stage,omitempty"`
	Targets  []string `json:"targets"`
}

// ShortHistory is a value that passed Phase 1's thresholds in a series too
// short to call it a spike: the would-be candidate, and how many values its
// series had (Samples) against how many a spike test needs (MinSamples).
type ShortHistory struct {
	Anomaly
	Samples    int `json:"samples"`
	MinSamples int `json:"min_samples"`
}

// ShardingAnalysis is the run shape (Phase 1 Step 0).
type ShardingAnalysis struct {
	PPStages             int    `json:"pp_stages"`
	VPPStages            []int  `json:"vpp_stages"`
	HasMicroStep         bool   `json:"has_micro_step"`
	MicroStepRange       []int  `json:"micro_step_range"`
	AccumulationWindow   int    `json:"accumulation_window"` // 0 = step level / dump
	WindowPhase          int    `json:"window_phase"`        // global step of the first window start (mod window)
	OptimizerStepCount   int    `json:"optimizer_step_count"`
	AccumulationDetected bool   `json:"accumulation_detected"`
	ExplicitMicroStep    bool   `json:"explicit_micro_step"`
	WindowOverridden     bool   `json:"window_overridden,omitempty"`
	ResetBoundary        *int   `json:"reset_boundary"`
	PassUnit             string `json:"pass_unit"`
	Conclusion           string `json:"conclusion"`
	// MicroStepBase is the number of the first micro step of an optimizer
	// step in the input (1 for monitor v2 weight gradients, 0 otherwise; a
	// dump's first parameters_grad.N), MicroStepNumbering says in words
	// how micro_step (and step) are numbered: every coordinate is
	// reported in the input's own numbering (method.md).
	MicroStepBase      int    `json:"micro_step_base"`
	MicroStepNumbering string `json:"micro_step_numbering"`
	// PassUnitReason, ConclusionReason and MicroStepNumberingReason are
	// PassUnit, Conclusion and MicroStepNumbering as data (words fills
	// the texts).
	PassUnitReason           Reason `json:"-"`
	ConclusionReason         Reason `json:"-"`
	MicroStepNumberingReason Reason `json:"-"`
	// Stages is how the pipeline stages were read from the ranks'
	// parameter sets (nil for dumps of one rank or single-rank data).
	Stages *StageLayout `json:"pipeline,omitempty"`
}

// TargetRankNorms is the final norm of one parameter on every rank at one
// optimizer step (input of the cross-step rule).
type TargetRankNorms struct {
	TargetName string           `json:"target_name"`
	Ranks      map[string]Float `json:"ranks"`
	// PPStage and VPPStage are the parameter's pipeline stage and model
	// chunk when the stages were inferred (target_name is the input's own).
	PPStage  *int `json:"pp_stage,omitempty"`
	VPPStage *int `json:"vpp_stage,omitempty"`
	// NextStep/NextRanks are the same parameter's final norms at the next
	// optimizer step: the cross-step rule compares one parameter across
	// truly adjacent steps (reference bug 11).
	NextStep  *int             `json:"next_step,omitempty"`
	NextRanks map[string]Float `json:"next_ranks,omitempty"`
	// PrevStep/PrevRanks are its final norms at the previous optimizer
	// step (when this step's focus differs from the previous step's, the
	// rule also compares this parameter with itself).
	PrevStep  *int             `json:"prev_step,omitempty"`
	PrevRanks map[string]Float `json:"prev_ranks,omitempty"`
}

// Phase1Summary counts what was analysed.
type Phase1Summary struct {
	TotalTargets int    `json:"total_targets"`
	TotalRows    int    `json:"total_rows"`
	Steps        []int  `json:"steps"`
	Ranks        []int  `json:"ranks"`
	PassUnit     string `json:"pass_unit"`
	AnomalyCount int    `json:"anomaly_count"`
	// PassUnitReason is PassUnit as data (words fills it).
	PassUnitReason Reason `json:"-"`
}

// Anomaly is one candidate spike coordinate.
type Anomaly struct {
	Rank          int  `json:"rank"`
	Step          int  `json:"step"`
	MicroStep     *int `json:"micro_step,omitempty"` // as the input numbers it (sharding_analysis.micro_step_numbering)
	OptimizerStep *int `json:"optimizer_step,omitempty"`
	// MicroIndex is the 0-based position of the micro-batch in its
	// optimizer step (the call order of a dump's modules), whatever the
	// input's numbering: what lines micro steps up across inputs.
	MicroIndex       *int   `json:"micro_index,omitempty"`
	TargetName       string `json:"target_name"`
	Metric           string `json:"metric"`
	Norm             Float  `json:"norm"`
	Delta            *Float `json:"delta,omitempty"`
	Min              Float  `json:"min"`
	Max              Float  `json:"max"`
	Mean             Float  `json:"mean"`
	BaselineMedian   Float  `json:"baseline_median"`
	DeviationRatio   Float  `json:"deviation_ratio"`
	SuspectFinalNorm *Float `json:"suspect_final_norm,omitempty"`
	Trigger          string `json:"trigger"` // iqr, mad, iqr+mad, micro_step_delta, dump_abs_norm, nonfinite
	NonFinite        bool   `json:"non_finite,omitempty"`
	VPPStage         int    `json:"vpp_stage"`
	// BaselineIQR is the IQR of the baseline the value was judged against.
	BaselineIQR *Float `json:"baseline_iqr,omitempty"`
	// Increment is the micro-batch's own contribution estimated from the
	// cumulative norms, sqrt(N_k² − N_{k−1}²) (micro-step data).
	Increment *Float `json:"increment,omitempty"`
	// Test says which threshold fired: "iqr", "mad" or "iqr+mad".
	Test string `json:"test,omitempty"`
	// PPStage is the rank's pipeline stage when stages were inferred
	// (target_name stays the input's own name; inside spikescope the
	// parameter is "pp<stage>:<name>", see AsWritten); GlobalLayer the
	// parameter's global layer number when the layer count per stage is
	// known.
	PPStage     *int `json:"pp_stage,omitempty"`
	GlobalLayer *int `json:"global_layer,omitempty"`
}

// OptStep returns the optimizer step (the step when not micro-step data).
func (a *Anomaly) OptStep() int {
	if a.OptimizerStep != nil {
		return *a.OptimizerStep
	}
	return a.Step
}

// Micro returns the micro step, -1 when none.
func (a *Anomaly) Micro() int {
	if a.MicroStep != nil {
		return *a.MicroStep
	}
	return -1
}

// MicroPos returns the 0-based position of the micro-batch in its
// optimizer step (MicroIndex; Micro when a file made elsewhere lacks it),
// -1 when none.
func (a *Anomaly) MicroPos() int {
	if a.MicroIndex != nil {
		return *a.MicroIndex
	}
	return a.Micro()
}

// IntPtr and FloatPtr help build optional fields.
func IntPtr(v int) *int         { return &v }
func BoolPtr(v bool) *bool      { return &v }
func FloatPtr(v float64) *Float { f := Float(v); return &f }
