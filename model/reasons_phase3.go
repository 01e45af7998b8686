package model

// The reasons of Phase 3 (the four-group layer trace, the control choice,
// the bands, the drill-down): what each rule decided, with the values it
// used. Package words says them in English and Chinese.

// --- warnings of the run (Phase3Result.Warnings) ---

// P3CallOfAnomaly: the layers are compared at the micro-batch of A's
// Phase 1 anomaly (MicroBatch 1-based; MicroStep its Phase 1 micro step,
// nil when Phase 1 had none).
type P3CallOfAnomaly struct {
	MicroBatch int
	MicroStep  *int
}

func (P3CallOfAnomaly) Rule() string { return "phase3.call.anomaly" }

// P3CallMostDivergent: several micro-batches were compared and the one
// whose layers diverge most was kept (MicroBatch 1-based, of Calls).
type P3CallMostDivergent struct{ MicroBatch, Calls int }

func (P3CallMostDivergent) Rule() string { return "phase3.call.divergent" }

// P3NeedsAB: Phase 3 did not run (A or B missing).
type P3NeedsAB struct{}

func (P3NeedsAB) Rule() string { return "phase3.needs_ab" }

// P3RootDump: A is the dump at Step/Rank of A's tree, the root-cause
// coordinate of Phase 2 (trace's warning when no --step/--rank chose it).
type P3RootDump struct{ Step, Rank int }

func (P3RootDump) Rule() string { return "phase3.root_dump" }

// P3OneControl: only one of C/D was given.
type P3OneControl struct{}

func (P3OneControl) Rule() string { return "phase3.control.one" }

// P3NoControlGroup: no C/D, the comparison is degraded to A/B.
type P3NoControlGroup struct{}

func (P3NoControlGroup) Rule() string { return "phase3.degraded" }

// P3NoBaselineDump: no baseline dump; A is compared with the nearby normal
// sample C (Step, Rank) in B's place.
type P3NoBaselineDump struct{ Step, Rank int }

func (P3NoBaselineDump) Rule() string { return "phase3.degraded.no_baseline" }

// P3SameDumpC: C is A's own dump.
type P3SameDumpC struct{}

func (P3SameDumpC) Rule() string { return "phase3.control.same_a" }

// P3SameDumpD: D is C's own dump.
type P3SameDumpD struct{}

func (P3SameDumpD) Rule() string { return "phase3.control.same_c" }

// P3NameMapFile: one side's names were translated with msprobe's
// layer-mapping file (Side "A" or "B", Path the file).
type P3NameMapFile struct{ Side, Path string }

func (P3NameMapFile) Rule() string { return "phase3.namemap.file" }

// P3NameMapMegatron: A and B are two Megatron families; the built-in map
// translated A's names into B's.
type P3NameMapMegatron struct{}

func (P3NameMapMegatron) Rule() string { return "phase3.namemap.megatron" }

// P3NameMapBuiltin: A and B come from different frameworks (FrameworkA,
// FrameworkB); the built-in map translated A's names.
type P3NameMapBuiltin struct{ FrameworkA, FrameworkB string }

func (P3NameMapBuiltin) Rule() string { return "phase3.namemap.builtin" }

// P3InferredLayers: an API-only dump; Layers layers inferred from the
// repeating API sequence (Period APIs per layer and pass).
type P3InferredLayers struct{ Layers, Period int }

func (P3InferredLayers) Rule() string { return "phase3.layers.inferred" }

// P3NoLayersAPI: an API-only dump with no repeating layer block.
type P3NoLayersAPI struct{}

func (P3NoLayersAPI) Rule() string { return "phase3.layers.api_none" }

// P3NoLayers: no transformer layer (Prefix<N>) in the dumps.
type P3NoLayers struct{ Prefix string }

func (P3NoLayers) Rule() string { return "phase3.layers.none" }

// P3DtypePart is one group pair of P3DtypeDiffers: Group has Dtype on Count
// of Of compared records where Other has OtherDtype.
type P3DtypePart struct {
	Group, Dtype, Other, OtherDtype string
	Count, Of                       int
}

// P3DtypeDiffers: the groups' tensors differ in dtype.
type P3DtypeDiffers struct{ Parts []P3DtypePart }

func (P3DtypeDiffers) Rule() string { return "phase3.dtype" }

