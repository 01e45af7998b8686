package words

import (
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// --lang en says the run's shape in English only, in every variant (the
// default keeps the reference script's mixed wording), with its numbers.
func TestShapeInPlainEnglish(t *testing.T) {
	han := regexp.MustCompile(`\p{Han}`)
	for _, pp := range []bool{false, true} {
		for _, ex := range []string{model.ExpertsNone, model.ExpertsDiffer, model.ExpertsSameNames} {
			for _, micro := range []string{model.MicroAccumulated, model.MicroExplicit, ""} {
				for _, u := range []model.PassUnit{{Kind: model.PassAccumWind, Window: 7}, {Kind: model.PassExplicit}, {}} {
					c := model.ShardingConclusion{PP: 3, PPInferred: pp, Experts: ex, Micro: micro, Window: 7, OptSteps: 11, First: 0, Last: 6, Unit: u}
					en, def := Say(c, English), Say(c, Default)
					if han.MatchString(en) {
						t.Errorf("%+v: --lang en %q holds Chinese", c, en)
					}
					if !han.MatchString(def) {
						t.Errorf("%+v: the drop-in %q lost its wording", c, def)
					}
					for _, n := range []string{"PP=3"} {
						if !strings.Contains(en, n) {
							t.Errorf("%q lacks %s", en, n)
						}
					}
					if micro == model.MicroAccumulated && !(strings.Contains(en, "window 7") && strings.Contains(en, "11 optimizer steps")) {
						t.Errorf("%q lacks the window or the step count", en)
					}
					if pu := Say(u, English); han.MatchString(pu) {
						t.Errorf("pass unit %q holds Chinese", pu)
					}
				}
			}
		}
	}
}
