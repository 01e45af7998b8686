package model

// Phase2Result is the JSON of `spikescope select` (reference §4.5 keys plus
// spikescope's additions).
type Phase2Result struct {
	Phase                   int                  `json:"phase"`
	Mode                    string               `json:"mode"` // "单设备" or "NPU (+GPU 标杆)"
	RootOptStep             *int                 `json:"root_opt_step"`
	Reasoning               string               `json:"reasoning"`
	Decisions               []string             `json:"decisions"` // each decision with its numbers
	RootCauseCoordinate     *Coordinate          `json:"root_cause_coordinate"`
	CrossDeviceVerification string               `json:"cross_device_verification"`
	TopTargetsPerStep       map[string]TopTarget `json:"top_targets_per_step,omitempty"`
	CrossStep               []CrossStepPair      `json:"cross_step"`
	Candidates              []CandidateVerdict   `json:"candidates"`
	// Events are the independent spike events, earliest first.
	Events   []SpikeEvent `json:"events"`
	Pinned   bool         `json:"pinned"`
	Warnings []string     `json:"warnings,omitempty"`
	// Thresholds are the numbers the decisions used (growth, rank_share,
	// device_ratio, min_common_ranks).
	Thresholds map[string]float64 `json:"thresholds,omitempty"`

	// The reasons the texts above are said from (package words fills
	// Mode, Reasoning, Decisions and CrossDeviceVerification from them;
	// nil in a result read back from JSON, which has only the texts).
	ModeReason                    Reason   `json:"-"`
	ReasoningReasons              []Reason `json:"-"`
	DecisionsReasons              []Reason `json:"-"`
	CrossDeviceVerificationReason Reason   `json:"-"`

	// Automatic is, with a pin, the coordinate Phase 2 would have chosen
	// without it (nil when it would have chosen none), and AutomaticOptStep
	// its root optimizer step.
	Automatic        *Coordinate `json:"automatic_coordinate,omitempty"`
	AutomaticOptStep *int        `json:"automatic_root_opt_step,omitempty"`

	// Verdict is the answer of every phase that ran (null when nothing is
	// anomalous): `select` fills what the monitor data can tell, the
	// pipeline the whole verdict.
	Verdict *Verdict `json:"verdict"`
}

// Coordinate is a root-cause coordinate.
type Coordinate struct {
	OptimizerStep *int `json:"optimizer_step"`
	MicroStep     *int `json:"micro_step"` // as the input numbers it
	// MicroIndex is the micro-batch's 0-based position in its optimizer
	// step (Anomaly.MicroIndex), when known.
	MicroIndex     *int   `json:"micro_index,omitempty"`
	Step           *int   `json:"step"`
	Rank           int    `json:"rank"`
	TargetName     string `json:"target_name"`
	Norm           Float  `json:"norm"`
	Delta          *Float `json:"delta"`
	DeviationRatio Float  `json:"deviation_ratio"`
	// ParameterDecides tells whether the parameter locates the origin:
	// false when every parameter of the rank is non-finite at the
	// coordinate, or most of them spike together (then TargetName is a
	// deterministic choice kept for the drop-in key, and the layer comes
	// from Phase 3); nil when not judged (a pin, a reference-made file).
	ParameterDecides *bool `json:"parameter_decides,omitempty"`
	// ParameterNote says why the parameter does not decide ("" when it does).
	ParameterNote string `json:"parameter_note,omitempty"`
	// ParameterNoteReason is the reason ParameterNote is said from.
	ParameterNoteReason Reason `json:"-"`
	// PPStage, VPPStage and GlobalLayer: the parameter's inferred pipeline
	// stage, model chunk (with several) and global layer (target_name is
	// the input's own name).
	PPStage     *int `json:"pp_stage,omitempty"`
	VPPStage    *int `json:"vpp_stage,omitempty"`
	GlobalLayer *int `json:"global_layer,omitempty"`
}

// ParamDecides is ParameterDecides, true when not judged.
func (c *Coordinate) ParamDecides() bool {
	return c == nil || c.ParameterDecides == nil || *c.ParameterDecides
}

// TopTarget is the watched parameter of one optimizer step.
type TopTarget struct {
	TargetName   string `json:"target_name"`
	MaxFinalNorm Float  `json:"max_final_norm"`
	PPStage      *int   `json:"pp_stage,omitempty"`
	VPPStage     *int   `json:"vpp_stage,omitempty"`
}

// CrossStepPair is one row of the cross-step table.
type CrossStepPair struct {
	From           int     `json:"from"`
	To             int     `json:"to"`
	TargetName     string  `json:"target_name"`
	PPStage        *int    `json:"pp_stage,omitempty"`
	VPPStage       *int    `json:"vpp_stage,omitempty"`
	Threshold      float64 `json:"growth_threshold"`
	RanksOver      int     `json:"ranks_over"`
	RanksTotal     int     `json:"ranks_total"`
	Share          float64 `json:"share"`
	Qualifies      bool    `json:"qualifies"`
	Verdict        string  `json:"verdict"`
	VerdictReason  Reason  `json:"-"`                         // the reason Verdict is said from
	BaselineGrowth *bool   `json:"baseline_shared,omitempty"` // baseline grew too ("双端共有")

	// GrowthMedian and GrowthMax are the measured final-norm growth
	// (next/prev) over the ranks present at both steps with a positive
	// value: what the threshold is compared with (nil when none).
	GrowthMedian *Float `json:"growth_median,omitempty"`
	GrowthMax    *Float `json:"growth_max,omitempty"`

	// Judged tells whether the rule was applied to the pair: false when
	// the next step has no data, lists another parameter, or fewer than
	// MinCommonRanks ranks have a finite final norm at both steps (then
	// Verdict says which). Readers test this, not the verdict's words.
	Judged bool `json:"judged"`
	// MinCommonRanks is how many common ranks the pair needed: the
	// thresholds' min_common_ranks, or every rank of a smaller run (a
	// one- or two-rank run needs its 1 or 2).
	MinCommonRanks int `json:"min_common_ranks"`
}

// CandidateVerdict is one row of the Phase 2 candidate table.
type CandidateVerdict struct {
	Anomaly       Anomaly `json:"anomaly"`
	Value         Float   `json:"value"`          // delta or norm, whichever was compared
	BaselineValue *Float  `json:"baseline_value"` // nil: no match on the baseline
	Ratio         *Float  `json:"ratio"`
	Verdict       string  `json:"verdict"` // device-specific / shared / no baseline
	Selected      bool    `json:"selected"`
}
