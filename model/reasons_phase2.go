package model

// Phase 2's reasons: what the rules of `select` decided, with the numbers
// they used. Package words says them (words/phase2.go). Two kinds go into
// a Phase2Result: the decisions (DecisionsReasons, one full statement
// each) and the reasoning (ReasoningReasons, the reference scripts' short
// notes, types named …Brief), plus the texts of single fields
// (cross_device_verification, mode, a cross-step pair's verdict, an
// event's baseline_reason, a coordinate's parameter_note).

// P2Mode is the mode: one device, or with a baseline run.
type P2Mode struct{ Baseline bool }

// P2NoPhase1: no Phase 1 result was given.
type P2NoPhase1 struct{}

// P2NoPhase1Brief is P2NoPhase1's note.
type P2NoPhase1Brief struct{}

// P2DataKind names the data kind and the thresholds the decisions use.
type P2DataKind struct {
	Kind                           string // "micro_step", "step", "dump"
	Window                         int    // accumulation window
	Growth, RankShare, DeviceRatio float64
	MinCommon                      int
}

// P2NoCandidates: Phase 1 found no candidate.
type P2NoCandidates struct{}

// P2NoCandidatesBrief is P2NoCandidates' note.
type P2NoCandidatesBrief struct{}

// P2NoCandidateBrief: no candidate coordinate (a cross-device
// verification and the note when the root step has none).
type P2NoCandidateBrief struct{}

// P2NoBaselineData: the cross-device verification without a baseline.
type P2NoBaselineData struct{}

// P2Snapshot: a single dumped step, no cross-step decision.
type P2Snapshot struct{}

// P2SnapshotBrief is P2Snapshot's note.
type P2SnapshotBrief struct{}

// P2FallbackNonFinite: no pair qualifies; the first non-finite value
// (Rank, Target) at optimizer step Step is the root, earlier than the
// largest deviation Dev at DevStep when HasDev.
type P2FallbackNonFinite struct {
	Rank    int
	Target  string
	Step    int
	HasDev  bool
	Dev     float64
	DevStep int
}

// P2FallbackNonFiniteBrief is P2FallbackNonFinite's note.
type P2FallbackNonFiniteBrief struct{ Step int }

// P2FallbackLargest: no pair qualifies; the root is the step of the
// largest deviation.
type P2FallbackLargest struct {
	Dev    float64
	Rank   int
	Target string
	Step   int
}

// P2FallbackLargestBrief is P2FallbackLargest's note.
type P2FallbackLargestBrief struct{ Step int }

// P2Persisting: the same rank and parameter is a candidate at every step
// From..To: one anomaly, which starts at From.
type P2Persisting struct{ Rank, From, To int }

// P2PersistingBrief is P2Persisting's note.
type P2PersistingBrief struct{ Rank, From int }

// P2FallbackEarliest: no finite deviation: the earliest candidate's step.
type P2FallbackEarliest struct{ Step int }

// P2FallbackEarliestBrief is P2FallbackEarliest's note.
type P2FallbackEarliestBrief struct{ Step int }

// P2NoRootCandidate: the root step has no candidate.
type P2NoRootCandidate struct{}

// P2NoBaselinePickBrief is the note of the coordinate chosen without a
// baseline: the first non-finite value, or the largest deviation Dev.
type P2NoBaselinePickBrief struct {
	NonFinite bool
	Rank      int
	Micro     *int // the micro step (nil: step-level data, named by Step)
	Step      int
	Dev       float64
}

// Ways the coordinate is chosen without a baseline (P2NoBaselinePick.Way).
const (
	P2PickDeviation = ""          // the largest deviation from its own baseline
	P2PickNonFinite = "nonfinite" // the first non-finite value
	P2PickDumpCall  = "dumpcall"  // the earliest parameters_grad call, then the deviation
	P2PickMicro     = "micro"     // the earliest micro step, then the deviation
)

// P2NoBaselinePick: without a baseline the coordinate is the root step's
// first candidate (of N), chosen the Way said, with its Key ("delta" or
// "norm") Value.
type P2NoBaselinePick struct {
	Way    string
	Dev    float64
	N      int
	Key    string
	Value  float64
	Rank   int
	Target string
	Step   int
	Micro  *int
}

