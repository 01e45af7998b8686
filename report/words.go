package report

import "spikescope/words"

// kindWords says Phase 1's data kind; window is the accumulation window.
// The Chinese report keeps the method's own term (the kind itself).
func (r *renderer) kindWords(kind string, window int) string {
	if s := words.DataKind(kind, window); s != "" && !r.zh {
		return s
	}
	return code(kind)
}

// triggerWords says which test flagged a candidate.
func (r *renderer) triggerWords(trigger string) string { return words.TriggerName(trigger, r.zh) }
