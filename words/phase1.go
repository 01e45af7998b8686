package words

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/model"
)

// Phase1 fills res's texts (reasoning, warnings, missing, the sharding
// analysis's pass unit, conclusion and numbering, the pipeline's method
// and note) from its reasons, in l. A text whose reasons are absent (a
// result read back from JSON) is left as it is.
func Phase1(res *model.Phase1Result, l Lang) {
	if res == nil {
		return
	}
	fillAll(&res.Reasoning, res.ReasoningReasons, l)
	fillAll(&res.Warnings, res.WarningsReasons, l)
	fillAll(&res.Missing, res.MissingReasons, l)
	sa := &res.Sharding
	fill(&sa.PassUnit, sa.PassUnitReason, l)
	fill(&sa.Conclusion, sa.ConclusionReason, l)
	fill(&sa.MicroStepNumbering, sa.MicroStepNumberingReason, l)
	fill(&res.Summary.PassUnit, res.Summary.PassUnitReason, l)
	Stages(sa.Stages, l)
}

// Stages fills the pipeline stages' method and note from their reasons.
func Stages(p *model.StageLayout, l Lang) {
	if p == nil {
		return
	}
	fill(&p.Method, p.MethodReason, l)
	fill(&p.Note, p.NoteReason, l)
}

// intList prints a short list of ints ("1, 2, … (3 more)"), at most max.
func intList(xs []int, max int, zh bool) string {
	var b strings.Builder
	for i, x := range xs {
		if i == max {
			if zh {
				fmt.Fprintf(&b, ", … (另 %d 个)", len(xs)-max)
			} else {
				fmt.Fprintf(&b, ", … (%d more)", len(xs)-max)
			}
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(x))
	}
	return b.String()
}

// rankList is "rank 3" or "ranks 0, 1, 2".
func rankList(xs []int, zh bool) string {
	if len(xs) == 1 {
		return "rank " + strconv.Itoa(xs[0])
	}
	return pick(zh, "ranks "+intList(xs, 8, zh), "rank "+intList(xs, 8, zh))
}

// resetFit says how well window starts explain the norm resets.
func resetFit(f model.ResetFit, zh bool) string {
	return pick(zh, fmt.Sprintf("%.0f%% of transitions at window starts drop (mean factor %.2f×, %d drops), %.0f%% inside windows rise",
		100*f.DropAt, f.DropFactor, f.Drops, 100*f.RiseElse),
		fmt.Sprintf("窗口起点处 %.0f%% 的相邻变化为下降 (平均倍数 %.2f×, %d 次下降), 窗口内 %.0f%% 为上升",
			100*f.DropAt, f.DropFactor, f.Drops, 100*f.RiseElse))
}

// count is "n" or "lo–hi".
func countRange(lo, hi int) string {
	if hi != lo {
		return fmt.Sprintf("%d–%d", lo, hi)
	}
	return fmt.Sprintf("%d", lo)
}

func historyUnit(pools, zh bool) string {
	switch {
	case pools && zh:
		return "个 (参数, micro step) 池"
	case zh:
		return "个参数"
	case pools:
		return "(parameter, micro step) pools"
	}
	return "parameters"
}

func microNumbering(kind string, zh bool) string {
	switch kind {
	case model.NumberingDump:
		if zh {
			return "dump: micro_step 是 dump.json 中 parameters_grad.N 的 N (每个微批次一次调用; micro_index 是其在 step 中从 0 起的次序); step 是 step 目录"
		}
		return "dump: micro_step is N of parameters_grad.N as written in dump.json (one call per micro-batch; micro_index is its 0-based order in the step); step is the step folder"
	case model.NumberingDerived:
		if zh {
			return "step 是存储的全局 micro step 序号; optimizer_step 与 micro_step (0..W-1) 由累积窗口推出"
		}
		return "step is the global micro-step index as stored; optimizer_step and micro_step (0..W-1) are derived from the accumulation window"
	case model.NumberingMonitorV2:
		if zh {
			return "monitor v2: micro_step 按输入, 每个 step 内 1..W (grad_reduced 行为 W); step 是 optimizer step"
		}
		return "monitor v2: micro_step as written, 1..W within each step (grad_reduced rows carry W); step is the optimizer step"
	case model.NumberingWritten:
		if zh {
			return "micro_step 按输入, 每个 step 内 0..W-1; step 是 optimizer step"
		}
		return "micro_step as written, 0..W-1 within each step; step is the optimizer step"
	}
	return pick(zh, "no micro steps: step as written in the input", "无 micro step: step 按输入中的编号")
}