// P2SpecificNoMatch: the baseline has no candidate on the candidate's
// parameter (and micro step, MicroData): device-specific, selected.
type P2SpecificNoMatch struct {
	Rank      int
	Target    string
	Micro     *int
	MicroData bool
}

// P2SpecificNoMatchBrief is P2SpecificNoMatch's note and cross-device
// verification.
type P2SpecificNoMatchBrief struct {
	Key   string
	Value float64
	Rank  int
}

// P2SpecificRatio: the candidate's Value is Ratio× the baseline's BValue
// (rank BRank), ≥ Threshold: device-specific, selected.
type P2SpecificRatio struct {
	Rank          int
	Target        string
	Micro         *int
	Key           string
	Value, BValue float64
	BRank         int
	Ratio         float64
	Threshold     float64
}

// P2SpecificRatioBrief is P2SpecificRatio's note and cross-device
// verification.
type P2SpecificRatioBrief struct {
	Key           string
	Value, BValue float64
	Rank, BRank   int
	Ratio         float64
	Threshold     float64
}

// P2SharedSkipped: the candidate is close to the baseline (< Threshold):
// shared, skipped.
type P2SharedSkipped struct {
	Rank          int
	Target        string
	Micro         *int
	Key           string
	Value, BValue float64
	Ratio         float64
	Threshold     float64
}

// P2AllShared: every candidate of the root step is close to the
// baseline; the coordinate is the first.
type P2AllShared struct {
	Threshold float64
	Dev       float64
	Rank      int
	Target    string
}

// P2AllSharedBrief is P2AllShared's note and cross-device verification.
type P2AllSharedBrief struct {
	Rank  int
	Key   string
	Value float64
}

// P2ParamNotLocating: the coordinate's parameter does not locate the
// origin: N parameters of Rank (of about PerRank a rank holds) are
// candidates together — all non-finite, or spiking together (at least
// Share of them).
type P2ParamNotLocating struct {
	AllNonFinite bool
	N, Rank      int
	PerRank      int
	Share        float64
	Target       string
}

// P2ParamNotLocatingBrief is P2ParamNotLocating's note.
type P2ParamNotLocatingBrief struct{}

// P2NoRankNorms: Phase 1 has no per-rank final norms: no cross-step rule.
type P2NoRankNorms struct{}

// P2NoRankNormsBrief is P2NoRankNorms' note.
type P2NoRankNormsBrief struct{}

// P2ThresholdsBrief notes the cross-step thresholds.
type P2ThresholdsBrief struct{ Growth, RankShare float64 }

// P2FewRanks: the run has N ranks, fewer than Need: a pair needs all.
type P2FewRanks struct{ N, Need int }

// P2RootBrief notes the root step the cross-step rule found.
type P2RootBrief struct{ Step int }

// P2PairNoData: the next step Next has no data: pair not judged.
type P2PairNoData struct{ Next int }

// P2PairOtherParam: the next step Next lists another parameter.
type P2PairOtherParam struct {
	Next  int
	Other string
}

// P2PairFewRanks: only Total ranks have a finite final norm at both steps
// (Need needed): not judged.
type P2PairFewRanks struct{ Total, Need int }

// P2PairFewRanksBrief is the note of a pair with too few common ranks.
type P2PairFewRanksBrief struct{ From, To, Total int }

// P2PairUnjudged: the pair From → To of Target is not judged, Why.
type P2PairUnjudged struct {
	From, To int
	Target   string
	Why      Reason
}

// Outcomes of a judged pair (P2Pair.Outcome, P2PairVerdict.Outcome).
const (
	P2PairNone  = ""      // does not qualify
	P2PairRoot  = "root"  // qualifies: the root cause is in From
	P2PairLater = "later" // qualifies, but an earlier pair already did
)

// P2Pair is a judged cross-step pair: Over of Total ranks grew ≥ Growth×
// (Share, needs RankShare); the measured growth's median and maximum when
// HasGrowth; the Outcome; the baseline's growth on the same pair when
// known (nil: no baseline pair).
type P2Pair struct {
	From, To      int
	Target        string
	Over, Total   int
	Growth        float64
	Share         float64
	RankShare     float64
	HasGrowth     bool
	Median, Max   float64
	Outcome       string
	BaselineGrows *bool
}

// P2PairBrief is a judged pair's note.
type P2PairBrief struct {
	From, To    int
	Target      string
	Over, Total int
	Share       float64
	Growth      float64
}

