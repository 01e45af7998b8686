package model

import (
	"fmt"
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
// (and names). Text is its sentence, said by package words from Reason
// (English by default).
type Evidence struct {
	Rule    string            `json:"rule"`
	Numbers map[string]Float  `json:"numbers,omitempty"`
	Names   map[string]string `json:"names,omitempty"`
	Text    string            `json:"text"`
	// Reason is the typed fact (nil when read back from a saved JSON:
	// EvidenceReasonOf rebuilds it from the rule, numbers and names).
	Reason Reason `json:"-"`
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
	// Action is what to do next (said by package words from
	// ActionReason, English by default); ActionID names it.
	Action       string `json:"action"`
	ActionID     string `json:"action_id"`
	ActionReason Reason `json:"-"`
	// Coordinate is Phase 2's root coordinate (nil when only dumps were
	// compared and Phase 2 chose none).
	Coordinate *Coordinate `json:"coordinate"`
	// Direction ("fwd"/"bwd"), Layer and Operator are Phase 3's first
	// divergence (Layer without Phase 3: the layer of the coordinate's
	// parameter when the parameter locates the origin).
	Direction *string `json:"direction"`
	Layer     *int    `json:"layer"`
	Operator  *string `json:"operator"`
	// Decide is, with CauseUndetermined, the data that would decide it
	// (said from DecideReason).
	Decide       string `json:"decide,omitempty"`
	DecideReason Reason `json:"-"`
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
		parts = append(parts, LocPhrase(v.DirectionName(), v.Layer, v.OperatorName(), lang))
	}
	return strings.Join(parts, "; ")
}

// LocPhrase is Phase 3's place in one phrase: "forward layer 2,
// <operator>" (lang "zh": "前向 层 2, <operator>").
func LocPhrase(dir string, layer *int, op string, lang string) string {
	zh := lang == "zh"
	p := ""
	if dir != "" {
		p = dirWord(dir, zh) + " "
	}
	if layer != nil {
		p += map[bool]string{true: "层 ", false: "layer "}[zh] + strconv.Itoa(*layer)
	}
	if op != "" {
		p = strings.TrimSpace(p) + ", " + op
		p = strings.TrimPrefix(p, ", ")
	}
	return p
}

// DirWord is a Phase 3 direction in words (lang "en" or "zh").
func DirWord(d, lang string) string { return dirWord(d, lang == "zh") }

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