// passUnit is the pass unit: the reference's tuple in English (the JSON's
// pass_unit), words in Chinese (as the report's overview says it).
func passUnit(u model.PassUnit, zh bool) string {
	switch u.Kind {
	case model.PassExplicit:
		if zh {
			return "一个 step 中的一个 micro step（按输入中的编号）"
		}
		return "(step, micro_step)"
	case model.PassAccumWind:
		if zh {
			return fmt.Sprintf("一个 optimizer step 中的一个 micro step（每个 optimizer step %d 个）", u.Window)
		}
		return fmt.Sprintf("(optimizer_step, micro_step), 累积窗口=%d", u.Window)
	}
	return pick(zh, "(step,)", "一个 step（无 micro step）")
}

// shapeWording is one wording of the run shape: the reference script's
// mixed one (the drop-in JSON's default), Chinese, or plain English
// (--lang en). The sentence is built once from it (conclusion).
type shapeWording struct {
	expertsDiffer, expertsSame         string
	pp, ppInferred                     string // %d: the stages
	wholeInferred, wholeExperts, dense string
	accumulated                        string // %d window, %d optimizer steps
	explicit                           string // %d..%d micro steps
	noMicro                            string
	sentence                           string // pp, micro, pass unit, whole
	unit                               func(model.PassUnit) string
}

var (
	shapeZhExperts = [2]string{
		" 各 rank 持有的 MoE 专家参数 (experts) 不同 (专家并行): 专家参数只在持有它的 rank 上, 只与这些 rank 比较。",
		" 含 MoE 专家参数 (experts), 各 rank 上的专家名相同: 专家并行时同名专家可能是不同专家 (本地编号), 数据中无法分辨。",
	}
	shapeDropIn = shapeWording{
		expertsDiffer: shapeZhExperts[0], expertsSame: shapeZhExperts[1],
		pp: "PP=%d", ppInferred: "PP=%d (由各 rank 持有的参数推断: 首 stage 含 embedding, 末 stage 含 final norm / output layer)",
		wholeInferred: "每个 stage 的同名参数是不同参数, 分开分析 (所在 stage 见 pp_stage)。",
		wholeExperts:  "每个 rank 持有全部层, 独立构成一次前反向。",
		dense:         "每个 rank 有完整模型，独立构成一次前反向。",
		accumulated:   "DB step 实际为 micro_step (梯度累积), 窗口=%d, %d 个 optimizer step",
		explicit:      "micro_step=%d..%d",
		noMicro:       "无 micro_step",
		sentence:      "%s. %s. 前反向单位: %s. %s",
		unit:          func(u model.PassUnit) string { return passUnit(u, false) },
	}
	shapeZh = func() shapeWording {
		w := shapeDropIn
		w.accumulated = "DB step 实际为 micro step (梯度累积), 窗口=%d, %d 个 optimizer step"
		w.explicit = "micro step 编号 %d..%d"
		w.noMicro = "无 micro step"
		w.sentence = "%s。%s。前反向单位: %s。%s"
		w.unit = func(u model.PassUnit) string { return passUnit(u, true) }
		return w
	}()
	shapeEnglish = shapeWording{
		expertsDiffer: " Ranks hold different MoE expert parameters (expert parallelism): an expert's parameters are compared only across the ranks that hold it.",
		expertsSame:   " The model has MoE expert parameters with the same names on every rank: under expert parallelism experts of one name may be different experts (local numbering), which the data cannot tell apart.",
		pp:            "PP=%d", ppInferred: "PP=%d (inferred from the parameters each rank holds: the first stage has the embedding, the last the final norm / output layer)",
		wholeInferred: "Parameters of one name on different stages are different parameters, analysed apart (the stage is in pp_stage).",
		wholeExperts:  "Each rank holds every layer and makes one forward/backward pass by itself.",
		dense:         "Each rank holds the whole model and makes one forward/backward pass by itself.",
		accumulated:   "the stored step is a micro step (gradient accumulation), window %d, %d optimizer steps",
		explicit:      "micro_step=%d..%d",
		noMicro:       "no micro_step",
		sentence:      "%s. %s. Pass unit: %s. %s",
		unit:          passUnitEnglish,
	}
)

