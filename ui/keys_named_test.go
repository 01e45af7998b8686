package ui

import (
	"regexp"
	"testing"

	"spikescope/pipeline"
)

// namedKey finds a key a screen's text tells the user to press: "w shows
// …", "(c: choose C)", "enter: series", "r: the report has all notes"; A–D
// are the groups (C: …), not keys.
var namedKey = regexp.MustCompile(`(?:^|[\s(•·])(enter|esc|tab|[a-zE-Z?/])(?::\s| shows | opens | writes | chooses | pins )`)

// Every key a screen names in its text is a key that screen handles (its
// help lists it): a hint that names another screen's key sends the user
// nowhere.
func TestEveryKeyNamedIsHandled(t *testing.T) {
	noDumps := fixture()
	noDumps.P3, noDumps.Missing = nil, []string{"dump statistics (Phase 3 not run)"}
	noDumps.PlanFiles = []pipeline.PlanFile{{Name: "PLAN.md", Data: []byte("# plan\n")}}
	for _, c := range []struct {
		name string
		d    *Data
		keys []string
	}{
		{"phase1", fixture(), nil},
		{"phase2", fixture(), []string{"2"}},
		{"phase3", fixture(), []string{"3"}},
		{"drill", fixture(), []string{"3", "enter"}},
		{"series", fixture(), []string{"enter"}},
		{"phase3 without dumps", noDumps, []string{"3"}},
		{"chooser", fixture(), []string{"3", "c"}},
		{"grad norm", fixture(), []string{"t"}},
	} {
		for _, w := range []int{80, 160} {
			m := loaded(t, fixtureBackend(), c.d, w, 24*w/80, true)
			press(m, c.keys...)
			handled := map[string]bool{}
			kh := m.keyHelp()
			for _, g := range append(kh.full, kh.short) {
				for _, b := range g {
					for _, k := range b.Keys() {
						handled[k] = true
					}
				}
			}
			txt := screenText(m)
			found := 0
			for _, mm := range namedKey.FindAllStringSubmatch(txt, -1) {
				found++
				if !handled[mm[1]] {
					t.Errorf("%s at %d columns names key %q, which that screen does not handle:\n%s", c.name, w, mm[1], txt)
				}
			}
			if c.name == "phase3 without dumps" && found == 0 {
				t.Errorf("the no-dump hint names no key:\n%s", txt)
			}
		}
	}
}
