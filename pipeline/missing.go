package pipeline

import (
	"fmt"
	"strconv"

	"spikescope/analysis"
	"spikescope/model"
	"spikescope/words"
)

// missing lists what data the analysis lacked and what to collect next, in
// the order of the phases. Each entry is written in English and Chinese.
func (s *Session) missing() []model.Missing {
	var out []model.Missing
	add := func(what, zhWhat, next, zhNext string) {
		out = append(out, model.Missing{What: what, ZhWhat: zhWhat, Next: next, ZhNext: zhNext})
	}
	if s.P1 == nil {
		add("gradient monitor data", "梯度监控数据",
			"collect msprobe monitor output (trend.db or CSV) of the anomalous run, or its dump statistics",
			"采集异常运行的 msprobe 监控数据（trend.db 或 CSV）或 dump 统计数据")
		return out
	}
	if s.P1Baseline == nil {
		add("baseline device's monitor data (Phase 2)", "标杆设备的监控数据（Phase 2 用）",
			"monitor (or dump) the baseline device on the same run and steps, and pass it with --baseline; until then Phase 2 is single-device",
			"采集标杆设备同一训练、同一 step 的监控（或 dump）数据，用 --baseline 传入；在此之前 Phase 2 为单设备判定")
	}
	if s.P2 == nil { // saved results without Phase 2
		add("Phase 2 result", "Phase 2 结果",
			"run spikescope select --phase1 P1.json and pass its output with --phase2, or report on the data path itself",
			"运行 spikescope select --phase1 P1.json 并用 --phase2 传入其输出，或直接对数据路径生成报告")
		return out
	}
	step, rank, ok := s.rootStepRank()
	if !ok && len(s.P1.Anomalies) == 0 && s.In.Pin == nil {
		// No anomaly is a conclusion, not missing data: nothing to trace.
		return out
	}
	if !ok && s.A == nil && s.P3 == nil {
		add("root-cause coordinate", "根因坐标",
			"no coordinate was selected: pin one (--pin opt=N,rank=R,param=NAME) to go on to Phase 3",
			"未选出坐标：用 --pin opt=N,rank=R,param=NAME 指定坐标后进入 Phase 3")
		return out
	}
	at := fmt.Sprintf("step %d on rank %d", step, rank)
	zhAt := fmt.Sprintf("step %d、rank %d", step, rank)
	switch {
	case s.P3 != nil && s.A == nil:
		// Results read from JSON: only the control group can be judged.
		if s.P3.Degraded {
			s.addControl(&out, step, rank)
		}
		return out
	case s.ATree == nil:
		next := "dump A at " + at + " on the anomalous device and B at the same step and rank on the baseline device (--dump-a, --dump-b)"
		zhNext := "在异常设备 " + zhAt + " 采集 dump A，并在标杆设备同 step 同 rank 采集 dump B（--dump-a、--dump-b）"
		if s.Monitor != nil && s.Monitor.Format == model.FormatTrendDB {
			// data2db re-bases steps to 0: the training step is the
			// run's first recorded step plus this one.
			next += "; a trend.db counts optimizer steps from the first recorded step (data2db re-bases them to 0): add the run's first monitored training step to get the dump step"
			zhNext += "；trend.db 的 optimizer step 从首个记录的 step 起算（data2db 重置为 0）：dump 的 step 需加上监控起始的训练 step"
		}
		if en, zh := stageControlAdvice(s.P1, rank); en != "" {
			next += "; " + en
			zhNext += "；" + zh
		}
		add("dump statistics (Phase 3 not run)", "dump 统计数据（Phase 3 未运行）", next, zhNext)
		return out
	case s.A == nil && s.StepOffset != nil:
		ds := step + *s.StepOffset
		add("dump A at the root-cause coordinate", "根因坐标处的 dump A",
			fmt.Sprintf("%s has no dump at step %d on rank %d (optimizer step %d, dump steps = optimizer steps %+d by gradient norms; steps %s): dump that step and rank, or choose A with --step/--rank", s.ATree.Path, ds, rank, step, *s.StepOffset, model.JoinInts(s.ATree.Steps(), ", ")),
			fmt.Sprintf("%s 中没有 step %d、rank %d 的 dump（即 optimizer step %d，按梯度范数 dump step = optimizer step %+d；已有 step %s）：采集该 step/rank，或用 --step/--rank 指定 A", s.ATree.Path, ds, rank, step, *s.StepOffset, model.JoinInts(s.ATree.Steps(), ", ")))
		return out
	case s.A == nil:
		add("dump A at the root-cause coordinate", "根因坐标处的 dump A",
			fmt.Sprintf("%s has no dump at %s (steps %s): dump that step and rank, or choose A with --step/--rank; check that dump step numbers are optimizer steps", s.ATree.Path, at, model.JoinInts(s.ATree.Steps(), ", ")),
			fmt.Sprintf("%s 中没有 %s 的 dump（已有 step %s）：采集该 step/rank，或用 --step/--rank 指定 A；请确认 dump 的 step 编号即 optimizer step", s.ATree.Path, zhAt, model.JoinInts(s.ATree.Steps(), ", ")))
		return out
	}
	dstep := step // the root step in dump steps
	if s.StepOffset != nil {
		dstep += *s.StepOffset
	}
	if ok && (s.In.StepA == nil || s.In.RankA == nil) && (s.A.Step >= 0 && s.A.Step != dstep || s.A.Rank != rank) {
		// A single dump given as A that is not at the root coordinate: the
		// step correspondence is unclear, the user must confirm (seed 用户交互).
		add("confirmation: A is not at the root-cause coordinate", "待确认: A 不在根因坐标处",
			fmt.Sprintf("A is the dump of step %d rank %d, the root cause is at %s: confirm that dump steps are optimizer steps, or dump %s", s.A.Step, s.A.Rank, at, at),
			fmt.Sprintf("A 为 step %d、rank %d 的 dump，根因坐标为 %s：请确认 dump 的 step 编号即 optimizer step，或采集 %s 的 dump", s.A.Step, s.A.Rank, zhAt, zhAt))
	}
	aAt := fmt.Sprintf("step %d on rank %d", s.A.Step, s.A.Rank)
	zhAAt := fmt.Sprintf("step %d、rank %d", s.A.Step, s.A.Rank)
	if s.B == nil && s.ComparedWithC {
		add("baseline dump B (Phase 3 compared A with C instead)", "标杆 dump B（Phase 3 以 C 代替 B 与 A 对比）",
			"dump "+aAt+" on the baseline device (--dump-b), and C's step and rank too, to separate device bias and data differences",
			"在标杆设备采集 "+zhAAt+" 的 dump（--dump-b），并采集 C 同 step 同 rank 的 dump，以区分设备偏差与数据差异")
		return out
	}
	if s.B == nil {
		add("baseline dump B (Phase 3 not run)", "标杆 dump B（Phase 3 未运行）",
			"dump "+aAt+" on the baseline device (--dump-b)",
			"在标杆设备采集 "+zhAAt+" 的 dump（--dump-b）")
	}
	if s.C == nil || s.D == nil {
		s.addControl(&out, s.A.Step, s.A.Rank)
	}
	return out
}

