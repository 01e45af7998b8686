package analysis

import (
	"math"

	"spikescope/model"
)

// VerdictInput is what the verdict is computed from: every phase that ran
// (nil where one did not).
type VerdictInput struct {
	P1, P1Baseline *model.Phase1Result
	P2             *model.Phase2Result
	P3             *model.Phase3Result // with its Conclusion (ConcludePhase3) when Phase 3 ran
}

// Verdict sums up all phases that ran in one answer (method.md,
// "Verdict"): nil when nothing is anomalous (no Phase 2 root from a spike
// and no Phase 3 divergence). The cause class, in order of the evidence's
// strength:
//
//  1. Phase 3 against a real baseline dump B: A diverges beyond the band,
//     or A turns NaN/Inf where B stays finite → device; A and B agree on
//     every compared layer while the spike is there → data (numerics when
//     the spike is non-finite on both devices; undetermined, likely device,
//     when the monitor calls the same root device-specific: the dumps may
//     be of another step).
//  2. Phase 2 with a baseline monitor: the root event device-specific →
//     device; shared and non-finite on both → numerics; shared growth on
//     most ranks in every event → dynamics; shared otherwise → data.
//  3. One device only: growth on most ranks in every event with no
//     single-rank event (run-wide, conducting) → dynamics; otherwise
//     undetermined with the likely class from the extent of the root
//     event — one rank, few parameters → device; every parameter of one
//     rank (the parameter does not decide) → data; NaN/Inf on most ranks →
//     numerics — and the collection that would decide it.
//
// A rank that is the root of two or more device-specific events makes the
// action "check the device" (a bad device rather than a kernel).
func Verdict(in VerdictInput) *model.Verdict {
	v := &verdictBuild{in: in}
	if !v.anomalous() {
		return nil
	}
	v.locate()
	v.classify()
	v.act()
	out := &v.res
	if out.Evidence == nil {
		out.Evidence = []model.Evidence{}
	}
	return out
}

type verdictBuild struct {
	in     VerdictInput
	res    model.Verdict
	root   *model.SpikeEvent
	decide model.Decide // the data that would decide an undetermined cause
}

func (v *verdictBuild) add(r model.EvidenceReason) {
	v.res.Evidence = append(v.res.Evidence, model.NewEvidence(r))
}

// spikeEvent is whether Phase 2's root comes from a spike: any data but a
// single dumped step, whose candidates are merely its largest gradients
// (unless one is non-finite).
func (v *verdictBuild) spikeEvent() bool {
	p2 := v.in.P2
	if p2 == nil || p2.RootCauseCoordinate == nil {
		return false
	}
	for i := range p2.Events {
		if p2.Events[i].Root {
			v.root = &p2.Events[i]
		}
	}
	if v.root == nil {
		return !(v.in.P1 != nil && dataKindOf(v.in.P1) == kindDump && singleStep(v.in.P1.Anomalies))
	}
	return v.root.Extent != extentNotJudge || v.root.NonFinite
}

func (v *verdictBuild) p3() (*model.Phase3Result, *model.Phase3Conclusion) {
	p3 := v.in.P3
	if p3 == nil {
		return nil, nil
	}
	c := p3.Conclusion
	if c == nil {
		c = ConcludePhase3(p3)
	}
	return p3, c
}

func (v *verdictBuild) p3Divergent() bool {
	_, c := v.p3()
	return c != nil && (c.FwdDivergent || c.BwdDivergent)
}

func (v *verdictBuild) anomalous() bool {
	spike := v.spikeEvent()
	return spike || v.p3Divergent()
}

