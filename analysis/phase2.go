package analysis

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"spikescope/model"
)

// Phase 2 defaults (the seed's numbers; the reference code uses a rank
// share of 0.5).
const (
	DefaultGrowth      = 2.0 // final-norm growth between adjacent optimizer steps
	DefaultRankShare   = 0.6 // share of ranks that must grow
	DefaultDeviceRatio = 2.0 // anomalous/baseline ratio that makes a coordinate device-specific
	// minCommonRanks is the least number of ranks present at both steps of
	// a pair for the cross-step rule (reference: 3).
	minCommonRanks = 3
)

// Phase2Options are the thresholds of Phase 2; flags override them.
type Phase2Options struct {
	Growth, RankShare, DeviceRatio float64
}

// DefaultPhase2Options are the seed's thresholds.
func DefaultPhase2Options() Phase2Options {
	return Phase2Options{Growth: DefaultGrowth, RankShare: DefaultRankShare, DeviceRatio: DefaultDeviceRatio}
}

// said is what a Phase 2 rule says: its reasoning notes (the reference
// scripts') and its decisions, each in order. A rule returns it; Phase2
// appends what each rule said in the order it applies the rules.
type said struct {
	reasons, decisions []model.Reason
}

func (s *said) reason(r model.Reason)  { s.reasons = append(s.reasons, r) }
func (s *said) decide(d model.Reason)  { s.decisions = append(s.decisions, d) }
func (s *said) both(r, d model.Reason) { s.reason(r); s.decide(d) }
func (s *said) add(o said) {
	s.reasons = append(s.reasons, o.reasons...)
	s.decisions = append(s.decisions, o.decisions...)
}