// P2PairVerdict is a judged pair's verdict (the table's column): the
// Outcome, Step the root step (or the earlier one that qualified).
type P2PairVerdict struct {
	Outcome string
	Step    int
}

// P2PollutionUnshowable: the data cannot show pollution (micro-step data
// with a window ≥ MinWindow needed).
type P2PollutionUnshowable struct{ MinWindow, Window int }

// P2Pollution: the candidates start at the first micro-batch and cover
// more than Share of the Window micro steps on Polluted of the Grown
// ranks (RankShare needed).
type P2Pollution struct {
	Share           float64
	Window          int
	Polluted, Grown int
	RankShare       float64
}

// P2PrePairInStep: the pair Prev → Step grows, but Step's candidates do
// not show pollution (Why): an in-step fault, the pair is not judged.
type P2PrePairInStep struct {
	Prev, Step  int
	Target      string
	Over, Total int
	Growth      float64
	Why         Reason
}

// P2PrePairPolluted: Prev has no candidate, but Step's candidates show
// pollution (Why): the pair Prev → Step is judged.
type P2PrePairPolluted struct {
	Prev, Step int
	Why        Reason
}

// P2PrePairBrief is P2PrePairPolluted's note.
type P2PrePairBrief struct{ Prev, Step int }

// P2PrePairRootBrief notes the root moved to Prev.
type P2PrePairRootBrief struct{ Prev int }

// P2PreNoNorm: the root step has no candidate and no finite final norm.
type P2PreNoNorm struct {
	Step   int
	Target string
}

// P2PreNoNormBrief is P2PreNoNorm's note.
type P2PreNoNormBrief struct{ Step int }

// P2PreCoord: the root step has no candidate: the coordinate is the rank
// with the largest final norm Norm (Dev× the ranks' median).
type P2PreCoord struct {
	Step      int
	Target    string
	Rank      int
	Norm, Dev float64
}

// P2PreCoordBrief is P2PreCoord's note.
type P2PreCoordBrief struct{ Step, Rank int }

// P2PreNoCompare: no candidate at the root step: no cross-device
// comparison.
type P2PreNoCompare struct{}

// P2PreNoCompareBrief is P2PreNoCompare's cross-device verification.
type P2PreNoCompareBrief struct{ Step int }

// P2EventSpecificNoMatch: an event's candidate has no baseline candidate
// on its parameter (and micro step, MicroData).
type P2EventSpecificNoMatch struct {
	Rank      int
	Target    string
	MicroData bool
}

// P2EventSpecificNonFinite: non-finite here, finite on the baseline.
type P2EventSpecificNonFinite struct {
	Rank   int
	Target string
	Key    string
	BValue float64
}

// P2EventSpecificRatio: Value vs the baseline's BValue = Ratio ≥ Threshold.
type P2EventSpecificRatio struct {
	Rank          int
	Target        string
	Key           string
	Value, BValue float64
	Ratio         float64
	Threshold     float64
}

// P2EventShared: all N candidates of the event are on the baseline too
// (NonFinite of them non-finite on both; All: every candidate is).
type P2EventShared struct {
	N, NonFinite int
	All          bool
	Threshold    float64
}

// P2EventsAllShared: every one of N events is shared: the root is the
// earliest, at Step.
type P2EventsAllShared struct{ N, Step int }

// P2EventsAllSharedBrief is P2EventsAllShared's note.
type P2EventsAllSharedBrief struct{ N, Step int }

// P2EventsEarliestSpecific: the root is the earliest device-specific
// event, Event, at Step.
type P2EventsEarliestSpecific struct{ Event, Step int }

// P2EventsSpecificMoved: the root is the earliest device-specific event,
// not the step the rules chose first (Seed): it comes before it, or Seed
// is in a shared event (SeedShared, event SeedEvent); SharedBefore
// earlier shared events stay listed.
type P2EventsSpecificMoved struct {
	Event, Step  int
	Seed         int
	SeedShared   bool
	SeedEvent    int
	SharedBefore int
}

// P2EventsSpecificMovedBrief is P2EventsSpecificMoved's note.
type P2EventsSpecificMovedBrief struct{ Step int }

// P2EventsStepStart: step-level data: the step the rules chose first
// (Seed) belongs to event 1, which starts at Step: the root.
type P2EventsStepStart struct{ Seed, Step int }

