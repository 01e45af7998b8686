package model

// Phase 1's reasons: what the run-shape, window, pipeline-stage and spike
// rules decided, with the values they used (package words says them).

// Phase1NoMonitor: Phase 1 got no monitor data (a Missing entry).
type Phase1NoMonitor struct{}

func (Phase1NoMonitor) Rule() string { return "phase1.missing.monitor" }

// Phase1NoGradRows: the data holds no gradient rows (a Missing entry).
type Phase1NoGradRows struct{}

func (Phase1NoGradRows) Rule() string { return "phase1.missing.gradrows" }

// Phase1NoRows: nothing to analyse (the reasoning of an empty run).
type Phase1NoRows struct{}

func (Phase1NoRows) Rule() string { return "phase1.norows" }

// MetricAnalysed: the metric chosen among Metrics metrics.
type MetricAnalysed struct {
	Metric  string
	Metrics int
}

func (MetricAnalysed) Rule() string { return "phase1.metric" }

// FinalMicroOnly: every row of Metric is its step's only one and none is
// the first micro-batch: the step's final gradient, judged at step level.
type FinalMicroOnly struct {
	Metric string
}

func (FinalMicroOnly) Rule() string { return "phase1.micro.finalonly" }

// DumpShape: dump statistics analysed per step; Calls when the step's
// parameters_grad calls give each candidate's micro step.
type DumpShape struct {
	Calls bool
}

func (DumpShape) Rule() string { return "phase1.dump.shape" }

// ExplicitMicro: the input numbers micro steps itself (Dump: a dump's
// parameters_grad calls); Window micro steps per optimizer step.
type ExplicitMicro struct {
	Dump   bool
	Window int
}

func (ExplicitMicro) Rule() string { return "phase1.micro.explicit" }

// ResetFit is how well window starts explain the norm resets: the share
// of transitions at window starts that drop (DropAt), their mean drop
// factor, the number of drops, and the share inside windows that rise.
type ResetFit struct {
	DropAt, DropFactor float64
	Drops              int
	RiseElse           float64
}

// WindowOff: --window 1, no accumulation.
type WindowOff struct{}

func (WindowOff) Rule() string { return "phase1.window.off" }

// WindowGiven: --window W, phase Phase of the best fit.
type WindowGiven struct {
	W, Phase int
}

func (WindowGiven) Rule() string { return "phase1.window.given" }

// WindowTooFewSteps: too few steps for a window: step level.
type WindowTooFewSteps struct{}

func (WindowTooFewSteps) Rule() string { return "phase1.window.fewsteps" }

// WindowPeriodic: window W, phase Phase found from the norm resets of
// Series series.
type WindowPeriodic struct {
	W, Phase, Series int
	Fit              ResetFit
}

func (WindowPeriodic) Rule() string { return "phase1.window.periodic" }

// WindowPartial: the first recorded step First is no window start; steps
// First..Last form a partial optimizer step.
type WindowPartial struct {
	First, Last int
}

func (WindowPartial) Rule() string { return "phase1.window.partial" }

// WindowCommonResets: optimizer steps start at the reset points Bounds
// common to several series; Longest is the longest window.
type WindowCommonResets struct {
	Bounds  []int
	Fit     ResetFit
	Longest int
}

func (WindowCommonResets) Rule() string { return "phase1.window.resets" }

// WindowNone: no recurring resets over Series series and Steps steps.
type WindowNone struct {
	Series, Steps int
}

func (WindowNone) Rule() string { return "phase1.window.none" }

// WindowReduced: grad_reduced rows every W steps from step From.
type WindowReduced struct {
	W, Phase, From int
}

func (WindowReduced) Rule() string { return "phase1.window.reduced" }

// WindowReducedIrregular: optimizer steps start at the Steps grad_reduced
// steps, spaced Common apart most often.
type WindowReducedIrregular struct {
	Steps, Common int
}

func (WindowReducedIrregular) Rule() string { return "phase1.window.reducedirregular" }

// Micro-step numberings (MicroNumbering.Kind).
const (
	NumberingNone      = "none"      // no micro steps
	NumberingDump      = "dump"      // parameters_grad.N
	NumberingDerived   = "derived"   // from the accumulation window
	NumberingMonitorV2 = "monitorv2" // 1..W as written
	NumberingWritten   = "written"   // 0..W-1 as written
)

