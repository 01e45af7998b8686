package analysis

import (
	"math"
	"slices"
	"strconv"

	"spikescope/model"
)

// Extents of a spike event (model.SpikeEvent.Extent).
const (
	extentKernel   = "one-rank-few"
	extentData     = "few-ranks-all"
	extentRunWide  = "run-wide"
	extentPartial  = "partial"
	extentNotJudge = "not judged"
)

// Event labels against a baseline.
const (
	eventShared   = "shared"
	eventSpecific = "device-specific"
)

// dataLikeShare: an event on few ranks that covers at least this share of
// the parameters a rank holds looks like data (a bad batch raises every
// gradient of its rank); fewer parameters on one rank look like a kernel.
const dataLikeShare = 0.5

// maxEventNames caps an event's parameter_names (its parameters count
// says how many there are).
const maxEventNames = 10

// eventBuild is one event while it is assembled.
type eventBuild struct {
	steps    []int
	into     []int
	cands    []model.Anomaly // all its candidates, every step
	rootCand []model.Anomaly // those of its root step
}

// sortForCoordinate orders candidates of one step the way the coordinate
// is chosen: Phase 1's ranking (earliestFirst) — micro step, non-finite
// first, then the deviation from the candidate's own baseline (its norm or
// increment against that parameter's own history), rank and name. Never
// the raw delta or norm across parameters: parameters of different sizes
// are not comparable by size (the seed's iron rule), so Phase 1's first
// candidate of the step and Phase 2's coordinate agree unless a baseline
// rule moves it.
func sortForCoordinate(cands []model.Anomaly) {
	earliestFirst(cands)
}

// buildEvents groups the candidates into independent spike events,
// earliest first. A step's candidates join the event that ends at the
// step before (the previous recorded step) when that event conducts into
// it — a qualifying cross-step pair (the seed's growth rule), or, on
// step-level data, candidates on at least RankShare of the run's ranks
// (most ranks stay elevated) — or when it repeats one of that step's
// finite (rank, parameter) coordinates (one persisting anomaly). Any other
// step with candidates starts a new event. pairs are the cross-step rows
// (a qualifying one conducts); sameStep: match the baseline at the same
// optimizer step (alignedSteps).
//
// With a baseline, a step whose candidates are all non-finite on both
// devices at the same coordinate (an fp16 loss-scale overflow both runs
// skip) is an event of its own: the baseline has it without the step
// before, so it is not that step's propagation.
func buildEvents(p1, baseline *model.Phase1Result, pairs []model.CrossStepPair, sameStep bool, kind string, opt Phase2Options) []*eventBuild {
	idx := baselineIndex(baseline)
	bySteps := map[int][]model.Anomaly{}
	var steps []int
	for i := range p1.Anomalies {
		k := p1.Anomalies[i].OptStep()
		if _, ok := bySteps[k]; !ok {
			steps = append(steps, k)
		}
		bySteps[k] = append(bySteps[k], p1.Anomalies[i])
	}
	slices.Sort(steps)
	qualifies := map[[2]int]bool{}
	for _, r := range pairs {
		if r.Qualifies {
			qualifies[[2]int{r.From, r.To}] = true
		}
	}
	nRanks := len(p1.Summary.Ranks)
	var out []*eventBuild
	var cur *eventBuild
	for _, k := range steps {
		cs := bySteps[k]
		if cur != nil {
			last := cur.steps[len(cur.steps)-1]
			adjacent := nextRecordedStep(p1, kind, last) == k
			conducts := adjacent && (qualifies[[2]int{last, k}] ||
				kind != kindMicro && nRanks >= 2 && float64(len(rankSet(cs))) >= opt.RankShare*float64(nRanks) &&
					!(baseline != nil && sharedNonFinite(cs, idx, kind, sameStep, opt)))
			if conducts || adjacent && repeatsCoordinate(cur.cands, last, cs) {
				cur.steps = append(cur.steps, k)
				if conducts {
					cur.into = append(cur.into, k)
				}
				cur.cands = append(cur.cands, cs...)
				continue
			}
		}
		cur = &eventBuild{steps: []int{k}, cands: slices.Clone(cs), rootCand: slices.Clone(cs)}
		out = append(out, cur)
	}
	return out
}

// sharedNonFinite: every candidate is non-finite and so is the
// baseline's at the same coordinate.
func sharedNonFinite(cs []model.Anomaly, idx map[string][]*model.Anomaly, kind string, sameStep bool, opt Phase2Options) bool {
	for i := range cs {
		if !cs[i].NonFinite {
			return false
		}
		if specific, _, _ := baselineVerdictOf(&cs[i], idx, kind, sameStep, opt); specific {
			return false
		}
	}
	return len(cs) > 0
}

