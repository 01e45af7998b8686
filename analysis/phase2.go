package analysis

import (
	"cmp"
	"fmt"
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

// Reference strings of Phase 2 (kept for output compatibility).
const (
	modeSingle   = "单设备"
	modeBaseline = "NPU (+GPU 标杆)"
	noBaseline   = "无标杆数据"
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
	rs        []string     // reasoning parts (reference-compatible)
	minCommon int          // common ranks a cross-step pair needs (minCommonRanks, or all of a smaller run)
	pre       *prePairRoot // the root came from a pre-pair: a step without candidates
	sameStep  bool         // the baseline covers the same optimizer steps: match coordinates at the same step
}

func (c *p2) reason(s string)  { c.rs = append(c.rs, s) }
func (c *p2) decide(s string)  { c.res.Decisions = append(c.res.Decisions, s) }
func (c *p2) both(r, d string) { c.reason(r); c.decide(d) }
func (c *p2) finish() *model.Phase2Result {
	c.res.Reasoning = strings.Join(c.rs, "; ")
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
	c := &p2{res: &model.Phase2Result{Phase: 2, Mode: modeSingle, CrossDeviceVerification: noBaseline,
		Decisions: []string{}, CrossStep: []model.CrossStepPair{}, Candidates: []model.CandidateVerdict{},
		Events: []model.SpikeEvent{}}}
	if baseline != nil {
		c.res.Mode = modeBaseline
		c.sameStep = alignedSteps(p1, baseline)
	}
	c.res.Thresholds = map[string]float64{"growth": opt.Growth, "rank_share": opt.RankShare,
		"device_ratio": opt.DeviceRatio, "min_common_ranks": minCommonRanks}
	if p1 == nil {
		c.both("无 Phase 1 结果", "no Phase 1 result given: nothing to choose")
		return c.finish(), nil
	}
	kind := dataKindOf(p1)
	c.decide(fmt.Sprintf("%s; thresholds: growth %.2f×, rank share %.0f%%, device ratio %.2f×, at least %d ranks common to both steps of a pair",
		kindWords(kind, p1.Sharding.AccumulationWindow), opt.Growth, 100*opt.RankShare, opt.DeviceRatio, minCommonRanks))
	if kind != kindDump {
		c.res.TopTargetsPerStep = topTargetsPerStep(p1.Anomalies)
	}
	if pin != nil {
		pin := new(*pin) // resolving the name fills in the copy, never the caller's pin
		if err := c.applyPin(p1, baseline, pin, kind, opt); err != nil {
			return nil, err
		}
		c.listPinnedEvents(p1, baseline, kind, opt)
		// what the rules would have chosen, so that a reader sees what the pin overrides
		if auto, err := Phase2(p1, baseline, nil, opt); err == nil {
			c.res.Automatic, c.res.AutomaticOptStep = auto.RootCauseCoordinate, auto.RootOptStep
		}
		return c.finish(), nil
	}
	if len(p1.Anomalies) == 0 {
		c.both("Phase 1 无候选坐标", "Phase 1 found no candidate: no root-cause coordinate (nothing anomalous in the data analysed)")
		c.res.CrossDeviceVerification = "无候选坐标"
		if baseline == nil {
			c.res.CrossDeviceVerification = noBaseline
		}
		return c.finish(), nil
	}
	var root *int
	snapshot := kind == kindDump && (len(p1.Summary.Steps) == 1 || len(p1.Summary.Steps) == 0 && singleStep(p1.Anomalies))
	if snapshot {
		c.both("dump 数据（单点快照），跳过跨 step 判定", "single-step dump: no cross-step decision; candidates are every parameter gradient of the step")
	} else {
		root = c.crossStepRoot(p1, baseline, opt)
		if root == nil {
			root = c.fallbackRoot(p1.Anomalies)
		}
		if root != nil {
			root = c.prePair(p1, baseline, *root, opt)
		}
	}
	evs := describeEvents(p1, baseline, c.buildEvents(p1, baseline, kind, opt), kind, snapshot, opt)
	c.eventsDecision(evs)
	ei := 0
	if !snapshot {
		root, ei = c.eventRoot(evs, root, kind, baseline != nil)
	}
	c.res.RootOptStep = root
	cands := candidatesAt(p1.Anomalies, root)
	if c.pre != nil && root != nil && *root == c.pre.step && len(cands) == 0 {
		c.prePairCoordinate(c.pre)
	} else {
		c.pickCoordinate(cands, kind, baseline, opt)
	}
	c.judgeParameter(p1, cands, snapshot)
	c.markRootEvent(evs, ei, root)
	c.res.Events = evs
	return c.finish(), nil
}

// kindWords says a data kind in words; window is the accumulation window
// (with one micro step per optimizer step nothing accumulates: each
// micro step's gradient is the whole step's).
func kindWords(kind string, window int) string {
	switch {
	case kind == kindMicro && window == 1:
		return "micro-step data with one micro step per optimizer step (window 1: no accumulation, each gradient is the whole step's)"
	case kind == kindMicro:
		return "micro-step data (cumulative gradients per micro step)"
	case kind == kindStep:
		return "step-level data (one gradient per step)"
	case kind == kindDump:
		return "dump statistics (parameter gradients)"
	}
	return kind + " data"
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
func (c *p2) fallbackRoot(as []model.Anomaly) *int {
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
		msg := fmt.Sprintf("跨 step 梯度无明显跳跃增长；opt_step %d 首次出现非有限值 (NaN/Inf)，早于最大偏离", k)
		d := fmt.Sprintf("no qualifying adjacent pair; the first non-finite value (rank %d, %s) is at optimizer step %d", as[firstNF].Rank, as[firstNF].TargetName, k)
		if best >= 0 {
			d += fmt.Sprintf(", earlier than the largest deviation %.3g× at step %d: earliest wins", bestDev, as[best].OptStep())
		}
		c.both(msg, d)
		return &k
	case best >= 0:
		k := as[best].OptStep()
		c.both(fmt.Sprintf("跨 step 梯度无明显跳跃增长，取异常偏离最大的 opt_step %d", k),
			fmt.Sprintf("no qualifying adjacent pair: the root is then the step of the largest deviation, %.3g× (rank %d, %s) at optimizer step %d", bestDev, as[best].Rank, as[best].TargetName, k))
		if s := persistentStart(as, as[best].Rank, as[best].TargetName, k); s < k {
			c.both(fmt.Sprintf("该坐标 (rank %d) 自 opt_step %d 起连续异常，取起点", as[best].Rank, s),
				fmt.Sprintf("the same rank and parameter is a candidate at every optimizer step from %d to %d: one persisting anomaly, which starts at step %d (earliest wins)", s, k, s))
			k = s
		}
		return &k
	}
	k := as[0].OptStep()
	c.both(fmt.Sprintf("无有效偏离，取最早的 opt_step %d", k), fmt.Sprintf("no finite deviation: the earliest candidate's step %d", k))
	return &k
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
