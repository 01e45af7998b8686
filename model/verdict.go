package model

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Cause classes of a Verdict (method.md, "Verdict").
const (
	CauseDevice       = "device"       // the anomalous device computes differently from its baseline
	CauseData         = "data"         // the spike comes with the input
	CauseNumerics     = "numerics"     // a range problem both devices share
	CauseDynamics     = "dynamics"     // growth across steps on most ranks, no single-rank origin
	CauseUndetermined = "undetermined" // the inputs cannot separate the classes (Likely names the most likely)
)

// Evidence rule ids (Evidence.Rule). Each is a fact with its numbers; the
// sentences are rendered from them (Evidence.Render).
const (
	EvDeviceSpecific  = "p2.device_specific"   // the root event is on the anomalous device only
	EvShared          = "p2.shared"            // the root event is on the baseline too (finite)
	EvSharedNonFinite = "p2.shared_non_finite" // non-finite on both devices at the same coordinate
	EvRunWideGrowth   = "p2.run_wide_growth"   // growth on most ranks across steps, no single-rank event
	EvExtent          = "p2.extent"            // the root event's extent (ranks, parameters)
	EvNonFiniteOne    = "p2.non_finite"        // a NaN/Inf on the one device analysed
	EvParamUndecided  = "p2.parameter_undecided"
	EvRecurs          = "p2.rank_recurs" // the root rank is the root of several device-specific events
	EvP3Divergence    = "p3.divergence"  // A diverges from B beyond the control band
	EvP3NonFinite     = "p3.non_finite_origin"
	EvP3Consistent    = "p3.consistent"   // A and B agree on every compared layer
	EvP3AgainstC      = "p3.against_c"    // A was compared with a normal sample of its own device
	EvDataFeature     = "p3.data_feature" // a data-feature difference the baseline shares
	EvConflict        = "conflict"        // the monitor and the dumps disagree
)

// Evidence is one fact that decided a verdict: the rule and its numbers
// (and names). Text is the English sentence rendered from them.
type Evidence struct {
	Rule    string            `json:"rule"`
	Numbers map[string]Float  `json:"numbers,omitempty"`
	Names   map[string]string `json:"names,omitempty"`
	Text    string            `json:"text"`
}

// Verdict is the answer of all phases that ran, computed once
// (analysis.Verdict, by the pipeline): the root coordinate, the first
// divergent layer and operator with direction, the cause class with the
// evidence that decided it, and the action. nil (JSON null) when nothing
// is anomalous.
type Verdict struct {
	Cause    string     `json:"cause"`
	Likely   string     `json:"likely,omitempty"` // only with CauseUndetermined
	Evidence []Evidence `json:"evidence"`
	// Action is what to do next (English); ActionID names it.
	Action   string `json:"action"`
	ActionID string `json:"action_id"`
	// Coordinate is Phase 2's root coordinate (nil when only dumps were
	// compared and Phase 2 chose none).
	Coordinate *Coordinate `json:"coordinate"`
	// Direction ("fwd"/"bwd"), Layer and Operator are Phase 3's first
	// divergence (Layer without Phase 3: the layer of the coordinate's
	// parameter when the parameter locates the origin).
	Direction *string `json:"direction"`
	Layer     *int    `json:"layer"`
	Operator  *string `json:"operator"`
	// Decide is, with CauseUndetermined, the data that would decide it.
	Decide string `json:"decide,omitempty"`
}

// Parameter is the verdict's parameter ("" without a coordinate).
func (v *Verdict) Parameter() string {
	if v == nil || v.Coordinate == nil {
		return ""
	}
	return v.Coordinate.TargetName
}

// OperatorName is the operator ("" when none).
func (v *Verdict) OperatorName() string {
	if v == nil || v.Operator == nil {
		return ""
	}
	return *v.Operator
}

// DirectionName is the direction ("" when none).
func (v *Verdict) DirectionName() string {
	if v == nil || v.Direction == nil {
		return ""
	}
	return *v.Direction
}

var causeWords = map[string][2]string{
	CauseDevice:       {"device", "设备"},
	CauseData:         {"data", "数据"},
	CauseNumerics:     {"numerics", "数值范围"},
	CauseDynamics:     {"training dynamics", "训练动态"},
	CauseUndetermined: {"undetermined", "待定"},
}

// CauseWord is a cause class in the user's language ("en"/"zh").
func CauseWord(cause, lang string) string {
	w, ok := causeWords[cause]
	if !ok {
		return cause
	}
	if lang == "zh" {
		return w[1]
	}
	return w[0]
}