// conclusion is the run shape in wording w.
func conclusion(c model.ShardingConclusion, w shapeWording) string {
	ep := ""
	switch c.Experts {
	case model.ExpertsDiffer:
		ep = w.expertsDiffer
	case model.ExpertsSameNames:
		ep = w.expertsSame
	}
	pp := fmt.Sprintf(w.pp, c.PP)
	var whole string
	switch {
	case c.PPInferred:
		pp = fmt.Sprintf(w.ppInferred, c.PP)
		whole = w.wholeInferred + ep
	case c.Experts != model.ExpertsNone:
		whole = w.wholeExperts + ep
	default:
		whole = w.dense
	}
	var micro string
	switch c.Micro {
	case model.MicroAccumulated:
		micro = fmt.Sprintf(w.accumulated, c.Window, c.OptSteps)
	case model.MicroExplicit:
		micro = fmt.Sprintf(w.explicit, c.First, c.Last)
	default:
		micro = w.noMicro
	}
	return fmt.Sprintf(w.sentence, pp, micro, w.unit(c.Unit), whole)
}

// passUnitEnglish is the pass unit in plain English (--lang en).
func passUnitEnglish(u model.PassUnit) string {
	if u.Kind == model.PassAccumWind {
		return fmt.Sprintf("(optimizer_step, micro_step), accumulation window %d", u.Window)
	}
	return passUnit(u, false)
}

