package model

// CandidateID is a candidate's identity in the input's own numbering: what
// stays the same when a followed run is analysed again (the same spike at
// the same coordinate), whatever its measured values became.
type CandidateID struct {
	Step, Micro, Rank, VPP int // VPP: two model chunks may hold one name
	Target, Metric         string
}

// IDOf is a's identity. The "pp<N>:" prefix comes once the ranks read show
// the stages; the rank already says which stage, so the prefix is no part
// of the identity.
func IDOf(a *Anomaly) CandidateID {
	name := a.TargetName
	if a.PPStage != nil {
		name = StageBaseName(name)
	}
	return CandidateID{a.Step, a.Micro(), a.Rank, a.VPPStage, name, a.Metric}
}
