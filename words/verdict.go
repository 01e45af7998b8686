package words

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spikescope/model"
)

// The verdict's sentences: its evidence, its action and the data that
// would decide an undetermined cause (model/reasons_verdict.go).

// Verdict fills v's texts (each evidence item's Text, Action, Decide) in l
// from their reasons, where the reasons are there (a verdict read back
// from a saved JSON has only its texts).
func Verdict(v *model.Verdict, l Lang) {
	if v == nil {
		return
	}
	for i := range v.Evidence {
		if r := v.Evidence[i].Reason; r != nil {
			v.Evidence[i].Text = Say(r, l)
		}
	}
	fill(&v.Action, v.ActionReason, l)
	fill(&v.Decide, v.DecideReason, l)
}

// Evidence is a verdict's evidence item in l: from its reason, or rebuilt
// from its rule and numbers when read back from a saved JSON; its text
// when the rule is unknown.
func Evidence(e *model.Evidence, l Lang) string {
	if r := model.EvidenceReasonOf(e); r != nil {
		return Say(r, l)
	}
	return e.Text
}

// Action is a verdict's action in l: from its reason, or rebuilt from its
// action id and place when read back from a saved JSON and said in
// Chinese (the data that decides a "collect" then taken as both the
// baseline monitor and the dumps); its text otherwise.
func Action(v *model.Verdict, l Lang) string {
	r := v.ActionReason
	if r == nil && l != Chinese && v.Action != "" {
		return v.Action // said in English when saved
	}
	if r == nil {
		d := model.Decide{BaselineMonitor: v.Decide != "", Dumps: v.Decide != "", Spot: model.SpotOf(v.Coordinate)}
		r = model.ActionReasonOf(v, d)
	}
	if r == nil {
		return v.Action
	}
	return Say(r, l)
}

// Decide is the data that would decide v's cause in l ("" when none).
func Decide(v *model.Verdict, l Lang) string {
	if v.DecideReason != nil {
		return Say(v.DecideReason, l)
	}
	return v.Decide
}

func g3(x float64) string { return model.FormatG(x, 3) }

// spot is an action's coordinate: "step 5, rank 3, micro step 2".
func spot(s model.VerdictSpot) string {
	if !s.Has {
		return ""
	}
	w := fmt.Sprintf("step %d, rank %d", s.Step, s.Rank)
	if s.MicroStep != nil {
		w += fmt.Sprintf(", micro step %d", *s.MicroStep)
	}
	return w
}

// loc is an action's Phase 3 place, or the root coordinate when none.
func loc(l model.VerdictLoc, zh bool) string {
	if l.Has {
		if p := LocPhrase(l.Direction, l.Layer, l.Operator, lang(zh)); p != "" {
			return p
		}
	}
	return pick(zh, "the root coordinate", "根因坐标")
}