// P3DirRatio is a pass ("fwd"/"bwd") and a median ratio.
type P3DirRatio struct {
	Dir    string
	Median float64
}

// P3ControlBias: the control pair's median Norm ratio is not ≈1.0x.
type P3ControlBias struct{ Parts []P3DirRatio }

func (P3ControlBias) Rule() string { return "phase3.control.bias" }

// P3MetricNote is a statistic and the note of its band.
type P3MetricNote struct {
	Metric string
	Note   Reason
}

// P3PassUnjudgeable: no statistic of pass Dir ("fwd"/"bwd") has a usable
// band; Why says each statistic's band note.
type P3PassUnjudgeable struct {
	Dir string
	Why []P3MetricNote
}

func (P3PassUnjudgeable) Rule() string { return "phase3.pass.unjudgeable" }

// P3FewAnchors: fewer than Min anchors align (the anchor warning).
type P3FewAnchors struct{ Found, Min int }

func (P3FewAnchors) Rule() string { return "phase3.anchors.few" }

// P3StepOffset: dump steps are not optimizer steps; each match says which
// dump step is which optimizer step and on how many parameters the
// gradient norms agree.
type P3StepOffset struct{ Matches []P3StepMatch }

// P3StepMatch is one dump step matched to an optimizer step.
type P3StepMatch struct{ DumpStep, OptStep, Agree, Shared int }

func (P3StepOffset) Rule() string { return "phase3.step_offset" }

// --- the choice of the control group (ControlChoice, candidates) ---

// P3ControlNoTree: no dump tree for A.
type P3ControlNoTree struct{}

func (P3ControlNoTree) Rule() string { return "phase3.control.no_tree" }

// P3ControlNoCandidate: A's tree holds no other rank of its step and no
// other step of its rank.
type P3ControlNoCandidate struct{}

func (P3ControlNoCandidate) Rule() string { return "phase3.control.no_candidate" }

// P3ControlAllSpike: every candidate spikes (Spiking of them).
type P3ControlAllSpike struct{ Spiking int }

func (P3ControlAllSpike) Rule() string { return "phase3.control.all_spike" }

// P3ControlUndecidable: "normal" cannot be decided for any candidate.
type P3ControlUndecidable struct{}

func (P3ControlUndecidable) Rule() string { return "phase3.control.undecidable" }

// P3ControlNone: no candidate qualifies (Spiking spike, Undecidable
// undecidable).
type P3ControlNone struct{ Spiking, Undecidable int }

func (P3ControlNone) Rule() string { return "phase3.control.none" }

// P3ControlChosen: C = Step/Rank for the candidate's reason Why; HasD: D at
// the baseline's same step/rank; Common: the modules with gradients in every
// dump the norms were taken over (nil: all).
type P3ControlChosen struct {
	Step, Rank int
	Why        []Reason
	HasD       bool
	Common     *int
}

func (P3ControlChosen) Rule() string { return "phase3.control.chosen" }

// P3ControlGiven: C was given by --dump-c.
type P3ControlGiven struct{}

func (P3ControlGiven) Rule() string { return "phase3.control.given" }

// P3ControlUser: C was chosen by the user at Step/Rank.
type P3ControlUser struct{ Step, Rank int }

func (P3ControlUser) Rule() string { return "phase3.control.user" }

// P3ControlNotInTree: no dump at At in the --dump-c tree Path (which holds
// Has).
type P3ControlNotInTree struct{ At, Path, Has string }

func (P3ControlNotInTree) Rule() string { return "phase3.control.not_in_tree" }

// P3CandAnomaly: the candidate is a Phase 1 anomaly.
type P3CandAnomaly struct{}

func (P3CandAnomaly) Rule() string { return "phase3.cand.anomaly" }

// P3CandNoParamGrad: the candidate has no parameters_grad.
type P3CandNoParamGrad struct{}

func (P3CandNoParamGrad) Rule() string { return "phase3.cand.no_grad" }

// P3CandNonFinite: the candidate's gradient norm is not finite.
type P3CandNonFinite struct{}

func (P3CandNonFinite) Rule() string { return "phase3.cand.nonfinite" }

// P3CandTooFew: fewer than two gradient norms in the tree.
type P3CandTooFew struct{}

