package words

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	"spikescope/model"
)

// Phase 3's sentences: the four-group trace's warnings, the choice of the
// control group, the bands, why records are not compared, the direction
// verdicts, the drill-down, the data-feature check and A's pipeline stage.

// layerList formats layers as "L1, L5-L7".
func layerList(ls []int) string {
	s := append([]int(nil), ls...)
	sort.Ints(s)
	var parts []string
	for i := 0; i < len(s); {
		j := i
		for j+1 < len(s) && s[j+1] == s[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, "L"+strconv.Itoa(s[i]))
		} else {
			parts = append(parts, "L"+strconv.Itoa(s[i])+"-L"+strconv.Itoa(s[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// joined says rs joined by "; " (a note of several reasons), in Chinese
// when zh.
func joined(rs []model.Reason, zh bool) string { return notes(rs, lang(zh)) }

// sayIn says r, in Chinese when zh (a reason inside another).
func sayIn(r model.Reason, zh bool) string { return Say(r, lang(zh)) }

func init() {
	// --- warnings of the run ---
	register(func(r model.P3CallOfAnomaly, zh bool) string {
		switch {
		case zh && r.MicroStep != nil:
			return fmt.Sprintf("各层在第 %d 个微批次比较（A 的 Phase 1 异常所在的 micro step %d）", r.MicroBatch, *r.MicroStep)
		case zh:
			return fmt.Sprintf("各层在第 %d 个微批次比较，即 A 的 Phase 1 异常所在的微批次", r.MicroBatch)
		case r.MicroStep != nil:
			return fmt.Sprintf("layers compared at micro-batch %d (Phase 1 micro step %d of A's anomaly)", r.MicroBatch, *r.MicroStep)
		}
		return fmt.Sprintf("layers compared at micro-batch %d, the one of A's Phase 1 anomaly", r.MicroBatch)
	})
	register(func(r model.P3CallMostDivergent, zh bool) string {
		return pick(zh, fmt.Sprintf("layers compared at micro-batch %d of %d: the one whose layers diverge most", r.MicroBatch, r.Calls),
			fmt.Sprintf("各层在第 %d 个微批次比较（共 %d 个）：各层分叉最多的一个", r.MicroBatch, r.Calls))
	})
	register(func(_ model.P3NeedsAB, zh bool) string {
		return pick(zh, "Phase 3 needs at least dumps A and B", "Phase 3 至少需要 dump A 与 B")
	})
	register(func(r model.P3RootDump, zh bool) string {
		return pick(zh, fmt.Sprintf("A: step %d rank %d is the root-cause coordinate (Phase 2)", r.Step, r.Rank),
			fmt.Sprintf("A: step %d rank %d 为根因坐标（Phase 2）", r.Step, r.Rank))
	})
	register(func(_ model.P3OneControl, zh bool) string {
		return pick(zh, "only one of C/D given: the control group needs both; comparison degraded to A/B",
			"只给了 C/D 之一：对照组需要两者；比较降级为 A/B")
	})
	register(func(_ model.P3NoControlGroup, zh bool) string {
		return pick(zh, "no control group: A/B may include device bias", "无对照组：A/B 可能混入设备系统偏差")
	})
	register(func(r model.P3NoBaselineDump, zh bool) string {
		return pick(zh, fmt.Sprintf("no baseline dump: A is compared with the nearby normal sample C (step %d rank %d) of the same device in B's place; ratios include the data differences of the two samples, and device bias cannot be separated", r.Step, r.Rank),
			fmt.Sprintf("无标杆 dump：A 与同设备的邻近正常样本 C（step %d rank %d）比较，C 代替 B；比值包含两个样本的数据差异，设备系统偏差无法分离", r.Step, r.Rank))
	})
	register(func(_ model.P3SameDumpC, zh bool) string {
		return pick(zh, "C is the same dump as A: the control group shows no noise", "C 与 A 是同一个 dump：对照组显示不出噪声")
	})
	register(func(_ model.P3SameDumpD, zh bool) string {
		return pick(zh, "D is the same dump as C (A and B come from the same tree): the control group shows no noise",
			"D 与 C 是同一个 dump（A 与 B 来自同一目录）：对照组显示不出噪声")
	})
	register(func(r model.P3NameMapFile, zh bool) string {
		return pick(zh, fmt.Sprintf("%s's names translated with the layer mapping %s", r.Side, r.Path),
			fmt.Sprintf("%s 的名称已按层映射文件 %s 转换", r.Side, r.Path))
	})
	register(func(_ model.P3NameMapMegatron, zh bool) string {
		return pick(zh, "A and B name their layers' modules differently: A's names translated into B's with the built-in map of the Megatron families (give msprobe's layer-mapping file with --layer-mapping to control it)",
			"A 与 B 的层内 module 命名不同：A 的名称已按内置的 Megatron 系列映射转换为 B 的名称（可用 --layer-mapping 给出 msprobe 的层映射文件来控制）")
	})
	register(func(r model.P3NameMapBuiltin, zh bool) string {
		return pick(zh, fmt.Sprintf("A (%s) and B (%s) name their modules differently: A's names translated with the built-in map of the MindFormers/Megatron families (give msprobe's layer-mapping file with --layer-mapping to control it)", r.FrameworkA, r.FrameworkB),
			fmt.Sprintf("A（%s）与 B（%s）的 module 命名不同：A 的名称已按内置的 MindFormers/Megatron 系列映射转换（可用 --layer-mapping 给出 msprobe 的层映射文件来控制）", r.FrameworkA, r.FrameworkB))
	})
	register(func(r model.P3InferredLayers, zh bool) string {
		return pick(zh, fmt.Sprintf("no module record names a layer (API-only dump, level L1): layers cannot be known from names; "+
			"%d layers inferred from the repeating API sequence (%d APIs per layer and pass): layer numbers are positions in the pass, anchors are API positions in the layer", r.Layers, r.Period),
			fmt.Sprintf("没有 module 记录给出层名（仅 API 的 dump，level L1）：无法从名称得知层；"+
				"按重复的 API 序列推断出 %d 层（每层每个方向 %d 个 API）：层号是该方向中的位置，锚点是层内的 API 位置", r.Layers, r.Period))
	})
	register(func(_ model.P3NoLayersAPI, zh bool) string {
		return pick(zh, "no module record names a layer (API-only dump, level L1) and the API sequence shows no repeating layer block: layers cannot be known",
			"没有 module 记录给出层名（仅 API 的 dump，level L1），API 序列也没有重复的层结构：无法得知层")
	})
	register(func(r model.P3NoLayers, zh bool) string {
		return pick(zh, fmt.Sprintf("no transformer layers (%s<N>) found in the dumps", r.Prefix),
			fmt.Sprintf("dump 中未找到 transformer 层（%s<N>）", r.Prefix))
	})
	register(func(r model.P3DtypeDiffers, zh bool) string {
		parts := make([]string, len(r.Parts))
		for i, p := range r.Parts {
			if zh {
				parts[i] = fmt.Sprintf("%s 在 %d 条比较记录中有 %d 条为 %s，而 %s 为 %s", p.Group, p.Of, p.Count, p.Dtype, p.Other, p.OtherDtype)
			} else {
				parts[i] = fmt.Sprintf("%s has %s on %d of %d compared records", p.Group, p.Dtype+" where "+p.Other+" has "+p.OtherDtype, p.Count, p.Of)
			}
		}
		return pick(zh, "the groups' tensors differ in dtype ("+strings.Join(parts, "; ")+"): dump.json does not record whether msprobe computed the statistics in float32 or in the tensor's dtype, so these groups can differ by precision alone; compare dumps of the same dtype taken with the same precision setting",
			"各组张量的 dtype 不同（"+strings.Join(parts, "；")+"）：dump.json 不记录 msprobe 是以 float32 还是以张量自身的 dtype 计算统计量，这些组可能仅因精度不同而有差异；请比较相同 dtype、相同精度设置下采集的 dump")
	})
	register(func(r model.P3ControlBias, zh bool) string {
		parts := make([]string, len(r.Parts))
		for i, p := range r.Parts {
			d := p.Dir
			if zh {
				d = DirWord(d, Chinese)
			}
			parts[i] = fmt.Sprintf("%s %.3gx", d, p.Median)
		}
		return pick(zh, "control pair C/D is not ≈1.0x (median Norm ratio "+strings.Join(parts, ", ")+"): a device bias or different data; confirm the data before trusting the baseline",
			"对照组 C/D 不 ≈1.0x（Norm 比值中位数 "+strings.Join(parts, ", ")+"）：设备系统偏差或数据不同；信任标杆前先确认数据")
	})
	register(func(r model.P3PassUnjudgeable, zh bool) string {
		why := make([]string, len(r.Why))
		for i, w := range r.Why {
			why[i] = w.Metric + ": " + sayIn(w.Note, zh)
		}
		if zh {
			return fmt.Sprintf("%s没有可判定的统计量，其各层都无法标注（%s）", DirWord(r.Dir, Chinese), strings.Join(why, "; "))
		}
		pass := "forward"
		if r.Dir == "bwd" {
			pass = "backward"
		}
		return fmt.Sprintf("no statistic of the %s pass can be judged, so none of its layers can be flagged (%s)", pass, strings.Join(why, "; "))
	})
	register(func(r model.P3FewAnchors, zh bool) string {
		return pick(zh, fmt.Sprintf("only %d alignable anchor(s) found (<%d): the divergence verdict may be incomplete; "+
			"add anchors (--anchors) or check the dump's op naming (仅发现 %d 个可对齐锚点 (<3), 分叉判定可能不完整)", r.Found, r.Min, r.Found),
			fmt.Sprintf("仅发现 %d 个可对齐锚点 (<%d)：分叉判定可能不完整；请补充锚点（--anchors）或检查 dump 的算子命名", r.Found, r.Min))
	})
	register(func(r model.P3StepOffset, zh bool) string {
		parts := make([]string, len(r.Matches))
		for i, m := range r.Matches {
			if zh {
				parts[i] = fmt.Sprintf("dump step %d = optimizer step %d（%d 个参数中 %d 个的梯度 norm 一致）", m.DumpStep, m.OptStep, m.Shared, m.Agree)
			} else {
				parts[i] = fmt.Sprintf("dump step %d = optimizer step %d (gradient norms agree on %d of %d parameters)", m.DumpStep, m.OptStep, m.Agree, m.Shared)
			}
		}
		return pick(zh, "dump steps are not optimizer steps (trend.db steps re-based by data2db): "+strings.Join(parts, "; "),
			"dump 的 step 不是 optimizer step（trend.db 的 step 被 data2db 重新编号）："+strings.Join(parts, "; "))
	})

	// --- the choice of the control group ---
	register(func(_ model.P3ControlNoTree, zh bool) string {
		return pick(zh, "no dump tree for A: provide C/D (--dump-c/--dump-d)",
			"A 没有 dump 目录：请提供 C/D（--dump-c/--dump-d）")
	})
	register(func(_ model.P3ControlNoCandidate, zh bool) string {
		return pick(zh, "A's dump tree holds no other rank of its step and no other step of its rank: provide a normal sample (--dump-c/--dump-d)",
			"A 的 dump 目录中没有同 step 的其他 rank，也没有同 rank 的其他 step：请提供正常样本（--dump-c/--dump-d）")
	})
	register(func(r model.P3ControlAllSpike, zh bool) string {
		return pick(zh, fmt.Sprintf("every candidate spikes (%d Phase 1 anomalies or above P75): provide a normal sample (--dump-c/--dump-d)", r.Spiking),
			fmt.Sprintf("所有候选都有尖刺（%d 个为 Phase 1 异常或高于 P75）：请提供正常样本（--dump-c/--dump-d）", r.Spiking))
	})
	register(func(_ model.P3ControlUndecidable, zh bool) string {
		return pick(zh, "\"normal\" cannot be decided for any candidate (no parameters_grad): provide a normal sample (--dump-c/--dump-d)",
			"所有候选都无法判定是否「正常」（没有 parameters_grad）：请提供正常样本（--dump-c/--dump-d）")
	})
	register(func(r model.P3ControlNone, zh bool) string {
		return pick(zh, fmt.Sprintf("no candidate qualifies (%d spike, %d undecidable): provide a normal sample (--dump-c/--dump-d)", r.Spiking, r.Undecidable),
			fmt.Sprintf("没有合格的候选（%d 个尖刺，%d 个无法判定）：请提供正常样本（--dump-c/--dump-d）", r.Spiking, r.Undecidable))
	})
	register(func(r model.P3ControlChosen, zh bool) string {
		why := joined(r.Why, zh)
		if zh {
			parts := []string{fmt.Sprintf("C = step %d rank %d（%s）", r.Step, r.Rank, why)}
			if r.HasD {
				parts = append(parts, fmt.Sprintf("D = 标杆 step %d rank %d", r.Step, r.Rank))
			} else {
				parts = append(parts, "C 的 step/rank 处没有标杆 dump：缺少 D，比较降级")
			}
			if r.Common != nil {
				parts = append(parts, fmt.Sprintf("梯度 norm 取自每个 dump 都有梯度的 %d 个 module（各 pipeline stage 持有不同的参数）", *r.Common))
			}
			return strings.Join(parts, "; ")
		}
		parts := []string{fmt.Sprintf("C = step %d rank %d (%s)", r.Step, r.Rank, why)}
		if r.HasD {
			parts = append(parts, fmt.Sprintf("D = baseline step %d rank %d", r.Step, r.Rank))
		} else {
			parts = append(parts, "no baseline dump at C's step/rank: D missing, comparison degraded")
		}
		if r.Common != nil {
			parts = append(parts, fmt.Sprintf("gradient norms over the %d modules with gradients in every dump (pipeline stages hold different parameters)", *r.Common))
		}
		return strings.Join(parts, "; ")
	})
	register(func(_ model.P3ControlGiven, zh bool) string {
		return pick(zh, "C given by --dump-c", "C 由 --dump-c 给出")
	})
	register(func(r model.P3ControlUser, zh bool) string {
		return pick(zh, fmt.Sprintf("C chosen by the user: step %d rank %d", r.Step, r.Rank),
			fmt.Sprintf("C 由用户选定：step %d rank %d", r.Step, r.Rank))
	})
	register(func(r model.P3ControlNotInTree, zh bool) string {
		return pick(zh, fmt.Sprintf("no dump at %s in --dump-c %s (has %s)", r.At, r.Path, r.Has),
			fmt.Sprintf("--dump-c %s 中没有 %s 处的 dump（已有 %s）", r.Path, r.At, r.Has))
	})
	register(func(_ model.P3CandAnomaly, zh bool) string {
		return pick(zh, "a Phase 1 anomaly", "是 Phase 1 异常")
	})
	register(func(_ model.P3CandNoParamGrad, zh bool) string {
		return pick(zh, "no parameters_grad: normal level undecidable", "没有 parameters_grad：无法判定正常水平")
	})
	register(func(_ model.P3CandNonFinite, zh bool) string {
		return pick(zh, "non-finite gradient norm", "梯度 norm 非有限值")
	})
	register(func(_ model.P3CandTooFew, zh bool) string {
		return pick(zh, "fewer than two gradient norms in the tree: normal level undecidable",
			"目录中的梯度 norm 少于两个：无法判定正常水平")
	})
	register(func(r model.P3CandAboveP75, zh bool) string {
		return pick(zh, fmt.Sprintf("gradient norm %.4g above the tree's P75 %.4g", r.Norm, r.P75),
			fmt.Sprintf("梯度 norm %.4g 高于目录的 P75 %.4g", r.Norm, r.P75))
	})
	register(func(r model.P3CandNormal, zh bool) string {
		return pick(zh, fmt.Sprintf("gradient norm %.4g ≤ P75 %.4g, not a Phase 1 anomaly", r.Norm, r.P75),
			fmt.Sprintf("梯度 norm %.4g ≤ P75 %.4g，不是 Phase 1 异常", r.Norm, r.P75))
	})
	register(func(r model.P3CandOtherStage, zh bool) string {
		return pick(zh, fmt.Sprintf("on pipeline stage %d, A on stage %d: other layers under the same layer numbers", r.Stage, r.AStage),
			fmt.Sprintf("在 pipeline stage %d，A 在 stage %d：同样的层号对应不同的层", r.Stage, r.AStage))
	})
	register(func(_ model.P3CandOtherLayers, zh bool) string {
		return pick(zh, "holds other layers than A (pipeline stage?)", "持有与 A 不同的层（pipeline stage?）")
	})

	// --- band notes and rules ---
	register(func(_ model.P3BandNoRatio, zh bool) string {
		return pick(zh, "no ratio to learn a band from (the statistic is missing, or near zero like the Mean of a centred tensor): not used for flags",
			"没有可学习阈值的比值（统计量缺失，或接近零，如中心化张量的 Mean）：不用于标注")
	})
	register(func(_ model.P3BandSignChange, zh bool) string {
		return pick(zh, "control ratios change sign or reach zero (values near zero, e.g. the Mean of a centred tensor): shown, not used for flags",
			"对照比值变号或为零（数值接近零，如中心化张量的 Mean）：仅展示，不用于标注")
	})
	register(func(_ model.P3BandScatter, zh bool) string {
		return pick(zh, "control ratios scatter wider than their median: shown, not used for flags",
			"对照比值的离散程度超过其中位数：仅展示，不用于标注")
	})
	register(func(_ model.P3BandDegraded, zh bool) string {
		return pick(zh, "no control group: band from A/B across layers around its median; A/B may include device bias",
			"无对照组：阈值由各层 A/B 围绕其中位数学习；A/B 可能混入设备系统偏差")
	})
	register(func(r model.P3BandAllFixed, zh bool) string {
		return pick(zh, "every control ratio of this statistic ("+strconv.Itoa(r.N)+") is fixed by construction (the same in every group, or exactly 1 on every record of its kind): no noise to learn, the band is the seed's 3% floor",
			"该统计量的所有对照比值（"+strconv.Itoa(r.N)+" 个）都由构造固定（各组相同，或该类记录上恒为 1）：没有噪声可学，阈值取 seed 的 3% 下限")
	})
	register(func(r model.P3BandFewLayers, zh bool) string {
		if zh {
			what := "所有锚点的对照比值"
			if r.Ops > 0 {
				what = fmt.Sprintf("各层所有已对齐算子的对照比值（%d 个）", r.Ops)
			}
			return fmt.Sprintf("层数少于 %d：阈值由%s学习", r.Min, what)
		}
		what := "every anchor's control ratios"
		if r.Ops > 0 {
			what = fmt.Sprintf("the control ratios of every aligned op of the layers (%d)", r.Ops)
		}
		return fmt.Sprintf("fewer than %d layers: band learned from %s", r.Min, what)
	})
	register(func(r model.P3BandOverAll, zh bool) string {
		return pick(zh, "over all anchors: "+joined(r.Notes, zh), "合并所有锚点: "+joined(r.Notes, zh))
	})
	register(func(r model.P3BandPeers, zh bool) string {
		return pick(zh, fmt.Sprintf("band of %d peer anchors' control ratios (%d samples)", r.Anchors, r.Samples),
			fmt.Sprintf("%d 个同类锚点的对照比值的阈值（%d 个样本）", r.Anchors, r.Samples))
	})
	register(func(r model.P3BandOwnSpread, zh bool) string {
		return pick(zh, fmt.Sprintf("this anchor's own spread (wider than the band of %d peer anchors)", r.Anchors),
			fmt.Sprintf("本锚点自身的离散度（宽于 %d 个同类锚点的阈值）", r.Anchors))
	})
	register(func(r model.P3BandWidened, zh bool) string {
		return pick(zh, fmt.Sprintf("widened to this anchor's own %d control ratios (their scale's one-standard-error upper bound): records scatter unequally between batches and the band of every op is too narrow for the noisiest", r.N),
			fmt.Sprintf("放宽到本锚点自身的 %d 个对照比值（取其尺度的一倍标准误上界）：各批次间记录的离散程度不一，所有算子的阈值对最嘈杂的记录过窄", r.N))
	})
	register(func(r model.P3BandOps, zh bool) string {
		if zh {
			what := "其他"
			if r.Unflagged {
				what = "未标注"
			}
			return fmt.Sprintf("算子阈值：该方向%s层的 %d 个已对齐算子（不含 L%d）", what, r.Samples, r.Layer)
		}
		what := "other"
		if r.Unflagged {
			what = "unflagged"
		}
		return fmt.Sprintf("op band: %d aligned ops of the %s layers of this pass (L%d excluded)", r.Samples, what, r.Layer)
	})
	register(func(r model.P3BandPass, zh bool) string {
		return pick(zh, fmt.Sprintf("a layer is flagged only when its A/B also leaves the band of every aligned op of the pass (%d ops, median %.4g, [%.4g, %.4g] around it)", r.Ops, r.Median, r.Lower, r.Upper),
			fmt.Sprintf("只有当某层的 A/B 也超出该方向所有已对齐算子的阈值时才标注（%d 个算子，中位数 %.4g，其周围 [%.4g, %.4g]）", r.Ops, r.Median, r.Lower, r.Upper))
	})
	register(func(_ model.P3RuleControl, zh bool) string {
		return pick(zh, "flag when (A/B)/(C/D) < lower or > upper; upper = 1/lower = exp(max(√2·k·IQR⁺(ln C/D), ln 1.03)), IQR⁺ = IQR·(1 + 1.16/√n) (its one-standard-error upper bound over n layers), k = 3·z(α/N)/z(α) (α = the two-sided rate of 3·IQR for one comparison, N = comparisons of the pass: one comparison's false-flag rate kept for the whole pass); √2 because the degree divides two ratios that each carry the control's noise; log scale because device noise is multiplicative (0.5x is as far from 1 as 2x)",
			"当 (A/B)/(C/D) < 下界 或 > 上界 时标注；上界 = 1/下界 = exp(max(√2·k·IQR⁺(ln C/D), ln 1.03))，IQR⁺ = IQR·(1 + 1.16/√n)（n 层上的一倍标准误上界），k = 3·z(α/N)/z(α)（α = 单次比较中 3·IQR 的双侧误报率，N = 该方向的比较次数：整个方向保持单次比较的误报率）；√2 因为异常度是两个各自带有对照噪声的比值之商；取对数尺度因为设备噪声是乘性的（0.5x 与 2x 离 1 一样远）")
	})
	register(func(_ model.P3RuleDegraded, zh bool) string {
		return pick(zh, "flag when (A/B)/median(A/B) < lower or > upper and A/B also leaves the band of every aligned op of the pass; upper = 1/lower = exp(max(k·2·MAD⁺(ln A/B), ln 1.03)), 2·MAD the IQR of normal noise but robust to half the layers being off (a fault that spans layers cannot widen its own band), MAD⁺ its one-standard-error upper bound, k as with a control group, no √2 (the band is learned from the ratio it judges)",
			"当 (A/B)/median(A/B) < 下界 或 > 上界，且 A/B 也超出该方向所有已对齐算子的阈值时标注；上界 = 1/下界 = exp(max(k·2·MAD⁺(ln A/B), ln 1.03))，2·MAD 即正常噪声的 IQR，但对一半的层偏离仍稳健（跨层的故障无法放宽自身的阈值），MAD⁺ 为其一倍标准误上界，k 与有对照组时相同，不乘 √2（阈值由被判定的比值本身学习）")
	})
	register(func(_ model.P3RuleDegradedOps, zh bool) string {
		return pick(zh, "flag an op when (A/B)/median(A/B) < lower or > upper; median and spread over the A/B ratios of every aligned op of the other, unflagged layers of the pass; upper = 1/lower = exp(max(k·2·MAD⁺(ln A/B), ln 1.03)) (2·MAD = the IQR of normal noise, robust to half the records being off), MAD⁺ its one-standard-error upper bound, k as for the layers",
			"当算子的 (A/B)/median(A/B) < 下界 或 > 上界 时标注；中位数与离散度取自该方向其他未标注层所有已对齐算子的 A/B 比值；上界 = 1/下界 = exp(max(k·2·MAD⁺(ln A/B), ln 1.03))（2·MAD = 正常噪声的 IQR，对一半的记录偏离仍稳健），MAD⁺ 为其一倍标准误上界，k 与层判定相同")
	})

	// --- why two records are not compared ---
	register(func(r model.P3Unaligned, zh bool) string {
		return pick(zh, r.Dir+" "+r.Pair+": "+sayIn(r.Why, zh),
			DirWord(r.Dir, Chinese)+" "+r.Pair+" 未对齐: "+sayIn(r.Why, zh))
	})
	register(func(r model.P3NoDump, zh bool) string {
		return pick(zh, "no dump "+r.Group, "没有 dump "+r.Group)
	})
	register(func(r model.P3MissingIn, zh bool) string {
		return pick(zh, "missing in "+r.Group, r.Group+" 中缺失")
	})
	register(func(r model.P3MissingKeyIn, zh bool) string {
		return pick(zh, "missing key in "+r.Group, r.Group+" 中缺少该 key")
	})
	register(func(r model.P3NoComparableOp, zh bool) string {
		return pick(zh, "no comparable op in "+r.Group, r.Group+" 中没有可比较的算子")
	})
	register(func(r model.P3NoFloatOutput, zh bool) string {
		return pick(zh, "no floating-point output in "+r.Group, r.Group+" 中没有浮点输出")
	})
	register(func(r model.P3ElementCount, zh bool) string {
		return pick(zh, fmt.Sprintf("element count %d vs %d", r.A, r.B), fmt.Sprintf("元素数 %d 与 %d 不一致", r.A, r.B))
	})
	register(func(r model.P3NormNone, zh bool) string {
		return pick(zh, "Norm is None in "+r.Group, r.Group+" 中 Norm 为 None")
	})
	register(func(r model.P3StatNonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("%s is %v in %s", r.Stat, r.Value, r.Group),
			fmt.Sprintf("%s 中 %s 为 %v", r.Group, r.Stat, r.Value))
	})
	register(func(r model.P3BaselineBroken, zh bool) string {
		return pick(zh, fmt.Sprintf("%s is %v in %s only (finite in %s): the baseline itself is broken", r.Stat, r.Value, r.Group, r.Other),
			fmt.Sprintf("%s 仅在 %s 中为 %v（在 %s 中有限）：标杆自身已损坏", r.Stat, r.Group, r.Value, r.Other))
	})
	register(func(r model.P3BothNonFinite, zh bool) string {
		return pick(zh, fmt.Sprintf("%s is %v in %s and %v in %s: not finite on either side", r.Stat, r.ValueX, r.X, r.ValueY, r.Y),
			fmt.Sprintf("%s 在 %s 中为 %v，在 %s 中为 %v：两侧都非有限", r.Stat, r.X, r.ValueX, r.Y, r.ValueY))
	})
	register(func(r model.P3ClassDiffers, zh bool) string {
		return pick(zh, fmt.Sprintf("class differs: %s vs %s", r.A, r.B), fmt.Sprintf("类不同: %s 与 %s", r.A, r.B))
	})
	register(func(r model.P3SplitFused, zh bool) string {
		switch {
		case zh && r.Split:
			return fmt.Sprintf("%s 中无对应记录：%s 是拆分投影之一，而 %s 为融合的 %s", r.Group, r.Seg, r.Group, r.Found)
		case zh:
			return fmt.Sprintf("%s 中无对应记录：%s 是融合投影，而 %s 为拆分的 %s", r.Group, r.Seg, r.Group, r.Found)
		case r.Split:
			return fmt.Sprintf("no counterpart in %s: %s is one of the split projections where %s has the fused %s", r.Group, r.Seg, r.Group, r.Found)
		}
		return fmt.Sprintf("no counterpart in %s: %s is fused where %s has the split %s", r.Group, r.Seg, r.Group, r.Found)
	})
	register(func(r model.P3ComparedAtNext, zh bool) string {
		return pick(zh, sayIn(r.Why, zh)+"; compared at the next aligned record, "+r.Key,
			sayIn(r.Why, zh)+"；改在下一条已对齐记录 "+r.Key+" 比较")
	})
	register(func(_ model.P3Masked, zh bool) string {
		return pick(zh, "masked alike in every group (the same null or infinite statistics): nothing to compare",
			"各组的屏蔽方式相同（相同的空值或无穷统计量）：无可比较")
	})

	// --- direction verdicts ---
	register(func(r model.P3DirUncompared, zh bool) string {
		return pick(zh, fmt.Sprintf("layers %s could not be compared", layerList(r.Layers)),
			fmt.Sprintf("层 %s 无法比较", layerList(r.Layers)))
	})
	register(func(r model.P3DirUndetermined, zh bool) string {
		return pick(zh, fmt.Sprintf("no flagged layer, but layers %s could not be compared: not consistent", layerList(r.Layers)),
			fmt.Sprintf("没有标注的层，但层 %s 无法比较：不能判为一致", layerList(r.Layers)))
	})
	register(func(_ model.P3DirNoBand, zh bool) string {
		return pick(zh, "no usable control band for this direction", "该方向没有可用的对照阈值")
	})
	register(func(r model.P3DirAmplified, zh bool) string {
		return pick(zh, fmt.Sprintf("backward divergence follows the forward divergence at L%d: propagated/amplified, trace the forward first", r.Layer),
			fmt.Sprintf("反向分叉跟随 L%d 的前向分叉：传播/放大，先追溯前向", r.Layer))
	})
	register(func(_ model.P3DirBackwardItself, zh bool) string {
		return pick(zh, "forward consistent: the backward itself produced the divergence", "前向一致：分叉由反向自身产生")
	})
	register(func(_ model.P3DirForwardUnsure, zh bool) string {
		return pick(zh, "forward could not be fully compared: a forward origin is not excluded", "前向未能完整比较：不能排除前向源头")
	})
	register(func(_ model.P3DirStandIn, zh bool) string {
		return pick(zh, "compared with C in B's place (no baseline dump): the divergence may be a data difference between the two samples, not a device fault; confirm with a baseline dump",
			"以 C 代替 B 比较（无标杆 dump）：分叉可能是两个样本的数据差异，而非设备故障；请用标杆 dump 确认")
	})
	register(func(r model.P3DirFewAnchors, zh bool) string {
		return pick(zh, fmt.Sprintf("only %d aligned anchor(s): verdict incomplete", r.Anchors),
			fmt.Sprintf("仅 %d 个已对齐锚点：判定不完整", r.Anchors))
	})

	// --- the drill-down ---
	register(func(_ model.P3DrillNoOps, zh bool) string {
		return pick(zh, "dump A has no ops in this layer and pass", "dump A 在该层该方向没有算子")
	})
	register(func(r model.P3DrillCallFellBack, zh bool) string {
		return pick(zh, fmt.Sprintf("this layer ran %d times in this pass, fewer than micro-batch %d: operators compared at micro-batch 1, as the layer table", r.Calls, r.Asked),
			fmt.Sprintf("该层在该方向只运行了 %d 次，少于第 %d 个微批次：算子在第 1 个微批次比较，与层表相同", r.Calls, r.Asked))
	})
	register(func(_ model.P3DrillNoneLeaves, zh bool) string {
		return pick(zh, "no op of this layer leaves the band: the layer's divergence is below single-op resolution or lies in unaligned ops",
			"该层没有算子超出阈值：该层的分叉低于单算子分辨率，或在未对齐的算子中")
	})
	register(func(r model.P3DrillUpstreamClean, zh bool) string {
		return pick(zh, fmt.Sprintf("upstream checked until no difference (%s)", r.Op),
			fmt.Sprintf("已向上游核对至无差异（%s）", r.Op))
	})
	register(func(_ model.P3DrillFirstOp, zh bool) string {
		return pick(zh, "first op of the layer in this pass: nothing upstream inside the layer", "是该层在该方向的第一个算子：层内没有上游")
	})
	register(func(_ model.P3DrillUpstreamUnaligned, zh bool) string {
		return pick(zh, "upstream ops of the layer could not be compared (unaligned): an earlier origin is not excluded",
			"该层的上游算子无法比较（未对齐）：不能排除更早的源头")
	})
	register(func(r model.P3DrillLargestAfter, zh bool) string {
		return pick(zh, fmt.Sprintf("the largest difference (%s) is computed after the operator: the divergence starts at the first divergent op and grows downstream", r.Op),
			fmt.Sprintf("差异最大的算子（%s）在该算子之后计算：分叉始于第一个分叉算子并向下游增大", r.Op))
	})
	register(func(r model.P3DrillNonFinite, zh bool) string {
		stats := strings.Join(r.Stats, ", ")
		if zh {
			where := "在该层内"
			if r.BeforeLayers {
				where = "在各层之前"
			}
			against := "其标杆对应记录为有限值"
			if r.NoCounterpart {
				against = "它在 " + r.Baseline + " 中没有对应记录；其后第一条比较的记录变为非有限值，而 " + r.Baseline + " 中为有限值"
			}
			return fmt.Sprintf("非有限值源头%s：第一条输出变为非有限值（%s）而输入有限的记录；%s", where, stats, against)
		}
		where := "in this layer"
		if r.BeforeLayers {
			where = "before the layers"
		}
		against := "its baseline counterpart is finite"
		if r.NoCounterpart {
			against = "it has no counterpart in " + r.Baseline + "; the first compared record after it turns non-finite where " + r.Baseline + " is finite"
		}
		return fmt.Sprintf("non-finite origin %s: the first record whose output turns non-finite (%s) while its inputs are finite; %s", where, stats, against)
	})

	// --- the data-feature check ---
	register(func(_ model.P3ShapeNone, zh bool) string {
		return pick(zh, "no input shape found", "未找到输入 shape")
	})
	register(func(r model.P3ShapeAB, zh bool) string {
		switch {
		case zh && r.Different:
			return fmt.Sprintf("输入 shape A %v 与 B %v 不同：A/B 比较的是不同的数据", r.A, r.B)
		case zh:
			return fmt.Sprintf("输入 shape A %v 与 B %v 不同", r.A, r.B)
		case r.Different:
			return fmt.Sprintf("input shape A %v vs B %v: A/B compare different data", r.A, r.B)
		}
		return fmt.Sprintf("input shape A %v vs B %v", r.A, r.B)
	})
	register(func(r model.P3ShapeAC, zh bool) string {
		if zh {
			s := fmt.Sprintf("输入 shape A %v 与 C %v 不同", r.A, r.C)
			switch {
			case r.Baseline && r.Same:
				s += fmt.Sprintf("；标杆侧 B %v 与 D %v 有相同的差异", r.B, r.D)
			case r.Baseline:
				s += fmt.Sprintf("；标杆侧 B %v 与 D %v", r.B, r.D)
			}
			return s
		}
		s := fmt.Sprintf("input shape A %v vs C %v", r.A, r.C)
		switch {
		case r.Baseline && r.Same:
			s += fmt.Sprintf("; baseline B %v vs D %v shows the same difference", r.B, r.D)
		case r.Baseline:
			s += fmt.Sprintf("; baseline B %v vs D %v", r.B, r.D)
		}
		return s
	})

	// --- A's pipeline stage ---
	register(func(r model.P3StagePhase1, zh bool) string {
		return pick(zh, fmt.Sprintf("Phase 1 pipeline stages: rank %d is on stage %d of %d", r.Rank, r.Stage, r.Stages),
			fmt.Sprintf("Phase 1 的 pipeline stage：rank %d 在 stage %d（共 %d 个）", r.Rank, r.Stage, r.Stages))
	})
	register(func(_ model.P3StageLast, zh bool) string {
		return pick(zh, "A's dump holds the final norm / output layer but no embedding: the last pipeline stage (or a dump limited by scope/list); its layer numbers are then stage-local, and the global layer needs the earlier stages' layer counts (give the monitor data)",
			"A 的 dump 含有最后的 norm / 输出层但没有 embedding：是最后一个 pipeline stage（或 dump 受 scope/list 限制）；其层号因此是 stage 内编号，全局层号需要之前各 stage 的层数（请提供 monitor 数据）")
	})
	register(func(_ model.P3StageMiddle, zh bool) string {
		return pick(zh, "A's dump holds neither the embedding nor the final norm / output layer: a middle pipeline stage (or a dump limited by scope/list); its layer numbers are then stage-local",
			"A 的 dump 既没有 embedding 也没有最后的 norm / 输出层：是中间的 pipeline stage（或 dump 受 scope/list 限制）；其层号因此是 stage 内编号")
	})
}

// --- filling a result's strings from its reasons ---

// notes says rs in l joined by "; ": a Note field's text.
func notes(rs []model.Reason, l Lang) string { return strings.Join(All(rs, l), "; ") }

// band fills a band's Note and Rule from its reasons.
func band(b *model.Band, l Lang) {
	if b.NoteReasons != nil {
		b.Note = notes(b.NoteReasons, l)
	}
	fill(&b.Rule, b.RuleReason, l)
}

// bands fills every band of th in place.
func bands(th map[string]map[string]model.Band, l Lang) {
	for _, dirs := range th {
		for d, b := range dirs {
			band(&b, l)
			dirs[d] = b
		}
	}
}

// Phase3Ops fills the Why of drill-down operators from their reasons.
func Phase3Ops(ops []model.DrillOp, l Lang) {
	for i := range ops {
		fill(&ops[i].Why, ops[i].WhyReason, l)
	}
}

// ControlCandidates fills the candidates' Reason from their reasons.
func ControlCandidates(cs []model.ControlCandidate, l Lang) {
	for i := range cs {
		if cs[i].Why != nil {
			cs[i].Reason = notes(cs[i].Why, l)
		}
	}
}

// Phase3 fills every text of res that its rules left as reasons, in l
// (Default: English), in place. A result read back from JSON has no
// reasons and keeps its strings.
func Phase3(res *model.Phase3Result, l Lang) {
	if res == nil {
		return
	}
	fillAll(&res.Warnings, res.WarningsReasons, l)
	fill(&res.DegradedNote, res.DegradedNoteReason, l)
	fill(&res.ControlChoice, res.ControlChoiceReason, l)
	ControlCandidates(res.ControlCandidates, l)
	if w := res.AnchorWarning; w != nil {
		fill(&w.Message, w.MessageReason, l)
	}
	if ds := res.DumpStage; ds != nil {
		fill(&ds.Source, ds.SourceReason, l)
	}
	for i := range res.Anchors {
		a := &res.Anchors[i]
		bands(a.Thresholds, l)
		for j := range a.Layers {
			al := &a.Layers[j].Alignment
			fillAll(&al.Reasons, al.Why, l)
		}
	}
	s := &res.DivergenceSummary
	bands(s.Thresholds, l)
	for i := range s.Directions {
		if d := &s.Directions[i]; d.NoteReasons != nil {
			d.Note = notes(d.NoteReasons, l)
		}
	}
	if d := s.Drilldown; d != nil {
		if d.NoteReasons != nil {
			d.Note = notes(d.NoteReasons, l)
		}
		Phase3Ops(d.Ops, l)
	}
	if df := s.DataFeature; df != nil {
		fill(&df.Detail, df.DetailReason, l)
	}
}

// Phase3In returns a copy of res with its texts said in l, res untouched:
// the Chinese report says a result the pipeline filled in English. The
// parts that hold texts are copied; the rest is shared.
func Phase3In(res *model.Phase3Result, l Lang) *model.Phase3Result {
	if res == nil {
		return nil
	}
	c := *res
	c.Warnings = append([]string(nil), res.Warnings...)
	c.ControlCandidates = append([]model.ControlCandidate(nil), res.ControlCandidates...)
	if res.ControlCandidates != nil && c.ControlCandidates == nil {
		c.ControlCandidates = []model.ControlCandidate{}
	}
	if res.AnchorWarning != nil {
		w := *res.AnchorWarning
		c.AnchorWarning = &w
	}
	if res.DumpStage != nil {
		ds := *res.DumpStage
		c.DumpStage = &ds
	}
	if res.Anchors != nil {
		c.Anchors = make([]model.AnchorTable, len(res.Anchors))
		for i, a := range res.Anchors {
			a.Thresholds = copyBands(a.Thresholds)
			a.Layers = append([]model.LayerRow(nil), a.Layers...)
			c.Anchors[i] = a
		}
	}
	s := &c.DivergenceSummary
	s.Thresholds = copyBands(s.Thresholds)
	if s.Directions != nil {
		s.Directions = append([]model.DirectionVerdict{}, s.Directions...)
	}
	if s.Drilldown != nil {
		d := *s.Drilldown
		if d.Ops != nil {
			d.Ops = append([]model.DrillOp{}, d.Ops...)
		}
		s.Drilldown = &d
	}
	if s.DataFeature != nil {
		df := *s.DataFeature
		s.DataFeature = &df
	}
	if res.Conclusion != nil { // its directions and operator are the copy's
		pc := *res.Conclusion
		for i := range s.Directions {
			switch d := &s.Directions[i]; {
			case pc.Fwd != nil && pc.Fwd == &res.DivergenceSummary.Directions[i]:
				pc.Fwd = d
			case pc.Bwd != nil && pc.Bwd == &res.DivergenceSummary.Directions[i]:
				pc.Bwd = d
			}
		}
		if pc.Operator != nil && pc.Operator == res.DivergenceSummary.Drilldown {
			pc.Operator = s.Drilldown
		}
		c.Conclusion = &pc
	}
	Phase3(&c, l)
	return &c
}

func copyBands(th map[string]map[string]model.Band) map[string]map[string]model.Band {
	if th == nil {
		return nil
	}
	out := make(map[string]map[string]model.Band, len(th))
	for m, dirs := range th {
		out[m] = maps.Clone(dirs)
	}
	return out
}
