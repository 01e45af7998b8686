package report

import "testing"

func TestLang(t *testing.T) {
	for _, c := range []struct{ flag, lcAll, lang, want string }{
		{"", "", "", "en"},
		{"", "", "zh_CN.UTF-8", "zh"},
		{"", "en_US.UTF-8", "zh_CN.UTF-8", "en"}, // LC_ALL wins
		{"en", "", "zh_CN.UTF-8", "en"},          // --lang wins
		{"zh", "", "", "zh"},
		{"fr", "", "zh_CN.UTF-8", "en"},
	} {
		t.Setenv("LC_ALL", c.lcAll)
		t.Setenv("LANG", c.lang)
		if got := Lang(c.flag); got != c.want {
			t.Errorf("Lang(%q) with LC_ALL=%q LANG=%q = %q, want %q", c.flag, c.lcAll, c.lang, got, c.want)
		}
	}
}
