package analysis

import (
	"math"

	"spikescope/model"
)

// Phase 1 defaults (reference-scripts.md §6, method.md "Detection").
const (
	DefaultIQRMult   = 5.0  // reference --iqr-mult
	DefaultMADMult   = 10.0 // reference --mad-mult
	DefaultMinEffect = 1.5  // minimum effect: a candidate is ≥ 1.5× its baseline median
	// DefaultDumpTopN is how many parameter gradients a single-step dump
	// lists (reference top-N).
	DefaultDumpTopN = 20
	// minMicroPool is the least number of increments per (parameter, micro
	// step) for a per-micro-step baseline; below it the increments of all
	// micro steps of the parameter are pooled.
	minMicroPool = 16
)

// Phase1Options are the thresholds of Phase 1; flags override them.
type Phase1Options struct {
	IQRMult, MADMult, MinEffect float64
	// Window overrides the detected accumulation window (0 = detect,
	// 1 = no accumulation).
	Window int
	// Metric is the metric to analyse ("" = grad_unreduced, else grad_norm,
	// else grad_reduced, else the first one).
	Metric   string
	DumpTopN int
}

// DefaultPhase1Options are the reference thresholds plus the minimum effect.
func DefaultPhase1Options() Phase1Options {
	return Phase1Options{IQRMult: DefaultIQRMult, MADMult: DefaultMADMult, MinEffect: DefaultMinEffect, DumpTopN: DefaultDumpTopN}
}

// p1 is what Phase 1's rules read: the data as analysed, its series
// index, step mapping, kind and options, and the scratch the rules reuse
// (judge, hist, tails: sized once, for runs of 10^9 rows). It holds no
// result: the rules return what they decide and say, phase1 assembles it.
// tails carries the values a detection rule holds until noiseFloor.
type p1 struct {
	d      *model.MonitorData
	ix     *seriesIndex
	m      stepMapper
	kind   string
	metric string
	opt    Phase1Options
	judge  robustJudge
	hist   historyScratch
	tails  tailScratch
	// dumpMicro: a dump tree analysed through its per-call (micro-step) rows
	dumpMicro bool
	// num reports micro-step positions in the input's numbering
	num microNumbering
	// unsplit is the pipeline inference when it found one stage or none
	// (nil when the data was split: c.d.Stages holds it)
	unsplit *model.StageLayout
}

// p1said is what a Phase 1 rule says besides the candidates it holds for
// noiseFloor: its thresholds, reasoning and warnings in the order it said
// them, and the would-be candidates of series too short to call a spike.
type p1said struct {
	thresholds        map[string]float64
	reasons, warnings []model.Reason
	short             []model.ShortHistory
}

func (s *p1said) threshold(k string, v float64) {
	if s.thresholds == nil {
		s.thresholds = map[string]float64{}
	}
	s.thresholds[k] = v
}

func (s *p1said) reason(r model.Reason) { s.reasons = append(s.reasons, r) }

// tell adds what a rule said to the result.
func (s *p1said) tell(res *model.Phase1Result) {
	for k, v := range s.thresholds {
		res.Thresholds[k] = v
	}
	res.ReasoningReasons = append(res.ReasoningReasons, s.reasons...)
	res.WarningsReasons = append(res.WarningsReasons, s.warnings...)
	res.TooLittleHistory = append(res.TooLittleHistory, s.short...)
}

// Phase1 finds the candidate spike coordinates of a monitor run (or of the
// parameter gradients of a dump tree), earliest first.
func Phase1(d *model.MonitorData, opt Phase1Options) *model.Phase1Result {
	return phase1(d, opt, nil)
}