// nextRecordedStep is the optimizer step recorded after k: the next
// step of the Phase 1 entry (a monitor with a step interval), else the
// next step of the data (step-level data and dumps), else k+1.
func nextRecordedStep(p1 *model.Phase1Result, kind string, k int) int {
	if e, ok := p1.TargetRankNorms[strconv.Itoa(k)]; ok && e.NextStep != nil && *e.NextStep > k {
		return *e.NextStep
	}
	if kind != kindMicro {
		for _, s := range p1.Summary.Steps {
			if s > k {
				return s
			}
		}
	}
	return k + 1
}

// repeatsCoordinate: a finite candidate at the new step has the same rank
// and parameter as a finite candidate of the event at step last.
func repeatsCoordinate(prev []model.Anomaly, last int, cs []model.Anomaly) bool {
	seen := map[string]bool{}
	for i := range prev {
		if a := &prev[i]; a.OptStep() == last && !a.NonFinite {
			seen[strconv.Itoa(a.Rank)+"\x00"+a.TargetName] = true
		}
	}
	for i := range cs {
		if a := &cs[i]; !a.NonFinite && seen[strconv.Itoa(a.Rank)+"\x00"+a.TargetName] {
			return true
		}
	}
	return false
}

func rankSet(cs []model.Anomaly) map[int]bool {
	m := map[int]bool{}
	for i := range cs {
		m[cs[i].Rank] = true
	}
	return m
}

// parametersPerRank estimates how many parameters one rank holds: the
// analysed parameters over the pipeline stages (at least the most any
// rank has among the candidates).
func parametersPerRank(p1 *model.Phase1Result) int {
	n := len(p1.Targets)
	if n == 0 {
		n = p1.Summary.TotalTargets
	}
	if pp := p1.Sharding.PPStages; pp > 1 {
		n = (n + pp - 1) / pp
	}
	per := map[int]map[string]bool{}
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if per[a.Rank] == nil {
			per[a.Rank] = map[string]bool{}
		}
		per[a.Rank][a.TargetName] = true
	}
	for _, m := range per {
		n = max(n, len(m))
	}
	return n
}

// eventExtent classifies the root step of an event: most ranks →
// run-wide; few ranks but at least dataLikeShare of a rank's parameters →
// few-ranks-all; one rank, fewer parameters → one-rank-few; else partial.
// The extent is a measurement; the cause it suggests is EventCause's.
func eventExtent(nRanks, nParams, ranksTotal, perRank int, opt Phase2Options) string {
	switch {
	case nRanks >= 2 && ranksTotal > 0 && float64(nRanks) >= opt.RankShare*float64(ranksTotal):
		return extentRunWide
	case nParams >= 2 && perRank > 0 && float64(nParams) >= dataLikeShare*float64(perRank):
		return extentData
	case nRanks == 1:
		return extentKernel
	}
	return extentPartial
}

// baselineVerdictOf compares one candidate with the baseline the way the
// coordinate walk does (the seed's Step 2.3): no baseline candidate on
// the same parameter (and micro step) → device-specific; a ratio ≥
// DeviceRatio, or non-finite here but finite there → device-specific;
// else shared (non-finite on both sides at the same coordinate: shared).
func baselineVerdictOf(a *model.Anomaly, idx map[string][]*model.Anomaly, kind string, sameStep bool, opt Phase2Options) (specific bool, b *model.Anomaly, r float64) {
	b = baselineMatch(a, idx[baselineKey(a)], kind, sameStep)
	if b == nil {
		return true, nil, math.Inf(1)
	}
	v, _ := coordValue(a, kind)
	bv, _ := coordValue(b, kind)
	r = math.Inf(1)
	switch {
	case a.NonFinite && b.NonFinite:
		r = 1
	case bv > 0:
		r = v / bv
	}
	return r >= opt.DeviceRatio || a.NonFinite && !b.NonFinite, b, r
}

func baselineIndex(baseline *model.Phase1Result) map[string][]*model.Anomaly {
	idx := map[string][]*model.Anomaly{}
	if baseline == nil {
		return idx
	}
	for i := range baseline.Anomalies {
		b := &baseline.Anomalies[i]
		idx[baselineKey(b)] = append(idx[baselineKey(b)], b) // pipeline layouts may differ (stages_baseline.go)
	}
	return idx
}