// MicroNumbering says how micro_step and step are numbered
// (sharding_analysis.micro_step_numbering).
type MicroNumbering struct {
	Kind string
}

func (MicroNumbering) Rule() string { return "phase1.micro.numbering" }

// MicroNumberingNote: micro steps are reported as the input numbers them,
// First..Last.
type MicroNumberingNote struct {
	First, Last int
	Numbering   MicroNumbering
}

func (MicroNumberingNote) Rule() string { return "phase1.micro.numbering.note" }

// Pass units (PassUnit.Kind).
const (
	PassStep      = "step"     // (step,)
	PassExplicit  = "explicit" // (step, micro_step)
	PassAccumWind = "window"   // (optimizer_step, micro_step), window W
)

// PassUnit is one forward/backward pass of the run (sharding_analysis.pass_unit).
type PassUnit struct {
	Kind   string
	Window int
}

func (PassUnit) Rule() string { return "phase1.passunit" }

// Expert layouts and micro-step shapes of ShardingConclusion.
const (
	ExpertsNone      = ""
	ExpertsDiffer    = "differ"
	ExpertsSameNames = "same"

	MicroAccumulated = "accumulated"
	MicroExplicit    = "explicit"
	MicroNone        = "none"
)

// ShardingConclusion is the run shape (sharding_analysis.conclusion): PP
// stages (PPInferred: read from the ranks' parameter sets), the MoE expert
// layout, the micro steps (Window, OptSteps; First..Last as numbered) and
// the pass unit.
type ShardingConclusion struct {
	PP               int
	PPInferred       bool
	Experts          string
	Micro            string
	Window, OptSteps int
	First, Last      int
	Unit             PassUnit
}

func (ShardingConclusion) Rule() string { return "phase1.conclusion" }

// CandidatesOrdered: Count candidates, NonFinite of them non-finite, earliest first.
type CandidatesOrdered struct {
	Count, NonFinite int
}

func (CandidatesOrdered) Rule() string { return "phase1.candidates" }

// DumpTopN: a single-step dump's N largest of Of norms, against their Median.
type DumpTopN struct {
	N, Of  int
	Median float64
}

func (DumpTopN) Rule() string { return "phase1.dump.topn" }

// DumpCallMicro: a dump's parameters_grad calls judged as micro steps
// (PerCall: a baseline per call of ≥ MinPool curves); Jumps of Curves
// curves jump, Named of Candidates candidates name their call; Skipped
// curves not judged (the norm fell on more than MaxDecreasePct% of calls).
type DumpCallMicro struct {
	PerCall                                   bool
	MinPool                                   int
	MinEffect                                 float64
	Jumps, Curves, Named, Candidates, Skipped int
	MaxDecreasePct                            float64
}

func (DumpCallMicro) Rule() string { return "phase1.dump.calls" }

// HistoryTooShort: Short of Series series (Pools: (parameter, micro step)
// pools, else parameters) have MinN–MaxN values, fewer than Need; Unflagged
// values reported under too_little_history instead.
type HistoryTooShort struct {
	Short, Series    int
	Pools            bool
	MinN, MaxN, Need int
	Unflagged        int
}

func (HistoryTooShort) Rule() string { return "phase1.history.short" }

// HistoryExample is one value not flagged for too little history.
type HistoryExample struct {
	Target     string
	Step, Rank int
	Ratio      float64
}

// HistoryTooShortWarning is HistoryTooShort's warning: the first values
// not flagged (Examples) and how many More.
type HistoryTooShortWarning struct {
	Short, Series    int
	Pools            bool
	MinN, MaxN, Need int
	Examples         []HistoryExample
	More             int
}

func (HistoryTooShortWarning) Rule() string { return "phase1.history.warning" }

// MicroPoolsSkipped: Pools (parameter, micro step) pools not judged, their
// cumulative norm falling in more than MaxDecreasePct% of their curves.
type MicroPoolsSkipped struct {
	Pools          int
	MaxDecreasePct float64
}

func (MicroPoolsSkipped) Rule() string { return "phase1.micro.skipped" }

// MicroStepRule is the micro-step spike rule and what it found.
type MicroStepRule struct {
	MinEffect                  float64
	LevelHistory, LevelPersist int
	Jumps, Scaled, HeadSteps   int
	Judged, PerMicro, MinPool  int
	IQRMult, MADMult, MADScale float64
	Found                      int
}

