package report

import (
	"strings"
	"testing"
)

// The overview's data kind: micro steps of a window of 1 accumulate
// nothing, so the report does not call them cumulative.
func TestKindWordsWindowOne(t *testing.T) {
	r := &renderer{}
	if s := r.kindWords("micro_step", 1); !strings.Contains(s, "no accumulation") || strings.Contains(s, "cumulative") {
		t.Errorf("window 1: %q", s)
	}
	if s := r.kindWords("micro_step", 4); !strings.Contains(s, "cumulative") {
		t.Errorf("window 4: %q", s)
	}
}
