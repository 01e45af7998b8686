package analysis

import (
	"spikescope/model"
	"spikescope/words"
)

// The tests read the results' texts as the faces do: said by package words
// from the reasons the rules return (the pipeline does the same).

// phase3T is Phase3 with its texts said in English.
func phase3T(in Phase3Input, opt Phase3Options) *model.Phase3Result {
	return newTracerT(in, opt).Result()
}

// newTracerT is NewTracer with its result's texts said in English.
func newTracerT(in Phase3Input, opt Phase3Options) *Tracer {
	t := NewTracer(in, opt)
	words.Phase3(t.Result(), words.English)
	return t
}

// chooseControlT is ChooseControl with its reasons said in English.
func chooseControlT(aTree *model.DumpTree, a *model.Dump, bTree *model.DumpTree, p1 *model.Phase1Result) ControlChoice {
	ch := ChooseControl(aTree, a, bTree, p1)
	if ch.Why != nil {
		ch.Reason = words.Say(ch.Why, words.English)
	}
	words.ControlCandidates(ch.Candidates, words.English)
	return ch
}

// say is a reason in English ("" for none).
func say(r model.Reason) string { return words.Say(r, words.English) }
