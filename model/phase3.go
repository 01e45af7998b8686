package model

// Group names the four dumps of Phase 3.
type Group int

const (
	GroupA Group = iota // anomalous
	GroupB              // A's baseline
	GroupC              // nearby normal
	GroupD              // C's baseline
)

// Quad holds one value per group; nil = no value. JSON keys "A".."D".
type Quad struct {
	A *Float `json:"A"`
	B *Float `json:"B"`
	C *Float `json:"C"`
	D *Float `json:"D"`
}

// MetricRow is one metric of one layer (reference §5.6 keys).
type MetricRow struct {
	Fwd      Quad   `json:"fwd"`
	Bwd      Quad   `json:"bwd"`
	FAB      *Float `json:"f_ab"`
	FCD      *Float `json:"f_cd"`
	BAB      *Float `json:"b_ab"`
	BCD      *Float `json:"b_cd"`
	FAnomaly *Float `json:"f_anomaly"`
	BAnomaly *Float `json:"b_anomaly"`
	FFlag    bool   `json:"f_flag"` // F!
	BFlag    bool   `json:"b_flag"` // B!
	// FNonFinite / BNonFinite: the flag is a non-finite divergence — the
	// statistic is NaN/±Inf in A where the baseline's same record is finite
	// (no ratio; shown as F!∞ / B!∞).
	FNonFinite bool `json:"f_non_finite,omitempty"`
	BNonFinite bool `json:"b_non_finite,omitempty"`
}

// Alignment tells which keys were compared.
type Alignment struct {
	FwdKeyA string `json:"fwd_key_a"`
	FwdKeyB string `json:"fwd_key_b"`
	FwdKeyC string `json:"fwd_key_c,omitempty"`
	FwdKeyD string `json:"fwd_key_d,omitempty"`
	BwdKeyA string `json:"bwd_key_a"`
	BwdKeyB string `json:"bwd_key_b"`
	BwdKeyC string `json:"bwd_key_c,omitempty"`
	BwdKeyD string `json:"bwd_key_d,omitempty"`
	FAB     bool   `json:"f_ab"`
	FCD     bool   `json:"f_cd"`
	BAB     bool   `json:"b_ab"`
	BCD     bool   `json:"b_cd"`
	// Why a pair is unaligned ("missing key", "NaN", "element count 4096 vs 2048").
	Reasons []string `json:"reasons,omitempty"`
	// Why are the reasons Reasons says (P3Unaligned), nil in a result
	// read back from JSON.
	Why []Reason `json:"-"`
}

// LayerRow is one layer of an anchor's table.
type LayerRow struct {
	Layer     int                  `json:"layer"`
	Grad      Quad                 `json:"grad"`
	Metrics   map[string]MetricRow `json:"metrics"` // "Max","Min","Mean","Norm"
	Alignment Alignment            `json:"alignment"`
	// Label names the layer when several layer stacks exist
	// ("encoder.layers.3"); empty with a single stack.
	Label string `json:"label,omitempty"`
	// GlobalLayer is the layer's global number when A is a pipeline stage
	// whose first global layer is known (Layer is stage-local).
	GlobalLayer *int `json:"global_layer,omitempty"`
}

// DirLayers is a forward/backward pair of layer lists.
type DirLayers struct {
	Fwd []int `json:"fwd"`
	Bwd []int `json:"bwd"`
}

// MetricStart is one metric's divergence start per direction (nil: none).
type MetricStart struct {
	FwdStart       *int  `json:"fwd_start"`
	BwdStart       *int  `json:"bwd_start"`
	FwdMainSegment []int `json:"fwd_main_segment,omitempty"` // the reference's longest run
	BwdMainSegment []int `json:"bwd_main_segment,omitempty"`
}