// CauseText is the verdict's cause, "undetermined (likely data)" style.
func (v *Verdict) CauseText(lang string) string {
	if v == nil {
		return ""
	}
	s := CauseWord(v.Cause, lang)
	if v.Likely != "" {
		if lang == "zh" {
			s += "（可能是" + CauseWord(v.Likely, lang) + "）"
		} else {
			s += " (likely " + CauseWord(v.Likely, lang) + ")"
		}
	}
	return s
}

// Where is the verdict's place in one phrase: "rank 3, step 5, micro step
// 2, <parameter>; fwd L2 <operator>".
func (v *Verdict) Where(lang string) string {
	if v == nil {
		return ""
	}
	zh := lang == "zh"
	var parts []string
	if co := v.Coordinate; co != nil {
		p := ""
		if zh {
			p = fmt.Sprintf("rank %d, step %d", co.Rank, coordStep(co))
			if co.MicroStep != nil {
				p += fmt.Sprintf(", micro step %d", *co.MicroStep)
			}
		} else {
			p = fmt.Sprintf("rank %d, step %d", co.Rank, coordStep(co))
			if co.MicroStep != nil {
				p += fmt.Sprintf(", micro step %d", *co.MicroStep)
			}
		}
		if co.TargetName != "" {
			p += ", " + co.TargetName
			if !co.ParamDecides() {
				p += map[bool]string{true: "（参数不定位）", false: " (parameter does not locate)"}[zh]
			}
		}
		parts = append(parts, p)
	}
	if v.Layer != nil || v.Operator != nil {
		p := ""
		if d := v.DirectionName(); d != "" {
			p = dirWord(d, zh) + " "
		}
		if v.Layer != nil {
			p += map[bool]string{true: "层 ", false: "layer "}[zh] + strconv.Itoa(*v.Layer)
		}
		if op := v.OperatorName(); op != "" {
			p = strings.TrimSpace(p) + ", " + op
			p = strings.TrimPrefix(p, ", ")
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, "; ")
}

// dirWord is a Phase 3 direction in words.
func dirWord(d string, zh bool) string {
	switch {
	case d == "fwd" && zh:
		return "前向"
	case d == "bwd" && zh:
		return "反向"
	case d == "fwd":
		return "forward"
	case d == "bwd":
		return "backward"
	}
	return d
}

func coordStep(co *Coordinate) int {
	if co.OptimizerStep != nil {
		return *co.OptimizerStep
	}
	if co.Step != nil {
		return *co.Step
	}
	return 0
}

// Headline is the verdict in one line: "Verdict: device — rank 3, step 5,
// <param>; fwd L2 <op>". "" for nil.
func (v *Verdict) Headline(lang string) string {
	if v == nil {
		return ""
	}
	label := "Verdict: "
	if lang == "zh" {
		label = "结论: "
	}
	s := label + v.CauseText(lang)
	if w := v.Where(lang); w != "" {
		s += " — " + w
	}
	return s
}

// num formats a number for a sentence.
func num(f Float) string { return FormatG(float64(f), 3) }

func (e *Evidence) n(k string) string { return num(e.Numbers[k]) }
func (e *Evidence) i(k string) string { return strconv.Itoa(int(e.Numbers[k])) }

// Render is the evidence's sentence in lang ("en" or "zh"), from its rule
// and numbers.
func (e *Evidence) Render(lang string) string {
	zh := lang == "zh"
	nm := func(k string) string { return e.Names[k] }
	pick := func(en, z string) string {
		if zh {
			return z
		}
		return en
	}
	switch e.Rule {
	case EvDeviceSpecific:
		if math.IsInf(float64(e.Numbers["ratio"]), 1) {
			return pick(fmt.Sprintf("device-specific: rank %s, step %s, %s is anomalous here and the baseline device has no anomaly on it", e.i("rank"), e.i("step"), nm("parameter")),
				fmt.Sprintf("设备特异: rank %s, step %s, %s 在本设备异常，标杆设备同参数无异常", e.i("rank"), e.i("step"), nm("parameter")))
		}
		return pick(fmt.Sprintf("device-specific: rank %s, step %s, %s is %s× the baseline device's value (threshold %s×)", e.i("rank"), e.i("step"), nm("parameter"), e.n("ratio"), e.n("threshold")),
			fmt.Sprintf("设备特异: rank %s, step %s, %s 为标杆设备的 %s 倍（阈值 %s 倍）", e.i("rank"), e.i("step"), nm("parameter"), e.n("ratio"), e.n("threshold")))
	case EvShared:
		return pick(fmt.Sprintf("shared with the baseline device: all %s candidate(s) of step %s are within %s× of the baseline's same parameter", e.i("candidates"), e.i("step"), e.n("threshold")),
			fmt.Sprintf("双端共有: step %s 的 %s 个候选与标杆同参数相差不到 %s 倍", e.i("step"), e.i("candidates"), e.n("threshold")))
	case EvSharedNonFinite:
		return pick(fmt.Sprintf("non-finite on both devices at the same coordinate: %s NaN/Inf candidate(s) at step %s on %s rank(s)", e.i("candidates"), e.i("step"), e.i("ranks")),
			fmt.Sprintf("双端同一坐标均为非有限值: step %s, %s 个 rank 上 %s 个 NaN/Inf 候选", e.i("step"), e.i("ranks"), e.i("candidates")))
	case EvRunWideGrowth:
		return pick(fmt.Sprintf("growth on most ranks: %s of %s ranks at step %s (≥ %s%%), %s event(s), none limited to one rank", e.i("ranks"), e.i("ranks_total"), e.i("step"), e.n("share"), e.i("events")),
			fmt.Sprintf("多数 rank 增长: step %s 上 %s/%s 个 rank（≥ %s%%），共 %s 个事件，无单 rank 起点", e.i("step"), e.i("ranks"), e.i("ranks_total"), e.n("share"), e.i("events")))
	case EvExtent:
		s := pick(fmt.Sprintf("extent at step %s: %s of %s ranks, %s of about %s parameters a rank holds", e.i("step"), e.i("ranks"), e.i("ranks_total"), e.i("parameters"), e.i("parameters_per_rank")),
			fmt.Sprintf("step %s 的范围: %s/%s 个 rank，每 rank 约 %s 个参数中 %s 个", e.i("step"), e.i("ranks"), e.i("ranks_total"), e.i("parameters_per_rank"), e.i("parameters")))
		ranks, params, per := e.Numbers["ranks"], e.Numbers["parameters"], e.Numbers["parameters_per_rank"]
		switch {
		case ranks >= 2 && ranks >= 0.6*e.Numbers["ranks_total"]:
			s += pick(" — most ranks at once: looks like training dynamics", " — 多数 rank 同时出现: 像训练动态")
		case params >= 2 && params >= 0.5*per:
			s += pick(" — most parameters of the rank at once: looks like data (a bad batch raises every gradient of its rank)", " — 该 rank 大部分参数同时异常: 像数据（坏 batch 抬高其 rank 的全部梯度）")
		case ranks == 1:
			s += pick(" — a few parameters on one rank: looks like a device fault (a kernel or the device)", " — 单 rank 少数参数: 像设备故障（算子或设备）")
		}
		return s
	case EvNonFiniteOne:
		return pick(fmt.Sprintf("NaN/Inf at step %s on %s of %s ranks, one device analysed", e.i("step"), e.i("ranks"), e.i("ranks_total")),
			fmt.Sprintf("step %s 上 %s/%s 个 rank 出现 NaN/Inf（仅一个设备的数据）", e.i("step"), e.i("ranks"), e.i("ranks_total")))
	case EvParamUndecided:
		return pick(fmt.Sprintf("the parameter does not locate the origin: %s parameters of rank %s at once", e.i("parameters"), e.i("rank")),
			fmt.Sprintf("参数不定位根因: rank %s 的 %s 个参数同时异常", e.i("rank"), e.i("parameters")))
	case EvRecurs:
		return pick(fmt.Sprintf("rank %s is the origin of %s device-specific events", e.i("rank"), e.i("events")),
			fmt.Sprintf("rank %s 是 %s 个设备特异事件的起点", e.i("rank"), e.i("events")))
	case EvP3Divergence:
		l := "L" + e.i("layer")
		if _, ok := e.Numbers["layer"]; !ok {
			l = "outside the layers"
		}
		s := pick(fmt.Sprintf("Phase 3: A diverges from B %s at %s", dirWord(nm("direction"), false), l),
			fmt.Sprintf("Phase 3: A 相对 B 在%s %s 开始偏离", dirWord(nm("direction"), true), l))
		if op := nm("operator"); op != "" {
			s += pick(", first operator "+op, "，首个算子 "+op)
		}
		if b, ok := e.Numbers["band"]; ok {
			s += pick(fmt.Sprintf(" (beyond the control band ±%s)", num(b)), fmt.Sprintf("（超出对照带 ±%s）", num(b)))
		}
		if nm("degraded") != "" {
			s += pick("; no control group: the band comes from A/B itself", "；无对照组: 阈值带来自 A/B 自身")
		}
		return s
	case EvP3NonFinite:
		return pick(fmt.Sprintf("Phase 3: %s is where A first turns NaN/Inf while B stays finite", nm("operator")),
			fmt.Sprintf("Phase 3: %s 是 A 首次出现 NaN/Inf 而 B 仍有限的位置", nm("operator")))
	case EvP3Consistent:
		return pick(fmt.Sprintf("Phase 3: A and B agree on all %s compared layer(s) (no layer beyond the band)", e.i("layers")),
			fmt.Sprintf("Phase 3: A 与 B 在全部 %s 个比较层上一致（无超带层）", e.i("layers")))
	case EvP3AgainstC:
		return pick("Phase 3 compared A with a normal sample of its own device (no baseline dump): a divergence there may be the data of the two samples",
			"Phase 3 以本设备的正常样本代替标杆（无标杆 dump）: 偏离可能来自两个样本的数据差异")
	case EvDataFeature:
		return pick("the input shapes differ between the groups and the baseline shows the same difference: "+nm("detail"),
			"各组输入形状不同，标杆侧有同样的差异: "+nm("detail"))
	case EvConflict:
		return pick("the monitor data calls the root device-specific, the dumps of A and B agree: the dumps may be of another step",
			"监控数据判定设备特异，而 A/B dump 一致: dump 可能不是该 step")
	}
	return e.Text
}

// ActionText is the verdict's action in lang, rendered from its class,
// coordinate and operator.
func (v *Verdict) ActionText(lang string) string {
	if v == nil {
		return ""
	}
	zh := lang == "zh"
	where := ""
	if co := v.Coordinate; co != nil {
		where = fmt.Sprintf("step %d, rank %d", coordStep(co), co.Rank)
		if co.MicroStep != nil {
			where += fmt.Sprintf(", micro step %d", *co.MicroStep)
		}
	}
	op := v.OperatorName()
	loc := ""
	if v.Layer != nil || op != "" {
		parts := strings.Split(v.Where(lang), "; ")
		loc = parts[len(parts)-1]
	}
	switch v.ActionID {
	case "kernel_owner":
		if zh {
			s := "将 " + orDash(loc) + "（" + where + "）交给算子/硬件负责人；在该 step 与 rank 上对两设备做 tensor 级 dump（msprobe level L1/mix, task tensor），用 msprobe compare 确认"
			return s
		}
		return "hand " + orDash(loc) + " (" + where + ") to the kernel/hardware owner; confirm with a tensor dump of that step and rank on both devices (msprobe task tensor, level L1 or mix) and msprobe compare"
	case "bad_device":
		if zh {
			return "同一 rank 在多个事件中为起点: 检查该 rank 所在的设备/节点（" + where + "），再将 " + orDash(loc) + " 交给硬件负责人"
		}
		return "the same rank starts several events: check its device/node (" + where + ") before the kernel; then hand " + orDash(loc) + " to the hardware owner"
	case "inspect_batch":
		if zh {
			return "检查或跳过该批数据（" + where + "）: 序列长度、padding、异常 token、标签"
		}
		return "inspect or skip the batch of " + where + ": sequence length, padding, unusual tokens, labels"
	case "range":
		if zh {
			return "数值范围问题: 调整 loss scaling（或改用 bf16），并设置梯度裁剪"
		}
		return "a range problem: adjust loss scaling (or train in bf16) and clip gradients"
	case "lr":
		if zh {
			return "训练动态: 降低学习率、延长 warm-up，或设置梯度裁剪"
		}
		return "training dynamics: lower the learning rate, lengthen warm-up, or clip gradients"
	case "collect":
		if zh {
			return "收集可判定的数据: 标杆设备同样数据、同样 step 的监控（report PATH --baseline 标杆），以及两设备在 " + where + " 的 dump（plan 写出 msprobe 配置）"
		}
		return "collect the data that decides it: " + v.Decide
	}
	return v.Action
}

func orDash(s string) string {
	if s == "" {
		return "the root coordinate"
	}
	return s
}
