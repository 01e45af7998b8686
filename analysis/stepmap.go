package analysis

import (
	"math"
	"sort"
	"strings"

	"spikescope/model"
)

// Step mapping by value. `msprobe data2db` re-bases the trend.db step column
// to a global micro-step index from 0 (formats.md §2.1), so a run monitored
// from training step 1000 has optimizer steps 0, 1, … while its dumps are
// step1000, step1001, … (dumps may also be taken every N steps). The dump
// step of an optimizer step is then found by comparing values: a dump's
// parameters_grad norms (the final accumulated main_grad) equal the
// monitor's final grad_unreduced norms of the same rank and optimizer step.
const (
	// stepMatchTolerance is the relative difference under which a dump's
	// gradient norm and the monitor's agree: bf16 statistics and the
	// monitor's 6-digit rounding stay well below it, while cumulative norms
	// of different steps differ by the data noise (several percent).
	stepMatchTolerance = 0.01
	// stepMatchMinShare is the share of the shared parameters that must
	// agree for a dump step to match an optimizer step.
	stepMatchMinShare = 0.5
	// stepMatchMetric is the monitor metric holding each rank's own
	// accumulated gradient (grad_reduced is the DP average: no match).
	stepMatchMetric = "grad_unreduced"
)

// squashParamName normalises a parameter name as msprobe's
// squash_param_name does; a name no pattern matches (already squashed)
// is kept without leading "module." wrappers.
func squashParamName(name string) string {
	if sq := model.SquashParamName(name); sq != name {
		return sq
	}
	for strings.HasPrefix(name, "module.") {
		name = name[len("module."):]
	}
	return name
}

// normTable maps normalised parameter names to a gradient norm; names
// that two parameters normalise to are dropped (ambiguous).
type normTable map[string]float64

// addNorm records v under name unless name was seen: then it is ambiguous.
func addNorm(t normTable, dup map[string]bool, name string, v float64) {
	if dup[name] {
		return
	}
	if _, ok := t[name]; ok {
		delete(t, name)
		dup[name] = true
		return
	}
	t[name] = v
}

// dumpGradNorms is the final parameter-gradient norm of every parameter of
// d: the last parameters_grad call of each module (the accumulated
// main_grad), named module path + parameter, class segment dropped.
func dumpGradNorms(d *model.Dump) normTable {
	last := map[string]float64{} // full name → norm of the latest call
	order := map[string]int{}
	var names []string
	for i := range d.Ops {
		op := &d.Ops[i]
		if op.Direction != model.ParamGrad {
			continue
		}
		for _, p := range op.Params {
			if !p.Valid(model.StatNorm) {
				continue
			}
			full := op.ModulePath + "." + p.Name
			if o, ok := order[full]; ok && o > op.Order {
				continue
			}
			if _, ok := order[full]; !ok {
				names = append(names, full)
			}
			order[full], last[full] = op.Order, p.Stat[model.StatNorm]
		}
	}
	t, dup := normTable{}, map[string]bool{}
	for _, n := range names {
		addNorm(t, dup, squashParamName(n), last[n])
	}
	return t
}

// optStepFunc returns how Phase 1 numbered optimizer steps from a row's
// step: the row step itself (explicit micro steps, step-level data) or its
// accumulation window. ok is false when the windows are irregular (not
// reproducible here) or the result disagrees with Phase 1's candidates.
func optStepFunc(p1 *model.Phase1Result) (func(step int32) int, bool) {
	sa := &p1.Sharding
	var f func(step int32) int
	switch {
	case sa.ExplicitMicroStep || !sa.HasMicroStep:
		f = func(step int32) int { return int(step) }
	case sa.AccumulationWindow > 0 && len(p1.Summary.Steps) > 0:
		w, first := sa.AccumulationWindow, p1.Summary.Steps[0]
		base := first - ((first-sa.WindowPhase)%w+w)%w
		f = func(step int32) int { return floorDiv(int(step)-base, w) }
	default:
		return nil, false
	}
	for i := range p1.Anomalies {
		a := &p1.Anomalies[i]
		if a.OptimizerStep != nil && f(int32(a.Step)) != *a.OptimizerStep {
			return nil, false
		}
	}
	return f, true
}

