package words

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/model"
)

// Missing fills each item's What/ZhWhat and Next/ZhNext from its reasons
// (both languages: the JSON keeps both). An item without reasons (read
// back from a saved result) is kept.
func Missing(ms []model.Missing) {
	for i := range ms {
		m := &ms[i]
		if m.WhatReason != nil {
			m.What, m.ZhWhat = Say(m.WhatReason, English), Say(m.WhatReason, Chinese)
		}
		if m.NextReason != nil {
			m.Next, m.ZhNext = Say(m.NextReason, English), Say(m.NextReason, Chinese)
		}
	}
}

// missingWhat is each kind's label (en, zh).
var missingWhat = map[string][2]string{
	model.MissingMonitor:         {"gradient monitor data", "梯度监控数据"},
	model.MissingBaselineMonitor: {"baseline device's monitor data (Phase 2)", "标杆设备的监控数据（Phase 2 用）"},
	model.MissingPhase2:          {"Phase 2 result", "Phase 2 结果"},
	model.MissingCoordinate:      {"root-cause coordinate", "根因坐标"},
	model.MissingDumps:           {"dump statistics (Phase 3 not run)", "dump 统计数据（Phase 3 未运行）"},
	model.MissingDumpA:           {"dump A at the root-cause coordinate", "根因坐标处的 dump A"},
	model.MissingConfirmA:        {"confirmation: A is not at the root-cause coordinate", "待确认: A 不在根因坐标处"},
	model.MissingDumpBWithC:      {"baseline dump B (Phase 3 compared A with C instead)", "标杆 dump B（Phase 3 以 C 代替 B 与 A 对比）"},
	model.MissingDumpB:           {"baseline dump B (Phase 3 not run)", "标杆 dump B（Phase 3 未运行）"},
	model.MissingControl:         {"control group C/D", "对照组 C/D"},
	model.MissingControlD:        {"D (C's baseline)", "D（C 的标杆）"},
}

// atStep is "step 5 on rank 2" (Chinese "step 5、rank 2").
func atStep(step, rank int, zh bool) string {
	return pick(zh, fmt.Sprintf("step %d on rank %d", step, rank), fmt.Sprintf("step %d、rank %d", step, rank))
}

