package words

import (
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// The verdict's headline says the same place in both languages: every
// number of the English one is in the Chinese one, which names the cause
// and direction in Chinese.
func TestHeadlineSameNumbersBothLanguages(t *testing.T) {
	dir, op := "bwd", "Linear.mlp.fc1"
	v := &model.Verdict{Cause: model.CauseUndetermined, Likely: model.CauseData,
		Coordinate: &model.Coordinate{Rank: 3, OptimizerStep: model.IntPtr(17), MicroStep: model.IntPtr(2), TargetName: "layers.4.mlp.weight"},
		Direction:  &dir, Layer: model.IntPtr(6), Operator: &op}
	en, zh := Headline(v, English), Headline(v, Chinese)
	if en != "Verdict: undetermined (likely data) — rank 3, step 17, micro step 2, layers.4.mlp.weight; backward layer 6, Linear.mlp.fc1" {
		t.Errorf("en headline %q", en)
	}
	for _, n := range regexp.MustCompile(`\d+`).FindAllString(en, -1) {
		if !strings.Contains(zh, n) {
			t.Errorf("%s is in %q, not in %q", n, en, zh)
		}
	}
	for _, w := range []string{"判定: ", "待定", "可能是数据", "反向", "层 6"} {
		if !strings.Contains(zh, w) {
			t.Errorf("zh headline %q lacks %q", zh, w)
		}
	}
	if Headline(nil, English) != "" || Where(nil, Chinese) != "" || VerdictCause(nil, English) != "" {
		t.Error("a nil verdict says something")
	}
}
