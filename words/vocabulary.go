package words

import (
	"fmt"
	"strconv"

	"spikescope/model"
)

// The method's identifiers as a user reads them: the faces (the TUI, the
// reports) name a trigger, a data kind, a pass unit or an input format
// with these words, each written once.

// TriggerWords are the words for one test that flags a candidate
// (model.Anomaly's Trigger: "iqr+mad", "micro_step_delta", …).
type TriggerWords struct {
	Short  string // a table cell on a narrow screen (≤ 8 cells)
	Long   string // a table cell (≤ 16 cells)
	Clause string // why a candidate was flagged, standing after its numbers
	En, Zh string // the reports' name of the test
}

var triggers = map[string]TriggerWords{
	"iqr+mad":          {Short: "IQR+MAD", Long: "IQR and MAD", Clause: "outside its IQR and MAD bands", En: "both the IQR and the MAD test", Zh: "IQR 与 MAD 两个检验"},
	"iqr":              {Short: "IQR", Long: "IQR band", Clause: "outside its IQR band", En: "the IQR test", Zh: "IQR 检验"},
	"mad":              {Short: "MAD", Long: "MAD band", Clause: "outside its MAD band", En: "the MAD test", Zh: "MAD 检验"},
	"micro_step_delta": {Short: "ms jump", Long: "micro-step jump", Clause: "a jump between micro steps", En: "its micro-step increment", Zh: "micro step 增量"},
	"nonfinite":        {Short: "NaN/Inf", Long: "NaN/Inf", Clause: "the gradient is not finite (NaN/Inf)", En: "a NaN/Inf value", Zh: "非有限值 (NaN/Inf)"},
	"dump_abs_norm":    {Short: "dump", Long: "dump norm", Clause: "the dump's gradient norm off its baseline", En: "the dump's gradient norm", Zh: "dump 梯度 norm"},
}

// Trigger is the words for trigger t; ok is false for a trigger it does
// not know (the face then shows t itself).
func Trigger(t string) (w TriggerWords, ok bool) {
	w, ok = triggers[t]
	return w, ok
}

// TriggerName is the reports' name of trigger t, in Chinese when zh (t
// itself when unknown).
func TriggerName(t string, zh bool) string {
	w, ok := triggers[t]
	if !ok {
		return t
	}
	return pick(zh, w.En, w.Zh)
}

// DataKind is Phase 1's data kind in English, window the accumulation
// window (one micro step per optimizer step accumulates nothing); "" for
// a kind it does not know (the Chinese report says the kind itself, a term
// of the method).
func DataKind(kind string, window int) string {
	switch {
	case kind == "micro_step" && window == 1:
		return "micro steps, one per optimizer step (window 1: no accumulation, each gradient is the whole step's)"
	case kind == "micro_step":
		return "micro steps (cumulative gradient per micro step)"
	case kind == "step":
		return "steps (one gradient per step)"
	case kind == "dump":
		return "dump statistics (parameter gradients)"
	}
	return ""
}

// PassUnitText says what one pass of the run is: a step, or one micro
// step of an optimizer step (with the window and how it was found).
func PassUnitText(sa model.ShardingAnalysis) string {
	if !sa.HasMicroStep || sa.AccumulationWindow <= 0 {
		return "one gradient per step (no micro steps)"
	}
	how := "detected"
	switch {
	case sa.WindowOverridden:
		how = "set by --window"
	case sa.ExplicitMicroStep:
		how = "as the input numbers them"
	}
	unit := "optimizer step"
	if sa.ExplicitMicroStep {
		unit = "step"
	}
	s := fmt.Sprintf("%d micro steps per %s (%s", sa.AccumulationWindow, unit, how)
	if sa.AccumulationWindow == 1 {
		s = fmt.Sprintf("one micro step per %s (%s", unit, how)
	}
	if r := sa.MicroStepRange; sa.ExplicitMicroStep && len(r) > 0 {
		s += fmt.Sprintf(", %d..%d", r[0], r[len(r)-1])
	} else if sa.WindowPhase != 0 {
		s += fmt.Sprintf(", the first starts at step %d", sa.WindowPhase)
	}
	return s + ")"
}

// PassUnitWords says what one forward/backward pass of the run is, for
// the reports (the analysis writes it as a tuple, "(optimizer_step,
// micro_step)"), in Chinese when zh.
func PassUnitWords(sh model.ShardingAnalysis, zh bool) string {
	switch {
	case !sh.HasMicroStep || sh.AccumulationWindow <= 0:
		return pick(zh, "one step (no micro steps)", "一个 step（无 micro step）")
	case sh.ExplicitMicroStep:
		return pick(zh, "one micro step of a step (micro steps as the input numbers them)", "一个 step 中的一个 micro step（按输入中的编号）")
	}
	w := strconv.Itoa(sh.AccumulationWindow)
	return pick(zh, "one micro step of an optimizer step ("+w+" per optimizer step)", "一个 optimizer step 中的一个 micro step（每个 optimizer step "+w+" 个）")
}

// FormatName is an input format as users name it.
func FormatName(f model.Format) string {
	switch f {
	case model.FormatTrendDB:
		return "trend.db"
	case model.FormatCSV:
		return "CSV"
	case model.FormatDump:
		return "dump tree"
	}
	return string(f)
}