// locate fills the coordinate and Phase 3's direction, layer and operator.
func (v *verdictBuild) locate() {
	if p2 := v.in.P2; p2 != nil && p2.RootCauseCoordinate != nil {
		co := *p2.RootCauseCoordinate
		v.res.Coordinate = &co
	}
	_, c := v.p3()
	if c != nil && (c.FwdDivergent || c.BwdDivergent) {
		dir, layer := "fwd", c.FwdStart
		if !c.FwdDivergent {
			dir, layer = "bwd", c.BwdStart
		}
		v.res.Direction = &dir
		if layer != nil {
			l := *layer
			v.res.Layer = &l
		}
		if c.Operator != nil && c.Operator.Operator != "" {
			op := c.Operator.Operator
			v.res.Operator = &op
			if c.Operator.Layer != nil && v.res.Layer == nil {
				l := *c.Operator.Layer
				v.res.Layer = &l
			}
		}
		return
	}
	if co := v.res.Coordinate; co != nil && co.ParamDecides() {
		if l, ok := model.LayerIndex(co.TargetName); ok {
			v.res.Layer = &l
		}
	}
}

func (v *verdictBuild) classify() {
	p3, c := v.p3()
	realB := p3 != nil && p3.BaselineGroup == ""
	if realB && c != nil {
		if v.fromPhase3(p3, c) {
			return
		}
	}
	if p3 != nil && !realB && v.p3Divergent() {
		v.add(model.EvidenceP3AgainstC{})
	}
	if v.in.P1Baseline != nil && v.root != nil && v.root.Baseline != "" {
		v.fromBaseline()
		return
	}
	v.oneDevice()
}

// fromPhase3 classifies on A against a real baseline dump; false when
// Phase 3 cannot decide (nothing flagged and layers uncompared).
func (v *verdictBuild) fromPhase3(p3 *model.Phase3Result, c *model.Phase3Conclusion) bool {
	ds := &p3.DivergenceSummary
	if c.FwdDivergent || c.BwdDivergent {
		v.res.Cause = model.CauseDevice
		if c.Operator != nil && c.Operator.NonFinite {
			v.add(model.EvidenceP3NonFinite{Operator: c.Operator.Operator})
		}
		ev := model.EvidenceP3Divergence{Direction: v.res.DirectionName(), Layer: v.res.Layer, Operator: v.res.OperatorName(), Degraded: p3.Degraded}
		if d := ds.Drilldown; d != nil {
			if b, ok := ds.Thresholds[d.Metric][d.Direction]; ok && b.Usable && model.Finite(float64(b.Upper)) {
				band := float64(b.Upper) - 1
				ev.Band, ev.Metric = &band, d.Metric
			}
		}
		v.add(ev)
		if v.root != nil && v.root.Baseline == eventSpecific {
			v.baselineEvidence()
		}
		v.recurs()
		return true
	}
	if c.Verdict != model.VerdictConsistent {
		return false
	}
	if !v.spikeEvent() {
		return false // nothing anomalous to explain: Verdict returned nil before
	}
	layers := 0
	if len(p3.Anchors) > 0 {
		layers = len(p3.Anchors[0].Layers)
	}
	v.add(model.EvidenceP3Consistent{Layers: layers})
	if df := ds.DataFeature; df != nil && df.Differs && df.Baseline == baselineSame {
		v.add(model.EvidenceDataFeature{Detail: df.Detail})
	}
	switch {
	case v.root != nil && v.root.Baseline == eventSpecific:
		v.res.Cause, v.res.Likely = model.CauseUndetermined, model.CauseDevice
		v.add(model.EvidenceConflict{})
		v.baselineEvidence()
	case v.root != nil && v.root.NonFinite:
		v.res.Cause = model.CauseNumerics
		v.nonFiniteEvidence(true)
	default:
		v.res.Cause = model.CauseData
	}
	return true
}