// describeEvents turns the built events into their JSON form, labelled
// against the baseline when one is given.
func describeEvents(p1, baseline *model.Phase1Result, evs []*eventBuild, kind string, snapshot bool, opt Phase2Options) []model.SpikeEvent {
	sameStep := alignedSteps(p1, baseline)
	idx := baselineIndex(baseline)
	perRank := parametersPerRank(p1)
	ranksTotal := len(p1.Summary.Ranks)
	out := make([]model.SpikeEvent, 0, len(evs))
	for i, e := range evs {
		cs := slices.Clone(e.rootCand)
		sortForCoordinate(cs)
		names := map[string]bool{}
		var nameList []string
		nf := false
		for j := range cs {
			if !names[cs[j].TargetName] {
				names[cs[j].TargetName] = true
				nameList = append(nameList, cs[j].TargetName)
			}
			nf = nf || cs[j].NonFinite
		}
		slices.Sort(nameList)
		if len(nameList) > maxEventNames {
			nameList = nameList[:maxEventNames]
		}
		rs := rankSet(cs)
		var ranks []int
		for r := range rs {
			ranks = append(ranks, r)
		}
		slices.Sort(ranks)
		maxDev := math.Inf(-1)
		for j := range e.cands {
			if d := float64(e.cands[j].DeviationRatio); !math.IsNaN(d) && d > maxDev {
				maxDev = d
			}
		}
		if math.IsInf(maxDev, -1) {
			maxDev = 0
		}
		ev := model.SpikeEvent{ID: i + 1, RootStep: e.steps[0], Steps: slices.Clone(e.steps), Ranks: ranks,
			RanksTotal: max(ranksTotal, len(ranks)), Parameters: len(names), ParameterNames: nameList,
			ParametersPerRank: perRank, Conducts: len(e.into) > 0, ConductsInto: append([]int{}, e.into...),
			Candidates: len(e.cands), NonFinite: nf, MaxDeviation: model.Float(maxDev)}
		ev.Extent = eventExtent(len(ranks), len(names), ev.RanksTotal, perRank, opt)
		if snapshot {
			ev.Extent = extentNotJudge
		}
		pick := 0
		if baseline != nil {
			ev.Baseline, ev.BaselineReasonReason = eventShared, nil
			nShared := 0
			for j := range cs {
				specific, b, r := baselineVerdictOf(&cs[j], idx, kind, sameStep, opt)
				if !specific {
					nShared++
					continue
				}
				ev.Baseline, pick = eventSpecific, j
				ev.BaselineReasonReason = specificReason(&cs[j], b, r, kind, opt)
				break
			}
			if ev.Baseline == eventShared {
				ev.BaselineReasonReason = sharedReason(cs, nShared, opt)
			}
		}
		ev.Coordinate = coordOf(&cs[pick])
		ev.Cause, ev.Likely = EventCause(&ev)
		out = append(out, ev)
	}
	return out
}

func specificReason(a, b *model.Anomaly, r float64, kind string, opt Phase2Options) model.Reason {
	v, key := coordValue(a, kind)
	if b == nil {
		return model.P2EventSpecificNoMatch{Rank: a.Rank, Target: a.TargetName, MicroData: kind == kindMicro}
	}
	bv, _ := coordValue(b, kind)
	if a.NonFinite && !b.NonFinite {
		return model.P2EventSpecificNonFinite{Rank: a.Rank, Target: a.TargetName, Key: key, BValue: bv}
	}
	return model.P2EventSpecificRatio{Rank: a.Rank, Target: a.TargetName, Key: key, Value: v, BValue: bv, Ratio: r, Threshold: opt.DeviceRatio}
}

func sharedReason(cs []model.Anomaly, n int, opt Phase2Options) model.Reason {
	nf := 0
	for i := range cs {
		if cs[i].NonFinite {
			nf++
		}
	}
	return model.P2EventShared{N: n, NonFinite: nf, All: nf == len(cs), Threshold: opt.DeviceRatio}
}

// eventHolding is the event of optimizer step k: the one that holds it,
// or, for a root the pre-pair moved in front of a step with candidates
// (a step without candidates of its own), the event starting right after.
func eventHolding(evs []model.SpikeEvent, k int, pre *prePairRoot) int {
	if i := eventOf(evs, k); i >= 0 || pre == nil || pre.step != k {
		return i
	}
	for i := range evs {
		if evs[i].RootStep > k {
			return i
		}
	}
	return -1
}

// eventOf is the index of the event that holds optimizer step k (-1).
func eventOf(evs []model.SpikeEvent, k int) int {
	for i := range evs {
		if slices.Contains(evs[i].Steps, k) {
			return i
		}
	}
	return -1
}