// Phase2 chooses the root-cause coordinate from a Phase 1 result: the
// cross-step rule finds the root optimizer step (earliest qualifying pair),
// the coordinate is the largest delta/norm of that step, checked against a
// baseline when one is given (which only labels, never moves the step). A
// pin replaces the choice; a pin that matches no data is the only error.
//
// The rules are functions that return their decision and what they said
// (said); Phase2 applies them in the seed's order and assembles the result
// from what they return.
func Phase2(p1, baseline *model.Phase1Result, pin *model.Coord, opt Phase2Options) (*model.Phase2Result, error) {
	def := DefaultPhase2Options()
	if !(opt.Growth > 0) {
		opt.Growth = def.Growth
	}
	if !(opt.RankShare > 0) {
		opt.RankShare = def.RankShare
	}
	if !(opt.DeviceRatio > 0) {
		opt.DeviceRatio = def.DeviceRatio
	}
	res := &model.Phase2Result{
		Phase:                         2,
		ModeReason:                    model.P2Mode{Baseline: baseline != nil},
		CrossDeviceVerificationReason: model.P2NoBaselineData{},
		Decisions:                     []string{},
		CrossStep:                     []model.CrossStepPair{},
		Candidates:                    []model.CandidateVerdict{},
		Events:                        []model.SpikeEvent{},
		Thresholds: map[string]float64{"growth": opt.Growth, "rank_share": opt.RankShare,
			"device_ratio": opt.DeviceRatio, "min_common_ranks": minCommonRanks},
	}
	var log said // what the rules said, in the order they were applied
	// finish returns the result with what the rules said; its texts are
	// said from the reasons by package words (pipeline fills them).
	finish := func() *model.Phase2Result {
		res.ReasoningReasons = append([]model.Reason{}, log.reasons...)
		res.DecisionsReasons = append([]model.Reason{}, log.decisions...)
		return res
	}
	// verified sets the cross-device verification a rule made (nil: none).
	verified := func(r model.Reason) {
		if r != nil {
			res.CrossDeviceVerificationReason = r
		}
	}
	if p1 == nil {
		log.both(model.P2NoPhase1Brief{}, model.P2NoPhase1{})
		return finish(), nil
	}
	kind := dataKindOf(p1)
	log.decide(model.P2DataKind{Kind: kind, Window: p1.Sharding.AccumulationWindow, Growth: opt.Growth,
		RankShare: opt.RankShare, DeviceRatio: opt.DeviceRatio, MinCommon: minCommonRanks})
	// Step 2.1: the focus target of each optimizer step
	if kind != kindDump {
		res.TopTargetsPerStep = topTargetsPerStep(p1.Anomalies)
	}
	if pin != nil {
		pin := new(*pin) // resolving the name fills in the copy, never the caller's pin
		co, verify, s, err := applyPin(p1, baseline, pin, kind)
		if err != nil {
			return nil, err
		}
		log.add(s)
		res.Pinned, res.RootCauseCoordinate, res.RootOptStep = true, co, co.OptimizerStep
		verified(verify)
		if evs := pinnedEvents(p1, baseline, co, kind, opt); evs != nil {
			res.Events = evs
		}
		// what the rules would have chosen, so that a reader sees what the pin overrides
		if auto, err := Phase2(p1, baseline, nil, opt); err == nil {
			res.Automatic, res.AutomaticOptStep = auto.RootCauseCoordinate, auto.RootOptStep
		}
		return finish(), nil
	}
	if len(p1.Anomalies) == 0 {
		log.both(model.P2NoCandidatesBrief{}, model.P2NoCandidates{})
		verified(model.P2NoCandidateBrief{})
		if baseline == nil {
			verified(model.P2NoBaselineData{})
		}
		return finish(), nil
	}
	sameStep := alignedSteps(p1, baseline) // the baseline covers the same optimizer steps: match coordinates at the same step
	var root *int
	var pre *prePairRoot // the root came from a pre-pair: a step without candidates
	snapshot := kind == kindDump && (len(p1.Summary.Steps) == 1 || len(p1.Summary.Steps) == 0 && singleStep(p1.Anomalies))
	if snapshot {
		log.both(model.P2SnapshotBrief{}, model.P2Snapshot{})
	} else {
		// Step 2.2: the cross-step rule, else the seed's fallback; one
		// step back when the step before already polluted the root step
		var minCommon int
		var s said
		root, minCommon, res.CrossStep, s = crossStepRoot(p1, baseline, opt)
		log.add(s)
		if root == nil {
			root, s = fallbackRoot(p1.Anomalies)
			log.add(s)
		}
		if root != nil {
			root, res.CrossStep, pre, s = prePair(p1, baseline, *root, res.CrossStep, minCommon, opt)
			log.add(s)
		}
	}
	// Step 2.2, independent spike events: the earliest event's root
	evs := describeEvents(p1, baseline, buildEvents(p1, baseline, res.CrossStep, sameStep, kind, opt), kind, snapshot, opt)
	log.add(eventsDecision(evs))
	ei := 0
	if !snapshot {
		var s said
		root, ei, s = eventRoot(evs, root, pre, kind, baseline != nil)
		log.add(s)
	}
	res.RootOptStep = root
	// Step 2.3: the coordinate within the root step
	cands := candidatesAt(p1.Anomalies, root)
	var verify model.Reason
	var s said
	if pre != nil && root != nil && *root == pre.step && len(cands) == 0 {
		res.RootCauseCoordinate, verify, s = prePairCoordinate(pre, baseline != nil)
	} else {
		res.RootCauseCoordinate, res.Candidates, verify, s = pickCoordinate(cands, kind, baseline, sameStep, opt)
	}
	log.add(s)
	verified(verify)
	if co := res.RootCauseCoordinate; co != nil {
		co.ParameterDecides, co.ParameterNoteReason, s = judgeParameter(co, p1, cands, snapshot)
		log.add(s)
	}
	markRootEvent(evs, ei, root, res.RootCauseCoordinate)
	res.Events = evs
	return finish(), nil
}

// dataKindOf is the Phase 1 data kind; for reference-made Phase 1 files it
// is derived from the sharding analysis and the triggers (all of them, not
// the first three: bug 15).
func dataKindOf(p1 *model.Phase1Result) string {
	if p1.DataKind != "" {
		return p1.DataKind
	}
	if p1.Format == model.FormatDump {
		return kindDump
	}
	dump := len(p1.Anomalies) > 0
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if a.Delta != nil || a.MicroStep != nil {
			return kindMicro
		}
		if a.Trigger != triggerDumpAbsNorm {
			dump = false
		}
	}
	if dump {
		return kindDump
	}
	if p1.Sharding.HasMicroStep {
		return kindMicro
	}
	return kindStep
}

func singleStep(as []model.Anomaly) bool {
	for i := range as {
		if as[i].OptStep() != as[0].OptStep() {
			return false
		}
	}
	return true
}

