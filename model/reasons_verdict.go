package model

// The verdict's reasons (analysis.Verdict): each evidence item, the action
// and the data that would decide an undetermined cause, kept as the
// numbers and names the rule used. Package words says them (words/verdict.go)
// and fills Evidence.Text, Verdict.Action and Verdict.Decide from them.

// EvidenceReason is a reason the verdict's evidence holds: besides its
// sentence it knows its JSON form (the Evidence rule id, numbers and names
// of the drop-in contract).
type EvidenceReason interface {
	Reason
	evidence() (rule string, nums map[string]float64, names map[string]string)
}

// NewEvidence is the JSON evidence item of r, carrying r (Text is filled
// by words).
func NewEvidence(r EvidenceReason) Evidence {
	rule, nums, names := r.evidence()
	e := Evidence{Rule: rule, Names: names, Reason: r}
	if len(nums) > 0 {
		e.Numbers = map[string]Float{}
		for k, x := range nums {
			e.Numbers[k] = Float(x)
		}
	}
	return e
}

// EvidenceDeviceSpecific: the root event is on the anomalous device only;
// Ratio is the candidate's value against the baseline device's (+Inf: the
// baseline has no anomaly on that parameter).
type EvidenceDeviceSpecific struct {
	Rank, Step       int
	Parameter        string
	Ratio, Threshold float64
}

func (EvidenceDeviceSpecific) Rule() string { return "verdict.device_specific" }
func (r EvidenceDeviceSpecific) evidence() (string, map[string]float64, map[string]string) {
	return EvDeviceSpecific, map[string]float64{"rank": float64(r.Rank), "step": float64(r.Step), "ratio": r.Ratio, "threshold": r.Threshold},
		map[string]string{"parameter": r.Parameter}
}

// EvidenceShared: the root event is on the baseline too — all Candidates
// of Step within Threshold× of the baseline's same parameter.
type EvidenceShared struct {
	Candidates, Step int
	Threshold        float64
}

func (EvidenceShared) Rule() string { return "verdict.shared" }
func (r EvidenceShared) evidence() (string, map[string]float64, map[string]string) {
	return EvShared, map[string]float64{"candidates": float64(r.Candidates), "step": float64(r.Step), "threshold": r.Threshold}, nil
}

// NonFiniteCounts are the counts of a non-finite root event.
type NonFiniteCounts struct {
	Step, Ranks, RanksTotal, Candidates int
}

func (c NonFiniteCounts) numbers() map[string]float64 {
	return map[string]float64{"step": float64(c.Step), "ranks": float64(c.Ranks), "ranks_total": float64(c.RanksTotal), "candidates": float64(c.Candidates)}
}

// EvidenceSharedNonFinite: non-finite on both devices at the same coordinate.
type EvidenceSharedNonFinite struct{ NonFiniteCounts }

func (EvidenceSharedNonFinite) Rule() string { return "verdict.shared_non_finite" }
func (r EvidenceSharedNonFinite) evidence() (string, map[string]float64, map[string]string) {
	return EvSharedNonFinite, r.numbers(), nil
}

// EvidenceNonFinite: NaN/Inf on the one device analysed.
type EvidenceNonFinite struct{ NonFiniteCounts }

func (EvidenceNonFinite) Rule() string { return "verdict.non_finite" }
func (r EvidenceNonFinite) evidence() (string, map[string]float64, map[string]string) {
	return EvNonFiniteOne, r.numbers(), nil
}

// EvidenceRunWideGrowth: growth on Ranks of RanksTotal at Step (at least
// Share percent), Events events, none limited to one rank.
type EvidenceRunWideGrowth struct {
	Ranks, RanksTotal, Step int
	Share                   float64
	Events                  int
}

func (EvidenceRunWideGrowth) Rule() string { return "verdict.run_wide_growth" }
func (r EvidenceRunWideGrowth) evidence() (string, map[string]float64, map[string]string) {
	return EvRunWideGrowth, map[string]float64{"ranks": float64(r.Ranks), "ranks_total": float64(r.RanksTotal), "step": float64(r.Step),
		"share": r.Share, "events": float64(r.Events)}, nil
}

// EvidenceExtent: the root event's extent at Step.
type EvidenceExtent struct {
	Step, Ranks, RanksTotal, Parameters, ParametersPerRank int
}

func (EvidenceExtent) Rule() string { return "verdict.extent" }
func (r EvidenceExtent) evidence() (string, map[string]float64, map[string]string) {
	return EvExtent, map[string]float64{"step": float64(r.Step), "ranks": float64(r.Ranks), "ranks_total": float64(r.RanksTotal),
		"parameters": float64(r.Parameters), "parameters_per_rank": float64(r.ParametersPerRank)}, nil
}

// Looks is the cause class the extent suggests: most ranks at once →
// dynamics; most parameters of the rank at once → data; a few parameters
// on one rank → device; "" when the extent says none of these.
func (r EvidenceExtent) Looks() string {
	switch {
	case r.Ranks >= 2 && float64(r.Ranks) >= 0.6*float64(r.RanksTotal):
		return CauseDynamics
	case r.Parameters >= 2 && float64(r.Parameters) >= 0.5*float64(r.ParametersPerRank):
		return CauseData
	case r.Ranks == 1:
		return CauseDevice
	}
	return ""
}