func phase1(d *model.MonitorData, opt Phase1Options, analysed **model.MonitorData) *model.Phase1Result {
	def := DefaultPhase1Options()
	if !(opt.IQRMult > 0) {
		opt.IQRMult = def.IQRMult
	}
	if !(opt.MADMult > 0) {
		opt.MADMult = def.MADMult
	}
	if !(opt.MinEffect > 0) {
		opt.MinEffect = def.MinEffect
	}
	if opt.DumpTopN <= 0 {
		opt.DumpTopN = def.DumpTopN
	}
	res := &model.Phase1Result{Phase: 1, Anomalies: []model.Anomaly{}}
	if d == nil {
		res.MissingReasons = append(res.MissingReasons, model.Phase1NoMonitor{})
		return res
	}
	res.DBPath, res.Format = d.Path, d.Format
	res.WarningsReasons = append(res.WarningsReasons, loadWarnings(d)...)
	res.Thresholds = map[string]float64{
		"iqr_mult": opt.IQRMult, "mad_mult": opt.MADMult, "min_effect": opt.MinEffect,
		"mad_scale": madScale, "zero_spread_mult": zeroSpreadMult,
	}
	metric := chooseMetric(d, opt.Metric)
	c := &p1{d: d, opt: opt}
	c.judge.rule = robustRule{IQRMult: opt.IQRMult, MADMult: opt.MADMult, MinEffect: opt.MinEffect}
	if metric < 0 {
		res.MissingReasons = append(res.MissingReasons, model.Phase1NoGradRows{})
		res.ReasoningReasons = append(res.ReasoningReasons, model.Phase1NoRows{})
		step := model.PassUnit{Kind: model.PassStep}
		res.Sharding = model.ShardingAnalysis{PPStages: 1, VPPStages: []int{0}, MicroStepRange: []int{0}, PassUnitReason: step}
		res.Summary.PassUnitReason = step
		res.Summary.TotalRows = d.Rows.Len()
		res.Summary.TotalTargets = len(d.Targets)
		res.Summary.Steps, res.Summary.Ranks = []int{}, []int{}
		return res
	}
	c.metric = d.Metrics[metric]
	res.Metric = c.metric
	if len(d.Metrics) > 1 {
		res.ReasoningReasons = append(res.ReasoningReasons, model.MetricAnalysed{Metric: c.metric, Metrics: len(d.Metrics)})
	}
	c.ix, c.dumpMicro = seriesOf(d, metric)
	c.d, c.ix, c.dumpMicro, c.unsplit = splitByStage(d, c.ix, c.dumpMicro, metric)
	d = c.d
	if analysed != nil {
		*analysed = d
	}
	stages, said := stageShape(c)
	if stages != nil {
		res.Sharding.Stages = stages
	}
	said.tell(res)
	shaped := d
	if d.ExplicitMicro && d.Format != model.FormatDump && finalMicroOnly(c.ix) {
		// one row per step, never the first micro-batch: the step's final
		// gradient (monitor v2 without monitor_mbs_grad), step level
		res.ReasoningReasons = append(res.ReasoningReasons, model.FinalMicroOnly{Metric: d.Metrics[metric]})
		flat := *d
		flat.ExplicitMicro = false
		shaped = &flat
	}
	var shapeSaid []model.Reason
	res.Sharding, c.m, c.kind, shapeSaid = runShape(shaped, c.ix, metric, opt, res.Sharding, c.dumpMicro)
	res.ReasoningReasons = append(res.ReasoningReasons, shapeSaid...)
	c.num = newMicroNumbering(d, metric)
	if note := microNumberingNote(&res.Sharding); note != nil {
		res.ReasoningReasons = append(res.ReasoningReasons, note)
	}
	res.DataKind = c.kind
	if c.kind == kindMicro && !c.m.Explicit {
		res.Thresholds["accumulation_window"] = float64(res.Sharding.AccumulationWindow)
	}
	res.Summary, res.Targets, res.OptimizerStepRange = phase1Summary(c, res.Summary, res.Sharding.PassUnitReason)

	nSteps := len(res.Summary.Steps)
	switch {
	case c.kind == kindDump && nSteps == 1:
		found, said := dumpSpikes(c)
		res.Anomalies = append(res.Anomalies, found...)
		said.tell(res)
	case c.kind == kindMicro:
		said := microStepSpikes(c)
		said.tell(res)
	default:
		said := stepLevelSpikes(c)
		said.tell(res)
	}
	kept, floor, floorSaid := noiseFloor(&c.tails)
	res.Anomalies = append(res.Anomalies, kept...)
	for k, v := range floor {
		res.Thresholds[k] = v
	}
	if floorSaid != nil {
		res.ReasoningReasons = append(res.ReasoningReasons, floorSaid)
	}
	if nf, said := nonFiniteCandidates(c); said != nil {
		res.Anomalies = append(res.Anomalies, nf...)
		res.ReasoningReasons = append(res.ReasoningReasons, said)
	}
	if c.kind == kindDump && nSteps == 1 && d.ExplicitMicro {
		res.ReasoningReasons = append(res.ReasoningReasons, dumpCallMicroSteps(c, metric, res.Anomalies))
	}
	earliestFirst(res.Anomalies)
	if !(c.kind == kindDump && nSteps == 1) {
		if norms, said := targetRankNorms(c, res.Anomalies); said != nil {
			res.TargetRankNorms = norms
			res.ReasoningReasons = append(res.ReasoningReasons, said)
		}
	}
	res.Summary.AnomalyCount = len(res.Anomalies)
	nf := 0
	for i := range res.Anomalies {
		if res.Anomalies[i].NonFinite {
			nf++
		}
	}
	res.ReasoningReasons = append(res.ReasoningReasons, model.CandidatesOrdered{Count: len(res.Anomalies), NonFinite: nf})
	return res
}

// loadWarnings are the readers' warnings about d, first among Phase 1's:
// their reasons (model/reasons_load.go), or their texts when d was made
// without (by hand, or a reader not yet keeping reasons).
func loadWarnings(d *model.MonitorData) []model.Reason {
	if len(d.WarningsReasons) > 0 || len(d.Warnings) == 0 {
		return d.WarningsReasons
	}
	out := make([]model.Reason, len(d.Warnings))
	for i, w := range d.Warnings {
		out[i] = model.Sentence(w)
	}
	return out
}