func (MicroStepRule) Rule() string { return "phase1.micro.rule" }

// StepLevelRule is the step-level spike rule and what it found.
type StepLevelRule struct {
	Judged                     int
	MinEffect                  float64
	LevelHistory, LevelPersist int
	Jumps, Scaled, HeadSteps   int
	IQRMult, MADMult, MADScale float64
	Found                      int
}

func (StepLevelRule) Rule() string { return "phase1.steplevel.rule" }

// NonFiniteOnsets: Candidates onsets of non-finite norms; Whole parameters
// without any finite value.
type NonFiniteOnsets struct {
	Candidates, Whole int
}

func (NonFiniteOnsets) Rule() string { return "phase1.nonfinite" }

// CrossStepNorms: target_rank_norms written for Steps steps.
type CrossStepNorms struct {
	Steps int
}

func (CrossStepNorms) Rule() string { return "phase1.crossstep" }

// TailsUnmeasured: fewer than Need step-to-step changes before step First:
// the run's noise unknown.
type TailsUnmeasured struct {
	First, Need int
}

func (TailsUnmeasured) Rule() string { return "phase1.tails.unmeasured" }

// TailsDropped: Dropped values within Spreads spreads of the run's noise
// (Spread of log(norm) before step First); the largest MaxZ spreads.
type TailsDropped struct {
	Dropped      int
	Spreads      float64
	First        int
	Spread, MaxZ float64
}

func (TailsDropped) Rule() string { return "phase1.tails.dropped" }

// StagesMarkersUneven: the embedding stage has First ranks, the final-norm
// stage Last.
type StagesMarkersUneven struct {
	First, Last int
}

func (StagesMarkersUneven) Rule() string { return "phase1.pp.uneven" }

// StagesMiddleNotMultiple: Middle ranks hold no marker, not a multiple of
// PerStage.
type StagesMiddleNotMultiple struct {
	Middle, PerStage int
}

func (StagesMiddleNotMultiple) Rule() string { return "phase1.pp.middle" }

// StagesNoRankOrder: the embedding ranks First and final-norm ranks Last
// fit no rank order of Stages stages.
type StagesNoRankOrder struct {
	First, Last []int
	Stages      int
}

func (StagesNoRankOrder) Rule() string { return "phase1.pp.order" }

// StagesLayersDiffer: the ranks of Stage hold different layers.
type StagesLayersDiffer struct {
	Stage int
}

func (StagesLayersDiffer) Rule() string { return "phase1.pp.layers" }

// StagesLevelsUnseparable: the ranks' levels of one parameter differ up
// to Ratio× but no stage layout separates them.
type StagesLevelsUnseparable struct {
	Ratio float64
}

func (StagesLevelsUnseparable) Rule() string { return "phase1.pp.levels.unseparable" }

// StagesByMarkers: stages from the embedding (First), final-norm (Last)
// and other (Middle) ranks.
type StagesByMarkers struct {
	First, Last, Middle []int
}

func (StagesByMarkers) Rule() string { return "phase1.pp.method.markers" }

// StagesByNameSets: stages from identical parameter-name sets.
type StagesByNameSets struct{}

func (StagesByNameSets) Rule() string { return "phase1.pp.method.names" }

// StagesByLevels: stages from gradient levels under a Layout ("blocked" or
// "strided") rank order of Stages stages: Agree of Params parameters, the
// stages ≥ Gap× apart.
type StagesByLevels struct {
	Layout        string
	Stages        int
	Agree, Params int
	Gap           float64
}

func (StagesByLevels) Rule() string { return "phase1.pp.method.levels" }

// StagesNotInferred is the reasoning line of a pipeline Note.
type StagesNotInferred struct {
	Note Reason
}

func (StagesNotInferred) Rule() string { return "phase1.pp.note" }

// StagesInferred: Stages stages found by Method; the layer counts per
// stage and offsets, or ChunkLayers per VPP chunk, when known.
type StagesInferred struct {
	Stages         int
	Method         Reason
	LayersPerStage []int
	LayerOffsets   []int
	ChunkLayers    int
}

func (StagesInferred) Rule() string { return "phase1.pp.inferred" }
