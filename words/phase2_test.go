package words

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// sample fills every field of a reason of type t with a distinct value
// (ints from next, floats with a fraction, names with digits, bools set
// to on), so that a number the sentences leave out or change shows.
func sample(t reflect.Type, next *int, on bool) reflect.Value {
	v := reflect.New(t).Elem()
	for i := 0; i < t.NumField(); i++ {
		f := v.Field(i)
		*next++
		n := *next
		switch f.Kind() {
		case reflect.Int:
			f.SetInt(int64(10 + n))
		case reflect.Float64:
			f.SetFloat(float64(n) + 0.375)
			if strings.Contains(t.Field(i).Name, "Share") {
				f.SetFloat(0.01 * float64(n+40))
			}
		case reflect.String:
			f.SetString("layers." + string(rune('0'+n%10)) + ".mlp.weight")
		case reflect.Bool:
			f.SetBool(on)
		case reflect.Pointer:
			p := reflect.New(f.Type().Elem())
			switch p.Elem().Kind() {
			case reflect.Int:
				p.Elem().SetInt(int64(200 + n))
			case reflect.Bool:
				p.Elem().SetBool(on)
			}
			if on {
				f.Set(p)
			}
		case reflect.Slice:
			s := reflect.MakeSlice(f.Type(), 2, 2)
			for j := 0; j < 2; j++ {
				if s.Index(j).Kind() == reflect.Int {
					s.Index(j).SetInt(int64(300 + n + j))
				} else {
					s.Index(j).Set(sample(s.Index(j).Type(), next, on))
				}
			}
			f.Set(s)
		case reflect.Interface:
			f.Set(reflect.ValueOf(model.Reason(model.P2PairFewRanks{Total: 400 + n, Need: 500 + n})))
		}
	}
	return v
}

var number = regexp.MustCompile(`\d+(?:\.\d+)?(?:e[-+]?\d+)?`)

// Every number of a Phase 2 reason's English sentence is in its Chinese
// one, whichever variant the reason's switches choose.
func TestPhase2SentencesSayTheSameNumbers(t *testing.T) {
	n := 0
	for rule, e := range entries {
		if !strings.HasPrefix(rule, "phase2.") {
			continue
		}
		n++
		for _, on := range []bool{false, true} {
			next := 0
			r := sample(reflect.TypeOf(e.zero), &next, on).Interface().(model.Reason)
			en, zh := Say(r, English), Say(r, Chinese)
			for _, num := range number.FindAllString(en, -1) {
				if !strings.Contains(zh, num) {
					t.Errorf("%s: %s is in the English %q, not in the Chinese %q", rule, num, en, zh)
				}
			}
			if s := EnglishSentence(zh); s != "" {
				t.Errorf("%s: the Chinese sentence holds English %q: %q", rule, s, zh)
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d Phase 2 rules registered", n)
	}
}

// The fill: Default says the reference scripts' fields in Chinese (except
// the notes they have no Chinese for) and the rest in English; --lang
// chooses one language for all; a result without reasons keeps its texts.
func TestPhase2Fill(t *testing.T) {
	mk := func() *model.Phase2Result {
		return &model.Phase2Result{ModeReason: model.P2Mode{},
			ReasoningReasons:              []model.Reason{model.P2ThresholdsBrief{Growth: 2, RankShare: 0.6}, model.P2RootBrief{Step: 5}},
			DecisionsReasons:              []model.Reason{model.P2FewRanks{N: 2, Need: 3}},
			CrossDeviceVerificationReason: model.P2NoBaselineData{},
			CrossStep:                     []model.CrossStepPair{{VerdictReason: model.P2PairVerdict{Outcome: model.P2PairRoot, Step: 5}}},
			RootCauseCoordinate:           &model.Coordinate{ParameterNoteReason: model.P2ParamNotLocating{N: 4, Rank: 1, PerRank: 6, Share: 0.5, Target: "w"}},
			Events:                        []model.SpikeEvent{{BaselineReasonReason: model.P2EventShared{N: 2, Threshold: 2}}},
		}
	}
	res := mk()
	Phase2(res, Default)
	if res.Mode != "单设备" || res.Reasoning != "增长阈值: 2.00x, rank 占比阈值: 60%;   → 大多数 rank 梯度显著增长，根因在 opt_step 5" ||
		res.CrossDeviceVerification != "无标杆数据" {
		t.Errorf("default reference fields: %q / %q / %q", res.Mode, res.Reasoning, res.CrossDeviceVerification)
	}
	if res.Decisions[0] != "the run has 2 rank(s): a pair is judged when all of them are present at both steps (instead of 3 common ranks)" ||
		res.CrossStep[0].Verdict != "root cause in optimizer step 5" || !strings.HasPrefix(res.RootCauseCoordinate.ParameterNote, "4 parameters of rank 1") ||
		res.Events[0].BaselineReason != "all 2 candidate(s) are within 2.00× of the baseline" {
		t.Errorf("default English fields: %q / %q / %q / %q", res.Decisions, res.CrossStep[0].Verdict, res.RootCauseCoordinate.ParameterNote, res.Events[0].BaselineReason)
	}
	pinned := &model.Phase2Result{ReasoningReasons: []model.Reason{model.P2PinnedBrief{}}, CrossDeviceVerificationReason: model.P2PinnedUnverified{}}
	Phase2(pinned, Default)
	if pinned.Reasoning != "pinned by the user" || pinned.CrossDeviceVerification != "pinned by the user: not verified against the baseline" {
		t.Errorf("pinned default: %q / %q", pinned.Reasoning, pinned.CrossDeviceVerification)
	}
	for _, l := range []Lang{English, Chinese} {
		res := mk()
		Phase2(res, l)
		for _, s := range append([]string{res.Mode, res.Reasoning, res.CrossDeviceVerification, res.CrossStep[0].Verdict,
			res.RootCauseCoordinate.ParameterNote, res.Events[0].BaselineReason}, res.Decisions...) {
			if han := hasHan(s); han != (l == Chinese) {
				t.Errorf("%s: %q", l, s)
			}
		}
	}
	saved := &model.Phase2Result{Reasoning: "as saved", Decisions: []string{"kept"}, Mode: "单设备"}
	Phase2(saved, Chinese)
	if saved.Reasoning != "as saved" || saved.Decisions[0] != "kept" || saved.Mode != "单设备" {
		t.Errorf("a result read back lost its texts: %+v", saved)
	}
}
