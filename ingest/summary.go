package ingest

// What `spikescope inspect` says about an input: counts of what a monitor
// or dump tree holds, computed from the loaded data alone.

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// SummaryExamples is how many parameter names (and ranks missing steps) a
// summary lists.
const SummaryExamples = 5

// StageFunc infers the pipeline stages of monitor data (analysis.InferStages:
// a method rule, so the caller passes it in); nil leaves Stages unset.
type StageFunc func(*model.MonitorData) *model.StageLayout

// IntRange is a range of integers with the number of distinct values seen.
type IntRange struct {
	Min   int `json:"min"`
	Max   int `json:"max"`
	Count int `json:"count"`
}

// NonFinite counts non-finite values of one statistic.
type NonFinite = model.NonFinite

// MetricReport summarises one monitor metric.
type MetricReport struct {
	Name      string               `json:"name"`
	Rows      int                  `json:"rows"`
	NonFinite map[string]NonFinite `json:"non_finite"` // by statistic, only those recorded
	// AllNaN lists statistics that are NaN in every row of the metric: not
	// recorded for it (another metric's files had them) or all NaN.
	AllNaN []string `json:"stats_all_nan,omitempty"`
}

// MonitorReport summarises monitor data.
type MonitorReport struct {
	Rows          int       `json:"rows"`
	Ranks         []int     `json:"ranks"`
	Steps         *IntRange `json:"steps,omitempty"`
	StepMeaning   string    `json:"step_meaning"`
	ExplicitMicro bool      `json:"explicit_micro"`
	MicroSteps    *IntRange `json:"micro_steps,omitempty"`
	Window        int       `json:"window,omitempty"` // micro steps per optimizer step, when explicit
	VPPStages     []int     `json:"vpp_stages"`
	// Stages is the pipeline stages read from the ranks' parameter sets
	// (as detect infers them); nil for one stage.
	Stages     *model.StageLayout `json:"pipeline,omitempty"`
	Parameters int                `json:"parameters"`
	Examples   []string           `json:"parameter_examples"`
	Stats      []string           `json:"stats"`
	Metrics    []*MetricReport    `json:"metrics"`
}

// DumpReport summarises a dump tree.
type DumpReport struct {
	Dumps      int                  `json:"dumps"`
	Steps      []int                `json:"steps"`
	Ranks      []int                `json:"ranks"`
	Task       string               `json:"task,omitempty"`
	Level      string               `json:"level,omitempty"`
	Framework  string               `json:"framework,omitempty"`
	Ops        int                  `json:"ops"`
	Forward    int                  `json:"forward"`
	Backward   int                  `json:"backward"`
	ParamGrads int                  `json:"parameters_grad"`
	Tensors    int                  `json:"tensors"`
	NonFinite  map[string]NonFinite `json:"non_finite"`
	Gradients  *MonitorReport       `json:"gradients,omitempty"` // parameters_grad seen as monitor rows
}

// StepCoverage warns about ranks that lack steps the others have (a rank
// whose monitor files were lost or cut short): the analysis then judges
// those steps without that rank.
func StepCoverage(d *model.MonitorData) []model.Reason {
	perRank := map[int32]map[int32]struct{}{}
	all := map[int32]struct{}{}
	lastRank, lastStep := int32(math.MinInt32), int32(math.MinInt32)
	for run := range d.Rows.Runs() {
		rk := run.Rank
		for _, st := range d.Rows.Step[run.Lo:run.Hi] {
			if rk == lastRank && st == lastStep {
				continue
			}
			lastRank, lastStep = rk, st
			m := perRank[rk]
			if m == nil {
				m = map[int32]struct{}{}
				perRank[rk] = m
			}
			m[st] = struct{}{}
			all[st] = struct{}{}
		}
	}
	var ranks []int
	for rk, m := range perRank {
		if len(m) < len(all) {
			ranks = append(ranks, int(rk))
		}
	}
	sort.Ints(ranks)
	var out []model.Reason
	for i, rk := range ranks {
		if i == SummaryExamples {
			out = append(out, model.MoreRanksMissingSteps{Count: len(ranks) - i})
			break
		}
		var missing []int
		for st := range all {
			if _, ok := perRank[int32(rk)][st]; !ok {
				missing = append(missing, int(st))
			}
		}
		sort.Ints(missing)
		out = append(out, model.RankMissingSteps{Rank: rk, Have: len(all) - len(missing), Total: len(all), Missing: CompactInts(missing)})
	}
	return out
}

// intSet collects distinct integers.
type intSet map[int]struct{}

func (s intSet) add(v int) { s[v] = struct{}{} }

func (s intSet) sorted() []int {
	out := make([]int, 0, len(s))
	for v := range s {
		out = append(out, v)
	}
	sort.Ints(out)
	return out
}

func (s intSet) rangeOf() *IntRange {
	if len(s) == 0 {
		return nil
	}
	v := s.sorted()
	return &IntRange{Min: v[0], Max: v[len(v)-1], Count: len(v)}
}

