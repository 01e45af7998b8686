package words

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/model"
)

// The verdict's short phrases: its cause, its place and its one-line
// headline, for the TUI and the reports (Default and English say
// English).

var causeWords = map[string][2]string{
	model.CauseDevice:       {"device", "设备"},
	model.CauseData:         {"data", "数据"},
	model.CauseNumerics:     {"numerics", "数值范围"},
	model.CauseDynamics:     {"training dynamics", "训练动态"},
	model.CauseUndetermined: {"undetermined", "待定"},
}

// CauseWord is a cause class (model.CauseDevice, …) in l.
func CauseWord(cause string, l Lang) string {
	w, ok := causeWords[cause]
	if !ok {
		return cause
	}
	return pick(l == Chinese, w[0], w[1])
}

// CauseText is a cause with its likely class (set with
// model.CauseUndetermined): "undetermined (likely data)".
func CauseText(cause, likely string, l Lang) string {
	s := CauseWord(cause, l)
	if likely != "" {
		s += pick(l == Chinese, " (likely "+CauseWord(likely, l)+")", "（可能是"+CauseWord(likely, l)+"）")
	}
	return s
}

// VerdictCause is v's cause, "undetermined (likely data)" style ("" for
// nil).
func VerdictCause(v *model.Verdict, l Lang) string {
	if v == nil {
		return ""
	}
	return CauseText(v.Cause, v.Likely, l)
}

// Where is the verdict's place in one phrase: "rank 3, step 5, micro step
// 2, <parameter>; forward layer 2, <operator>" ("" for nil).
func Where(v *model.Verdict, l Lang) string {
	if v == nil {
		return ""
	}
	zh := l == Chinese
	var parts []string
	if co := v.Coordinate; co != nil {
		p := fmt.Sprintf("rank %d, step %d", co.Rank, co.StepNumber())
		if co.MicroStep != nil {
			p += fmt.Sprintf(", micro step %d", *co.MicroStep)
		}
		if co.TargetName != "" {
			p += ", " + co.TargetName
			if !co.ParamDecides() {
				p += pick(zh, " (parameter does not locate)", "（参数不定位）")
			}
		}
		parts = append(parts, p)
	}
	if v.Layer != nil || v.Operator != nil {
		parts = append(parts, LocPhrase(v.DirectionName(), v.Layer, v.OperatorName(), l))
	}
	return strings.Join(parts, "; ")
}

// LocPhrase is Phase 3's place in one phrase: "forward layer 2,
// <operator>" (Chinese: "前向 层 2, <operator>").
func LocPhrase(dir string, layer *int, op string, l Lang) string {
	zh := l == Chinese
	p := ""
	if dir != "" {
		p = DirWord(dir, l) + " "
	}
	if layer != nil {
		p += pick(zh, "layer ", "层 ") + strconv.Itoa(*layer)
	}
	if op != "" {
		p = strings.TrimSpace(p) + ", " + op
		p = strings.TrimPrefix(p, ", ")
	}
	return p
}

// DirWord is a Phase 3 direction ("fwd", "bwd") in words.
func DirWord(d string, l Lang) string {
	zh := l == Chinese
	switch d {
	case "fwd":
		return pick(zh, "forward", "前向")
	case "bwd":
		return pick(zh, "backward", "反向")
	}
	return d
}

// Headline is the verdict in one line: "Verdict: device — rank 3, step 5,
// <param>; forward layer 2, <op>" ("" for nil).
func Headline(v *model.Verdict, l Lang) string {
	if v == nil {
		return ""
	}
	s := pick(l == Chinese, "Verdict: ", "判定: ") + VerdictCause(v, l)
	if w := Where(v, l); w != "" {
		s += " — " + w
	}
	return s
}