// eventRoot applies method.md's event rule for the root step. Step-level
// data (the seed's cross-step rule does not apply there): the root of the
// earliest event (its root step, also when the seed's fallback chose a
// later step of it). Micro-step data: the seed's root (seedRoot, from
// Step 2.2). With a baseline: the earliest device-specific event (its
// root step; on micro-step data the seed's root when that lies in it: the
// baseline never moves the root inside one conducted event); when every
// event is shared, the earliest event. Returns the root step and the
// event index.
func eventRoot(evs []model.SpikeEvent, seedRoot *int, pre *prePairRoot, kind string, withBaseline bool) (*int, int, said) {
	var s said
	if len(evs) == 0 {
		return seedRoot, -1, s
	}
	seedEv := -1
	if seedRoot != nil {
		seedEv = eventHolding(evs, *seedRoot, pre)
	}
	pick := func(i int) (*int, int) {
		if kind == kindMicro && seedRoot != nil && seedEv == i {
			return seedRoot, i
		}
		k := evs[i].RootStep
		return &k, i
	}
	if withBaseline {
		first := -1
		for i := range evs {
			if evs[i].Baseline == eventSpecific {
				first = i
				break
			}
		}
		if first < 0 {
			r, i := pick(0)
			s.both(model.P2EventsAllSharedBrief{N: len(evs), Step: *r}, model.P2EventsAllShared{N: len(evs), Step: *r})
			return r, i, s
		}
		r, i := pick(first)
		switch {
		case seedRoot == nil || *r == *seedRoot:
			s.decide(model.P2EventsEarliestSpecific{Event: first + 1, Step: *r})
		default:
			s.both(model.P2EventsSpecificMovedBrief{Step: *r},
				model.P2EventsSpecificMoved{Event: first + 1, Step: *r, Seed: *seedRoot,
					SeedShared: seedEv >= 0 && evs[seedEv].Baseline == eventShared, SeedEvent: seedEv + 1,
					SharedBefore: sharedBefore(evs, first)})
		}
		return r, i, s
	}
	if kind == kindMicro {
		return seedRoot, seedEv, s
	}
	r, i := pick(0)
	if seedRoot != nil && *seedRoot != *r && seedEv == i {
		s.both(model.P2EventsStepStartBrief{Seed: *seedRoot, Step: *r}, model.P2EventsStepStart{Seed: *seedRoot, Step: *r})
	} else if seedRoot != nil && *seedRoot != *r {
		s.both(model.P2EventsStepEarliestBrief{Step: *r, Seed: *seedRoot},
			model.P2EventsStepEarliest{Step: *r, Seed: *seedRoot, SeedEvent: seedEv + 1})
	} else if len(evs) > 1 {
		s.decide(model.P2EventsStepMany{N: len(evs), Step: *r})
	}
	return r, i, s
}

func sharedBefore(evs []model.SpikeEvent, first int) int {
	n := 0
	for i := 0; i < first; i++ {
		if evs[i].Baseline == eventShared {
			n++
		}
	}
	return n
}

// eventsDecision lists the events in one decision line (none without
// events).
func eventsDecision(evs []model.SpikeEvent) said {
	var s said
	if len(evs) == 0 {
		return s
	}
	lines := make([]model.P2EventLine, len(evs))
	for i := range evs {
		e := &evs[i]
		lines[i] = model.P2EventLine{ID: e.ID, Step: e.RootStep, Extent: e.Extent, Ranks: len(e.Ranks), RanksTotal: e.RanksTotal,
			Parameters: e.Parameters, Baseline: e.Baseline, Cause: e.Cause, Likely: e.Likely}
		if e.Conducts {
			lines[i].Into = slices.Clone(e.ConductsInto)
		}
	}
	s.decide(model.P2Events{Events: lines})
	return s
}

// markRootEvent marks event i of evs as the root's and gives it the final
// coordinate co (a copy); a root the pre-pair moved in front of the event
// becomes its root step (the event conducts from there).
func markRootEvent(evs []model.SpikeEvent, i int, root *int, co *model.Coordinate) {
	if i < 0 || i >= len(evs) {
		return
	}
	e := &evs[i]
	e.Root = true
	if root != nil && *root < e.RootStep {
		e.ConductsInto = append([]int{e.RootStep}, e.ConductsInto...)
		e.Steps = append([]int{*root}, e.Steps...)
		e.RootStep, e.Conducts = *root, true
	}
	if co != nil {
		cp := *co
		e.Coordinate = &cp
	}
}

// pinnedEvents lists the events next to a pinned coordinate co; the one
// holding the pinned optimizer step is marked. Nil without candidates.
func pinnedEvents(p1, baseline *model.Phase1Result, co *model.Coordinate, kind string, opt Phase2Options) []model.SpikeEvent {
	if p1 == nil || len(p1.Anomalies) == 0 {
		return nil
	}
	snapshot := kind == kindDump && (len(p1.Summary.Steps) == 1 || len(p1.Summary.Steps) == 0 && singleStep(p1.Anomalies))
	// a pin skips the cross-step rule: no pair conducts an event
	evs := describeEvents(p1, baseline, buildEvents(p1, baseline, nil, alignedSteps(p1, baseline), kind, opt), kind, snapshot, opt)
	if co != nil && co.OptimizerStep != nil {
		if i := eventOf(evs, *co.OptimizerStep); i >= 0 {
			evs[i].Root = true
		}
	}
	return evs
}