// AnchorConclusion is the reference's per-anchor conclusion.
type AnchorConclusion struct {
	MetricLayers          map[string]DirLayers   `json:"metric_layers"`
	MetricStarts          map[string]MetricStart `json:"metric_starts"`
	EarliestFwdDivergence *int                   `json:"earliest_fwd_divergence"`
	EarliestBwdDivergence *int                   `json:"earliest_bwd_divergence"`
	UncomparedLayers      DirLayers              `json:"uncompared_layers"`
}

// AnchorTable is the four-group table of one anchor module.
type AnchorTable struct {
	Name       string           `json:"name"`
	Layers     []LayerRow       `json:"layers"`
	Conclusion AnchorConclusion `json:"conclusion"`
	// Thresholds are this anchor's bands (metric → "fwd"/"bwd"), the ones
	// its F!/B! flags come from.
	Thresholds map[string]map[string]Band `json:"thresholds,omitempty"`
}

// Band is the control band of one metric and direction.
type Band struct {
	Median  Float  `json:"median"`
	IQR     Float  `json:"iqr"`
	Lower   Float  `json:"lower"` // flag when anomaly degree < Lower
	Upper   Float  `json:"upper"` // or > Upper
	Samples int    `json:"samples"`
	Usable  bool   `json:"usable"`
	Note    string `json:"note,omitempty"`
	// Rule says how Lower/Upper were derived and applied.
	Rule string `json:"rule,omitempty"`
	// NoteReasons and RuleReason are what Note and Rule say (nil in a
	// result read back from JSON).
	NoteReasons []Reason `json:"-"`
	RuleReason  Reason   `json:"-"`
}

// DrillOp is one operator of the drill-down.
type DrillOp struct {
	Key     string               `json:"key"`
	KeyB    string               `json:"key_b,omitempty"`
	Order   int                  `json:"order"`
	Metrics map[string]MetricRow `json:"metrics"`
	Flagged bool                 `json:"flagged"`
	Aligned bool                 `json:"aligned"`
	Parent  string               `json:"parent,omitempty"`
	// Why the op could not be compared with B ("" when it was).
	Why string `json:"why,omitempty"`
	// Within is the record of the same call that contains this one (its
	// construct.json parent, or the module inferred from module paths and
	// neighbouring records without construct.json); "" at the top of the
	// layer.
	Within string `json:"within,omitempty"`
	// Bounds are the band each metric's degree was judged against, lower
	// and upper: the layer table's with a control group, without one the
	// spread of the other layers' operators — so a flag can be explained.
	Bounds map[string][2]Float `json:"bounds,omitempty"`
	// WhyReason is what Why says (nil in a result read back from JSON).
	WhyReason Reason `json:"-"`
}

// Drilldown is the first divergent operator of the start layer.
type Drilldown struct {
	Direction string   `json:"direction"` // "fwd" or "bwd"
	Layer     *int     `json:"layer"`
	Operator  string   `json:"operator"`
	Metric    string   `json:"metric"`
	Chain     []string `json:"chain"` // upstream chain, nearest first
	// Largest is the op of the layer with the largest flagged deviation
	// (the seed's "差异最大的算子"), for comparison with Operator.
	Largest string `json:"largest,omitempty"`
	// Call is the call (micro-batch, 0-based in the order the dump holds
	// them) whose records were compared: the one the layer table compares;
	// Calls is how many times the layer ran in this pass.
	Call  *int      `json:"call"`
	Calls int       `json:"calls"`
	Ops   []DrillOp `json:"ops"` // the call's records in the order their outputs were computed
	Note  string    `json:"note,omitempty"`
	// NonFinite: Operator is the non-finite origin (the first record whose
	// output turns NaN/Inf in A while its inputs are finite and the
	// baseline's same record is finite).
	NonFinite bool `json:"non_finite,omitempty"`
	// NoteReasons are what Note says (nil in a result read back from JSON).
	NoteReasons []Reason `json:"-"`
}

