package model

// Cause classes of a Verdict (method.md, "Verdict").
const (
	CauseDevice       = "device"       // the anomalous device computes differently from its baseline
	CauseData         = "data"         // the spike comes with the input
	CauseNumerics     = "numerics"     // a range problem both devices share
	CauseDynamics     = "dynamics"     // growth across steps on most ranks, no single-rank origin
	CauseUndetermined = "undetermined" // the inputs cannot separate the classes (Likely names the most likely)
)

// Evidence rule ids (Evidence.Rule). Each is a fact with its numbers; the
// sentences are rendered from them (Evidence.Render).
const (
	EvDeviceSpecific  = "p2.device_specific"   // the root event is on the anomalous device only
	EvShared          = "p2.shared"            // the root event is on the baseline too (finite)
	EvSharedNonFinite = "p2.shared_non_finite" // non-finite on both devices at the same coordinate
	EvRunWideGrowth   = "p2.run_wide_growth"   // growth on most ranks across steps, no single-rank event
	EvExtent          = "p2.extent"            // the root event's extent (ranks, parameters)
	EvNonFiniteOne    = "p2.non_finite"        // a NaN/Inf on the one device analysed
	EvParamUndecided  = "p2.parameter_undecided"
	EvRecurs          = "p2.rank_recurs" // the root rank is the root of several device-specific events
	EvP3Divergence    = "p3.divergence"  // A diverges from B beyond the control band
	EvP3NonFinite     = "p3.non_finite_origin"
	EvP3Consistent    = "p3.consistent"   // A and B agree on every compared layer
	EvP3AgainstC      = "p3.against_c"    // A was compared with a normal sample of its own device
	EvDataFeature     = "p3.data_feature" // a data-feature difference the baseline shares
	EvConflict        = "conflict"        // the monitor and the dumps disagree
)

// Evidence is one fact that decided a verdict: the rule and its numbers
// (and names). Text is its sentence, said by package words from Reason
// (English by default).
type Evidence struct {
	Rule    string            `json:"rule"`
	Numbers map[string]Float  `json:"numbers,omitempty"`
	Names   map[string]string `json:"names,omitempty"`
	Text    string            `json:"text"`
	// Reason is the typed fact (nil when read back from a saved JSON:
	// EvidenceReasonOf rebuilds it from the rule, numbers and names).
	Reason Reason `json:"-"`
}

// Verdict is the answer of all phases that ran, computed once
// (analysis.Verdict, by the pipeline): the root coordinate, the first
// divergent layer and operator with direction, the cause class with the
// evidence that decided it, and the action. nil (JSON null) when nothing
// is anomalous.
type Verdict struct {
	Cause    string     `json:"cause"`
	Likely   string     `json:"likely,omitempty"` // only with CauseUndetermined
	Evidence []Evidence `json:"evidence"`
	// Action is what to do next (said by package words from
	// ActionReason, English by default); ActionID names it.
	Action       string `json:"action"`
	ActionID     string `json:"action_id"`
	ActionReason Reason `json:"-"`
	// Coordinate is Phase 2's root coordinate (nil when only dumps were
	// compared and Phase 2 chose none).
	Coordinate *Coordinate `json:"coordinate"`
	// Direction ("fwd"/"bwd"), Layer and Operator are Phase 3's first
	// divergence (Layer without Phase 3: the layer of the coordinate's
	// parameter when the parameter locates the origin).
	Direction *string `json:"direction"`
	Layer     *int    `json:"layer"`
	Operator  *string `json:"operator"`
	// Decide is, with CauseUndetermined, the data that would decide it
	// (said from DecideReason).
	Decide       string `json:"decide,omitempty"`
	DecideReason Reason `json:"-"`
}

// Parameter is the verdict's parameter ("" without a coordinate).
func (v *Verdict) Parameter() string {
	if v == nil || v.Coordinate == nil {
		return ""
	}
	return v.Coordinate.TargetName
}

// OperatorName is the operator ("" when none).
func (v *Verdict) OperatorName() string {
	if v == nil || v.Operator == nil {
		return ""
	}
	return *v.Operator
}

// DirectionName is the direction ("" when none).
func (v *Verdict) DirectionName() string {
	if v == nil || v.Direction == nil {
		return ""
	}
	return *v.Direction
}

// StepNumber is the coordinate's optimizer step, else its step (0 with
// neither).
func (c *Coordinate) StepNumber() int {
	if c.OptimizerStep != nil {
		return *c.OptimizerStep
	}
	if c.Step != nil {
		return *c.Step
	}
	return 0
}