func (P3CandTooFew) Rule() string { return "phase3.cand.too_few" }

// P3CandAboveP75: the candidate's gradient norm Norm is above the tree's
// P75.
type P3CandAboveP75 struct{ Norm, P75 float64 }

func (P3CandAboveP75) Rule() string { return "phase3.cand.above_p75" }

// P3CandNormal: the candidate's gradient norm Norm ≤ P75 and it is no
// Phase 1 anomaly.
type P3CandNormal struct{ Norm, P75 float64 }

func (P3CandNormal) Rule() string { return "phase3.cand.normal" }

// P3CandOtherStage: the candidate is on pipeline stage Stage, A on AStage.
type P3CandOtherStage struct{ Stage, AStage int }

func (P3CandOtherStage) Rule() string { return "phase3.cand.other_stage" }

// P3CandOtherLayers: the candidate holds other layers than A.
type P3CandOtherLayers struct{}

func (P3CandOtherLayers) Rule() string { return "phase3.cand.other_layers" }

// --- band notes and rules (Band.Note, Band.Rule) ---

// P3BandNoRatio: no ratio to learn a band from.
type P3BandNoRatio struct{}

func (P3BandNoRatio) Rule() string { return "phase3.band.no_ratio" }

// P3BandSignChange: the control ratios change sign or reach zero.
type P3BandSignChange struct{}

func (P3BandSignChange) Rule() string { return "phase3.band.sign" }

// P3BandScatter: the control ratios scatter wider than their median.
type P3BandScatter struct{}

func (P3BandScatter) Rule() string { return "phase3.band.scatter" }

// P3BandDegraded: the band is learned from A/B (no control group).
type P3BandDegraded struct{}

func (P3BandDegraded) Rule() string { return "phase3.band.degraded" }

// P3BandAllFixed: every control ratio (N) of the statistic is fixed by
// construction.
type P3BandAllFixed struct{ N int }

func (P3BandAllFixed) Rule() string { return "phase3.band.fixed" }

// P3BandFewLayers: fewer than Min layers, the band was learned from every
// anchor's control ratios (Ops == 0) or those of Ops aligned ops.
type P3BandFewLayers struct{ Min, Ops int }

func (P3BandFewLayers) Rule() string { return "phase3.band.few_layers" }

// P3BandOverAll: the band pooled over all anchors is unusable (Notes its
// note).
type P3BandOverAll struct{ Notes []Reason }

func (P3BandOverAll) Rule() string { return "phase3.band.over_all" }

// P3BandPeers: the band of Anchors peer anchors' control ratios (Samples).
type P3BandPeers struct{ Anchors, Samples int }

func (P3BandPeers) Rule() string { return "phase3.band.peers" }

// P3BandOwnSpread: the anchor's own spread, wider than the band of Anchors
// peer anchors.
type P3BandOwnSpread struct{ Anchors int }

func (P3BandOwnSpread) Rule() string { return "phase3.band.own_spread" }

// P3BandWidened: widened to the anchor's own N control ratios.
type P3BandWidened struct{ N int }

func (P3BandWidened) Rule() string { return "phase3.band.widened" }

// P3BandOps: the degraded op band of Samples aligned ops of the unflagged
// (else the other) layers of the pass, Layer excluded.
type P3BandOps struct {
	Samples   int
	Unflagged bool
	Layer     int
}

func (P3BandOps) Rule() string { return "phase3.band.ops" }

// P3BandPass: a layer is flagged only when its A/B also leaves the pass
// band (Ops ops, Median, [Lower, Upper]).
type P3BandPass struct {
	Ops                  int
	Median, Lower, Upper float64
}

func (P3BandPass) Rule() string { return "phase3.band.pass" }

// P3RuleControl is the flag rule with a control group.
type P3RuleControl struct{}

func (P3RuleControl) Rule() string { return "phase3.rule.control" }

// P3RuleDegraded is the flag rule without a control group.
type P3RuleDegraded struct{}

func (P3RuleDegraded) Rule() string { return "phase3.rule.degraded" }

// P3RuleDegradedOps is the degraded drill-down's flag rule.
type P3RuleDegradedOps struct{}

func (P3RuleDegradedOps) Rule() string { return "phase3.rule.degraded_ops" }

