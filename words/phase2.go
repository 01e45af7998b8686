package words

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/model"
)

// Phase 2's sentences (model/reasons_phase2.go). The English ones are
// those the rules wrote before they kept reasons (the JSON, the TUI and
// the English report depend on them byte for byte); the …Brief notes'
// Chinese ones are the reference scripts' reasoning.

// Phase2 fills res's texts from its reasons in l: Mode, Reasoning (its
// notes joined with "; "), Decisions, CrossDeviceVerification, each
// cross-step pair's verdict, each event's baseline_reason and every
// coordinate's parameter_note. A text whose reasons are nil (a result read
// back from JSON) is kept. Default says Mode, Reasoning and the
// cross-device verification in Chinese (the reference scripts' language,
// the drop-in JSON's) except the notes the scripts have no words for, and
// the rest in English.
func Phase2(res *model.Phase2Result, l Lang) {
	if res == nil {
		return
	}
	if res.ModeReason != nil {
		res.Mode = p2SayRef(res.ModeReason, l)
	}
	if res.ReasoningReasons != nil {
		parts := make([]string, len(res.ReasoningReasons))
		for i, r := range res.ReasoningReasons {
			parts[i] = p2SayRef(r, l)
		}
		res.Reasoning = strings.Join(parts, "; ")
	}
	fillAll(&res.Decisions, res.DecisionsReasons, l)
	if res.CrossDeviceVerificationReason != nil {
		res.CrossDeviceVerification = p2SayRef(res.CrossDeviceVerificationReason, l)
	}
	for i := range res.CrossStep {
		p := &res.CrossStep[i]
		fill(&p.Verdict, p.VerdictReason, l)
	}
	p2Coordinate(res.RootCauseCoordinate, l)
	p2Coordinate(res.Automatic, l)
	for i := range res.Events {
		e := &res.Events[i]
		fill(&e.BaselineReason, e.BaselineReasonReason, l)
		p2Coordinate(e.Coordinate, l)
	}
}

func p2Coordinate(co *model.Coordinate, l Lang) {
	if co != nil {
		fill(&co.ParameterNote, co.ParameterNoteReason, l)
	}
}

// p2EnglishByDefault are the reasoning notes and verifications the
// reference scripts have no Chinese for: Default keeps them English.
var p2EnglishByDefault = map[string]bool{
	model.P2PinnedBrief{}.Rule():      true,
	model.P2PinnedUnverified{}.Rule(): true,
}

// p2SayRef says r in l, Default in the reference scripts' Chinese.
func p2SayRef(r model.Reason, l Lang) string {
	if l == Default && r != nil && !p2EnglishByDefault[r.Rule()] {
		l = Chinese
	}
	return Say(r, l)
}

// pct is a share in percent as the rules print it.
func p2pct(share float64) string { return fmt.Sprintf("%.0f%%", 100*share) }

// kindWords says a data kind; window is the accumulation window (with one
// micro step per optimizer step nothing accumulates: each micro step's
// gradient is the whole step's).
func p2KindWords(kind string, window int, zh bool) string {
	switch {
	case kind == "micro_step" && window == 1:
		return pick(zh, "micro-step data with one micro step per optimizer step (window 1: no accumulation, each gradient is the whole step's)",
			"micro step 数据，每个 optimizer step 一个 micro step（窗口 1：无累积，每个梯度即整步的梯度）")
	case kind == "micro_step":
		return pick(zh, "micro-step data (cumulative gradients per micro step)", "micro step 数据（每个 micro step 的累积梯度）")
	case kind == "step":
		return pick(zh, "step-level data (one gradient per step)", "step 级数据（每 step 一个梯度）")
	case kind == "dump":
		return pick(zh, "dump statistics (parameter gradients)", "dump 统计数据（参数梯度）")
	}
	return kind + pick(zh, " data", " 数据")
}

// extentWords is an event's extent in words.
func p2ExtentWords(x string, zh bool) string {
	switch x {
	case "one-rank-few":
		return pick(zh, "a few parameters of one rank", "单个 rank 的少数参数")
	case "few-ranks-all":
		return pick(zh, "most parameters of few ranks", "少数 rank 的大部分参数")
	case "run-wide":
		return pick(zh, "most ranks", "大多数 rank")
	case "partial":
		return pick(zh, "a few parameters of a few ranks", "少数 rank 的少数参数")
	case "not judged":
		return pick(zh, "one dumped step (extent not judged)", "单个 dump step（范围未判定）")
	}
	return x
}

// baselineWord is an event's or candidate's label against the baseline.
func p2BaselineWord(b string, zh bool) string {
	if !zh {
		return b
	}
	switch b {
	case "shared":
		return "双端共有"
	case "device-specific":
		return "设备特异"
	}
	return b
}

// microText is prefix + the micro step, or "" without one.
func p2Micro(m *int, prefix string) string {
	if m == nil {
		return ""
	}
	return prefix + strconv.Itoa(*m)
}