// SummariseMonitor counts what a MonitorData holds.
func SummariseMonitor(d *model.MonitorData, stages StageFunc) *MonitorReport {
	r := &MonitorReport{Rows: d.Rows.Len(), ExplicitMicro: d.ExplicitMicro, Parameters: len(d.Targets)}
	ranks, steps, micros, vpps := intSet{}, intSet{}, intSet{}, intSet{}
	metrics := make([]*MetricReport, len(d.Metrics))
	for i, name := range d.Metrics {
		metrics[i] = &MetricReport{Name: name, NonFinite: map[string]NonFinite{}}
	}
	var nf = make([][model.NumStats]NonFinite, len(d.Metrics))
	lastRank, lastStep := int32(math.MinInt32), int32(math.MinInt32)
	for run := range d.Rows.Runs() {
		if rk := run.Rank; rk != lastRank {
			ranks.add(int(rk))
			lastRank = rk
		}
		mi := run.Metric
		base := d.MicroBase(int(mi))
		for i := run.Lo; i < run.Hi; i++ {
			if st := d.Rows.Step[i]; st != lastStep {
				steps.add(int(st))
				lastStep = st
			}
			if m := d.Rows.MicroOf(i); m != model.NoMicro {
				micros.add(int(m) + base) // as the input numbers it
			}
			if int(mi) < len(metrics) {
				metrics[mi].Rows++
				if d.HasStat[model.StatNorm] {
					nf[mi][model.StatNorm].Add(d.Rows.Norm[i])
				}
			}
		}
	}
	// min, max and mean as counted at load (LoadMonitor), when the columns
	// may have left memory since; else counted now
	counts := d.Rows.NonFiniteStats()
	for mi := range min(len(nf), len(counts.ByMetric)) {
		for s := model.StatMin; s < model.NumStats; s++ {
			nf[mi][s] = counts.ByMetric[mi][s]
		}
	}
	for _, t := range d.Targets {
		vpps.add(t.VPPStage)
	}
	for mi, m := range metrics {
		for s := model.Stat(0); s < model.NumStats; s++ {
			if !d.HasStat[s] {
				continue
			}
			if m.Rows > 0 && nf[mi][s].NaN == m.Rows {
				m.AllNaN = append(m.AllNaN, model.StatNames[s])
				continue
			}
			m.NonFinite[model.StatNames[s]] = nf[mi][s]
		}
	}
	r.Metrics = metrics
	r.Ranks = ranks.sorted()
	r.Steps = steps.rangeOf()
	r.VPPStages = vpps.sorted()
	if stages != nil {
		r.Stages = stages(d)
	}
	switch {
	case d.Format == model.FormatDump:
		r.StepMeaning = "training step (step folder)"
	case d.ExplicitMicro:
		r.StepMeaning = "optimizer step (micro steps recorded)"
		r.MicroSteps = micros.rangeOf()
		if r.MicroSteps != nil {
			r.Window = r.MicroSteps.Max - r.MicroSteps.Min + 1
		}
	case d.Format == model.FormatTrendDB:
		r.StepMeaning = "as stored: a global micro-step index unless each step is one optimizer step (the window is derived by detect)"
	default:
		r.StepMeaning = "optimizer step"
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		if d.HasStat[s] {
			r.Stats = append(r.Stats, model.StatNames[s])
		}
	}
	for i := 0; i < len(d.Targets) && i < SummaryExamples; i++ {
		r.Examples = append(r.Examples, d.Targets[i].Name)
	}
	if r.Ranks == nil {
		r.Ranks = []int{}
	}
	return r
}

// SummariseDumps counts what a dump tree holds; its parameter gradients
// are summarised as monitor rows (stages as for SummariseMonitor).
func SummariseDumps(t *model.DumpTree, stages StageFunc) *DumpReport {
	r := &DumpReport{Dumps: len(t.Dumps), NonFinite: map[string]NonFinite{}}
	steps, ranks := intSet{}, intSet{}
	var nf [model.NumStats]NonFinite
	count := func(ts []model.TensorStat) {
		for i := range ts {
			r.Tensors++
			for s := model.Stat(0); s < model.NumStats; s++ {
				if ts[i].Has[s] {
					nf[s].Add(ts[i].Stat[s])
				}
			}
		}
	}
	for _, d := range t.Dumps {
		steps.add(d.Step)
		ranks.add(d.Rank)
		if r.Task == "" {
			r.Task, r.Level, r.Framework = d.Task, d.Level, d.Framework
		}
		r.Ops += len(d.Ops)
		for i := range d.Ops {
			op := &d.Ops[i]
			switch op.Direction {
			case model.Forward:
				r.Forward++
			case model.Backward:
				r.Backward++
			case model.ParamGrad:
				r.ParamGrads++
			}
			count(op.Inputs)
			count(op.Outputs)
			count(op.Params)
		}
	}
	for s := model.Stat(0); s < model.NumStats; s++ {
		r.NonFinite[model.StatNames[s]] = nf[s]
	}
	r.Steps = steps.sorted()
	r.Ranks = ranks.sorted()
	if g := GradientsFromDumps(t); g != nil && g.Rows.Len() > 0 {
		r.Gradients = SummariseMonitor(g, stages)
	}
	return r
}

// CompactInts prints sorted integers with runs shortened: "0-7, 9".
func CompactInts(v []int) string {
	var parts []string
	for i := 0; i < len(v); {
		j := i
		for j+1 < len(v) && v[j+1] == v[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", v[i], v[j]))
		} else {
			parts = append(parts, strconv.Itoa(v[i]))
		}
		i = j + 1
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