// fromBaseline classifies on Phase 2's baseline label of the root event.
func (v *verdictBuild) fromBaseline() {
	e := v.root
	switch {
	case e.Baseline == eventSpecific:
		v.res.Cause = model.CauseDevice
		v.baselineEvidence()
		v.recurs()
	case e.NonFinite:
		v.res.Cause = model.CauseNumerics
		v.nonFiniteEvidence(true)
	case v.dynamics():
		v.res.Cause = model.CauseDynamics
		v.add(model.EvidenceShared{Candidates: e.Candidates, Step: e.RootStep, Threshold: v.deviceRatio()})
	default:
		v.res.Cause = model.CauseData
		v.add(model.EvidenceShared{Candidates: e.Candidates, Step: e.RootStep, Threshold: v.deviceRatio()})
		v.extentEvidence()
	}
}

func (v *verdictBuild) deviceRatio() float64 {
	if p2 := v.in.P2; p2 != nil && p2.Thresholds["device_ratio"] > 0 {
		return p2.Thresholds["device_ratio"]
	}
	return DefaultDeviceRatio
}

// baselineEvidence is the device-specific evidence of the root coordinate
// (the candidate table's ratio).
func (v *verdictBuild) baselineEvidence() {
	p2 := v.in.P2
	co := v.res.Coordinate
	if p2 == nil || co == nil {
		return
	}
	ratio := math.Inf(1)
	for i := range p2.Candidates {
		cv := &p2.Candidates[i]
		if cv.Selected && cv.Ratio != nil {
			ratio = float64(*cv.Ratio)
		}
	}
	v.add(model.EvidenceDeviceSpecific{Rank: co.Rank, Step: co.StepNumber(), Parameter: co.TargetName, Ratio: ratio, Threshold: v.deviceRatio()})
}

// recurs adds the evidence that the root rank starts two or more
// device-specific events (a bad device rather than a kernel).
func (v *verdictBuild) recurs() {
	p2, co := v.in.P2, v.res.Coordinate
	if p2 == nil || co == nil {
		return
	}
	n := 0
	for i := range p2.Events {
		e := &p2.Events[i]
		if e.Baseline == eventSpecific && e.Coordinate != nil && e.Coordinate.Rank == co.Rank && len(e.Ranks) == 1 {
			n++
		}
	}
	if n >= 2 {
		v.add(model.EvidenceRecurs{Rank: co.Rank, Events: n})
	}
}

// nonFiniteEvidence adds the counts of a non-finite root event: on both
// devices (shared) or on the one device analysed.
func (v *verdictBuild) nonFiniteEvidence(shared bool) {
	e := v.root
	if e == nil {
		return
	}
	nf := 0
	if p2 := v.in.P2; p2 != nil {
		for i := range p2.Candidates {
			if p2.Candidates[i].Anomaly.NonFinite {
				nf++
			}
		}
	}
	c := model.NonFiniteCounts{Step: e.RootStep, Ranks: len(e.Ranks), RanksTotal: e.RanksTotal, Candidates: max(nf, 1)}
	if shared {
		v.add(model.EvidenceSharedNonFinite{NonFiniteCounts: c})
	} else {
		v.add(model.EvidenceNonFinite{NonFiniteCounts: c})
	}
}

func (v *verdictBuild) extentEvidence() {
	e := v.root
	if e == nil {
		return
	}
	v.add(model.EvidenceExtent{Step: e.RootStep, Ranks: len(e.Ranks), RanksTotal: e.RanksTotal, Parameters: e.Parameters, ParametersPerRank: e.ParametersPerRank})
	if co := v.res.Coordinate; co != nil && !co.ParamDecides() {
		v.add(model.EvidenceParamUndecided{Rank: co.Rank, Parameters: e.Parameters})
	}
}

// dynamics: every event is run-wide (no event limited to one rank or a
// few), the root event is finite and conducts into the next step(s).
func (v *verdictBuild) dynamics() bool {
	p2 := v.in.P2
	if p2 == nil || v.root == nil || v.root.NonFinite || !v.root.Conducts || len(p2.Events) == 0 {
		return false
	}
	for i := range p2.Events {
		if p2.Events[i].Extent != extentRunWide {
			return false
		}
	}
	return true
}

