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

// p2 collects the reasoning of one Phase 2 run.
type p2 struct {
	res       *model.Phase2Result
	rs        []model.Reason // reasoning notes (the reference scripts')
	minCommon int            // common ranks a cross-step pair needs (minCommonRanks, or all of a smaller run)
	pre       *prePairRoot   // the root came from a pre-pair: a step without candidates
	sameStep  bool           // the baseline covers the same optimizer steps: match coordinates at the same step
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

// say appends what a rule said to the run's reasoning and decisions.
func (c *p2) say(s said) {
	c.rs = append(c.rs, s.reasons...)
	c.res.DecisionsReasons = append(c.res.DecisionsReasons, s.decisions...)
}

func (c *p2) reason(r model.Reason)  { c.rs = append(c.rs, r) }
func (c *p2) decide(d model.Reason)  { c.res.DecisionsReasons = append(c.res.DecisionsReasons, d) }
func (c *p2) both(r, d model.Reason) { c.reason(r); c.decide(d) }

// verify sets the cross-device verification.
func (c *p2) verify(r model.Reason) { c.res.CrossDeviceVerificationReason = r }

// finish returns the result; its texts are said from the reasons by
// package words (pipeline fills them).
func (c *p2) finish() *model.Phase2Result {
	if c.rs == nil {
		c.rs = []model.Reason{}
	}
	c.res.ReasoningReasons = c.rs
	return c.res
}

// Phase2 chooses the root-cause coordinate from a Phase 1 result: the
// cross-step rule finds the root optimizer step (earliest qualifying pair),
// the coordinate is the largest delta/norm of that step, checked against a
// baseline when one is given (which only labels, never moves the step). A
// pin replaces the choice; a pin that matches no data is the only error.
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
	c := &p2{res: &model.Phase2Result{
		Phase:                         2,
		ModeReason:                    model.P2Mode{Baseline: baseline != nil},
		CrossDeviceVerificationReason: model.P2NoBaselineData{},
		Decisions:                     []string{},
		DecisionsReasons:              []model.Reason{},
		CrossStep:                     []model.CrossStepPair{},
		Candidates:                    []model.CandidateVerdict{},
		Events:                        []model.SpikeEvent{},
	}}
	if baseline != nil {
		c.sameStep = alignedSteps(p1, baseline)
	}
	c.res.Thresholds = map[string]float64{"growth": opt.Growth, "rank_share": opt.RankShare,
		"device_ratio": opt.DeviceRatio, "min_common_ranks": minCommonRanks}
	if p1 == nil {
		c.both(model.P2NoPhase1Brief{}, model.P2NoPhase1{})
		return c.finish(), nil
	}
	kind := dataKindOf(p1)
	c.decide(model.P2DataKind{Kind: kind, Window: p1.Sharding.AccumulationWindow, Growth: opt.Growth,
		RankShare: opt.RankShare, DeviceRatio: opt.DeviceRatio, MinCommon: minCommonRanks})
	if kind != kindDump {
		c.res.TopTargetsPerStep = topTargetsPerStep(p1.Anomalies)
	}
	if pin != nil {
		pin := new(*pin) // resolving the name fills in the copy, never the caller's pin
		co, verify, s, err := applyPin(p1, baseline, pin, kind)
		if err != nil {
			return nil, err
		}
		c.res.Pinned, c.res.RootCauseCoordinate, c.res.RootOptStep = true, co, co.OptimizerStep
		c.say(s)
		if verify != nil {
			c.verify(verify)
		}
		if evs := pinnedEvents(p1, baseline, c.res.RootCauseCoordinate, kind, opt); evs != nil {
			c.res.Events = evs
		}
		// what the rules would have chosen, so that a reader sees what the pin overrides
		if auto, err := Phase2(p1, baseline, nil, opt); err == nil {
			c.res.Automatic, c.res.AutomaticOptStep = auto.RootCauseCoordinate, auto.RootOptStep
		}
		return c.finish(), nil
	}
	if len(p1.Anomalies) == 0 {
		c.both(model.P2NoCandidatesBrief{}, model.P2NoCandidates{})
		c.verify(model.P2NoCandidateBrief{})
		if baseline == nil {
			c.verify(model.P2NoBaselineData{})
		}
		return c.finish(), nil
	}
	var root *int
	snapshot := kind == kindDump && (len(p1.Summary.Steps) == 1 || len(p1.Summary.Steps) == 0 && singleStep(p1.Anomalies))
	if snapshot {
		c.both(model.P2SnapshotBrief{}, model.P2Snapshot{})
	} else {
		var s said
		root, c.minCommon, c.res.CrossStep, s = crossStepRoot(p1, baseline, opt)
		c.say(s)
		if root == nil {
			var s said
			root, s = fallbackRoot(p1.Anomalies)
			c.say(s)
		}
		if root != nil {
			var s said
			root, c.res.CrossStep, c.pre, s = prePair(p1, baseline, *root, c.res.CrossStep, c.minCommon, opt)
			c.say(s)
		}
	}
	evs := describeEvents(p1, baseline, buildEvents(p1, baseline, c.res.CrossStep, c.sameStep, kind, opt), kind, snapshot, opt)
	c.say(eventsDecision(evs))
	ei := 0
	if !snapshot {
		var s said
		root, ei, s = eventRoot(evs, root, c.pre, kind, baseline != nil)
		c.say(s)
	}
	c.res.RootOptStep = root
	cands := candidatesAt(p1.Anomalies, root)
	var verify model.Reason
	var s said
	if c.pre != nil && root != nil && *root == c.pre.step && len(cands) == 0 {
		c.res.RootCauseCoordinate, verify, s = prePairCoordinate(c.pre, baseline != nil)
	} else {
		c.res.RootCauseCoordinate, c.res.Candidates, verify, s = pickCoordinate(cands, kind, baseline, c.sameStep, opt)
	}
	c.say(s)
	if verify != nil {
		c.verify(verify)
	}
	if co := c.res.RootCauseCoordinate; co != nil {
		var s said
		co.ParameterDecides, co.ParameterNoteReason, s = judgeParameter(co, p1, cands, snapshot)
		c.say(s)
	}
	markRootEvent(evs, ei, root, c.res.RootCauseCoordinate)
	c.res.Events = evs
	return c.finish(), nil
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
