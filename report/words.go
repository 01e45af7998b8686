package report

// The words the English report uses for the method's identifiers (data
// kinds, triggers, step names); the Chinese report keeps the method's own
// terms (opt_step, ms, micro_step), which its readers know from the seed
// document.
var wordsDict = map[string][2]string{
	"w.optstep":  {"opt_step %d", "optimizer step %d"},
	"w.optsteps": {"opt_step %s", "optimizer steps %s"},
	"w.ms":       {"ms %d", "micro step %d"},
}

func init() {
	for k, v := range wordsDict {
		dict[k] = v
	}
}

// kindWords says Phase 1's data kind; window is the accumulation window
// (one micro step per optimizer step accumulates nothing).
func (r *renderer) kindWords(kind string, window int) string {
	if r.zh {
		return code(kind)
	}
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
	return code(kind)
}

// triggerWords says which test flagged a candidate.
func (r *renderer) triggerWords(trigger string) string {
	w, ok := map[string][2]string{
		"iqr+mad":          {"IQR 与 MAD 两个检验", "both the IQR and the MAD test"},
		"iqr":              {"IQR 检验", "the IQR test"},
		"mad":              {"MAD 检验", "the MAD test"},
		"micro_step_delta": {"micro step 增量", "its micro-step increment"},
		"nonfinite":        {"非有限值 (NaN/Inf)", "a NaN/Inf value"},
		"dump_abs_norm":    {"dump 梯度 norm", "the dump's gradient norm"},
	}[trigger]
	switch {
	case !ok:
		return trigger
	case r.zh:
		return w[0]
	}
	return w[1]
}
