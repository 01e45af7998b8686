package model

// SpikeEvent is one independent spike event of Phase 2 (method.md, Phase
// 2 "Events"): a root optimizer step plus the steps it conducts into (or
// that repeat its own coordinates), with its extent and, with a baseline,
// whether the baseline has it too.
type SpikeEvent struct {
	ID       int   `json:"id"`            // 1 = the earliest event
	RootStep int   `json:"root_opt_step"` // the event's first optimizer step
	Steps    []int `json:"opt_steps"`     // root step first, then the steps it reaches
	// Coordinate is the event's root coordinate: within its root step,
	// non-finite first, then the largest delta (micro-step data) or norm;
	// with a baseline the first device-specific candidate of that walk.
	Coordinate *Coordinate `json:"root_coordinate"`
	// Ranks and Parameters are the extent at the root step: the ranks with
	// a candidate, and how many distinct parameters; RanksTotal and
	// ParametersPerRank are what they are measured against.
	Ranks             []int    `json:"ranks"`
	RanksTotal        int      `json:"ranks_total"`
	Parameters        int      `json:"parameters"`
	ParameterNames    []string `json:"parameter_names"` // sorted, at most 10
	ParametersPerRank int      `json:"parameters_per_rank"`
	// Extent is "one-rank-few" (a few parameters on one rank),
	// "few-ranks-all" (most parameters of one or a few ranks), "run-wide" (most ranks),
	// "partial" (a few parameters on a few ranks) or "not judged" (a
	// single dumped step, whose candidates are every parameter).
	Extent string `json:"extent"`
	// Conducts: the event reaches the following step(s) by the cross-step
	// growth rule, or (step-level data) most ranks stay elevated there.
	Conducts     bool  `json:"conducts"`
	ConductsInto []int `json:"conducts_into"`
	Candidates   int   `json:"candidates"` // candidates over all its steps
	NonFinite    bool  `json:"non_finite"` // a NaN/Inf at the root step
	MaxDeviation Float `json:"max_deviation"`
	// Baseline is "shared" or "device-specific" (empty without a baseline);
	// BaselineReason says why, with the numbers.
	Baseline       string `json:"baseline,omitempty"`
	BaselineReason string `json:"baseline_reason,omitempty"`
	// BaselineReasonReason is the reason BaselineReason is said from.
	BaselineReasonReason Reason `json:"-"`
	// Cause is the event's cause class in the verdict's vocabulary
	// (model.Cause*), Likely the most likely class when Cause is
	// "undetermined" (analysis.EventCause).
	Cause  string `json:"cause"`
	Likely string `json:"likely,omitempty"`
	// Root marks the event that holds the root-cause coordinate.
	Root bool `json:"root"`
}