// seriesOf is the series index of the analysed metric, and whether it is a
// dump tree's per-call (micro-step) rows (dumpSeriesIndex).
func seriesOf(d *model.MonitorData, metric int) (ix *seriesIndex, dumpMicro bool) {
	if d.Format == model.FormatDump && d.ExplicitMicro {
		return dumpSeriesIndex(d, metric)
	}
	return buildSeriesIndex(d, metric), false
}

// Phase1Data is Phase1 that also returns the data as analysed: with
// pipeline stages inferred, the targets split per stage ("pp1:layers.2…"),
// so that a viewer draws the same series the candidates name. Phase 1 on
// the returned data infers nothing again.
func Phase1Data(d *model.MonitorData, opt Phase1Options) (*model.Phase1Result, *model.MonitorData) {
	var out *model.MonitorData
	res := phase1(d, opt, &out)
	if out == nil {
		out = d
	}
	return res, out
}

// dumpSeriesIndex chooses the rows of a dump tree whose parameters_grad were
// recorded at every micro step (ingest adds each call as a micro-step row
// and the step's last call as a row without micro step): with ≥ 2 steps
// the per-call rows (accumulated micro steps, judged like an explicit
// micro_step CSV), else the per-step rows. Never both: the last call would
// count twice and partial sums would join the step's baseline.
func dumpSeriesIndex(d *model.MonitorData, metric int) (ix *seriesIndex, dumpMicro bool) {
	micro := buildSeriesIndexOf(d, metric, microRows)
	if len(micro.distinctSteps(d)) >= 2 {
		return micro, true
	}
	return buildSeriesIndexOf(d, metric, stepRows), false
}

// chooseMetric picks the metric to analyse: the per-rank gradient before
// the DP reduce is what localises a rank.
func chooseMetric(d *model.MonitorData, want string) int {
	present := make([]bool, len(d.Metrics))
	for run := range d.Rows.Runs() {
		if int(run.Metric) < len(present) {
			present[run.Metric] = true
		}
	}
	if want != "" {
		if i := d.MetricIndex(want); i >= 0 && present[i] {
			return i
		}
	}
	for _, name := range []string{"grad_unreduced", "grad_norm", "parameters_grad", "grad_reduced"} {
		if i := d.MetricIndex(name); i >= 0 && present[i] {
			return i
		}
	}
	for i, p := range present {
		if p {
			return i
		}
	}
	return -1
}

// phase1Summary counts what Phase 1 analyses: the rows, targets, steps and
// ranks (into s, with the pass unit), the analysed parameters and the
// optimizer-step range (nil: no step).
func phase1Summary(c *p1, s model.Phase1Summary, unit model.Reason) (_ model.Phase1Summary, targets []string, optRange []int) {
	r := &c.d.Rows
	s.TotalTargets = len(c.d.Targets)
	s.TotalRows = r.Len()
	s.PassUnitReason = unit
	s.Ranks = append([]int{}, c.ix.ranks...)
	s.Steps = append([]int{}, c.ix.distinctSteps(c.d)...)
	for t := range c.d.Targets {
		if len(c.ix.targetGroups(t)) > 0 {
			targets = append(targets, c.d.Targets[t].Name)
		}
	}
	if len(s.Steps) > 0 {
		lo, _ := c.m.mapStep(int32(s.Steps[0]), 0)
		hi, _ := c.m.mapStep(int32(s.Steps[len(s.Steps)-1]), 0)
		if c.m.Explicit {
			lo, hi = s.Steps[0], s.Steps[len(s.Steps)-1]
		}
		optRange = []int{lo, hi}
	}
	return s, targets, optRange
}

// anomaly builds the candidate for row i with the reference keys.
func (c *p1) anomaly(i int32) model.Anomaly {
	r := &c.d.Rows
	t := c.d.Targets[r.TargetOf(int(i))]
	rank := r.RankOf(int(i))
	a := model.Anomaly{
		Rank: int(rank), Step: int(r.Step[i]), TargetName: t.Name, Metric: c.metric,
		Norm: model.Float(r.Decimal(model.StatNorm, int(i))), VPPStage: t.VPPStage,
		Min: statOr(c.d, r, model.StatMin, i), Max: statOr(c.d, r, model.StatMax, i), Mean: statOr(c.d, r, model.StatMean, i),
	}
	if c.kind == kindMicro {
		o, ms := c.m.mapStep(r.Step[i], r.MicroOf(int(i)))
		a.OptimizerStep = model.IntPtr(o)
		c.num.setMicro(&a, rank, r.Step[i], ms)
	}
	c.stageFields(&a)
	return a
}

func statOr(d *model.MonitorData, r *model.Rows, s model.Stat, i int32) model.Float {
	if !d.HasStat[s] || int(i) >= r.Len() {
		return model.Float(math.NaN())
	}
	return model.Float(r.Decimal(s, int(i)))
}