// P2EventsStepStartBrief is P2EventsStepStart's note.
type P2EventsStepStartBrief struct{ Seed, Step int }

// P2EventsStepEarliest: step-level data: the root is the earliest event
// at Step; the step the rules chose first (Seed, event SeedEvent) stays a
// later event.
type P2EventsStepEarliest struct{ Step, Seed, SeedEvent int }

// P2EventsStepEarliestBrief is P2EventsStepEarliest's note.
type P2EventsStepEarliestBrief struct{ Step, Seed int }

// P2EventsStepMany: step-level data: the root is the earliest of N
// events, at Step.
type P2EventsStepMany struct{ N, Step int }

// P2EventLine is one event of P2Events.
type P2EventLine struct {
	ID, Step          int
	Extent            string // SpikeEvent.Extent
	Ranks, RanksTotal int
	Parameters        int
	Into              []int
	Baseline          string // SpikeEvent.Baseline
	Cause, Likely     string
}

// P2Events lists the independent spike events, earliest first.
type P2Events struct{ Events []P2EventLine }

// P2PinAgrees: the pin agrees with a Phase 1 candidate.
type P2PinAgrees struct {
	Rank    int
	Target  string
	Step    int
	OptStep int
	Micro   *int
}

// P2PinAsGiven: the pin matches no candidate: taken as given.
type P2PinAsGiven struct{}

// P2Pinned: the coordinate is pinned by the user (Pin as typed back).
type P2Pinned struct{ Pin string }

// P2PinnedBrief is P2Pinned's note.
type P2PinnedBrief struct{}

// P2PinnedUnverified: a pinned coordinate is not verified against the
// baseline (the cross-device verification).
type P2PinnedUnverified struct{}