func init() {
	registerEnglish(passUnitEnglish)
	registerEnglish(func(c model.ShardingConclusion) string { return conclusion(c, shapeEnglish) })
	register(func(_ model.Phase1NoMonitor, zh bool) string {
		return pick(zh, "no monitor data", "无 monitor 数据")
	})
	register(func(_ model.Phase1NoGradRows, zh bool) string { return pick(zh, "no gradient rows", "无梯度行") })
	register(func(_ model.Phase1NoRows, zh bool) string {
		return pick(zh, "no rows to analyse", "没有可分析的行")
	})
	register(func(r model.MetricAnalysed, zh bool) string {
		return pick(zh, fmt.Sprintf("metric %q analysed (of %d metrics); grad_reduced rows never join its curves", r.Metric, r.Metrics),
			fmt.Sprintf("分析指标 %q (共 %d 个指标); grad_reduced 行不并入其曲线", r.Metric, r.Metrics))
	})
	register(func(r model.FinalMicroOnly, zh bool) string {
		return pick(zh, fmt.Sprintf("every %s row is the only one of its step and none is the first micro-batch (monitor v2 without monitor_mbs_grad writes the step's final gradient with micro_step = W): judged at step level", r.Metric),
			fmt.Sprintf("每行 %s 都是其 step 中唯一的一行, 且都不是首个微批次 (monitor v2 未开启 monitor_mbs_grad 时以 micro_step = W 写出该 step 的最终梯度): 按 step 级判定", r.Metric))
	})
	register(func(r model.DumpShape, zh bool) string {
		if r.Calls {
			return pick(zh, "dump statistics, one step: parameter gradients of the step's last parameters_grad call; the calls before it (one per micro-batch, accumulated main_grad) give each candidate's micro step",
				"dump 统计量, 单个 step: 参数梯度取该 step 最后一次 parameters_grad 调用; 之前的各次调用 (每个微批次一次, 累积的 main_grad) 给出每个候选的 micro step")
		}
		return pick(zh, "dump statistics: parameter gradients per step, no micro steps (no accumulation window)",
			"dump 统计量: 每个 step 的参数梯度, 无 micro step (无累积窗口)")
	})
	register(func(r model.ExplicitMicro, zh bool) string {
		if zh {
			note := "输入含 micro_step 列: optimizer step = step, micro step 按记录 (step 不合并)"
			if r.Dump {
				note = "dump 统计量中每个 micro step 一次 parameters_grad 调用 (累积的 main_grad): optimizer step = dump step, micro step = 该调用的 parameters_grad.N (其在 step 中的次序: micro_index); 按累积的 micro step 判定"
			}
			return note + fmt.Sprintf("; 每个 optimizer step %d 个 micro step", r.Window)
		}
		note := "explicit micro_step column: optimizer step = step, micro step as recorded (steps never collapsed)"
		if r.Dump {
			note = "dump statistics with one parameters_grad call per micro step (accumulated main_grad): optimizer step = dump step, micro step = the call's parameters_grad.N (its order in the step: micro_index); judged as accumulated micro steps"
		}
		return note + fmt.Sprintf("; %d micro steps per optimizer step", r.Window)
	})
	register(func(_ model.WindowOff, zh bool) string {
		return pick(zh, "--window 1: no accumulation (step level), as requested", "--window 1: 按要求不做累积 (step 级)")
	})
	register(func(r model.WindowGiven, zh bool) string {
		return pick(zh, fmt.Sprintf("--window %d given: accumulation window %d, phase %d (best fit of the norm resets)", r.W, r.W, r.Phase),
			fmt.Sprintf("指定 --window %d: 累积窗口 %d, 相位 %d (与 norm 重置最吻合)", r.W, r.W, r.Phase))
	})
	register(func(_ model.WindowTooFewSteps, zh bool) string {
		return pick(zh, "fewer than 5 steps, or steps too sparse for a window: treated as step level (no accumulation)",
			"step 少于 5 个或过于稀疏, 无法确定窗口: 按 step 级处理 (无累积)")
	})
	register(func(r model.WindowPeriodic, zh bool) string {
		return pick(zh, fmt.Sprintf("accumulation window %d, phase %d, from the recurrence of norm resets over %d series: %s", r.W, r.Phase, r.Series, resetFit(r.Fit, zh)),
			fmt.Sprintf("累积窗口 %d, 相位 %d, 由 %d 条序列中 norm 重置的周期性得出: %s", r.W, r.Phase, r.Series, resetFit(r.Fit, zh)))
	})
	register(func(r model.WindowPartial, zh bool) string {
		return pick(zh, fmt.Sprintf("first recorded step %d is not a window start: steps %d..%d form a partial optimizer step", r.First, r.First, r.Last),
			fmt.Sprintf("首个记录的 step %d 不是窗口起点: step %d..%d 构成一个不完整的 optimizer step", r.First, r.First, r.Last))
	})
	register(func(r model.WindowCommonResets, zh bool) string {
		return pick(zh, fmt.Sprintf("reset points common to several series at steps %s (%s): optimizer steps start there, micro steps restart at each; longest window %d",
			intList(r.Bounds, 10, zh), resetFit(r.Fit, zh), r.Longest),
			fmt.Sprintf("多条序列共同的重置点在 step %s (%s): optimizer step 从这些点开始, micro step 在每个点重新计数; 最长窗口 %d",
				intList(r.Bounds, 10, zh), resetFit(r.Fit, zh), r.Longest))
	})
	register(func(r model.WindowNone, zh bool) string {
		return pick(zh, fmt.Sprintf("no accumulation window: the norms of %d series over %d steps show no recurring resets (step level)", r.Series, r.Steps),
			fmt.Sprintf("无累积窗口: %d 条序列在 %d 个 step 上的 norm 没有周期性重置 (step 级)", r.Series, r.Steps))
	})
	register(func(r model.WindowReduced, zh bool) string {
		return pick(zh, fmt.Sprintf("accumulation window %d, phase %d: grad_reduced rows (stored at each optimizer step's first micro step) every %d steps from step %d", r.W, r.Phase, r.W, r.From),
			fmt.Sprintf("累积窗口 %d, 相位 %d: grad_reduced 行 (记录在每个 optimizer step 的首个 micro step) 从 step %d 起每 %d 个 step 一行", r.W, r.Phase, r.From, r.W))
	})
	register(func(r model.WindowReducedIrregular, zh bool) string {
		return pick(zh, fmt.Sprintf("optimizer steps start at the %d grad_reduced steps (irregular spacing, most often %d)", r.Steps, r.Common),
			fmt.Sprintf("optimizer step 从 %d 个 grad_reduced step 处开始 (间隔不规则, 最常见为 %d)", r.Steps, r.Common))
	})
	register(func(r model.MicroNumbering, zh bool) string { return microNumbering(r.Kind, zh) })
	register(func(r model.MicroNumberingNote, zh bool) string {
		return pick(zh, fmt.Sprintf("micro steps reported as the input numbers them (%d..%d): %s", r.First, r.Last, microNumbering(r.Numbering.Kind, zh)),
			fmt.Sprintf("micro step 按输入中的编号报告 (%d..%d): %s", r.First, r.Last, microNumbering(r.Numbering.Kind, zh)))
	})
	register(func(r model.PassUnit, zh bool) string { return passUnit(r, zh) })
	register(func(r model.ShardingConclusion, zh bool) string {
		if zh {
			return conclusion(r, shapeZh)
		}
		return conclusion(r, shapeDropIn)
	})
	register(func(r model.CandidatesOrdered, zh bool) string {
		return pick(zh, fmt.Sprintf("%d candidates (%d non-finite), ordered earliest first: optimizer step, micro step, non-finite first, then deviation", r.Count, r.NonFinite),
			fmt.Sprintf("%d 个候选 (%d 个非有限值), 按时间最早排序: optimizer step, micro step, 非有限值优先, 然后按偏离", r.Count, r.NonFinite))
	})
	register(func(r model.DumpTopN, zh bool) string {
		return pick(zh, fmt.Sprintf("single-step dump: the %d largest of %d parameter-gradient norms, deviation against the median of all of them (%.6g)", r.N, r.Of, r.Median),
			fmt.Sprintf("单 step dump: %d 个参数梯度 norm 中最大的 %d 个, 偏离相对于全部 norm 的中位数 (%.6g)", r.Of, r.N, r.Median))
	})
	register(func(r model.DumpCallMicro, zh bool) string {
		if zh {
			how := "所有调用合并"
			if r.PerCall {
				how = fmt.Sprintf("每次调用单独 (每次 ≥ %d 条曲线)", r.MinPool)
			}
			msg := fmt.Sprintf("parameters_grad 调用视为 micro step: 每次调用的增量 sqrt(N_k²−N_{k−1}²) 相对于其曲线其它增量的中位数, %s, 按上述阈值判定 (≥ %g× 中位数, delta ≥ %g× 曲线其它 delta): %d / %d 条 (参数, rank) 曲线跳变; %d / %d 个候选指明其梯度跳变 (或变为非有限值) 的调用, 其余均匀增长 (micro_step 为 null)",
				how, r.MinEffect, r.MinEffect, r.Jumps, r.Curves, r.Named, r.Candidates)
			if r.Skipped > 0 {
				msg += fmt.Sprintf("; %d 条曲线未判定 (缺少某次调用, 或 norm 在超过 %.0f%% 的调用上下降)", r.Skipped, r.MaxDecreasePct)
			}
			return msg
		}
		how := "pooled over all calls"
		if r.PerCall {
			how = fmt.Sprintf("per call (≥ %d curves each)", r.MinPool)
		}
		msg := fmt.Sprintf("parameters_grad calls as micro steps: each call's increment sqrt(N_k²−N_{k−1}²) relative to the median of its curve's other increments, %s, judged with the thresholds above (≥ %g× the median, delta ≥ %g× the curve's other deltas): %d of %d (parameter, rank) curves jump; %d of %d candidates name the call where their gradient jumps (or turns non-finite), the others grew evenly (micro_step null)",
			how, r.MinEffect, r.MinEffect, r.Jumps, r.Curves, r.Named, r.Candidates)
		if r.Skipped > 0 {
			msg += fmt.Sprintf("; %d curves not judged (a call missing, or the norm fell on more than %.0f%% of the calls)", r.Skipped, r.MaxDecreasePct)
		}
		return msg
	})
	register(func(r model.HistoryTooShort, zh bool) string {
		unit, count := historyUnit(r.Pools, zh), countRange(r.MinN, r.MaxN)
		return pick(zh, fmt.Sprintf("too little history: %d of %d %s have %s values to compare, fewer than the %d a spike test needs (below that the spread of the baseline is not known within a factor of 2): not judged, %d value(s) that passed the thresholds reported under too_little_history instead of as candidates",
			r.Short, r.Series, unit, count, r.Need, r.Unflagged),
			fmt.Sprintf("历史过短: %d / %d %s只有 %s 个可比较的值, 少于尖峰判定所需的 %d 个 (少于此数时基线的离散度无法确定到 2 倍以内): 不判定, %d 个超过阈值的值记入 too_little_history 而非候选",
				r.Short, r.Series, unit, count, r.Need, r.Unflagged))
	})
	register(func(r model.HistoryTooShortWarning, zh bool) string {
		unit, count := historyUnit(r.Pools, zh), countRange(r.MinN, r.MaxN)
		var w string
		if zh {
			w = fmt.Sprintf("历史过短, 无法判定尖峰: %d / %d %s只有 %s 个可比较的值 (至少需要 %d 个)", r.Short, r.Series, unit, count, r.Need)
		} else {
			w = fmt.Sprintf("too little history to call a spike: %d of %d %s have only %s values to compare (at least %d needed)", r.Short, r.Series, unit, count, r.Need)
		}
		if len(r.Examples) == 0 {
			return w
		}
		var parts []string
		for _, s := range r.Examples {
			if zh {
				parts = append(parts, fmt.Sprintf("%s step %d rank %d (其中位数的 %.3g×)", s.Target, s.Step, s.Rank, s.Ratio))
			} else {
				parts = append(parts, fmt.Sprintf("%s step %d rank %d (%.3g× its median)", s.Target, s.Step, s.Rank, s.Ratio))
			}
		}
		if r.More > 0 {
			parts = append(parts, pick(zh, fmt.Sprintf("%d more", r.More), fmt.Sprintf("另 %d 个", r.More)))
		}
		return w + pick(zh, "; not flagged: ", "; 未标记: ") + strings.Join(parts, ", ")
	})
	register(func(r model.MicroPoolsSkipped, zh bool) string {
		return pick(zh, fmt.Sprintf("%d (parameter, micro step) pools not judged: in more than %.0f%% of their curves the cumulative norm fell (N_k < N_{k−1}), so the increments are noise", r.Pools, r.MaxDecreasePct),
			fmt.Sprintf("%d 个 (参数, micro step) 池未判定: 超过 %.0f%% 的曲线中累积 norm 下降 (N_k < N_{k−1}), 增量只是噪声", r.Pools, r.MaxDecreasePct))
	})
	register(func(r model.MicroStepRule, zh bool) string {
		return pick(zh, fmt.Sprintf("micro steps: each micro-batch's increment sqrt(N_k²−N_{k−1}²), relative to its optimizer step's common level (median over ranks and micro steps; a common rise ≥ %g× the previous %d steps' level that does not hold %d steps stays anomalous: %d such (parameter, step)s) and to its series' own scale over its first steps (%d series of ≥ %d optimizer steps), judged per parameter (%d parameters; %d with baselines per micro step of ≥ %d samples, the rest pooled over micro steps) without the judged point; candidate when > q3 + %g·IQR or > median + %g·MAD×%.4f, ≥ %g× the median, and its delta N_k−N_{k−1} ≥ %g× the usual delta: %d found",
			r.MinEffect, r.LevelHistory, r.LevelPersist, r.Jumps, r.Scaled, r.HeadSteps, r.Judged, r.PerMicro, r.MinPool, r.IQRMult, r.MADMult, r.MADScale, r.MinEffect, r.MinEffect, r.Found),
			fmt.Sprintf("micro step: 每个微批次的增量 sqrt(N_k²−N_{k−1}²), 相对于其 optimizer step 的共同水平 (各 rank 与 micro step 的中位数; 较前 %d 个 step 的水平上升 ≥ %g× 且未持续 %d 个 step 的共同上升仍视为异常: 共 %d 个这样的 (参数, step)) 以及其序列在最初若干 step 上的自身尺度 (%d 条序列, 每条 ≥ %d 个 optimizer step), 按参数判定 (%d 个参数; 其中 %d 个按 micro step 建基线, 每个 ≥ %d 个样本, 其余合并各 micro step), 不含被判定点; 候选条件: > q3 + %g·IQR 或 > median + %g·MAD×%.4f, ≥ %g× 中位数, 且其 delta N_k−N_{k−1} ≥ %g× 通常的 delta: 找到 %d 个",
				r.LevelHistory, r.MinEffect, r.LevelPersist, r.Jumps, r.Scaled, r.HeadSteps, r.Judged, r.PerMicro, r.MinPool, r.IQRMult, r.MADMult, r.MADScale, r.MinEffect, r.MinEffect, r.Found))
	})
	register(func(r model.StepLevelRule, zh bool) string {
		return pick(zh, fmt.Sprintf("step level: %d parameters judged against their own baseline over all ranks and steps without the judged point, each value relative to its step's common level (median over ranks: warm-up, drift and loss-scale shifts move every rank together; a common rise ≥ %g× the previous %d steps' level that does not hold %d steps stays anomalous: %d such steps) and to its series' own scale over its first steps (%d series of ≥ %d steps: pipeline stages reuse layer names); candidate when > q3 + %g·IQR or > median + %g·MAD×%.4f, and ≥ %g× the median: %d found",
			r.Judged, r.MinEffect, r.LevelHistory, r.LevelPersist, r.Jumps, r.Scaled, r.HeadSteps, r.IQRMult, r.MADMult, r.MADScale, r.MinEffect, r.Found),
			fmt.Sprintf("step 级: %d 个参数各自对照其在所有 rank 与 step 上的基线判定 (不含被判定点), 每个值相对于其 step 的共同水平 (各 rank 的中位数: 预热、漂移与 loss scale 变化使所有 rank 一起变化; 较前 %d 个 step 的水平上升 ≥ %g× 且未持续 %d 个 step 的共同上升仍视为异常: 共 %d 个这样的 step) 以及其序列在最初若干 step 上的自身尺度 (%d 条序列, 每条 ≥ %d 个 step: 流水线各 stage 复用层名); 候选条件: > q3 + %g·IQR 或 > median + %g·MAD×%.4f, 且 ≥ %g× 中位数: 找到 %d 个",
				r.Judged, r.LevelHistory, r.MinEffect, r.LevelPersist, r.Jumps, r.Scaled, r.HeadSteps, r.IQRMult, r.MADMult, r.MADScale, r.MinEffect, r.Found))
	})
	register(func(r model.NonFiniteOnsets, zh bool) string {
		if zh {
			msg := fmt.Sprintf("非有限 norm (NaN/Inf/NULL): %d 个候选, 每个是一条 (参数, rank) 序列中非有限值的起点", r.Candidates)
			if r.Whole > 0 {
				msg += fmt.Sprintf("; %d 个参数没有任何有限值 (各一个候选)", r.Whole)
			}
			return msg
		}
		msg := fmt.Sprintf("non-finite norms (NaN/Inf/NULL): %d candidates, each onset of non-finite values in a (parameter, rank) series", r.Candidates)
		if r.Whole > 0 {
			msg += fmt.Sprintf("; %d parameters have no finite value at all (one candidate each)", r.Whole)
		}
		return msg
	})
	register(func(r model.CrossStepNorms, zh bool) string {
		return pick(zh, fmt.Sprintf("for the cross-step rule: the final norm on every rank of each candidate step's focus parameter, at that step and the next (%d steps)", r.Steps),
			fmt.Sprintf("供跨 step 判定: 每个候选 step 的关注参数在各 rank 上的最终 norm, 含该 step 与下一个 step (%d 个 step)", r.Steps))
	})
	register(func(r model.TailsUnmeasured, zh bool) string {
		return pick(zh, fmt.Sprintf("heavy tails: too few step-to-step changes before step %d (fewer than %d) to measure the run's noise: the robust thresholds decide alone", r.First, r.Need),
			fmt.Sprintf("重尾: step %d 之前的相邻 step 变化太少 (少于 %d 个), 无法度量本次运行的噪声: 仅由稳健阈值决定", r.First, r.Need))
	})
	register(func(r model.TailsDropped, zh bool) string {
		return pick(zh, fmt.Sprintf("heavy tails: %d value(s) passed the robust thresholds but stay within %g spreads of the run's step-to-step noise above their median (the run's spread of log(norm) before step %d is %.3g, a parameter's own when larger): ordinary batch noise on real gradients, not candidates (the largest was %.2f spreads)",
			r.Dropped, r.Spreads, r.First, r.Spread, r.MaxZ),
			fmt.Sprintf("重尾: %d 个值超过稳健阈值, 但高出其中位数不到本次运行相邻 step 噪声的 %g 倍离散度 (step %d 之前 log(norm) 的离散度为 %.3g, 参数自身更大时取自身): 真实梯度上的普通批次噪声, 不作为候选 (最大为 %.2f 倍离散度)",
				r.Dropped, r.Spreads, r.First, r.Spread, r.MaxZ))
	})
	register(func(r model.StagesMarkersUneven, zh bool) string {
		return pick(zh, fmt.Sprintf("the first pipeline stage (embedding) has %d ranks and the last (final norm) %d: middle stages cannot be numbered", r.First, r.Last),
			fmt.Sprintf("首个流水线 stage 含 embedding, 有 %d 个 rank; 末个 stage 含 final norm, 有 %d 个 rank: 无法为中间 stage 编号", r.First, r.Last))
	})
	register(func(r model.StagesMiddleNotMultiple, zh bool) string {
		return pick(zh, fmt.Sprintf("%d ranks hold neither the embedding nor the final norm, not a multiple of the %d ranks per stage: middle stages cannot be numbered", r.Middle, r.PerStage),
			fmt.Sprintf("%d 个 rank 既不持有 embedding 也不持有 final norm, 不是每个 stage 的 rank 数 %d 的倍数: 无法为中间 stage 编号", r.Middle, r.PerStage))
	})
	register(func(r model.StagesNoRankOrder, zh bool) string {
		return pick(zh, fmt.Sprintf("the ranks holding the embedding (%s) and the final norm (%s) fit neither a blocked nor a strided rank order of %d stages: middle stages cannot be numbered",
			rankList(r.First, zh), rankList(r.Last, zh), r.Stages),
			fmt.Sprintf("持有 embedding 的 rank (%s) 与持有 final norm 的 rank (%s) 既不符合 %d 个 stage 的分块 rank 顺序, 也不符合交错顺序: 无法为中间 stage 编号",
				rankList(r.First, zh), rankList(r.Last, zh), r.Stages))
	})
	register(func(r model.StagesLayersDiffer, zh bool) string {
		return pick(zh, fmt.Sprintf("ranks of pipeline stage %d (numbered from the embedding / final-norm ranks in rank order) hold different transformer layers: stages not inferred, same-named parameters of all ranks are analysed together", r.Stage),
			fmt.Sprintf("流水线 stage %d 的各 rank (按 rank 顺序从 embedding / final norm 所在 rank 编号) 持有不同的 transformer 层: 未推断 stage, 所有 rank 的同名参数一起分析", r.Stage))
	})
	register(func(r model.StagesLevelsUnseparable, zh bool) string {
		return pick(zh, fmt.Sprintf("every rank holds the same parameter names and no embedding / final norm is monitored, but the ranks' gradient levels of one parameter differ up to %.1f× (median over parameters): with pipeline parallelism these are different stages' parameters, which could not be told apart — same-named parameters of all ranks are analysed together; monitor the embedding and the final norm too", r.Ratio),
			fmt.Sprintf("每个 rank 持有相同的参数名且未监控 embedding / final norm, 但同一参数在各 rank 上的梯度水平相差可达 %.1f× (各参数的中位数): 若有流水线并行, 这些是不同 stage 的参数, 无法区分 —— 所有 rank 的同名参数一起分析; 请同时监控 embedding 与 final norm", r.Ratio))
	})
	register(func(r model.StagesByMarkers, zh bool) string {
		if zh {
			s := fmt.Sprintf("标记: embedding 在 %s 上, final norm / output layer 在 %s 上", rankList(r.First, zh), rankList(r.Last, zh))
			if len(r.Middle) > 0 {
				s += fmt.Sprintf(", %s 两者都不持有 (中间 stage 按 rank 顺序)", rankList(r.Middle, zh))
			}
			return s
		}
		s := fmt.Sprintf("markers: the embedding on %s, the final norm / output layer on %s", rankList(r.First, zh), rankList(r.Last, zh))
		if len(r.Middle) > 0 {
			s += fmt.Sprintf(", neither on %s (middle stages in rank order)", rankList(r.Middle, zh))
		}
		return s
	})
	register(func(_ model.StagesByNameSets, zh bool) string {
		return pick(zh, "parameter-name sets: no embedding / final-norm parameters in the data; ranks grouped by identical names, stages numbered in rank order (Megatron places pipeline stages outermost)",
			"参数名集合: 数据中无 embedding / final norm 参数; 按参数名相同对 rank 分组, 按 rank 顺序为 stage 编号 (Megatron 将流水线 stage 放在最外层)")
	})
	register(func(r model.StagesByLevels, zh bool) string {
		if zh {
			layout := "分块"
			if r.Layout == "strided" {
				layout = "交错"
			}
			return fmt.Sprintf("梯度水平: 每个 rank 持有相同的参数名且未监控 embedding / final norm; 按%s rank 顺序分为 %d 个 stage 时, 每个 stage 的各 rank 在 %d / %d 个参数上一致, 各 stage 相差 ≥ %.1f×",
				layout, r.Stages, r.Agree, r.Params, r.Gap)
		}
		return fmt.Sprintf("gradient levels: every rank holds the same names and no embedding / final norm is monitored; under a %s rank order of %d stages the ranks of each stage agree on %d of %d parameters and the stages sit ≥ %.1f× apart",
			r.Layout, r.Stages, r.Agree, r.Params, r.Gap)
	})
	register(func(r model.StagesNotInferred, zh bool) string {
		return pick(zh, "pipeline stages: ", "流水线 stage: ") + Say(r.Note, lang(zh))
	})
	register(func(r model.StagesInferred, zh bool) string {
		var b strings.Builder
		if zh {
			fmt.Fprintf(&b, "流水线: %d 个 stage (%s); 不同 stage 的同名参数是不同参数, 分开分析 (候选所在 stage 见 pp_stage)", r.Stages, Say(r.Method, Chinese))
			switch {
			case len(r.LayersPerStage) > 0:
				fmt.Fprintf(&b, "; 每个 stage 的层数 %s, 故 stage s 的 layers.N 的全局层号为 %s + N", intList(r.LayersPerStage, 16, zh), model.JoinInts(r.LayerOffsets, "/"))
			case r.ChunkLayers > 0:
				fmt.Fprintf(&b, "; 每个模型块 %d 层, 全局层号 = (vpp·%d + stage)·%d + N", r.ChunkLayers, r.Stages, r.ChunkLayers)
			default:
				b.WriteString("; 每个 stage 的层数未知 (层号为 stage 内编号)")
			}
			return b.String()
		}
		fmt.Fprintf(&b, "pipeline: %d stages (%s); same-named parameters of different stages are different parameters, analysed apart (a candidate's stage is in pp_stage)", r.Stages, Say(r.Method, English))
		switch {
		case len(r.LayersPerStage) > 0:
			fmt.Fprintf(&b, "; layers per stage %s, so the global layer of stage s's layers.N is %s + N", intList(r.LayersPerStage, 16, zh), model.JoinInts(r.LayerOffsets, "/"))
		case r.ChunkLayers > 0:
			fmt.Fprintf(&b, "; %d layers per model chunk, global layer = (vpp·%d + stage)·%d + N", r.ChunkLayers, r.Stages, r.ChunkLayers)
		default:
			b.WriteString("; layer counts per stage unknown (layer numbers are stage-local)")
		}
		return b.String()
	})
}