// EvidenceParamUndecided: Parameters parameters of Rank at once, so the
// parameter does not locate the origin.
type EvidenceParamUndecided struct{ Rank, Parameters int }

func (EvidenceParamUndecided) Rule() string { return "verdict.parameter_undecided" }
func (r EvidenceParamUndecided) evidence() (string, map[string]float64, map[string]string) {
	return EvParamUndecided, map[string]float64{"rank": float64(r.Rank), "parameters": float64(r.Parameters)}, nil
}

// EvidenceRecurs: Rank is the root of Events device-specific events.
type EvidenceRecurs struct{ Rank, Events int }

func (EvidenceRecurs) Rule() string { return "verdict.rank_recurs" }
func (r EvidenceRecurs) evidence() (string, map[string]float64, map[string]string) {
	return EvRecurs, map[string]float64{"rank": float64(r.Rank), "events": float64(r.Events)}, nil
}

// EvidenceP3Divergence: Phase 3's A diverges from B in Direction at Layer
// (nil: outside the layers), first at Operator, beyond the control band
// ±Band (nil: no usable band) of Metric; Degraded: no control group.
type EvidenceP3Divergence struct {
	Direction string
	Layer     *int
	Operator  string
	Band      *float64
	Metric    string
	Degraded  bool
}

func (EvidenceP3Divergence) Rule() string { return "verdict.p3_divergence" }
func (r EvidenceP3Divergence) evidence() (string, map[string]float64, map[string]string) {
	nums := map[string]float64{}
	if r.Layer != nil {
		nums["layer"] = float64(*r.Layer)
	}
	names := map[string]string{"direction": r.Direction, "operator": r.Operator}
	if r.Band != nil {
		nums["band"] = *r.Band
		names["metric"] = r.Metric
	}
	if r.Degraded {
		names["degraded"] = "yes"
	}
	return EvP3Divergence, nums, names
}

// EvidenceP3NonFinite: Operator is where A first turns NaN/Inf while B
// stays finite.
type EvidenceP3NonFinite struct{ Operator string }

func (EvidenceP3NonFinite) Rule() string { return "verdict.p3_non_finite_origin" }
func (r EvidenceP3NonFinite) evidence() (string, map[string]float64, map[string]string) {
	return EvP3NonFinite, nil, map[string]string{"operator": r.Operator}
}

// EvidenceP3Consistent: A and B agree on all Layers compared layers.
type EvidenceP3Consistent struct{ Layers int }

func (EvidenceP3Consistent) Rule() string { return "verdict.p3_consistent" }
func (r EvidenceP3Consistent) evidence() (string, map[string]float64, map[string]string) {
	return EvP3Consistent, map[string]float64{"layers": float64(r.Layers)}, nil
}

// EvidenceP3AgainstC: Phase 3 compared A with a normal sample of its own
// device (no baseline dump).
type EvidenceP3AgainstC struct{}

func (EvidenceP3AgainstC) Rule() string { return "verdict.p3_against_c" }
func (EvidenceP3AgainstC) evidence() (string, map[string]float64, map[string]string) {
	return EvP3AgainstC, nil, nil
}

// EvidenceDataFeature: the input shapes differ between the groups and the
// baseline shows the same difference (Detail: Phase 3's data-feature
// detail, names and shapes).
type EvidenceDataFeature struct{ Detail string }

func (EvidenceDataFeature) Rule() string { return "verdict.data_feature" }
func (r EvidenceDataFeature) evidence() (string, map[string]float64, map[string]string) {
	return EvDataFeature, nil, map[string]string{"detail": r.Detail}
}

// EvidenceConflict: the monitor data calls the root device-specific, the
// dumps of A and B agree.
type EvidenceConflict struct{}

func (EvidenceConflict) Rule() string { return "verdict.conflict" }
func (EvidenceConflict) evidence() (string, map[string]float64, map[string]string) {
	return EvConflict, nil, nil
}

