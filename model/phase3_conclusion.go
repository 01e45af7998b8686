package model

// Phase3 verdicts of a Phase3Conclusion.
const (
	VerdictForward      = "forward"      // forward diverges (backward may too)
	VerdictBackward     = "backward"     // only backward diverges
	VerdictUndetermined = "undetermined" // nothing flagged, but layers were not compared
	VerdictConsistent   = "consistent"   // nothing flagged, every layer compared
)

// Phase3Conclusion is what a Phase 3 result concludes: the one reading of
// it (analysis.ConcludePhase3) that the report, the TUI and the text
// summary all state.
type Phase3Conclusion struct {
	Verdict string // one of the Verdict* constants
	// FwdDivergent/BwdDivergent: the direction's verdict is divergent or
	// it flags a layer.
	FwdDivergent, BwdDivergent bool
	// FwdStart/BwdStart are the first divergent layer of each direction:
	// the earliest divergence, else the direction's start.
	FwdStart, BwdStart *int
	// ForwardUnsure: backward diverges and forward was not shown consistent.
	ForwardUnsure bool
	// Uncompared: some layers could not be compared.
	Uncompared bool
	// Fwd, Bwd are the direction verdicts (nil when absent).
	Fwd, Bwd *DirectionVerdict
	// Operator is the drill-down to the first divergent operator; nil when
	// no operator was found.
	Operator *Drilldown
}