// NonFiniteOrigin is the first record of A, in execution order of outputs,
// whose output turns non-finite while its inputs are finite, where the
// baseline's same record is finite.
type NonFiniteOrigin struct {
	Layer *int   `json:"layer"` // nil outside the transformer layers
	Key   string `json:"key"`
	KeyB  string `json:"key_b"`
	// Stats are the non-finite statistics of A ("Norm=NaN", "Max=+Inf").
	Stats []string `json:"stats"`
}

// DirectionVerdict is one row of the direction summary table.
type DirectionVerdict struct {
	Direction string `json:"direction"` // "fwd" / "bwd"
	Verdict   string `json:"verdict"`   // "divergent", "consistent", "undetermined"
	Start     *int   `json:"start"`
	Peak      *int   `json:"peak"`
	PeakValue *Float `json:"peak_value"`
	Flagged   []int  `json:"flagged"`
	Unaligned []int  `json:"unaligned"`
	P0        bool   `json:"p0"`
	// Amplified: this direction diverges too, but after the P0 direction's
	// divergence (backward amplifying a forward divergence).
	Amplified bool `json:"amplified,omitempty"`
	// FirstNonFinite is the non-finite origin of this direction ("L5 <key>",
	// the key alone outside the layers); NonFiniteOrigin has its fields.
	FirstNonFinite  string           `json:"first_non_finite,omitempty"`
	NonFiniteOrigin *NonFiniteOrigin `json:"non_finite_origin,omitempty"`
	Note            string           `json:"note,omitempty"`
	// NoteReasons are what Note says (nil in a result read back from JSON).
	NoteReasons []Reason `json:"-"`
}

// DataFeatureCheck is the seed's data-feature consistency check.
type DataFeatureCheck struct {
	Differs  bool   `json:"differs"`
	Detail   string `json:"detail,omitempty"`
	Baseline string `json:"baseline"` // "same difference" / "no difference" / "unknown"
	Verdict  string `json:"verdict"`  // "data not the cause" / "to verify" / "consistent"
	// DetailReason is what Detail says (nil in a result read back from JSON).
	DetailReason Reason `json:"-"`
}

// DivergenceSummary collects spikescope's Phase 3 conclusion.
type DivergenceSummary struct {
	EarliestFwdDivergence *int                   `json:"earliest_fwd_divergence"`
	EarliestBwdDivergence *int                   `json:"earliest_bwd_divergence"`
	MetricStarts          map[string]MetricStart `json:"metric_starts"`
	Disagreements         []string               `json:"disagreements"`
	IteratedMetrics       bool                   `json:"iterated_metrics"`
	// IterationPath is the metric iteration per direction ("fwd" →
	// ["Norm→L4", "Min→L2"]).
	IterationPath    map[string][]string        `json:"iteration_path,omitempty"`
	UncomparedLayers DirLayers                  `json:"uncompared_layers"`
	Thresholds       map[string]map[string]Band `json:"thresholds"` // metric → "fwd"/"bwd" → band (pooled over anchors; used by the drill-down)
	Directions       []DirectionVerdict         `json:"directions"`
	Drilldown        *Drilldown                 `json:"drilldown"`
	DataFeature      *DataFeatureCheck          `json:"data_feature,omitempty"`
}

// AnchorWarning is emitted when fewer than three anchors align.
type AnchorWarning struct {
	AnchorsFound int    `json:"anchors_found"`
	Message      string `json:"message"`
	// MessageReason is what Message says (nil in a result read back from JSON).
	MessageReason Reason `json:"-"`
}

