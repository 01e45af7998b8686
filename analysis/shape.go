package analysis

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// Kinds of data granularity (Phase 1 Step 1).
const (
	kindStep  = "step"       // one complete gradient per step
	kindMicro = "micro_step" // cumulative gradients per micro step
	kindDump  = "dump"       // parameter gradients of dump statistics
)

// stepMapper turns a row's step into (optimizer step, micro step).
type stepMapper struct {
	Explicit bool // Step is the optimizer step, Micro the micro step (0-based position)
	W        int  // accumulation window; 0 = none
	Base     int  // global step of a window start ≤ the first recorded step
	// Bounds are the global steps that start an optimizer step when the
	// windows are not periodic (short series, irregular grad_reduced
	// steps). Steps before the first bound form a partial optimizer step 0.
	Bounds []int
	First  int // first recorded step (for the partial window)
}

// mapStep returns the optimizer step and micro step of a row. Without
// accumulation the optimizer step is the step and the micro step -1.
func (m *stepMapper) mapStep(step, micro int32) (opt, ms int) {
	switch {
	case m.Explicit:
		ms = int(micro)
		if micro == model.NoMicro {
			ms = -1
		}
		return int(step), ms
	case m.Bounds != nil:
		s := int(step)
		i := sort.SearchInts(m.Bounds, s+1) // number of bounds ≤ s
		if i == 0 {
			return 0, s - m.First // the partial window before the first bound
		}
		return i - 1 + boolInt(m.First < m.Bounds[0]), s - m.Bounds[i-1]
	case m.W > 0:
		d := int(step) - m.Base
		q := floorDiv(d, m.W)
		return q, d - q*m.W
	}
	return int(step), -1
}

// accumulated reports whether steps are micro steps of optimizer steps.
func (m *stepMapper) accumulated() bool { return m.Explicit || m.W > 0 || m.Bounds != nil }

func floorDiv(a, b int) int {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// runShape is Phase 1 Step 0: pipeline stages, explicit micro steps or the
// accumulation window and its phase, and the resulting pass unit. It
// returns the run's shape (in, the stages already inferred, filled in), the
// step mapping, the data kind and what it said.
func runShape(d *model.MonitorData, ix *seriesIndex, metric int, opt Phase1Options, in model.ShardingAnalysis, dumpMicro bool) (model.ShardingAnalysis, stepMapper, string, []model.Reason) {
	sa := &in
	var said []model.Reason
	vpp := map[int]bool{}
	for _, t := range d.Targets {
		vpp[t.VPPStage] = true
	}
	for v := range vpp {
		sa.VPPStages = append(sa.VPPStages, v)
	}
	slices.Sort(sa.VPPStages)
	if len(sa.VPPStages) == 0 {
		sa.VPPStages = []int{0}
	}
	sa.PPStages = len(sa.VPPStages)
	if p := sa.Stages; p != nil && p.Inferred && p.Stages > 1 {
		sa.PPStages = p.Stages // stages read from the ranks' parameter sets (stages.go)
	}

	var m stepMapper
	kind := kindStep
	explicit := false
	if d.ExplicitMicro {
		for _, m := range ix.micro { // nil: no row has a micro step
			if m != model.NoMicro {
				explicit = true
				break
			}
		}
	}
	switch {
	case d.Format == model.FormatDump && !(explicit && dumpMicro):
		kind = kindDump
		said = append(said, model.DumpShape{Calls: d.ExplicitMicro})
	case explicit:
		m = stepMapper{Explicit: true}
		kind = kindMicro
		maxMs := -1
		for k := range ix.step {
			_, ms := m.mapStep(ix.step[k], ix.microAt(k))
			maxMs = max(maxMs, ms)
		}
		sa.AccumulationWindow = maxMs + 1
		sa.ExplicitMicroStep = true
		said = append(said, model.ExplicitMicro{Dump: dumpMicro, Window: sa.AccumulationWindow})
	default:
		w := accumulationWindow(d, ix, metric, opt.Window)
		said = append(said, w.Notes...)
		if w.W > 0 || w.Bounds != nil {
			m = stepMapper{W: w.W, Base: w.Base, Bounds: w.Bounds, First: ix.minStep}
			kind = kindMicro
			sa.AccumulationWindow = w.W
			sa.WindowPhase = w.Phase
			sa.AccumulationDetected = true
			sa.WindowOverridden = w.Overridden
			if w.Bounds != nil && len(w.Bounds) > 0 {
				b := w.Bounds[0]
				sa.ResetBoundary = &b
			}
		}
	}
	// optimizer steps and micro-step range
	if m.accumulated() {
		sa.HasMicroStep = true
		// optimizer steps are non-decreasing along each series: count the
		// distinct ones over the distinct steps (no per-row map)
		maxMs := 0
		seenOpt := map[int]bool{}
		for _, st := range ix.distinctSteps(d) {
			o, ms := m.mapStep(int32(st), 0)
			seenOpt[o] = true
			if !m.Explicit {
				maxMs = max(maxMs, ms)
			}
		}
		if m.Explicit {
			for k := range ix.step {
				_, ms := m.mapStep(ix.step[k], ix.microAt(k))
				maxMs = max(maxMs, ms)
			}
		}
		sa.OptimizerStepCount = len(seenOpt)
		for k := 0; k <= maxMs; k++ {
			sa.MicroStepRange = append(sa.MicroStepRange, k)
		}
		if sa.ExplicitMicroStep {
			sa.PassUnitReason = model.PassUnit{Kind: model.PassExplicit}
		} else {
			sa.PassUnitReason = model.PassUnit{Kind: model.PassAccumWind, Window: sa.AccumulationWindow}
		}
	} else {
		sa.MicroStepRange = []int{0}
		sa.PassUnitReason = model.PassUnit{Kind: model.PassStep}
	}
	numberMicroSteps(d, metric, kind, sa)
	c := ppShape(sa, expertLayout(d, ix))
	switch {
	case sa.AccumulationDetected:
		c.Micro, c.Window, c.OptSteps = model.MicroAccumulated, sa.AccumulationWindow, sa.OptimizerStepCount
	case sa.ExplicitMicroStep:
		c.Micro, c.First, c.Last = model.MicroExplicit, sa.MicroStepRange[0], sa.MicroStepRange[len(sa.MicroStepRange)-1]
	default:
		c.Micro = model.MicroNone
	}
	c.Unit, _ = sa.PassUnitReason.(model.PassUnit)
	sa.ConclusionReason = c
	return in, m, kind, said
}

// intsString formats a short list of ints for reasoning lines.
func intsString(xs []int, max int) string {
	var b strings.Builder
	for i, x := range xs {
		if i == max {
			fmt.Fprintf(&b, ", … (%d more)", len(xs)-max)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}