// EvidenceReasonOf is the reason of a saved evidence item (read back from
// JSON: only its rule id, numbers and names), nil for an unknown rule.
func EvidenceReasonOf(e *Evidence) Reason {
	if e.Reason != nil {
		return e.Reason
	}
	i := func(k string) int { return int(e.Numbers[k]) }
	f := func(k string) float64 { return float64(e.Numbers[k]) }
	nm := func(k string) string { return e.Names[k] }
	nf := NonFiniteCounts{Step: i("step"), Ranks: i("ranks"), RanksTotal: i("ranks_total"), Candidates: i("candidates")}
	switch e.Rule {
	case EvDeviceSpecific:
		return EvidenceDeviceSpecific{Rank: i("rank"), Step: i("step"), Parameter: nm("parameter"), Ratio: f("ratio"), Threshold: f("threshold")}
	case EvShared:
		return EvidenceShared{Candidates: i("candidates"), Step: i("step"), Threshold: f("threshold")}
	case EvSharedNonFinite:
		return EvidenceSharedNonFinite{nf}
	case EvNonFiniteOne:
		return EvidenceNonFinite{nf}
	case EvRunWideGrowth:
		return EvidenceRunWideGrowth{Ranks: i("ranks"), RanksTotal: i("ranks_total"), Step: i("step"), Share: f("share"), Events: i("events")}
	case EvExtent:
		return EvidenceExtent{Step: i("step"), Ranks: i("ranks"), RanksTotal: i("ranks_total"), Parameters: i("parameters"), ParametersPerRank: i("parameters_per_rank")}
	case EvParamUndecided:
		return EvidenceParamUndecided{Rank: i("rank"), Parameters: i("parameters")}
	case EvRecurs:
		return EvidenceRecurs{Rank: i("rank"), Events: i("events")}
	case EvP3Divergence:
		r := EvidenceP3Divergence{Direction: nm("direction"), Operator: nm("operator"), Metric: nm("metric"), Degraded: nm("degraded") != ""}
		if _, ok := e.Numbers["layer"]; ok {
			r.Layer = IntPtr(i("layer"))
		}
		if b, ok := e.Numbers["band"]; ok {
			x := float64(b)
			r.Band = &x
		}
		return r
	case EvP3NonFinite:
		return EvidenceP3NonFinite{Operator: nm("operator")}
	case EvP3Consistent:
		return EvidenceP3Consistent{Layers: i("layers")}
	case EvP3AgainstC:
		return EvidenceP3AgainstC{}
	case EvDataFeature:
		return EvidenceDataFeature{Detail: nm("detail")}
	case EvConflict:
		return EvidenceConflict{}
	}
	return nil
}

// VerdictSpot is the root coordinate an action names (Has false: none).
type VerdictSpot struct {
	Has        bool
	Step, Rank int
	MicroStep  *int
}

// VerdictLoc is Phase 3's place an action names: direction, layer,
// operator (Has false: none).
type VerdictLoc struct {
	Has       bool
	Direction string
	Layer     *int
	Operator  string
}

// ActionKernelOwner: hand the operator to the kernel/hardware owner.
type ActionKernelOwner struct {
	Spot VerdictSpot
	Loc  VerdictLoc
}

func (ActionKernelOwner) Rule() string { return "verdict.action.kernel_owner" }

// ActionBadDevice: the same rank starts several events; check its device.
type ActionBadDevice struct {
	Spot VerdictSpot
	Loc  VerdictLoc
}

func (ActionBadDevice) Rule() string { return "verdict.action.bad_device" }

// ActionInspectBatch: inspect or skip the batch of the spot.
type ActionInspectBatch struct{ Spot VerdictSpot }

func (ActionInspectBatch) Rule() string { return "verdict.action.inspect_batch" }

// ActionRange: a range problem (loss scaling, bf16, clipping).
type ActionRange struct{}

func (ActionRange) Rule() string { return "verdict.action.range" }

// ActionLR: training dynamics (learning rate, warm-up, clipping).
type ActionLR struct{}

func (ActionLR) Rule() string { return "verdict.action.lr" }

// ActionCollect: collect the data that decides an undetermined cause.
type ActionCollect struct {
	Spot   VerdictSpot
	Decide Decide
}

func (ActionCollect) Rule() string { return "verdict.action.collect" }

// Decide is the data that would decide an undetermined cause: the
// baseline device's monitor (BaselineMonitor) and dumps of both devices
// at the spot (Dumps).
type Decide struct {
	BaselineMonitor, Dumps bool
	Spot                   VerdictSpot
}

func (Decide) Rule() string { return "verdict.decide" }

// SpotOf is the action's spot of a coordinate.
func SpotOf(co *Coordinate) VerdictSpot {
	if co == nil {
		return VerdictSpot{}
	}
	return VerdictSpot{Has: true, Step: co.StepNumber(), Rank: co.Rank, MicroStep: co.MicroStep}
}

// ActionReasonOf is the action reason of v from its ActionID, coordinate
// and Phase 3 place (decide: the data that would decide it, for
// "collect"); nil for an unknown ActionID.
func ActionReasonOf(v *Verdict, decide Decide) Reason {
	spot := SpotOf(v.Coordinate)
	loc := VerdictLoc{Has: v.Layer != nil || v.OperatorName() != "", Direction: v.DirectionName(), Layer: v.Layer, Operator: v.OperatorName()}
	switch v.ActionID {
	case "kernel_owner":
		return ActionKernelOwner{Spot: spot, Loc: loc}
	case "bad_device":
		return ActionBadDevice{Spot: spot, Loc: loc}
	case "inspect_batch":
		return ActionInspectBatch{Spot: spot}
	case "range":
		return ActionRange{}
	case "lr":
		return ActionLR{}
	case "collect":
		return ActionCollect{Spot: spot, Decide: decide}
	}
	return nil
}
