package ingest

import (
	"strings"
	"testing"

	"spikescope/model"
	"spikescope/words"
)

// dumpCallNumbers keeps parameters_grad.N as dump.json writes it when the
// counter does not restart per step, and only then; modules that disagree
// are reported and fall back to call order.
func TestDumpCallNumbers(t *testing.T) {
	rs := func(r, s int32) model.RankStep { return model.RankStep{Rank: r, Step: s} }
	restart := []callSeq{{rs(0, 4), []int{0, 1, 2, 3}}, {rs(0, 5), []int{0, 1, 2, 3}}}
	if m, w := dumpCallNumbers("d", restart); m != nil || w != nil {
		t.Fatalf("restarting counters: %v %v", m, w)
	}
	across := []callSeq{{rs(3, 4), []int{0, 1, 2, 3}}, {rs(3, 5), []int{4, 5, 6, 7}}, {rs(3, 5), []int{4, 5, 6, 7}}}
	m, w := dumpCallNumbers("d", across)
	if w != nil || len(m) != 2 || m[rs(3, 5)][2] != 6 || m[rs(3, 4)][2] != 2 {
		t.Fatalf("counter across steps: %v %v", m, w)
	}
	differ := []callSeq{{rs(1, 5), []int{4, 5}}, {rs(1, 5), []int{0, 1}}}
	if m, w := dumpCallNumbers("d", differ); m != nil || !strings.Contains(words.Say(w, words.English), "differ between modules of rank 1 step 5") {
		t.Fatalf("modules disagree: %v %v", m, w)
	}
	if m, _ := dumpCallNumbers("d", []callSeq{{rs(0, 0), []int{-1, -1}}}); m != nil {
		t.Fatalf("keys without counter: %v", m)
	}
}