func p2LastSegment(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

func init() {
	register(func(r model.P2Mode, zh bool) string {
		if r.Baseline {
			return pick(zh, "NPU (+GPU baseline)", "NPU (+GPU 标杆)")
		}
		return pick(zh, "single device", "单设备")
	})
	register(func(r model.P2NoPhase1, zh bool) string {
		return pick(zh, "no Phase 1 result given: nothing to choose", "未给出 Phase 1 结果：无从选择")
	})
	register(func(r model.P2NoPhase1Brief, zh bool) string {
		return pick(zh, "no Phase 1 result", "无 Phase 1 结果")
	})
	register(func(r model.P2DataKind, zh bool) string {
		return pick(zh, fmt.Sprintf("%s; thresholds: growth %.2f×, rank share %.0f%%, device ratio %.2f×, at least %d ranks common to both steps of a pair",
			p2KindWords(r.Kind, r.Window, false), r.Growth, 100*r.RankShare, r.DeviceRatio, r.MinCommon),
			fmt.Sprintf("%s；阈值：增长 %.2f×，rank 占比 %s，设备比 %.2f×，一对 step 两端至少 %d 个共同 rank",
				p2KindWords(r.Kind, r.Window, true), r.Growth, p2pct(r.RankShare), r.DeviceRatio, r.MinCommon))
	})
	register(func(r model.P2NoCandidates, zh bool) string {
		return pick(zh, "Phase 1 found no candidate: no root-cause coordinate (nothing anomalous in the data analysed)",
			"Phase 1 没有候选坐标：无根因坐标（所分析的数据中无异常）")
	})
	register(func(r model.P2NoCandidatesBrief, zh bool) string {
		return pick(zh, "Phase 1 found no candidate", "Phase 1 无候选坐标")
	})
	register(func(r model.P2NoCandidateBrief, zh bool) string {
		return pick(zh, "no candidate coordinate", "无候选坐标")
	})
	register(func(r model.P2NoBaselineData, zh bool) string {
		return pick(zh, "no baseline data", "无标杆数据")
	})
	register(func(r model.P2Snapshot, zh bool) string {
		return pick(zh, "single-step dump: no cross-step decision; candidates are every parameter gradient of the step",
			"单 step dump：不做跨 step 判定；候选即该 step 的全部参数梯度")
	})
	register(func(r model.P2SnapshotBrief, zh bool) string {
		return pick(zh, "dump data (a single snapshot): no cross-step decision", "dump 数据（单点快照），跳过跨 step 判定")
	})
	register(func(r model.P2FallbackNonFinite, zh bool) string {
		if zh {
			s := fmt.Sprintf("相邻 step 无达标的一对；首个非有限值（rank %d，%s）在 opt_step %d", r.Rank, r.Target, r.Step)
			if r.HasDev {
				s += fmt.Sprintf("，早于 opt_step %d 的最大偏离 %.3g×：取最早者", r.DevStep, r.Dev)
			}
			return s
		}
		s := fmt.Sprintf("no qualifying adjacent pair; the first non-finite value (rank %d, %s) is at optimizer step %d", r.Rank, r.Target, r.Step)
		if r.HasDev {
			s += fmt.Sprintf(", earlier than the largest deviation %.3g× at step %d: earliest wins", r.Dev, r.DevStep)
		}
		return s
	})
	register(func(r model.P2FallbackNonFiniteBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("no clear jump across steps; opt_step %d has the first non-finite value (NaN/Inf), earlier than the largest deviation", r.Step),
			fmt.Sprintf("跨 step 梯度无明显跳跃增长；opt_step %d 首次出现非有限值 (NaN/Inf)，早于最大偏离", r.Step))
	})
	register(func(r model.P2FallbackLargest, zh bool) string {
		return pick(zh, fmt.Sprintf("no qualifying adjacent pair: the root is then the step of the largest deviation, %.3g× (rank %d, %s) at optimizer step %d", r.Dev, r.Rank, r.Target, r.Step),
			fmt.Sprintf("相邻 step 无达标的一对：根因取最大偏离所在的 step，%.3g×（rank %d，%s）在 opt_step %d", r.Dev, r.Rank, r.Target, r.Step))
	})
	register(func(r model.P2FallbackLargestBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("no clear jump across steps: the opt_step of the largest deviation, %d", r.Step),
			fmt.Sprintf("跨 step 梯度无明显跳跃增长，取异常偏离最大的 opt_step %d", r.Step))
	})
	register(func(r model.P2Persisting, zh bool) string {
		return pick(zh, fmt.Sprintf("the same rank and parameter is a candidate at every optimizer step from %d to %d: one persisting anomaly, which starts at step %d (earliest wins)", r.From, r.To, r.From),
			fmt.Sprintf("同一 rank 与参数在 opt_step %d 到 %d 的每一步都是候选：是一个持续的异常，始于 opt_step %d（取最早者）", r.From, r.To, r.From))
	})
	register(func(r model.P2PersistingBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("the coordinate (rank %d) is anomalous from opt_step %d on: its start", r.Rank, r.From),
			fmt.Sprintf("该坐标 (rank %d) 自 opt_step %d 起连续异常，取起点", r.Rank, r.From))
	})
	register(func(r model.P2FallbackEarliest, zh bool) string {
		return pick(zh, fmt.Sprintf("no finite deviation: the earliest candidate's step %d", r.Step), fmt.Sprintf("无有限的偏离：取最早候选所在的 opt_step %d", r.Step))
	})
	register(func(r model.P2FallbackEarliestBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("no valid deviation: the earliest opt_step %d", r.Step), fmt.Sprintf("无有效偏离，取最早的 opt_step %d", r.Step))
	})
	register(func(r model.P2NoRootCandidate, zh bool) string {
		return pick(zh, "no candidate in the root step", "根因 step 内无候选")
	})
	register(func(r model.P2NoBaselinePickBrief, zh bool) string {
		where := fmt.Sprintf("step=%d", r.Step)
		if r.Micro != nil {
			where = fmt.Sprintf("ms=%d", *r.Micro)
		}
		if r.NonFinite {
			return pick(zh, fmt.Sprintf("no baseline: the earliest non-finite value (rank=%d %s)", r.Rank, where),
				fmt.Sprintf("无标杆，取最早的非有限值 (rank=%d %s)", r.Rank, where))
		}
		return pick(zh, fmt.Sprintf("no baseline: the largest deviation from its own baseline (rank=%d %s, %.3g×)", r.Rank, where, r.Dev),
			fmt.Sprintf("无标杆，取偏离自身基线最大者 (rank=%d %s, %.3g×)", r.Rank, where, r.Dev))
	})
	register(func(r model.P2NoBaselinePick, zh bool) string {
		if zh {
			what := fmt.Sprintf("偏离自身基线最大者（%.3g×；Phase 1 在该 step 的首个候选）", r.Dev)
			switch r.Way {
			case model.P2PickNonFinite:
				what = "首个非有限值 (NaN/Inf)"
			case model.P2PickDumpCall:
				what = fmt.Sprintf("梯度跳变最早的 parameters_grad 调用，其次偏离最大者（%.3g×）", r.Dev)
			case model.P2PickMicro:
				what = fmt.Sprintf("最早的 micro step，其次偏离自身增量最大者（%.3g×；Phase 1 在该 step 的首个候选）", r.Dev)
			}
			return fmt.Sprintf("无标杆：坐标 = 根因 step 的 %d 个候选中%s：%s %.6g，rank %d，%s，step %d%s（从不在大小不同的参数之间比较原始 %s）",
				r.N, what, r.Key, r.Value, r.Rank, r.Target, r.Step, p2Micro(r.Micro, "，micro step "), r.Key)
		}
		what := fmt.Sprintf("the largest deviation from its own baseline (%.3g×; Phase 1's first candidate of the step)", r.Dev)
		switch r.Way {
		case model.P2PickNonFinite:
			what = "the first non-finite value (NaN/Inf)"
		case model.P2PickDumpCall:
			what = fmt.Sprintf("the earliest parameters_grad call where a gradient jumps, then the largest deviation (%.3g×)", r.Dev)
		case model.P2PickMicro:
			what = fmt.Sprintf("the earliest micro step, then the largest deviation from its own increments (%.3g×; Phase 1's first candidate of the step)", r.Dev)
		}
		return fmt.Sprintf("no baseline: coordinate = %s of the root step's %d candidates: %s %.6g at rank %d, %s, step %d%s (never the raw %s across parameters of different sizes)",
			what, r.N, r.Key, r.Value, r.Rank, r.Target, r.Step, p2Micro(r.Micro, ", micro step "), r.Key)
	})
	register(func(r model.P2SpecificNoMatch, zh bool) string {
		if zh {
			also := ""
			if r.MicroData {
				also = "与 micro step "
			}
			return fmt.Sprintf("候选 rank %d %s%s：标杆在同一参数%s上无候选 → 设备特异，选定", r.Rank, r.Target, p2Micro(r.Micro, " micro step "), also)
		}
		also := ""
		if r.MicroData {
			also = " and micro step"
		}
		return fmt.Sprintf("candidate rank %d %s%s: the baseline has no candidate on the same parameter%s → device-specific, selected",
			r.Rank, r.Target, p2Micro(r.Micro, " micro step "), also)
	})
	register(func(r model.P2SpecificNoMatchBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("NPU %s=%.4g (rank=%d), no anomaly on the GPU's same parameter → NPU only", r.Key, r.Value, r.Rank),
			fmt.Sprintf("NPU %s=%.4g (rank=%d), GPU 同参数无异常 → NPU 独有", r.Key, r.Value, r.Rank))
	})
	register(func(r model.P2SpecificRatio, zh bool) string {
		return pick(zh, fmt.Sprintf("candidate rank %d %s%s: %s %.4g vs baseline %.4g (rank %d) = %.2f× ≥ %.2f× → device-specific, selected",
			r.Rank, r.Target, p2Micro(r.Micro, " micro step "), r.Key, r.Value, r.BValue, r.BRank, r.Ratio, r.Threshold),
			fmt.Sprintf("候选 rank %d %s%s：%s %.4g 对标杆 %.4g（rank %d）= %.2f× ≥ %.2f× → 设备特异，选定",
				r.Rank, r.Target, p2Micro(r.Micro, " micro step "), r.Key, r.Value, r.BValue, r.BRank, r.Ratio, r.Threshold))
	})
	register(func(r model.P2SpecificRatioBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("NPU %s=%.4g (rank=%d), GPU %s=%.4g (rank=%d), NPU/GPU=%.1fx ≥ %.1fx → NPU device-specific anomaly",
			r.Key, r.Value, r.Rank, r.Key, r.BValue, r.BRank, r.Ratio, r.Threshold),
			fmt.Sprintf("NPU %s=%.4g (rank=%d), GPU %s=%.4g (rank=%d), NPU/GPU=%.1fx ≥ %.1fx → NPU 设备特异性异常",
				r.Key, r.Value, r.Rank, r.Key, r.BValue, r.BRank, r.Ratio, r.Threshold))
	})
	register(func(r model.P2SharedSkipped, zh bool) string {
		return pick(zh, fmt.Sprintf("candidate rank %d %s%s: %s %.4g vs baseline %.4g = %.2f× < %.2f× → close on both devices (shared), skipped",
			r.Rank, r.Target, p2Micro(r.Micro, " micro step "), r.Key, r.Value, r.BValue, r.Ratio, r.Threshold),
			fmt.Sprintf("候选 rank %d %s%s：%s %.4g 对标杆 %.4g = %.2f× < %.2f× → 两端接近（双端共有），跳过",
				r.Rank, r.Target, p2Micro(r.Micro, " micro step "), r.Key, r.Value, r.BValue, r.Ratio, r.Threshold))
	})
	register(func(r model.P2AllShared, zh bool) string {
		return pick(zh, fmt.Sprintf("every candidate of the root step is close to the baseline (< %.2f×): shared anomaly; coordinate = Phase 1's first candidate of the step (largest deviation from its own baseline, %.3g×), rank %d %s",
			r.Threshold, r.Dev, r.Rank, r.Target),
			fmt.Sprintf("根因 step 的每个候选都与标杆接近（< %.2f×）：双端共有的异常；坐标 = Phase 1 在该 step 的首个候选（偏离自身基线最大，%.3g×），rank %d %s",
				r.Threshold, r.Dev, r.Rank, r.Target))
	})
	register(func(r model.P2AllSharedBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("every coordinate is close on the GPU (shared). Largest deviation: rank=%d (NPU %s %.4g)", r.Rank, r.Key, r.Value),
			fmt.Sprintf("所有坐标 GPU 侧接近 (双端共有)。偏离最大: rank=%d (NPU %s %.4g)", r.Rank, r.Key, r.Value))
	})
	register(func(r model.P2ParamNotLocating, zh bool) string {
		if r.AllNonFinite {
			return pick(zh, fmt.Sprintf("all %d parameters of rank %d that are candidates (of about %d a rank holds) are non-finite at the same step: a NaN/Inf reaches every gradient of the rank in one backward pass, so the parameter does not locate the origin; %s is named only to keep the coordinate (Phase 1's first candidate); the first non-finite layer and operator come from Phase 3 (dumps of this step)",
				r.N, r.Rank, r.PerRank, r.Target),
				fmt.Sprintf("rank %d 上作为候选的全部 %d 个参数（一个 rank 约有 %d 个）在同一 step 均为非有限值：NaN/Inf 在一次反向中传到该 rank 的每个梯度，参数名不定位根因；%s 只为保留坐标而取（Phase 1 的首个候选）；首个非有限的层与算子由 Phase 3（该 step 的 dump）给出",
					r.Rank, r.N, r.PerRank, r.Target))
		}
		return pick(zh, fmt.Sprintf("%d parameters of rank %d (of about %d a rank holds, ≥ %.0f%%) spike together at the same step: the parameter does not locate the origin; %s is named only to keep the coordinate (Phase 1's first candidate); the layer and operator come from Phase 3 (dumps of this step)",
			r.N, r.Rank, r.PerRank, 100*r.Share, r.Target),
			fmt.Sprintf("rank %d 的 %d 个参数（一个 rank 约有 %d 个，≥ %s）在同一 step 同时尖刺：参数名不定位根因；%s 只为保留坐标而取（Phase 1 的首个候选）；层与算子由 Phase 3（该 step 的 dump）给出",
				r.Rank, r.N, r.PerRank, p2pct(r.Share), r.Target))
	})
	register(func(r model.P2ParamNotLocatingBrief, zh bool) string {
		return pick(zh, "the rank's parameters are anomalous together: the parameter name does not locate the origin, see Phase 3",
			"该 rank 的参数同时异常，参数名不定位根因，见 Phase 3")
	})
	register(func(r model.P2NoRankNorms, zh bool) string {
		return pick(zh, "the Phase 1 result has no per-rank final norms of the candidate steps: the cross-step rule cannot be applied",
			"Phase 1 结果没有候选 step 每个 rank 的最终 norm：无法应用跨 step 规则")
	})
	register(func(r model.P2NoRankNormsBrief, zh bool) string {
		return pick(zh, "no basis for a cross-step decision in this data (no target_rank_norms): skipped",
			"该数据类型无跨 step 判定依据 (无 target_rank_norms)，跳过")
	})
	register(func(r model.P2ThresholdsBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("growth threshold: %.2fx, rank share threshold: %.0f%%", r.Growth, 100*r.RankShare),
			fmt.Sprintf("增长阈值: %.2fx, rank 占比阈值: %.0f%%", r.Growth, 100*r.RankShare))
	})
	register(func(r model.P2FewRanks, zh bool) string {
		return pick(zh, fmt.Sprintf("the run has %d rank(s): a pair is judged when all of them are present at both steps (instead of %d common ranks)", r.N, r.Need),
			fmt.Sprintf("该运行只有 %d 个 rank：一对 step 在两端都有这些 rank 时即判定（而非 %d 个共同 rank）", r.N, r.Need))
	})
	register(func(r model.P2RootBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("  → most ranks' gradients grow markedly: the root cause is in opt_step %d", r.Step),
			fmt.Sprintf("  → 大多数 rank 梯度显著增长，根因在 opt_step %d", r.Step))
	})
	register(func(r model.P2PairNoData, zh bool) string {
		return pick(zh, fmt.Sprintf("no data at optimizer step %d: pair not judged", r.Next), fmt.Sprintf("opt_step %d 无数据：该对未判定", r.Next))
	})
	register(func(r model.P2PairOtherParam, zh bool) string {
		return pick(zh, fmt.Sprintf("optimizer step %d lists another parameter (%s): different parameters are not compared", r.Next, r.Other),
			fmt.Sprintf("opt_step %d 列出的是另一个参数（%s）：不同参数不作比较", r.Next, r.Other))
	})
	register(func(r model.P2PairFewRanks, zh bool) string {
		if r.Total == 0 {
			return pick(zh, "no rank has a finite final norm at both steps: not judged", "没有 rank 在两步都有有限的最终 norm：未判定")
		}
		return pick(zh, fmt.Sprintf("only %d ranks with a finite final norm at both steps (needs %d): not judged", r.Total, r.Need),
			fmt.Sprintf("两步都有有限最终 norm 的 rank 仅 %d 个（需 %d 个）：未判定", r.Total, r.Need))
	})
	register(func(r model.P2PairFewRanksBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d → %d: too few common ranks (%d)", r.From, r.To, r.Total),
			fmt.Sprintf("opt_step %d → %d: 重叠 rank 不足 (%d)", r.From, r.To, r.Total))
	})
	register(func(r model.P2PairUnjudged, zh bool) string {
		if zh && r.Why == nil {
			return fmt.Sprintf("opt_step %d → %d（%s）：未判定", r.From, r.To, r.Target)
		}
		return pick(zh, fmt.Sprintf("optimizer step %d → %d (%s): %s", r.From, r.To, r.Target, Say(r.Why, English)),
			fmt.Sprintf("opt_step %d → %d（%s）：%s", r.From, r.To, r.Target, Say(r.Why, Chinese)))
	})
	register(func(r model.P2Pair, zh bool) string {
		d := pick(zh, fmt.Sprintf("optimizer step %d → %d, parameter %s: %d of %d ranks grew ≥ %.2f× (%s, needs ≥ %s)",
			r.From, r.To, r.Target, r.Over, r.Total, r.Growth, p2pct(r.Share), p2pct(r.RankShare)),
			fmt.Sprintf("opt_step %d → %d，参数 %s：%d/%d 个 rank 增长 ≥ %.2f×（%s，需 ≥ %s）",
				r.From, r.To, r.Target, r.Over, r.Total, r.Growth, p2pct(r.Share), p2pct(r.RankShare)))
		if r.HasGrowth {
			d += fmt.Sprintf(pick(zh, "; measured growth median %.3g×, max %.3g×", "；实测增长中位数 %.3g×，最大 %.3g×"), r.Median, r.Max)
		}
		switch r.Outcome {
		case model.P2PairRoot:
			d += fmt.Sprintf(pick(zh, " → qualifies: the root cause is in the earlier step %d (earliest qualifying pair)",
				" → 达标：根因在较早的 opt_step %d（最早达标的一对）"), r.From)
		case model.P2PairLater:
			d += pick(zh, " → qualifies, but an earlier pair already did (propagation)", " → 达标，但更早的一对已达标（传导）")
		default:
			d += pick(zh, " → does not qualify", " → 不达标")
		}
		if r.BaselineGrows != nil {
			if *r.BaselineGrows {
				d += pick(zh, "; the baseline grows too (shared by both devices): this does not move the root step",
					"；标杆同样增长（双端共有）：不改变根因 step")
			} else {
				d += pick(zh, "; the baseline does not grow", "；标杆未增长")
			}
		}
		return d
	})
	register(func(r model.P2PairBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d → %d (%s): %d/%d ranks (%.0f%%) grew their final norm >= %.2fx",
			r.From, r.To, p2LastSegment(r.Target), r.Over, r.Total, 100*r.Share, r.Growth),
			fmt.Sprintf("opt_step %d → %d (%s): %d/%d ranks (%.0f%%) 的最终 norm >= %.2fx 增长",
				r.From, r.To, p2LastSegment(r.Target), r.Over, r.Total, 100*r.Share, r.Growth))
	})
	register(func(r model.P2PairVerdict, zh bool) string {
		switch r.Outcome {
		case model.P2PairRoot:
			return pick(zh, fmt.Sprintf("root cause in optimizer step %d", r.Step), fmt.Sprintf("根因在 opt_step %d", r.Step))
		case model.P2PairLater:
			return pick(zh, fmt.Sprintf("qualifies, but the earlier optimizer step %d already does", r.Step), fmt.Sprintf("达标，但更早的 opt_step %d 已达标", r.Step))
		}
		return pick(zh, "no clear turning point", "无明显转折")
	})
	register(func(r model.P2PollutionUnshowable, zh bool) string {
		return pick(zh, fmt.Sprintf("cannot show pollution (needs micro-step data with a window ≥ %d, window %d)", r.MinWindow, r.Window),
			fmt.Sprintf("无法显示污染（需要窗口 ≥ %d 的 micro step 数据，窗口为 %d）", r.MinWindow, r.Window))
	})
	register(func(r model.P2Pollution, zh bool) string {
		return pick(zh, fmt.Sprintf("start at the first micro-batch and cover > %.0f%% of the %d micro steps on %d of the %d grown ranks (needs ≥ %.0f%%)",
			100*r.Share, r.Window, r.Polluted, r.Grown, 100*r.RankShare),
			fmt.Sprintf("在增长的 %[4]d 个 rank 中有 %[3]d 个从第一个 micro-batch 开始并覆盖 %[2]d 个 micro step 的 > %[1]s（需 ≥ %[5]s）",
				p2pct(r.Share), r.Window, r.Polluted, r.Grown, p2pct(r.RankShare)))
	})
	register(func(r model.P2PrePairInStep, zh bool) string {
		return pick(zh, fmt.Sprintf("optimizer step %d → %d (%s): %d of %d ranks grew ≥ %.2f×, but optimizer step %d has no candidate and step %d's candidates %s: an in-step fault of step %d, the pair is not judged (the root stays at %d)",
			r.Prev, r.Step, r.Target, r.Over, r.Total, r.Growth, r.Prev, r.Step, Say(r.Why, English), r.Step, r.Step),
			fmt.Sprintf("opt_step %d → %d（%s）：%d/%d 个 rank 增长 ≥ %.2f×，但 opt_step %d 无候选，而 opt_step %d 的候选%s：是 opt_step %d 的步内故障，该对不判定（根因仍在 %d）",
				r.Prev, r.Step, r.Target, r.Over, r.Total, r.Growth, r.Prev, r.Step, Say(r.Why, Chinese), r.Step, r.Step))
	})
	register(func(r model.P2PrePairPolluted, zh bool) string {
		return pick(zh, fmt.Sprintf("optimizer step %d has no candidate, but step %d's candidates %s: the weights were polluted before step %d, so the pair %d → %d is judged",
			r.Prev, r.Step, Say(r.Why, English), r.Step, r.Prev, r.Step),
			fmt.Sprintf("opt_step %d 无候选，但 opt_step %d 的候选%s：权重在 opt_step %d 之前已被污染，因此判定 %d → %d 这一对",
				r.Prev, r.Step, Say(r.Why, Chinese), r.Step, r.Prev, r.Step))
	})
	register(func(r model.P2PrePairBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d is raised at every micro step (polluted weights): judging opt_step %d → %d as well", r.Step, r.Prev, r.Step),
			fmt.Sprintf("opt_step %d 各 micro step 普遍抬升 (权重污染)，补判 opt_step %d → %d", r.Step, r.Prev, r.Step))
	})
	register(func(r model.P2PrePairRootBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("  → the root cause moves back to opt_step %d", r.Prev), fmt.Sprintf("  → 根因前移至 opt_step %d", r.Prev))
	})
	register(func(r model.P2PreNoNorm, zh bool) string {
		return pick(zh, fmt.Sprintf("root step %d has no candidate and no finite final norm of %s: no coordinate", r.Step, r.Target),
			fmt.Sprintf("根因 opt_step %d 无候选，%s 也无有限的最终 norm：无坐标", r.Step, r.Target))
	})
	register(func(r model.P2PreNoNormBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d has no candidate and no finite final norm: no coordinate", r.Step),
			fmt.Sprintf("opt_step %d 无候选且无有限的最终 norm，无法给出坐标", r.Step))
	})
	register(func(r model.P2PreCoord, zh bool) string {
		return pick(zh, fmt.Sprintf("root step %d has no candidate (its fault was too weak for Phase 1): coordinate = the rank with the largest final norm of %s at step %d, rank %d (%.6g, %.3g× the ranks' median); micro step unknown",
			r.Step, r.Target, r.Step, r.Rank, r.Norm, r.Dev),
			fmt.Sprintf("根因 opt_step %d 无候选（其故障太弱，Phase 1 未检出）：坐标 = opt_step %d 上 %s 最终 norm 最大的 rank，rank %d（%.6g，为各 rank 中位数的 %.3g×）；micro step 未知",
				r.Step, r.Step, r.Target, r.Rank, r.Norm, r.Dev))
	})
	register(func(r model.P2PreCoordBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d has no candidate: the rank with the parameter's largest final norm, rank=%d (micro step unknown)", r.Step, r.Rank),
			fmt.Sprintf("opt_step %d 无候选，取该参数最终 norm 最大的 rank=%d (micro step 未知)", r.Step, r.Rank))
	})
	register(func(r model.P2PreNoCompare, zh bool) string {
		return pick(zh, "no candidate at the root step: no cross-device comparison of the coordinate", "根因 step 无候选：坐标未做跨设备比对")
	})
	register(func(r model.P2PreNoCompareBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("opt_step %d has no candidate coordinate: no cross-device comparison", r.Step),
			fmt.Sprintf("opt_step %d 无候选坐标，未做跨设备比对", r.Step))
	})
	register(func(r model.P2EventSpecificNoMatch, zh bool) string {
		if zh {
			also := ""
			if r.MicroData {
				also = "与 micro step "
			}
			return fmt.Sprintf("rank %d %s：标杆在该参数%s上无候选", r.Rank, r.Target, also)
		}
		also := ""
		if r.MicroData {
			also = " and micro step"
		}
		return fmt.Sprintf("rank %d %s: the baseline has no candidate on this parameter%s", r.Rank, r.Target, also)
	})
	register(func(r model.P2EventSpecificNonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("rank %d %s: non-finite here, finite on the baseline (%s %.4g)", r.Rank, r.Target, r.Key, r.BValue),
			fmt.Sprintf("rank %d %s：此处为非有限值，标杆上有限（%s %.4g）", r.Rank, r.Target, r.Key, r.BValue))
	})
	register(func(r model.P2EventSpecificRatio, zh bool) string {
		return pick(zh, fmt.Sprintf("rank %d %s: %s %.4g vs the baseline's %.4g = %.2f× ≥ %.2f×", r.Rank, r.Target, r.Key, r.Value, r.BValue, r.Ratio, r.Threshold),
			fmt.Sprintf("rank %d %s：%s %.4g 对标杆的 %.4g = %.2f× ≥ %.2f×", r.Rank, r.Target, r.Key, r.Value, r.BValue, r.Ratio, r.Threshold))
	})
	register(func(r model.P2EventShared, zh bool) string {
		switch {
		case r.All:
			return pick(zh, fmt.Sprintf("all %d candidate(s) are non-finite on the baseline too, at the same step", r.N),
				fmt.Sprintf("全部 %d 个候选在标杆上同一 step 也是非有限值", r.N))
		case r.NonFinite > 0:
			return pick(zh, fmt.Sprintf("all %d candidate(s) are on the baseline too (%d non-finite on both devices, the others within %.2f×)", r.N, r.NonFinite, r.Threshold),
				fmt.Sprintf("全部 %d 个候选在标杆上也有（%d 个两端均为非有限值，其余在 %.2f× 以内）", r.N, r.NonFinite, r.Threshold))
		}
		return pick(zh, fmt.Sprintf("all %d candidate(s) are within %.2f× of the baseline", r.N, r.Threshold),
			fmt.Sprintf("全部 %d 个候选与标杆相差在 %.2f× 以内", r.N, r.Threshold))
	})
	register(func(r model.P2EventsAllShared, zh bool) string {
		return pick(zh, fmt.Sprintf("events: all %d are on the baseline too (shared): the root is the earliest, event 1 at optimizer step %d, labelled shared", r.N, r.Step),
			fmt.Sprintf("事件：全部 %d 个在标杆上也有（双端共有）：根因取最早的事件 1，在 opt_step %d，标为双端共有", r.N, r.Step))
	})
	register(func(r model.P2EventsAllSharedBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("all %d anomaly events are shared: the earliest event, opt_step %d", r.N, r.Step),
			fmt.Sprintf("所有 %d 个异常事件双端共有，取最早的事件 opt_step %d", r.N, r.Step))
	})
	register(func(r model.P2EventsEarliestSpecific, zh bool) string {
		return pick(zh, fmt.Sprintf("events: the root is the earliest device-specific event, event %d at optimizer step %d", r.Event, r.Step),
			fmt.Sprintf("事件：根因取最早的设备特异事件，事件 %d，在 opt_step %d", r.Event, r.Step))
	})
	register(func(r model.P2EventsSpecificMoved, zh bool) string {
		if zh {
			why := fmt.Sprintf("它早于规则最先选出的 opt_step %d（取最早者）", r.Seed)
			if r.SeedShared {
				why = fmt.Sprintf("规则最先选出的 opt_step %d 属于事件 %d，标杆上也有（双端共有）", r.Seed, r.SeedEvent)
			}
			return fmt.Sprintf("事件：根因取最早的设备特异事件，事件 %d，在 opt_step %d：%s；更早的 %d 个双端共有事件仍列出", r.Event, r.Step, why, r.SharedBefore)
		}
		why := fmt.Sprintf("it comes before the step the rules chose first, optimizer step %d (earliest wins)", r.Seed)
		if r.SeedShared {
			why = fmt.Sprintf("the step the rules chose first, optimizer step %d, is in event %d, which the baseline has too (shared)", r.Seed, r.SeedEvent)
		}
		return fmt.Sprintf("events: the root is the earliest device-specific event, event %d at optimizer step %d: %s; %d earlier shared event(s) stay listed", r.Event, r.Step, why, r.SharedBefore)
	})
	register(func(r model.P2EventsSpecificMovedBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("shared events are not the root cause: the earliest device-specific event, opt_step %d", r.Step),
			fmt.Sprintf("双端共有的事件不作根因: 取最早的设备特异事件 opt_step %d", r.Step))
	})
	register(func(r model.P2EventsStepStart, zh bool) string {
		return pick(zh, fmt.Sprintf("events (step-level data): optimizer step %d, the step the rules chose first, belongs to event 1, which starts at optimizer step %d and reaches it: the root is the event's start (earliest, not largest)", r.Seed, r.Step),
			fmt.Sprintf("事件（step 级数据）：规则最先选出的 opt_step %d 属于事件 1，该事件始于 opt_step %d 并传导到它：根因取事件的起点（取最早者，而非最大者）", r.Seed, r.Step))
	})
	register(func(r model.P2EventsStepStartBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("step-level data: opt_step %d belongs to the event that starts at opt_step %d: its start", r.Seed, r.Step),
			fmt.Sprintf("step 级数据: opt_step %d 属于始于 opt_step %d 的事件，取其起点", r.Seed, r.Step))
	})
	register(func(r model.P2EventsStepEarliest, zh bool) string {
		return pick(zh, fmt.Sprintf("events (step-level data, where the cross-step rule does not apply): the root is the earliest event, event 1 at optimizer step %d; the step the rules chose first, optimizer step %d (event %d), stays listed as a later event (earliest, not largest)", r.Step, r.Seed, r.SeedEvent),
			fmt.Sprintf("事件（step 级数据，跨 step 规则不适用）：根因取最早的事件 1，在 opt_step %d；规则最先选出的 opt_step %d（事件 %d）作为更晚的事件仍列出（取最早者，而非最大者）", r.Step, r.Seed, r.SeedEvent))
	})
	register(func(r model.P2EventsStepEarliestBrief, zh bool) string {
		return pick(zh, fmt.Sprintf("step-level data: the earliest anomaly event, opt_step %d (not the largest deviation's opt_step %d)", r.Step, r.Seed),
			fmt.Sprintf("step 级数据: 取最早的异常事件 opt_step %d (而非偏离最大的 opt_step %d)", r.Step, r.Seed))
	})
	register(func(r model.P2EventsStepMany, zh bool) string {
		return pick(zh, fmt.Sprintf("events (step-level data): the root is the earliest of %d events, event 1 at optimizer step %d", r.N, r.Step),
			fmt.Sprintf("事件（step 级数据）：根因取 %d 个事件中最早的事件 1，在 opt_step %d", r.N, r.Step))
	})
	register(func(r model.P2Events, zh bool) string {
		parts := make([]string, len(r.Events))
		for i, e := range r.Events {
			var s string
			if zh {
				s = fmt.Sprintf("%d) opt_step %d，%s（%d/%d 个 rank，%d 个参数）", e.ID, e.Step, p2ExtentWords(e.Extent, true), e.Ranks, e.RanksTotal, e.Parameters)
				if len(e.Into) > 0 {
					s += "，传导到 " + model.JoinInts(e.Into, ", ")
				}
				if e.Baseline != "" {
					s += "，" + p2BaselineWord(e.Baseline, true)
				}
				if e.Cause != "" {
					s += "，原因：" + CauseText(e.Cause, e.Likely, Chinese)
				}
			} else {
				s = fmt.Sprintf("%d) optimizer step %d, %s (%d of %d ranks, %d parameter(s))", e.ID, e.Step, p2ExtentWords(e.Extent, false), e.Ranks, e.RanksTotal, e.Parameters)
				if len(e.Into) > 0 {
					s += ", conducts into " + model.JoinInts(e.Into, ", ")
				}
				if e.Baseline != "" {
					s += ", " + e.Baseline
				}
				if e.Cause != "" {
					s += ", cause " + CauseText(e.Cause, e.Likely, English)
				}
			}
			parts[i] = s
		}
		return pick(zh, fmt.Sprintf("%d independent spike event(s), earliest first: %s", len(r.Events), strings.Join(parts, "; ")),
			fmt.Sprintf("%d 个独立尖刺事件，按时间最早排序：%s", len(r.Events), strings.Join(parts, "；")))
	})
	register(func(r model.P2PinAgrees, zh bool) string {
		if zh {
			where := fmt.Sprintf("step %d", r.Step)
			if r.Micro != nil {
				where = fmt.Sprintf("step %d（opt_step %d，micro step %d）", r.Step, r.OptStep, *r.Micro)
			}
			return fmt.Sprintf("指定坐标与 Phase 1 的候选一致：rank %d %s，%s", r.Rank, r.Target, where)
		}
		where := fmt.Sprintf("step %d", r.Step)
		if r.Micro != nil {
			where = fmt.Sprintf("step %d (optimizer step %d, micro step %d)", r.Step, r.OptStep, *r.Micro)
		}
		return fmt.Sprintf("pin agrees with Phase 1 candidate rank %d %s, %s", r.Rank, r.Target, where)
	})
	register(func(r model.P2PinAsGiven, zh bool) string {
		return pick(zh, "pin matches no Phase 1 candidate: coordinate taken as given (its norm from the per-rank final norms when Phase 1 has them)",
			"指定坐标与 Phase 1 的任何候选都不一致：按给定取坐标（Phase 1 有每个 rank 的最终 norm 时取其 norm）")
	})
	register(func(r model.P2Pinned, zh bool) string {
		return pick(zh, fmt.Sprintf("pinned by the user: %s", r.Pin), fmt.Sprintf("坐标由用户指定：%s", r.Pin))
	})
	register(func(r model.P2PinnedBrief, zh bool) string {
		return pick(zh, "pinned by the user", "坐标由用户指定")
	})
	register(func(r model.P2PinnedUnverified, zh bool) string {
		return pick(zh, "pinned by the user: not verified against the baseline", "坐标由用户指定：未与标杆比对")
	})
}