// monitorFinalNorms is the final grad_unreduced norm of every parameter on
// rank at every optimizer step: the value at the step's last micro step.
func monitorFinalNorms(d *model.MonitorData, p1 *model.Phase1Result, rank int) map[int]normTable {
	metric := d.MetricIndex(stepMatchMetric)
	optOf, ok := optStepFunc(p1)
	if metric < 0 || !ok {
		return nil
	}
	type key struct{ opt, target int }
	type last struct {
		step, micro int32
		v           float64
	}
	lastOf := map[key]last{}
	r := &d.Rows
	for run := range r.Runs() {
		if int(run.Rank) != rank || int(run.Metric) != metric {
			continue
		}
		for i := run.Lo; i < run.Hi; i++ {
			v := r.Value(model.StatNorm, i)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			k := key{optOf(r.Step[i]), int(run.Target)}
			if l, seen := lastOf[k]; seen && (l.step > r.Step[i] || l.step == r.Step[i] && l.micro >= r.MicroOf(i)) {
				continue
			}
			lastOf[k] = last{r.Step[i], r.MicroOf(i), v}
		}
	}
	keys := make([]key, 0, len(lastOf))
	for k := range lastOf {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].opt != keys[j].opt {
			return keys[i].opt < keys[j].opt
		}
		return keys[i].target < keys[j].target
	})
	out := map[int]normTable{}
	dups := map[int]map[string]bool{}
	for _, k := range keys {
		if out[k.opt] == nil {
			out[k.opt], dups[k.opt] = normTable{}, map[string]bool{}
		}
		addNorm(out[k.opt], dups[k.opt], squashParamName(model.StageBaseName(d.Targets[k.target].Name)), lastOf[k].v)
	}
	return out
}

// agree reports whether two norms are within stepMatchTolerance.
func agree(a, b float64) bool {
	return math.Abs(a-b) <= stepMatchTolerance*math.Max(math.Abs(a), math.Abs(b))
}

// StepMatch is the optimizer step a dump step was matched to.
type StepMatch struct {
	DumpStep, OptStep int
	Agree, Shared     int // parameters that agree, parameters in both
}

// matchDumpStep finds the optimizer step whose final norms agree with the
// dump's on the most shared parameters; ok only when that step is unique
// and at least stepMatchMinShare of the shared parameters agree.
func matchDumpStep(dump normTable, mon map[int]normTable) (opt, agreeN, shared int, ok bool) {
	best, ties := -1, 0
	for k, t := range mon {
		n, sh := 0, 0
		for name, v := range dump {
			m, in := t[name]
			if !in {
				continue
			}
			sh++
			if agree(v, m) {
				n++
			}
		}
		switch {
		case n > best:
			best, ties, opt, shared = n, 1, k, sh
		case n == best:
			ties++
		}
	}
	ok = best > 0 && ties == 1 && float64(best) >= stepMatchMinShare*float64(shared)
	return opt, best, shared, ok
}

// DumpStepOffset is the dump step minus the optimizer step on rank, found
// by value over the dumps of that rank in tree: every dump step that
// matches a unique optimizer step of mon (the monitor Phase 1 p1 ran on)
// must give the same offset. ok is false when the values are absent,
// ambiguous or disagree, and for Phase 1 on dumps (their steps are the
// dumps' own).
func DumpStepOffset(mon *model.MonitorData, p1 *model.Phase1Result, tree *model.DumpTree, rank int) (offset int, matches []StepMatch, ok bool) {
	if tree == nil || mon == nil || p1 == nil || mon.Format == model.FormatDump {
		return 0, nil, false
	}
	var dumps []*model.Dump
	for _, d := range tree.Dumps {
		if d.Rank == rank && d.Step >= 0 {
			dumps = append(dumps, d)
		}
	}
	if len(dumps) == 0 {
		return 0, nil, false
	}
	norms := monitorFinalNorms(mon, p1, rank)
	if len(norms) == 0 {
		return 0, nil, false
	}
	for _, d := range dumps {
		opt, n, sh, ok := matchDumpStep(dumpGradNorms(d), norms)
		if !ok {
			continue
		}
		if len(matches) > 0 && d.Step-opt != offset {
			return 0, nil, false // the dump steps disagree: no single offset
		}
		offset = d.Step - opt
		matches = append(matches, StepMatch{DumpStep: d.Step, OptStep: opt, Agree: n, Shared: sh})
	}
	return offset, matches, len(matches) > 0
}

// StepOffsetReason says how dump steps were mapped to optimizer steps.
func StepOffsetReason(m []StepMatch) model.Reason {
	r := model.P3StepOffset{Matches: make([]model.P3StepMatch, len(m))}
	for i, x := range m {
		r.Matches[i] = model.P3StepMatch{DumpStep: x.DumpStep, OptStep: x.OptStep, Agree: x.Agree, Shared: x.Shared}
	}
	return r
}

// Phase1InDumpSteps is p1 with its candidates' optimizer steps shifted by
// offset (dump step − optimizer step) to dump steps, for the control choice,
// which compares them with dump folders; p1 itself for offset 0.
func Phase1InDumpSteps(p1 *model.Phase1Result, offset int) *model.Phase1Result {
	if p1 == nil || offset == 0 {
		return p1
	}
	p := *p1
	p.Anomalies = make([]model.Anomaly, len(p1.Anomalies))
	for i, a := range p1.Anomalies {
		if a.OptimizerStep != nil {
			a.OptimizerStep = model.IntPtr(*a.OptimizerStep + offset)
		} else {
			a.Step += offset
		}
		p.Anomalies[i] = a
	}
	return &p
}