// --- why two records are not compared (Alignment.Reasons, DrillOp.Why) ---
// These are comparable values (the align command counts them).

// P3Unaligned is one pass's pair (Dir "fwd"/"bwd", Pair "A/B"/"C/D") that
// could not be compared, and why.
type P3Unaligned struct {
	Dir, Pair string
	Why       Reason
}

func (P3Unaligned) Rule() string { return "phase3.unaligned" }

// P3NoDump: no dump of Group.
type P3NoDump struct{ Group string }

func (P3NoDump) Rule() string { return "phase3.why.no_dump" }

// P3MissingIn: the record is missing in Group.
type P3MissingIn struct{ Group string }

func (P3MissingIn) Rule() string { return "phase3.why.missing" }

// P3MissingKeyIn: the record's key is missing in Group.
type P3MissingKeyIn struct{ Group string }

func (P3MissingKeyIn) Rule() string { return "phase3.why.missing_key" }

// P3NoComparableOp: no comparable op in Group.
type P3NoComparableOp struct{ Group string }

func (P3NoComparableOp) Rule() string { return "phase3.why.no_comparable" }

// P3NoFloatOutput: no floating-point output in Group.
type P3NoFloatOutput struct{ Group string }

func (P3NoFloatOutput) Rule() string { return "phase3.why.no_float" }

// P3ElementCount: the element counts differ (A's, B's).
type P3ElementCount struct{ A, B int64 }

func (P3ElementCount) Rule() string { return "phase3.why.elements" }

// P3NormNone: the Norm is None in Group.
type P3NormNone struct{ Group string }

func (P3NormNone) Rule() string { return "phase3.why.norm_none" }

// P3StatNonFinite: statistic Stat is Value (NaN/±Inf) in Group.
type P3StatNonFinite struct {
	Stat  string
	Value float64
	Group string
}

func (P3StatNonFinite) Rule() string { return "phase3.why.nonfinite" }

// P3BaselineBroken: Stat is Value in the baseline Group only (finite in
// Other).
type P3BaselineBroken struct {
	Stat         string
	Value        float64
	Group, Other string
}

func (P3BaselineBroken) Rule() string { return "phase3.why.baseline_broken" }

// P3BothNonFinite: Stat is ValueX in X and ValueY in Y.
type P3BothNonFinite struct {
	Stat           string
	ValueX, ValueY float64
	X, Y           string
}

func (P3BothNonFinite) Rule() string { return "phase3.why.both_nonfinite" }

// P3ClassDiffers: one record is a placeholder, the other a real module.
type P3ClassDiffers struct{ A, B string }

func (P3ClassDiffers) Rule() string { return "phase3.why.class" }

// P3SplitFused: Seg has no counterpart in Group, which has Found
// ("a/b/c") instead: Split says Seg is a split projection (Group has the
// fused one), else Seg is fused (Group has the split ones).
type P3SplitFused struct {
	Group, Seg, Found string
	Split             bool
}

func (P3SplitFused) Rule() string { return "phase3.why.split_fused" }

// P3ComparedAtNext: the anchor's record failed for Why; the next aligned
// record of the layer (Key) stands for it.
type P3ComparedAtNext struct {
	Why Reason
	Key string
}

func (P3ComparedAtNext) Rule() string { return "phase3.why.next_record" }

// P3Masked: masked alike in every group.
type P3Masked struct{}

func (P3Masked) Rule() string { return "phase3.why.masked" }

// --- direction verdicts (DirectionVerdict.Note) ---

// P3DirUncompared: the direction diverges, and Layers could not be
// compared.
type P3DirUncompared struct{ Layers []int }

func (P3DirUncompared) Rule() string { return "phase3.dir.uncompared" }

// P3DirUndetermined: no flagged layer, but Layers could not be compared.
type P3DirUndetermined struct{ Layers []int }

func (P3DirUndetermined) Rule() string { return "phase3.dir.undetermined" }

// P3DirNoBand: no usable control band for the direction.
type P3DirNoBand struct{}

func (P3DirNoBand) Rule() string { return "phase3.dir.no_band" }

// P3DirAmplified: the backward divergence follows the forward one at
// Layer.
type P3DirAmplified struct{ Layer int }

func (P3DirAmplified) Rule() string { return "phase3.dir.amplified" }