// oneDevice classifies from one device's data.
func (v *verdictBuild) oneDevice() {
	e := v.root
	if v.dynamics() {
		v.res.Cause = model.CauseDynamics
		share := 100 * DefaultRankShare
		if p2 := v.in.P2; p2 != nil && p2.Thresholds["rank_share"] > 0 {
			share = 100 * p2.Thresholds["rank_share"]
		}
		v.add(model.EvidenceRunWideGrowth{Ranks: len(e.Ranks), RanksTotal: e.RanksTotal, Step: e.RootStep, Share: share, Events: len(v.in.P2.Events)})
		return
	}
	v.res.Cause = model.CauseUndetermined
	switch {
	case e == nil:
		v.res.Likely = model.CauseDevice // Phase 3 against C diverges: most often the device
	default:
		one := *e
		one.Baseline = "" // one device's reading
		_, v.res.Likely = EventCause(&one)
		if e.NonFinite {
			v.nonFiniteEvidence(false)
		} else if !v.res.Coordinate.ParamDecides() && v.res.Likely == model.CauseDevice {
			v.res.Likely = model.CauseData // every parameter of the rank at once
		}
		if v.res.Likely == "" {
			v.res.Likely = model.CauseDevice
		}
	}
	v.extentEvidence()
	p3, _ := v.p3()
	v.decide = model.Decide{BaselineMonitor: v.in.P1Baseline == nil, Dumps: p3 == nil || p3.BaselineGroup != "", Spot: model.SpotOf(v.res.Coordinate)}
	if v.decide.BaselineMonitor || v.decide.Dumps {
		v.res.DecideReason = v.decide
	}
}

// act names the action of the class.
func (v *verdictBuild) act() {
	switch v.res.Cause {
	case model.CauseDevice:
		v.res.ActionID = "kernel_owner"
		for _, e := range v.res.Evidence {
			if e.Rule == model.EvRecurs {
				v.res.ActionID = "bad_device"
			}
		}
	case model.CauseData:
		v.res.ActionID = "inspect_batch"
	case model.CauseNumerics:
		v.res.ActionID = "range"
	case model.CauseDynamics:
		v.res.ActionID = "lr"
	default:
		v.res.ActionID = "collect"
	}
	v.res.ActionReason = model.ActionReasonOf(&v.res, v.decide)
}

// EventCause is one event's cause class from Phase 2 alone: with a
// baseline, device-specific → device, shared non-finite → numerics,
// shared growth on most ranks that conducts → dynamics, shared otherwise →
// data. On one device: finite growth on most ranks that conducts →
// dynamics; else undetermined with the likely class from the extent —
// NaN/Inf on most ranks → numerics, on fewer → device; most parameters of
// few ranks (or partial) → data; a few parameters of one rank → device;
// run-wide without conduction → dynamics; a single dumped step is not
// judged (likely "").
func EventCause(e *model.SpikeEvent) (cause, likely string) {
	dyn := e.Extent == extentRunWide && e.Conducts && !e.NonFinite
	switch e.Baseline {
	case eventSpecific:
		return model.CauseDevice, ""
	case eventShared:
		switch {
		case e.NonFinite:
			return model.CauseNumerics, ""
		case dyn:
			return model.CauseDynamics, ""
		}
		return model.CauseData, ""
	}
	if dyn {
		return model.CauseDynamics, ""
	}
	switch {
	case e.NonFinite && len(e.Ranks) >= 2 && float64(len(e.Ranks)) >= DefaultRankShare*float64(e.RanksTotal):
		return model.CauseUndetermined, model.CauseNumerics
	case e.NonFinite:
		return model.CauseUndetermined, model.CauseDevice
	case e.Extent == extentData || e.Extent == extentPartial:
		return model.CauseUndetermined, model.CauseData
	case e.Extent == extentKernel:
		return model.CauseUndetermined, model.CauseDevice
	case e.Extent == extentRunWide:
		return model.CauseUndetermined, model.CauseDynamics
	}
	return model.CauseUndetermined, ""
}