// Phase3Result is the JSON of `spikescope trace`.
type Phase3Result struct {
	Anchors       []AnchorTable     `json:"anchors"`
	Phase         int               `json:"phase"`
	LayerPrefix   string            `json:"layer_prefix"`
	AnchorsUsed   []string          `json:"anchors_used"`
	Dirs          map[string]string `json:"dirs"` // "A".."D" → path
	AnchorWarning *AnchorWarning    `json:"anchor_warning,omitempty"`
	Degraded      bool              `json:"degraded"` // no C/D
	DegradedNote  string            `json:"degraded_note,omitempty"`
	// BaselineGroup names the group in the baseline column (the quads' "B"):
	// "C" when no baseline dump exists and the nearby normal sample C of the
	// same device stands in for B; empty for B itself.
	BaselineGroup string `json:"baseline_group,omitempty"`
	ControlChoice string `json:"control_choice,omitempty"` // how C was chosen
	// ControlCandidates are the candidates of the automatic choice of C
	// with the filters' verdicts (empty when C/D were given).
	ControlCandidates []ControlCandidate `json:"control_candidates,omitempty"`
	DivergenceSummary DivergenceSummary  `json:"divergence_summary"`
	Warnings          []string           `json:"warnings,omitempty"`
	// WarningsReasons, DegradedNoteReason and ControlChoiceReason are what
	// Warnings, DegradedNote and ControlChoice say (words.Phase3 fills the
	// strings from them); nil in a result read back from JSON.
	WarningsReasons     []Reason `json:"-"`
	DegradedNoteReason  Reason   `json:"-"`
	ControlChoiceReason Reason   `json:"-"`
	// DumpStage is A's pipeline stage: its dump holds the stage's own
	// layer numbers (every stage counts from 0).
	DumpStage *DumpStage `json:"pipeline_stage,omitempty"`
	// Call is the call (micro-batch, 0-based in the order the dump holds
	// them) of each anchor module the four groups were compared at, Calls
	// how many calls the anchors have; for the TUI's status line, not part
	// of trace's JSON (a warning words a chosen call there).
	Call  *int `json:"-"`
	Calls int  `json:"-"`
	// Conclusion is what the result concludes (analysis.ConcludePhase3),
	// filled by the pipeline so that every face states the same one; not
	// part of trace's JSON (it is derived from the rest).
	Conclusion *Phase3Conclusion `json:"-"`
	// Verdict is the answer of every phase that ran on trace's inputs
	// (null when nothing is anomalous); filled by the pipeline.
	Verdict *Verdict `json:"verdict"`
}

// StandInPath follows C's path where it stands in B's place (Dirs["B"]).
const StandInPath = " (C in B's place: no baseline dump)"

// DumpStage is the pipeline stage of a dump.
type DumpStage struct {
	// Stage is the stage number; nil when only its position is known.
	Stage *int `json:"stage"`
	// Stages is the run's stage count (0 = unknown).
	Stages int `json:"stages,omitempty"`
	// Position is "first", "middle" or "last".
	Position string `json:"position,omitempty"`
	// LayerOffset is the global number of the stage's layer 0 (nil =
	// unknown): global layer = LayerOffset + layer.
	LayerOffset *int `json:"layer_offset"`
	// Source says how the stage was found.
	Source string `json:"source"`
	// SourceReason is what Source says (nil in a result read back from JSON).
	SourceReason Reason `json:"-"`
}

// ControlCandidate is one candidate for the control group C (another rank
// of A's step or another step of A's rank) with the filters' verdict.
type ControlCandidate struct {
	Step       int    `json:"step"`
	Rank       int    `json:"rank"`
	GradNorm   Float  `json:"grad_norm"`
	Accepted   bool   `json:"accepted"`
	SameLayers bool   `json:"same_layers"`
	HasD       bool   `json:"has_d"`
	Reason     string `json:"reason"`
	// ProfileDistance is the median |ln| ratio of the candidate's weight (or
	// output) Norms to A's over common module records: ≈0 on A's own
	// pipeline stage; among equally qualified candidates a clearly closer
	// one is chosen. nil when nothing was comparable.
	ProfileDistance *Float `json:"profile_distance,omitempty"`
	// Why is what Reason says, its parts joined by "; " (nil in a result
	// read back from JSON).
	Why []Reason `json:"-"`
}
