package ingest

import (
	"slices"
	"strings"

	"spikescope/model"
)

// gradMetric is the metric name of parameter gradients read from dumps.
const gradMetric = "grad_norm"

// paramGradMarker separates the module part of a parameters_grad key.
const paramGradMarker = ".parameters_grad"

// GradientsFromDumps turns the parameters_grad entries of a dump tree into
// monitor rows (Format=FormatDump, one metric "grad_norm"), so that Phase 1
// can run on dumps:
//
//   - target = "{key before .parameters_grad}.{param}", e.g.
//     "Module.module.module.decoder.layers.0.mlp.linear_fc1.ColumnParallelLinear.weight";
//     the .N call counter is dropped (it is opaque: it does not restart per
//     step, formats.md §3.2);
//   - Step = the dump's step (0 without a step level), Rank = the dump's rank;
//   - one row per (dump, target) with Micro = NoMicro holding the LAST call of
//     that step: under gradient accumulation msprobe records main_grad, which
//     accumulates over the micro batches, so the last call is the step's
//     gradient;
//   - micro steps (accumulationMicroRows): when some target has several calls
//     in one dump and every (dump, target) has the same number W of calls,
//     each call is also a row with Micro = its 0-based order within the step
//     and ExplicitMicro is set. With unequal counts the calls cannot be lined
//     up as micro steps; only the per-step rows are kept, with a warning.
//     DumpCallNumbers keeps each call's N when it differs from the order
//     (msprobe's counter running on across steps), so that a micro step is
//     reported as dump.json writes it.
func GradientsFromDumps(t *model.DumpTree) *model.MonitorData {
	md := &model.MonitorData{
		Path:    t.Path,
		Format:  model.FormatDump,
		Metrics: []string{gradMetric},
		HasStat: [model.NumStats]bool{true, true, true, true},
	}
	targetIdx := map[string]int32{}
	type seq struct {
		rank, step, target int32
		calls              [][model.NumStats]float64
		nums               []int // parameters_grad.N of each call (-1: no counter)
	}
	var seqs []seq
	for _, d := range t.Dumps {
		step := max(d.Step, 0)
		local := map[int32]int{} // target → index in seqs for this dump
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Direction != model.ParamGrad {
				continue
			}
			prefix := op.Key
			if k := strings.LastIndex(prefix, paramGradMarker); k >= 0 {
				prefix = prefix[:k]
			}
			for _, p := range op.Params {
				name := prefix + "." + p.Name
				id, ok := targetIdx[name]
				if !ok {
					id = int32(len(md.Targets))
					targetIdx[name] = id
					md.Targets = append(md.Targets, model.Target{Name: name})
				}
				si, ok := local[id]
				if !ok {
					si = len(seqs)
					local[id] = si
					seqs = append(seqs, seq{rank: int32(d.Rank), step: int32(step), target: id})
				}
				seqs[si].calls = append(seqs[si].calls, p.Stat)
				seqs[si].nums = append(seqs[si].nums, op.CallIndex)
			}
		}
	}
	if len(seqs) == 0 {
		md.WarningsReasons = append(md.WarningsReasons, model.GradsNone{Path: t.Path})
		return md
	}
	counts := make([]int, len(seqs))
	names := make([]string, len(seqs))
	for i, s := range seqs {
		counts[i] = len(s.calls)
		names[i] = md.Targets[s.target].Name
	}
	w, warn := accumulationMicroRows(counts, names)
	if warn != nil {
		md.WarningsReasons = append(md.WarningsReasons, warn)
	}
	md.ExplicitMicro = w > 1
	if md.ExplicitMicro {
		var warn model.Reason
		cs := make([]callSeq, len(seqs))
		for i, s := range seqs {
			cs[i] = callSeq{model.RankStep{Rank: s.rank, Step: s.step}, s.nums}
		}
		md.DumpCallNumbers, warn = dumpCallNumbers(t.Path, cs)
		if warn != nil {
			md.WarningsReasons = append(md.WarningsReasons, warn)
		}
	}
	rowsPer := 1
	if md.ExplicitMicro {
		rowsPer += w
	}
	md.Rows.Grow(len(seqs) * rowsPer)
	for _, s := range seqs {
		if md.ExplicitMicro {
			for m, v := range s.calls {
				md.Rows.Append(s.rank, s.step, int32(m), s.target, 0, v)
			}
		}
		md.Rows.Append(s.rank, s.step, model.NoMicro, s.target, 0, s.calls[len(s.calls)-1])
	}
	return md
}

// accumulationMicroRows decides whether parameters_grad calls are micro
// steps: it returns W > 1 when every (dump, target) has exactly W calls, else
// 0, with a warning when calls were repeated but unequally.
func accumulationMicroRows(counts []int, names []string) (int, model.Reason) {
	w := counts[0]
	for i, c := range counts {
		if c != w { // counts are ≥ 1, so one of them repeats
			return 0, model.GradsCallCounts{A: names[0], CountA: w, B: names[i], CountB: c}
		}
	}
	if w > 1 {
		return w, nil
	}
	return 0, nil
}

// callSeq is the parameters_grad call counters of one (dump, target).
type callSeq struct {
	rs   model.RankStep
	nums []int
}

// dumpCallNumbers is MonitorData.DumpCallNumbers: per dump, the N of
// parameters_grad.N of each call, in call order, so that a micro step is
// reported as dump.json writes it (msprobe's counter need not restart per
// step, formats.md §3.2). nil when every dump numbers its calls 0..W-1 (the
// positions are the numbers) or a key carries no counter; nil with a
// warning when two modules of one dump number their calls differently.
func dumpCallNumbers(path string, seqs []callSeq) (map[model.RankStep][]int, model.Reason) {
	out := map[model.RankStep][]int{}
	same := true // every dump counts 0..W-1
	for _, s := range seqs {
		for k, n := range s.nums {
			if n < 0 {
				return nil, nil
			}
			same = same && n == k
		}
		prev, ok := out[s.rs]
		if !ok {
			out[s.rs] = s.nums
			continue
		}
		if !slices.Equal(prev, s.nums) {
			return nil, model.GradsCallCounters{Path: path, Rank: int(s.rs.Rank), Step: int(s.rs.Step), Prev: prev, Next: s.nums}
		}
	}
	if same {
		return nil, nil
	}
	return out, nil
}