// P3DirBackwardItself: forward consistent, the backward produced the
// divergence.
type P3DirBackwardItself struct{}

func (P3DirBackwardItself) Rule() string { return "phase3.dir.backward_itself" }

// P3DirForwardUnsure: the forward could not be fully compared.
type P3DirForwardUnsure struct{}

func (P3DirForwardUnsure) Rule() string { return "phase3.dir.forward_unsure" }

// P3DirStandIn: compared with C in B's place.
type P3DirStandIn struct{}

func (P3DirStandIn) Rule() string { return "phase3.dir.stand_in" }

// P3DirFewAnchors: only Anchors aligned anchors.
type P3DirFewAnchors struct{ Anchors int }

func (P3DirFewAnchors) Rule() string { return "phase3.dir.few_anchors" }

// --- the drill-down (Drilldown.Note) ---

// P3DrillNoOps: dump A has no ops in the layer and pass.
type P3DrillNoOps struct{}

func (P3DrillNoOps) Rule() string { return "phase3.drill.no_ops" }

// P3DrillCallFellBack: the layer ran Calls times, fewer than micro-batch
// Asked (1-based): operators compared at micro-batch 1.
type P3DrillCallFellBack struct{ Calls, Asked int }

func (P3DrillCallFellBack) Rule() string { return "phase3.drill.call" }

// P3DrillNoneLeaves: no op of the layer leaves the band.
type P3DrillNoneLeaves struct{}

func (P3DrillNoneLeaves) Rule() string { return "phase3.drill.none" }

// P3DrillUpstreamClean: upstream checked until Op showed no difference.
type P3DrillUpstreamClean struct{ Op string }

func (P3DrillUpstreamClean) Rule() string { return "phase3.drill.clean" }

// P3DrillFirstOp: the operator is the first op of the layer in the pass.
type P3DrillFirstOp struct{}

func (P3DrillFirstOp) Rule() string { return "phase3.drill.first" }

// P3DrillUpstreamUnaligned: the upstream ops could not be compared.
type P3DrillUpstreamUnaligned struct{}

func (P3DrillUpstreamUnaligned) Rule() string { return "phase3.drill.unaligned" }

// P3DrillLargestAfter: the largest difference (Op) is computed after the
// operator.
type P3DrillLargestAfter struct{ Op string }

func (P3DrillLargestAfter) Rule() string { return "phase3.drill.largest" }

// P3DrillNonFinite: the operator is the non-finite origin (before the
// layers when BeforeLayers) with statistics Stats ("Norm=NaN");
// NoCounterpart: it has none in Baseline (the baseline column's group).
type P3DrillNonFinite struct {
	BeforeLayers  bool
	Stats         []string
	NoCounterpart bool
	Baseline      string
}

func (P3DrillNonFinite) Rule() string { return "phase3.drill.nonfinite" }

// --- the data-feature check (DataFeatureCheck.Detail) ---

// P3ShapeNone: no input shape found.
type P3ShapeNone struct{}

func (P3ShapeNone) Rule() string { return "phase3.shape.none" }

// P3ShapeAB: A's input shape differs from B's; Different: A and C agree,
// so A/B compare different data.
type P3ShapeAB struct {
	A, B      []int64
	Different bool
}

func (P3ShapeAB) Rule() string { return "phase3.shape.ab" }

// P3ShapeAC: A's input shape differs from C's; B, D the baseline's when
// known (Same: B/D show the same difference).
type P3ShapeAC struct {
	A, C, B, D []int64
	Baseline   bool
	Same       bool
}

func (P3ShapeAC) Rule() string { return "phase3.shape.ac" }

// --- A's pipeline stage (DumpStage.Source) ---

// P3StagePhase1: Phase 1's pipeline stages put rank Rank on Stage of
// Stages.
type P3StagePhase1 struct{ Rank, Stage, Stages int }

func (P3StagePhase1) Rule() string { return "phase3.stage.phase1" }

// P3StageLast: A's dump holds the final norm but no embedding.
type P3StageLast struct{}

func (P3StageLast) Rule() string { return "phase3.stage.last" }

// P3StageMiddle: A's dump holds neither the embedding nor the final norm.
type P3StageMiddle struct{}

func (P3StageMiddle) Rule() string { return "phase3.stage.middle" }