func init() {
	register(func(r model.EvidenceDeviceSpecific, zh bool) string {
		if math.IsInf(r.Ratio, 1) {
			return pick(zh, fmt.Sprintf("device-specific: rank %d, step %d, %s is anomalous here and the baseline device has no anomaly on it", r.Rank, r.Step, r.Parameter),
				fmt.Sprintf("设备特异: rank %d, step %d, %s 在本设备异常，标杆设备同参数无异常", r.Rank, r.Step, r.Parameter))
		}
		if math.IsNaN(r.Ratio) || math.IsInf(r.Ratio, -1) { // a NaN/Inf gradient against a finite one has no ratio to say
			return pick(zh, fmt.Sprintf("device-specific: rank %d, step %d, %s is NaN/Inf here and finite on the baseline device", r.Rank, r.Step, r.Parameter),
				fmt.Sprintf("设备特异: rank %d, step %d, %s 在本设备为 NaN/Inf，标杆设备为有限值", r.Rank, r.Step, r.Parameter))
		}
		return pick(zh, fmt.Sprintf("device-specific: rank %d, step %d, %s is %s× the baseline device's value (threshold %s×)", r.Rank, r.Step, r.Parameter, g3(r.Ratio), g3(r.Threshold)),
			fmt.Sprintf("设备特异: rank %d, step %d, %s 为标杆设备的 %s 倍（阈值 %s 倍）", r.Rank, r.Step, r.Parameter, g3(r.Ratio), g3(r.Threshold)))
	})
	register(func(r model.EvidenceShared, zh bool) string {
		return pick(zh, fmt.Sprintf("shared with the baseline device: all %d candidate(s) of step %d are within %s× of the baseline's same parameter", r.Candidates, r.Step, g3(r.Threshold)),
			fmt.Sprintf("双端共有: step %d 的 %d 个候选与标杆同参数相差不到 %s 倍", r.Step, r.Candidates, g3(r.Threshold)))
	})
	register(func(r model.EvidenceSharedNonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("non-finite on both devices at the same coordinate: %d NaN/Inf candidate(s) at step %d on %d rank(s)", r.Candidates, r.Step, r.Ranks),
			fmt.Sprintf("双端同一坐标均为非有限值: step %d, %d 个 rank 上 %d 个 NaN/Inf 候选", r.Step, r.Ranks, r.Candidates))
	})
	register(func(r model.EvidenceRunWideGrowth, zh bool) string {
		return pick(zh, fmt.Sprintf("growth on most ranks: %d of %d ranks at step %d (≥ %s%%), %d event(s), none limited to one rank", r.Ranks, r.RanksTotal, r.Step, g3(r.Share), r.Events),
			fmt.Sprintf("多数 rank 增长: step %d 上 %d/%d 个 rank（≥ %s%%），共 %d 个事件，无单 rank 起点", r.Step, r.Ranks, r.RanksTotal, g3(r.Share), r.Events))
	})
	register(func(r model.EvidenceExtent, zh bool) string {
		s := pick(zh, fmt.Sprintf("extent at step %d: %d of %d ranks, %d of about %d parameters a rank holds", r.Step, r.Ranks, r.RanksTotal, r.Parameters, r.ParametersPerRank),
			fmt.Sprintf("step %d 的范围: %d/%d 个 rank，每 rank 约 %d 个参数中 %d 个", r.Step, r.Ranks, r.RanksTotal, r.ParametersPerRank, r.Parameters))
		switch r.Looks() {
		case model.CauseDynamics:
			s += pick(zh, " — most ranks at once: looks like training dynamics", " — 多数 rank 同时出现: 像训练动态")
		case model.CauseData:
			s += pick(zh, " — most parameters of the rank at once: looks like data (a bad batch raises every gradient of its rank)", " — 该 rank 大部分参数同时异常: 像数据（坏 batch 抬高其 rank 的全部梯度）")
		case model.CauseDevice:
			s += pick(zh, " — a few parameters on one rank: looks like a device fault (a kernel or the device)", " — 单 rank 少数参数: 像设备故障（算子或设备）")
		}
		return s
	})
	register(func(r model.EvidenceNonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("NaN/Inf at step %d on %d of %d ranks, one device analysed", r.Step, r.Ranks, r.RanksTotal),
			fmt.Sprintf("step %d 上 %d/%d 个 rank 出现 NaN/Inf（仅一个设备的数据）", r.Step, r.Ranks, r.RanksTotal))
	})
	register(func(r model.EvidenceParamUndecided, zh bool) string {
		return pick(zh, fmt.Sprintf("the parameter does not locate the origin: %d parameters of rank %d at once", r.Parameters, r.Rank),
			fmt.Sprintf("参数不定位根因: rank %d 的 %d 个参数同时异常", r.Rank, r.Parameters))
	})
	register(func(r model.EvidenceRecurs, zh bool) string {
		return pick(zh, fmt.Sprintf("rank %d is the origin of %d device-specific events", r.Rank, r.Events),
			fmt.Sprintf("rank %d 是 %d 个设备特异事件的起点", r.Rank, r.Events))
	})
	register(func(r model.EvidenceP3Divergence, zh bool) string {
		l := pick(zh, "outside the layers", "各层之外")
		if r.Layer != nil {
			l = "L" + strconv.Itoa(*r.Layer)
		}
		s := pick(zh, fmt.Sprintf("Phase 3: A diverges from B %s at %s", DirWord(r.Direction, English), l),
			fmt.Sprintf("Phase 3: A 相对 B 在%s %s 开始偏离", DirWord(r.Direction, Chinese), l))
		if r.Operator != "" {
			s += pick(zh, ", first operator "+r.Operator, "，首个算子 "+r.Operator)
		}
		if r.Band != nil {
			s += pick(zh, fmt.Sprintf(" (beyond the control band ±%s)", g3(*r.Band)), fmt.Sprintf("（超出对照带 ±%s）", g3(*r.Band)))
		}
		if r.Degraded {
			s += pick(zh, "; no control group: the band comes from A/B itself", "；无对照组: 阈值带来自 A/B 自身")
		}
		return s
	})
	register(func(r model.EvidenceP3NonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("Phase 3: %s is where A first turns NaN/Inf while B stays finite", r.Operator),
			fmt.Sprintf("Phase 3: %s 是 A 首次出现 NaN/Inf 而 B 仍有限的位置", r.Operator))
	})
	register(func(r model.EvidenceP3Consistent, zh bool) string {
		return pick(zh, fmt.Sprintf("Phase 3: A and B agree on all %d compared layer(s) (no layer beyond the band)", r.Layers),
			fmt.Sprintf("Phase 3: A 与 B 在全部 %d 个比较层上一致（无超带层）", r.Layers))
	})
	register(func(_ model.EvidenceP3AgainstC, zh bool) string {
		return pick(zh, "Phase 3 compared A with a normal sample of its own device (no baseline dump): a divergence there may be the data of the two samples",
			"Phase 3 以本设备的正常样本代替标杆（无标杆 dump）: 偏离可能来自两个样本的数据差异")
	})
	register(func(r model.EvidenceDataFeature, zh bool) string {
		return pick(zh, "the input shapes differ between the groups and the baseline shows the same difference: "+r.Detail,
			"各组输入形状不同，标杆侧有同样的差异: "+r.Detail)
	})
	register(func(_ model.EvidenceConflict, zh bool) string {
		return pick(zh, "the monitor data calls the root device-specific, the dumps of A and B agree: the dumps may be of another step",
			"监控数据判定设备特异，而 A/B dump 一致: dump 可能不是该 step")
	})

	register(func(r model.ActionKernelOwner, zh bool) string {
		return pick(zh, "hand "+loc(r.Loc, zh)+" ("+spot(r.Spot)+") to the kernel/hardware owner; confirm with a tensor dump of that step and rank on both devices (msprobe task tensor, level L1 or mix) and msprobe compare",
			"将 "+loc(r.Loc, zh)+"（"+spot(r.Spot)+"）交给算子/硬件负责人；在该 step 与 rank 上对两设备做 tensor 级 dump（msprobe level L1/mix, task tensor），用 msprobe compare 确认")
	})
	register(func(r model.ActionBadDevice, zh bool) string {
		return pick(zh, "the same rank starts several events: check its device/node ("+spot(r.Spot)+") before the kernel; then hand "+loc(r.Loc, zh)+" to the hardware owner",
			"同一 rank 在多个事件中为起点: 检查该 rank 所在的设备/节点（"+spot(r.Spot)+"），再将 "+loc(r.Loc, zh)+" 交给硬件负责人")
	})
	register(func(r model.ActionInspectBatch, zh bool) string {
		return pick(zh, "inspect or skip the batch of "+spot(r.Spot)+": sequence length, padding, unusual tokens, labels",
			"检查或跳过该批数据（"+spot(r.Spot)+"）: 序列长度、padding、异常 token、标签")
	})
	register(func(_ model.ActionRange, zh bool) string {
		return pick(zh, "a range problem: adjust loss scaling (or train in bf16) and clip gradients", "数值范围问题: 调整 loss scaling（或改用 bf16），并设置梯度裁剪")
	})
	register(func(_ model.ActionLR, zh bool) string {
		return pick(zh, "training dynamics: lower the learning rate, lengthen warm-up, or clip gradients", "训练动态: 降低学习率、延长 warm-up，或设置梯度裁剪")
	})
	register(func(r model.ActionCollect, zh bool) string {
		d := ""
		if r.Decide.BaselineMonitor || r.Decide.Dumps {
			d = Say(r.Decide, lang(zh))
		}
		return pick(zh, "collect the data that decides it: ", "收集可判定的数据: ") + d
	})
	register(func(r model.Decide, zh bool) string {
		if !r.BaselineMonitor && !r.Dumps {
			return pick(zh, "no other data would decide it", "没有其他数据可判定")
		}
		var want []string
		if zh {
			if r.BaselineMonitor {
				want = append(want, "标杆设备同样数据、同样 step 的监控（report 的 --baseline 参数）")
			}
			if r.Dumps {
				if w := spot(r.Spot); w != "" {
					want = append(want, "两设备在 "+w+" 的 dump（plan 写出 msprobe 配置）")
				} else {
					want = append(want, "两设备的 dump（plan 写出 msprobe 配置）")
				}
			}
			return strings.Join(want, "，以及")
		}
		if r.BaselineMonitor {
			want = append(want, "the baseline device's monitor of the same steps and data (report PATH --baseline BASELINE)")
		}
		if r.Dumps {
			step := ""
			if s := r.Spot; s.Has {
				step = " at step " + strconv.Itoa(s.Step) + ", rank " + strconv.Itoa(s.Rank)
			}
			want = append(want, "dumps of both devices"+step+" (spikescope plan writes the msprobe config)")
		}
		return strings.Join(want, "; ")
	})
}
