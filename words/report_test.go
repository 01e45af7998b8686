package words

import (
	"regexp"
	"strings"
	"testing"
)

var verbRE = regexp.MustCompile(`%[dsvq]`)

// Every report text has both languages, with the same verbs in the same
// order (a Chinese text that drops or swaps a number would print the
// wrong one, or %!d(MISSING)).
func TestReportTextsComplete(t *testing.T) {
	for k, e := range reportTexts {
		if e[0] == "" || e[1] == "" {
			t.Errorf("%s: missing a language", k)
		}
		if a, b := verbRE.FindAllString(e[0], -1), verbRE.FindAllString(e[1], -1); strings.Join(a, "") != strings.Join(b, "") {
			t.Errorf("%s: verbs differ: %v vs %v", k, a, b)
		}
	}
	if _, ok := ReportText("no such key", false); ok {
		t.Error("ReportText found a key that is not there")
	}
	if zh, _ := ReportText("title", true); zh == reportTexts["title"][1] {
		t.Error("ReportText(title, zh) is the English title")
	}
}