// topTargetsPerStep is the focus parameter per optimizer step: the largest
// suspect_final_norm (else norm) among the step's candidates.
func topTargetsPerStep(as []model.Anomaly) map[string]model.TopTarget {
	out := map[string]model.TopTarget{}
	for i := range as {
		a := &as[i]
		v := float64(a.Norm)
		if a.SuspectFinalNorm != nil {
			v = float64(*a.SuspectFinalNorm)
		}
		if !model.Finite(v) {
			continue
		}
		k := strconv.Itoa(a.OptStep())
		if cur, ok := out[k]; !ok || v > float64(cur.MaxFinalNorm) {
			out[k] = model.TopTarget{TargetName: a.TargetName, MaxFinalNorm: model.Float(v)}
		}
	}
	return out
}

// fallbackRoot is the seed's fallback when no adjacent pair qualifies: the
// optimizer step of the largest finite deviation — unless a non-finite
// candidate appears at an earlier step: the first NaN/Inf is itself an
// anomaly and comes first.
func fallbackRoot(as []model.Anomaly) (*int, said) {
	var s said
	best, bestDev := -1, math.Inf(-1)
	firstNF := -1
	for i := range as {
		a := &as[i]
		if a.NonFinite {
			if firstNF < 0 || a.OptStep() < as[firstNF].OptStep() {
				firstNF = i
			}
			continue
		}
		if d := float64(a.DeviationRatio); !math.IsNaN(d) && d > bestDev {
			best, bestDev = i, d
		}
	}
	switch {
	case firstNF >= 0 && (best < 0 || as[firstNF].OptStep() < as[best].OptStep()):
		k := as[firstNF].OptStep()
		d := model.P2FallbackNonFinite{Rank: as[firstNF].Rank, Target: as[firstNF].TargetName, Step: k}
		if best >= 0 {
			d.HasDev, d.Dev, d.DevStep = true, bestDev, as[best].OptStep()
		}
		s.both(model.P2FallbackNonFiniteBrief{Step: k}, d)
		return &k, s
	case best >= 0:
		k := as[best].OptStep()
		s.both(model.P2FallbackLargestBrief{Step: k},
			model.P2FallbackLargest{Dev: bestDev, Rank: as[best].Rank, Target: as[best].TargetName, Step: k})
		if from := persistentStart(as, as[best].Rank, as[best].TargetName, k); from < k {
			s.both(model.P2PersistingBrief{Rank: as[best].Rank, From: from}, model.P2Persisting{Rank: as[best].Rank, From: from, To: k})
			k = from
		}
		return &k, s
	}
	k := as[0].OptStep()
	s.both(model.P2FallbackEarliestBrief{Step: k}, model.P2FallbackEarliest{Step: k})
	return &k, s
}

// persistentStart walks back from optimizer step k while the same rank and
// parameter is a finite candidate at the step before: an anomaly that holds
// over consecutive steps (a degrading device) starts where it first
// appears, not where its deviation happens to peak.
func persistentStart(as []model.Anomaly, rank int, target string, k int) int {
	steps := map[int]bool{}
	for i := range as {
		if as[i].Rank == rank && as[i].TargetName == target && !as[i].NonFinite {
			steps[as[i].OptStep()] = true
		}
	}
	for steps[k-1] {
		k--
	}
	return k
}

// candidatesAt returns the candidates of optimizer step root (all when nil).
func candidatesAt(as []model.Anomaly, root *int) []model.Anomaly {
	if root == nil {
		return slices.Clone(as)
	}
	var out []model.Anomaly
	for i := range as {
		if as[i].OptStep() == *root {
			out = append(out, as[i])
		}
	}
	return out
}

// coordOf builds a coordinate from a candidate.
func coordOf(a *model.Anomaly) *model.Coordinate {
	co := &model.Coordinate{Rank: a.Rank, TargetName: a.TargetName, Norm: a.Norm, Delta: a.Delta,
		DeviationRatio: a.DeviationRatio, OptimizerStep: model.IntPtr(a.OptStep()), Step: model.IntPtr(a.Step)}
	if a.GlobalLayer != nil {
		co.GlobalLayer = model.IntPtr(*a.GlobalLayer)
	}
	if a.MicroStep != nil {
		co.MicroStep = model.IntPtr(*a.MicroStep)
	}
	if a.MicroIndex != nil {
		co.MicroIndex = model.IntPtr(*a.MicroIndex)
	}
	return co
}

// lastSegment is the last dotted segment of a parameter name.
func lastSegment(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func sortedStepKeys[V any](m map[string]V) []int {
	var ks []int
	for k := range m {
		if v, err := strconv.Atoi(k); err == nil {
			ks = append(ks, v)
		}
	}
	slices.SortFunc(ks, cmp.Compare[int])
	return ks
}
