package analysis

import (
	"slices"

	"spikescope/model"
)

// Micro steps as the input numbers them (method.md Phase 2: "Coordinates
// are reported in the input's own numbering"). Inside Phase 1 a micro step
// is the 0-based position of the micro-batch in its optimizer step (what
// the rules need: position 0 starts from an empty accumulator); the
// candidates report the number the input wrote — monitor v2 1..W, v1 CSV
// and trend.db 0..W-1, a dump's parameters_grad.N — with the position kept
// beside it (Anomaly.MicroIndex). microNumbering is the one place where a
// position becomes a reported number.

// microNumbering maps positions to the input's micro-step numbers.
type microNumbering struct {
	base  int                        // number of position 0 (monitor v2: 1)
	calls map[model.RankStep][]int32 // dumps: parameters_grad.N per position, per (rank, step)
}

// newMicroNumbering is the numbering of metric's rows in d.
func newMicroNumbering(d *model.MonitorData, metric int) microNumbering {
	n := microNumbering{base: d.MicroBase(metric)}
	if d.Format == model.FormatDump && len(d.DumpCallNumbers) > 0 {
		n.calls = make(map[model.RankStep][]int32, len(d.DumpCallNumbers))
		for k, v := range d.DumpCallNumbers {
			c := make([]int32, len(v))
			for i, x := range v {
				c[i] = int32(x)
			}
			n.calls[k] = c
		}
	}
	return n
}

// written is the input's number for position pos of the optimizer step
// that row (rank, step) belongs to; a negative position (no micro step) is
// returned as is.
func (n microNumbering) written(rank, step int32, pos int) int {
	if pos < 0 {
		return pos
	}
	if c, ok := n.calls[model.RankStep{Rank: rank, Step: step}]; ok && pos < len(c) {
		return int(c[pos])
	}
	return pos + n.base
}

// setMicro gives candidate a its micro step: the position and the
// input's number for it.
func (n microNumbering) setMicro(a *model.Anomaly, rank, step int32, pos int) {
	a.MicroStep = model.IntPtr(n.written(rank, step, pos))
	if pos >= 0 {
		a.MicroIndex = model.IntPtr(pos)
	}
}

// numberMicroSteps states in sa how micro steps are numbered and turns
// MicroStepRange (positions 0..W-1, as runShape found them) into the
// input's numbers. A single-step dump whose modules recorded one
// parameters_grad call per micro-batch has micro steps too (its
// candidates name the call where a gradient jumps).
func numberMicroSteps(d *model.MonitorData, metric int, kind string, sa *model.ShardingAnalysis) {
	n := newMicroNumbering(d, metric)
	if kind == kindDump && d.ExplicitMicro {
		if w := dumpCallCount(d, metric); w >= 2 {
			sa.HasMicroStep, sa.ExplicitMicroStep = true, true
			sa.AccumulationWindow, sa.OptimizerStepCount = w, 1
			sa.MicroStepRange = sa.MicroStepRange[:0]
			for k := 0; k < w; k++ {
				sa.MicroStepRange = append(sa.MicroStepRange, k)
			}
			sa.PassUnitReason = model.PassUnit{Kind: model.PassExplicit}
		}
	}
	if !sa.HasMicroStep {
		sa.MicroStepNumberingReason = model.MicroNumbering{Kind: model.NumberingNone}
		return
	}
	sa.MicroStepBase = n.base
	switch {
	case d.Format == model.FormatDump:
		sa.MicroStepNumberingReason = model.MicroNumbering{Kind: model.NumberingDump}
	case !sa.ExplicitMicroStep:
		sa.MicroStepNumberingReason = model.MicroNumbering{Kind: model.NumberingDerived}
	case n.base == 1:
		sa.MicroStepNumberingReason = model.MicroNumbering{Kind: model.NumberingMonitorV2}
	default:
		sa.MicroStepNumberingReason = model.MicroNumbering{Kind: model.NumberingWritten}
	}
	if !sa.ExplicitMicroStep {
		return // derived micro steps are positions
	}
	// the input's numbers of the positions, over every optimizer step
	seen := map[int]bool{}
	var nums []int
	add := func(v int) {
		if !seen[v] {
			seen[v] = true
			nums = append(nums, v)
		}
	}
	for _, p := range sa.MicroStepRange {
		add(p + n.base)
	}
	if n.calls != nil {
		clear(seen)
		nums = nums[:0]
		for _, c := range n.calls {
			for _, v := range c {
				add(int(v))
			}
		}
		sa.MicroStepBase = int(minFirst(n.calls))
	}
	slices.Sort(nums)
	sa.MicroStepRange = nums
}

// minFirst is the smallest first call number over the dumps.
func minFirst(calls map[model.RankStep][]int32) int32 {
	first := true
	var m int32
	for _, c := range calls {
		if len(c) > 0 && (first || c[0] < m) {
			m, first = c[0], false
		}
	}
	return m
}

// dumpCallCount is the number of parameters_grad calls per (dump,
// parameter) of metric's rows: ingest keeps the calls as micro-step rows
// only when every (dump, parameter) has the same count.
func dumpCallCount(d *model.MonitorData, metric int) int {
	w := 0
	r := &d.Rows
	for run := range r.Runs() {
		if int(run.Metric) != metric {
			continue
		}
		for _, m := range r.Micros(run.Lo, run.Hi) {
			if m != model.NoMicro {
				w = max(w, int(m)+1)
			}
		}
	}
	return w
}

// microNumberingNote is the reasoning line of a numbering that differs
// from the positions, nil otherwise.
func microNumberingNote(sa *model.ShardingAnalysis) model.Reason {
	if !sa.HasMicroStep || !sa.ExplicitMicroStep || len(sa.MicroStepRange) == 0 || sa.MicroStepRange[0] == 0 && sa.MicroStepBase == 0 {
		return nil
	}
	n, _ := sa.MicroStepNumberingReason.(model.MicroNumbering)
	return model.MicroNumberingNote{First: sa.MicroStepRange[0], Last: sa.MicroStepRange[len(sa.MicroStepRange)-1], Numbering: n}
}

// finalMicroOnly reports whether every (parameter, rank) series holds one
// row per step, none of them at the first micro-batch: only the step's
// accumulated gradient was recorded (monitor v2 writes micro_step = W
// without monitor_mbs_grad), so there are no increments to judge. A
// window of 1 (every row at position 0) is not this case.
func finalMicroOnly(ix *seriesIndex) bool {
	any := false
	for _, g := range ix.groups {
		for k := int(g.Lo); k < int(g.Hi); k++ {
			m := ix.microAt(k)
			if m == model.NoMicro {
				continue
			}
			if m == 0 || k > int(g.Lo) && ix.step[k] == ix.step[k-1] {
				return false
			}
			any = true
		}
	}
	return any
}