func init() {
	register(func(r model.MissingWhat, zh bool) string {
		w, ok := missingWhat[r.Kind]
		if !ok { // not a kind of package model's: say it is data
			w = [2]string{strings.TrimSpace("data " + r.Kind), strings.TrimSpace("数据 " + r.Kind)}
		}
		s := pick(zh, w[0], w[1])
		if r.Kind == model.MissingControl && r.WhyText != "" {
			// the English text is the one the control choice kept
			why := r.WhyText
			if zh && r.Why != nil {
				why = Say(r.Why, Chinese)
			}
			s += ": " + why
		}
		return s
	})
	register(func(_ model.NextMonitor, zh bool) string {
		return pick(zh, "collect msprobe monitor output (trend.db or CSV) of the anomalous run, or its dump statistics",
			"采集异常运行的 msprobe 监控数据（trend.db 或 CSV）或 dump 统计数据")
	})
	register(func(_ model.NextBaselineMonitor, zh bool) string {
		return pick(zh, "monitor (or dump) the baseline device on the same run and steps, and pass it with --baseline; until then Phase 2 is single-device",
			"采集标杆设备同一训练、同一 step 的监控（或 dump）数据，用 --baseline 传入；在此之前 Phase 2 为单设备判定")
	})
	register(func(_ model.NextPhase2, zh bool) string {
		return pick(zh, "run spikescope select --phase1 P1.json and pass its output with --phase2, or report on the data path itself",
			"运行 spikescope select --phase1 P1.json 并用 --phase2 传入其输出，或直接对数据路径生成报告")
	})
	register(func(_ model.NextPin, zh bool) string {
		return pick(zh, "no coordinate was selected: pin one (--pin opt=N,rank=R,param=NAME) to go on to Phase 3",
			"未选出坐标：用 --pin opt=N,rank=R,param=NAME 指定坐标后进入 Phase 3")
	})
	register(func(r model.NextDumpsAB, zh bool) string {
		at := atStep(r.Step, r.Rank, zh)
		s := pick(zh, "dump A at "+at+" on the anomalous device and B at the same step and rank on the baseline device (--dump-a, --dump-b)",
			"在异常设备 "+at+" 采集 dump A，并在标杆设备同 step 同 rank 采集 dump B（--dump-a、--dump-b）")
		if r.TrendDB {
			// data2db re-bases steps to 0: the training step is the
			// run's first recorded step plus this one.
			s += pick(zh, "; a trend.db counts optimizer steps from the first recorded step (data2db re-bases them to 0): add the run's first monitored training step to get the dump step",
				"；trend.db 的 optimizer step 从首个记录的 step 起算（data2db 重置为 0）：dump 的 step 需加上监控起始的训练 step")
		}
		if len(r.StageRanks) > 0 {
			list := model.JoinInts(r.StageRanks, ", ")
			if r.More {
				list += ", …"
			}
			s += pick(zh, fmt.Sprintf("; rank %d is on pipeline stage %d of %d: dump the control group on another rank of that stage (%s), which holds the same layers", r.Rank, r.Stage, r.Stages, list),
				fmt.Sprintf("；rank %d 位于 pipeline stage %d（共 %d 个）：对照组请在同一 stage 的其他 rank（%s）采集，它们持有相同的层", r.Rank, r.Stage, r.Stages, list))
		}
		return s
	})
	register(func(r model.NextDumpAOffset, zh bool) string {
		steps := model.JoinInts(r.Steps, ", ")
		return pick(zh, fmt.Sprintf("%s has no dump at step %d on rank %d (optimizer step %d, dump steps = optimizer steps %+d by gradient norms; steps %s): dump that step and rank, or choose A with --step/--rank", r.Path, r.DumpStep, r.Rank, r.OptStep, r.Offset, steps),
			fmt.Sprintf("%s 中没有 step %d、rank %d 的 dump（即 optimizer step %d，按梯度范数 dump step = optimizer step %+d；已有 step %s）：采集该 step/rank，或用 --step/--rank 指定 A", r.Path, r.DumpStep, r.Rank, r.OptStep, r.Offset, steps))
	})
	register(func(r model.NextDumpA, zh bool) string {
		steps := model.JoinInts(r.Steps, ", ")
		return pick(zh, fmt.Sprintf("%s has no dump at %s (steps %s): dump that step and rank, or choose A with --step/--rank; check that dump step numbers are optimizer steps", r.Path, atStep(r.Step, r.Rank, false), steps),
			fmt.Sprintf("%s 中没有 %s 的 dump（已有 step %s）：采集该 step/rank，或用 --step/--rank 指定 A；请确认 dump 的 step 编号即 optimizer step", r.Path, atStep(r.Step, r.Rank, true), steps))
	})
	register(func(r model.NextConfirmA, zh bool) string {
		at := atStep(r.Step, r.Rank, zh)
		return pick(zh, fmt.Sprintf("A is the dump of step %d rank %d, the root cause is at %s: confirm that dump steps are optimizer steps, or dump %s", r.AStep, r.ARank, at, at),
			fmt.Sprintf("A 为 step %d、rank %d 的 dump，根因坐标为 %s：请确认 dump 的 step 编号即 optimizer step，或采集 %s 的 dump", r.AStep, r.ARank, at, at))
	})
	register(func(r model.NextDumpBWithC, zh bool) string {
		at := atStep(r.Step, r.Rank, zh)
		return pick(zh, "dump "+at+" on the baseline device (--dump-b), and C's step and rank too, to separate device bias and data differences",
			"在标杆设备采集 "+at+" 的 dump（--dump-b），并采集 C 同 step 同 rank 的 dump，以区分设备偏差与数据差异")
	})
	register(func(r model.NextDumpB, zh bool) string {
		at := atStep(r.Step, r.Rank, zh)
		return pick(zh, "dump "+at+" on the baseline device (--dump-b)", "在标杆设备采集 "+at+" 的 dump（--dump-b）")
	})
	register(func(r model.NextControl, zh bool) string {
		step := strconv.Itoa(r.Step)
		if zh {
			where := "、一个不在 Phase 1 候选中的 rank"
			if r.ControlRank >= 0 {
				where = "、rank " + strconv.Itoa(r.ControlRank)
			}
			return "在 step " + step + where + " 采集 C 与 D（异常侧与标杆侧；--dump-c、--dump-d），或在 TUI 中指定正常样本"
		}
		where := " on a rank that is no Phase 1 candidate"
		if r.ControlRank >= 0 {
			where = " on rank " + strconv.Itoa(r.ControlRank)
		}
		return "dump C and D at step " + step + where + " (anomalous and baseline device; --dump-c, --dump-d), or choose a normal sample in the TUI"
	})
	register(func(r model.NextControlD, zh bool) string {
		return pick(zh, fmt.Sprintf("dump step %d on rank %d on the baseline device (--dump-d)", r.Step, r.Rank),
			fmt.Sprintf("在标杆设备采集 step %d、rank %d 的 dump（--dump-d）", r.Step, r.Rank))
	})
}