// addControl adds the missing control group (or its D) with where to dump it.
func (s *Session) addControl(out *[]model.Missing, step, rank int) {
	opt := step // step is a dump step: the Phase 1 candidates count optimizer steps
	if s.StepOffset != nil {
		opt -= *s.StepOffset
	}
	cr := analysis.SuggestControlRank(s.P1, opt, rank)
	next := "dump C and D at step " + strconv.Itoa(step)
	zhNext := "在 step " + strconv.Itoa(step)
	if cr >= 0 {
		next += " on rank " + strconv.Itoa(cr)
		zhNext += "、rank " + strconv.Itoa(cr)
	} else {
		next += " on a rank that is no Phase 1 candidate"
		zhNext += "、一个不在 Phase 1 候选中的 rank"
	}
	next += " (anomalous and baseline device; --dump-c, --dump-d), or choose a normal sample in the TUI"
	zhNext += " 采集 C 与 D（异常侧与标杆侧；--dump-c、--dump-d），或在 TUI 中指定正常样本"
	what, zhWhat := "control group C/D", "对照组 C/D"
	switch {
	case s.C != nil:
		what, zhWhat = "D (C's baseline)", "D（C 的标杆）"
		next = fmt.Sprintf("dump step %d on rank %d on the baseline device (--dump-d)", s.C.Step, s.C.Rank)
		zhNext = fmt.Sprintf("在标杆设备采集 step %d、rank %d 的 dump（--dump-d）", s.C.Step, s.C.Rank)
	case s.Control.Reason != "":
		what += ": " + s.Control.Reason
		zh := s.Control.Reason
		if s.Control.Why != nil {
			zh = words.Say(s.Control.Why, words.Chinese)
		}
		zhWhat += ": " + zh
	}
	*out = append(*out, model.Missing{What: what, ZhWhat: zhWhat, Next: next, ZhNext: zhNext})
}

// FromResults is a session made of saved results (`report --phase1 …`):
// no data is loaded; Missing says what the results lack.
func FromResults(in Inputs, p1, p1Baseline *model.Phase1Result, p2 *model.Phase2Result, p3 *model.Phase3Result) *Session {
	s := &Session{In: in, P1: p1, P1Baseline: p1Baseline, P2: p2, P3: p3}
	if p3 != nil {
		s.Control.Reason = p3.ControlChoice
		if p3.Conclusion == nil {
			p3.Conclusion = analysis.ConcludePhase3(p3)
		}
	}
	s.judge()
	s.Missing = s.missing()
	return s
}