func (P2Mode) Rule() string                     { return "phase2.mode" }
func (P2NoPhase1) Rule() string                 { return "phase2.nophase1" }
func (P2NoPhase1Brief) Rule() string            { return "phase2.nophase1.brief" }
func (P2DataKind) Rule() string                 { return "phase2.datakind" }
func (P2NoCandidates) Rule() string             { return "phase2.nocandidates" }
func (P2NoCandidatesBrief) Rule() string        { return "phase2.nocandidates.brief" }
func (P2NoCandidateBrief) Rule() string         { return "phase2.nocandidate.brief" }
func (P2NoBaselineData) Rule() string           { return "phase2.nobaselinedata" }
func (P2Snapshot) Rule() string                 { return "phase2.snapshot" }
func (P2SnapshotBrief) Rule() string            { return "phase2.snapshot.brief" }
func (P2FallbackNonFinite) Rule() string        { return "phase2.fallback.nonfinite" }
func (P2FallbackNonFiniteBrief) Rule() string   { return "phase2.fallback.nonfinite.brief" }
func (P2FallbackLargest) Rule() string          { return "phase2.fallback.largest" }
func (P2FallbackLargestBrief) Rule() string     { return "phase2.fallback.largest.brief" }
func (P2Persisting) Rule() string               { return "phase2.fallback.persisting" }
func (P2PersistingBrief) Rule() string          { return "phase2.fallback.persisting.brief" }
func (P2FallbackEarliest) Rule() string         { return "phase2.fallback.earliest" }
func (P2FallbackEarliestBrief) Rule() string    { return "phase2.fallback.earliest.brief" }
func (P2NoRootCandidate) Rule() string          { return "phase2.coord.nocandidate" }
func (P2NoBaselinePickBrief) Rule() string      { return "phase2.coord.nobaseline.brief" }
func (P2NoBaselinePick) Rule() string           { return "phase2.coord.nobaseline" }
func (P2SpecificNoMatch) Rule() string          { return "phase2.coord.specific.nomatch" }
func (P2SpecificNoMatchBrief) Rule() string     { return "phase2.coord.specific.nomatch.brief" }
func (P2SpecificRatio) Rule() string            { return "phase2.coord.specific.ratio" }
func (P2SpecificRatioBrief) Rule() string       { return "phase2.coord.specific.ratio.brief" }
func (P2SharedSkipped) Rule() string            { return "phase2.coord.shared.skipped" }
func (P2AllShared) Rule() string                { return "phase2.coord.allshared" }
func (P2AllSharedBrief) Rule() string           { return "phase2.coord.allshared.brief" }
func (P2ParamNotLocating) Rule() string         { return "phase2.coord.param.notlocating" }
func (P2ParamNotLocatingBrief) Rule() string    { return "phase2.coord.param.notlocating.brief" }
func (P2NoRankNorms) Rule() string              { return "phase2.cross.noranknorms" }
func (P2NoRankNormsBrief) Rule() string         { return "phase2.cross.noranknorms.brief" }
func (P2ThresholdsBrief) Rule() string          { return "phase2.cross.thresholds.brief" }
func (P2FewRanks) Rule() string                 { return "phase2.cross.fewranks" }
func (P2RootBrief) Rule() string                { return "phase2.cross.root.brief" }
func (P2PairNoData) Rule() string               { return "phase2.pair.nodata" }
func (P2PairOtherParam) Rule() string           { return "phase2.pair.otherparam" }
func (P2PairFewRanks) Rule() string             { return "phase2.pair.fewranks" }
func (P2PairFewRanksBrief) Rule() string        { return "phase2.pair.fewranks.brief" }
func (P2PairUnjudged) Rule() string             { return "phase2.pair.unjudged" }
func (P2Pair) Rule() string                     { return "phase2.pair" }
func (P2PairBrief) Rule() string                { return "phase2.pair.brief" }
func (P2PairVerdict) Rule() string              { return "phase2.pair.verdict" }
func (P2PollutionUnshowable) Rule() string      { return "phase2.prepair.unshowable" }
func (P2Pollution) Rule() string                { return "phase2.prepair.pollution" }
func (P2PrePairInStep) Rule() string            { return "phase2.prepair.instep" }
func (P2PrePairPolluted) Rule() string          { return "phase2.prepair.polluted" }
func (P2PrePairBrief) Rule() string             { return "phase2.prepair.brief" }
func (P2PrePairRootBrief) Rule() string         { return "phase2.prepair.root.brief" }
func (P2PreNoNorm) Rule() string                { return "phase2.prepair.nonorm" }
func (P2PreNoNormBrief) Rule() string           { return "phase2.prepair.nonorm.brief" }
func (P2PreCoord) Rule() string                 { return "phase2.prepair.coord" }
func (P2PreCoordBrief) Rule() string            { return "phase2.prepair.coord.brief" }
func (P2PreNoCompare) Rule() string             { return "phase2.prepair.nocompare" }
func (P2PreNoCompareBrief) Rule() string        { return "phase2.prepair.nocompare.brief" }
func (P2EventSpecificNoMatch) Rule() string     { return "phase2.event.specific.nomatch" }
func (P2EventSpecificNonFinite) Rule() string   { return "phase2.event.specific.nonfinite" }
func (P2EventSpecificRatio) Rule() string       { return "phase2.event.specific.ratio" }
func (P2EventShared) Rule() string              { return "phase2.event.shared" }
func (P2EventsAllShared) Rule() string          { return "phase2.events.allshared" }
func (P2EventsAllSharedBrief) Rule() string     { return "phase2.events.allshared.brief" }
func (P2EventsEarliestSpecific) Rule() string   { return "phase2.events.earliestspecific" }
func (P2EventsSpecificMoved) Rule() string      { return "phase2.events.specificmoved" }
func (P2EventsSpecificMovedBrief) Rule() string { return "phase2.events.specificmoved.brief" }
func (P2EventsStepStart) Rule() string          { return "phase2.events.stepstart" }
func (P2EventsStepStartBrief) Rule() string     { return "phase2.events.stepstart.brief" }
func (P2EventsStepEarliest) Rule() string       { return "phase2.events.stepearliest" }
func (P2EventsStepEarliestBrief) Rule() string  { return "phase2.events.stepearliest.brief" }
func (P2EventsStepMany) Rule() string           { return "phase2.events.stepmany" }
func (P2Events) Rule() string                   { return "phase2.events" }
func (P2PinAgrees) Rule() string                { return "phase2.pin.agrees" }
func (P2PinAsGiven) Rule() string               { return "phase2.pin.asgiven" }
func (P2Pinned) Rule() string                   { return "phase2.pin.pinned" }
func (P2PinnedBrief) Rule() string              { return "phase2.pin.pinned.brief" }
func (P2PinnedUnverified) Rule() string         { return "phase2.pin.unverified" }
