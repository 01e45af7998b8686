package words

import (
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// phase1Examples holds every Phase 1 reason with values that are all
// different, so that a number missing from one language shows.
func phase1Examples() []model.Reason {
	fit := model.ResetFit{DropAt: 0.83, DropFactor: 1.734, Drops: 57, RiseElse: 0.91}
	markers := model.StagesByMarkers{First: []int{0, 1}, Last: []int{6, 7}, Middle: []int{2, 3, 4, 5}}
	return []model.Reason{
		model.Phase1NoMonitor{}, model.Phase1NoGradRows{}, model.Phase1NoRows{},
		model.MetricAnalysed{Metric: "grad_unreduced", Metrics: 3},
		model.FinalMicroOnly{Metric: "grad_unreduced"},
		model.DumpShape{}, model.DumpShape{Calls: true},
		model.ExplicitMicro{Window: 6}, model.ExplicitMicro{Dump: true, Window: 7},
		model.WindowOff{}, model.WindowGiven{W: 8, Phase: 3}, model.WindowTooFewSteps{},
		model.WindowPeriodic{W: 4, Phase: 2, Series: 312, Fit: fit},
		model.WindowPartial{First: 13, Last: 15},
		model.WindowCommonResets{Bounds: []int{3, 9, 17, 22, 30, 41, 47, 52, 60, 66, 71, 80}, Fit: fit, Longest: 11},
		model.WindowNone{Series: 96, Steps: 40},
		model.WindowReduced{W: 4, Phase: 1, From: 5},
		model.WindowReducedIrregular{Steps: 12, Common: 6},
		model.MicroNumbering{Kind: model.NumberingNone}, model.MicroNumbering{Kind: model.NumberingDump},
		model.MicroNumbering{Kind: model.NumberingDerived}, model.MicroNumbering{Kind: model.NumberingMonitorV2},
		model.MicroNumbering{Kind: model.NumberingWritten},
		model.MicroNumberingNote{First: 1, Last: 4, Numbering: model.MicroNumbering{Kind: model.NumberingMonitorV2}},
		model.PassUnit{Kind: model.PassStep}, model.PassUnit{Kind: model.PassExplicit}, model.PassUnit{Kind: model.PassAccumWind, Window: 4},
		model.ShardingConclusion{PP: 1, Micro: model.MicroAccumulated, Window: 4, OptSteps: 10, Unit: model.PassUnit{Kind: model.PassAccumWind, Window: 4}},
		model.ShardingConclusion{PP: 2, PPInferred: true, Experts: model.ExpertsDiffer, Micro: model.MicroExplicit, First: 1, Last: 4, Unit: model.PassUnit{Kind: model.PassExplicit}},
		model.ShardingConclusion{PP: 3, Experts: model.ExpertsSameNames, Micro: model.MicroNone, Unit: model.PassUnit{Kind: model.PassStep}},
		model.CandidatesOrdered{Count: 1194, NonFinite: 2},
		model.DumpTopN{N: 20, Of: 131, Median: 0.0123457},
		model.DumpCallMicro{MinPool: 16, MinEffect: 1.5, Jumps: 9, Curves: 40, Named: 7, Candidates: 20, Skipped: 3, MaxDecreasePct: 25},
		model.DumpCallMicro{PerCall: true, MinPool: 16, MinEffect: 1.5, Jumps: 9, Curves: 40, Named: 7, Candidates: 20},
		model.HistoryTooShort{Short: 38, Series: 39, MinN: 4, MaxN: 6, Need: 12, Unflagged: 5},
		model.HistoryTooShort{Short: 3, Series: 9, Pools: true, MinN: 4, MaxN: 4, Need: 12},
		model.HistoryTooShortWarning{Short: 38, Series: 39, MinN: 4, MaxN: 6, Need: 12, More: 2, Examples: []model.HistoryExample{
			{Target: "layers.0.mlp.weight", Step: 1, Rank: 3, Ratio: 2.5}, {Target: "pp1:layers.2.w", Step: 5, Rank: 7, Ratio: 17.25}}},
		model.MicroPoolsSkipped{Pools: 5, MaxDecreasePct: 25},
		model.MicroStepRule{MinEffect: 1.5, LevelHistory: 8, LevelPersist: 3, Jumps: 52, Scaled: 312, HeadSteps: 9, Judged: 39, PerMicro: 37,
			MinPool: 16, IQRMult: 5, MADMult: 10, MADScale: 1.4826, Found: 1250},
		model.StepLevelRule{Judged: 39, MinEffect: 1.5, LevelHistory: 8, LevelPersist: 3, Jumps: 2, Scaled: 312, HeadSteps: 9,
			IQRMult: 5, MADMult: 10, MADScale: 1.4826, Found: 17},
		model.NonFiniteOnsets{Candidates: 6, Whole: 2}, model.NonFiniteOnsets{Candidates: 6},
		model.CrossStepNorms{Steps: 3},
		model.TailsUnmeasured{First: 5, Need: 12},
		model.TailsDropped{Dropped: 56, Spreads: 9, First: 5, Spread: 0.0961, MaxZ: 8.997},
		model.StagesMarkersUneven{First: 2, Last: 3},
		model.StagesMiddleNotMultiple{Middle: 5, PerStage: 2},
		model.StagesNoRankOrder{First: []int{0, 5}, Last: []int{3, 6}, Stages: 4},
		model.StagesLayersDiffer{Stage: 2},
		model.StagesLevelsUnseparable{Ratio: 3.7},
		markers, model.StagesByMarkers{First: []int{0}, Last: []int{1}},
		model.StagesByNameSets{},
		model.StagesByLevels{Layout: "blocked", Stages: 4, Agree: 11, Params: 12, Gap: 1.5},
		model.StagesByLevels{Layout: "strided", Stages: 2, Agree: 9, Params: 10, Gap: 1.5},
		model.StagesNotInferred{Note: model.StagesLayersDiffer{Stage: 1}},
		model.StagesInferred{Stages: 4, Method: markers, LayersPerStage: []int{3, 2, 2, 3}, LayerOffsets: []int{0, 3, 5, 7}},
		model.StagesInferred{Stages: 2, Method: model.StagesByNameSets{}, ChunkLayers: 5},
		model.StagesInferred{Stages: 3, Method: model.StagesByNameSets{}},
	}
}

var phase1Number = regexp.MustCompile(`\d+(?:\.\d+)?`)

// Every Phase 1 reason says the same numbers in English and Chinese, and
// its Chinese holds no English sentence; every Phase 1 reason type has an
// example here.
func TestPhase1ReasonsBothLanguages(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range phase1Examples() {
		seen[r.Rule()] = true
		en, zh := Say(r, English), Say(r, Chinese)
		if en == zh {
			t.Errorf("%s: the same text in both languages: %q", r.Rule(), en)
		}
		if s := EnglishSentence(zh); s != "" {
			t.Errorf("%s: Chinese holds English %q: %q", r.Rule(), s, zh)
		}
		if !hasHan(zh) {
			t.Errorf("%s: Chinese holds no Chinese: %q", r.Rule(), zh)
		}
		want := map[string]int{}
		for _, n := range phase1Number.FindAllString(en, -1) {
			want[n]++
		}
		got := map[string]int{}
		for _, n := range phase1Number.FindAllString(zh, -1) {
			got[n]++
		}
		for n, k := range want {
			if got[n] < k {
				t.Errorf("%s: %q appears %d× in English, %d× in Chinese:\n en %s\n zh %s", r.Rule(), n, k, got[n], en, zh)
			}
		}
	}
	for rule, at := range modelRules(t) {
		if strings.HasPrefix(rule, "phase1.") && !seen[rule] {
			t.Errorf("%s (%s) has no example in phase1Examples", rule, at)
		}
	}
}

// The English of a Phase 1 reason is what the rules wrote before they
// returned reasons (the JSON is the drop-in contract): a few spelled out.
func TestPhase1EnglishAsBefore(t *testing.T) {
	for _, c := range []struct {
		r    model.Reason
		want string
	}{
		{model.PassUnit{Kind: model.PassAccumWind, Window: 4}, "(optimizer_step, micro_step), 累积窗口=4"},
		{model.PassUnit{Kind: model.PassStep}, "(step,)"},
		{model.ShardingConclusion{PP: 1, Micro: model.MicroAccumulated, Window: 4, OptSteps: 10, Unit: model.PassUnit{Kind: model.PassAccumWind, Window: 4}}, "PP=1. DB step 实际为 micro_step (梯度累积), 窗口=4, 10 个 optimizer step. 前反向单位: (optimizer_step, micro_step), 累积窗口=4. 每个 rank 有完整模型，独立构成一次前反向。"},
		{model.WindowCommonResets{Bounds: []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, Longest: 3}, "reset points common to several series at steps 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, … (2 more) (0% of transitions at window starts drop (mean factor 0.00×, 0 drops), 0% inside windows rise): optimizer steps start there, micro steps restart at each; longest window 3"},
		{model.StagesByMarkers{First: []int{0}, Last: []int{2, 3}, Middle: []int{1}}, "markers: the embedding on rank 0, the final norm / output layer on ranks 2, 3, neither on rank 1 (middle stages in rank order)"},
	} {
		if got := Say(c.r, Default); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.r.Rule(), got, c.want)
		}
	}
}

// Phase1 fills a result's texts from its reasons and leaves a result
// read back from JSON (texts only) as it is.
func TestPhase1Fill(t *testing.T) {
	res := &model.Phase1Result{
		ReasoningReasons: []model.Reason{model.CrossStepNorms{Steps: 3}},
		WarningsReasons:  []model.Reason{model.MetricNotFound{Asked: "a", Analysed: "b"}},
		Sharding: model.ShardingAnalysis{PassUnitReason: model.PassUnit{Kind: model.PassExplicit},
			Stages: &model.StageLayout{NoteReason: model.StagesLayersDiffer{Stage: 1}}},
	}
	Phase1(res, Chinese)
	if len(res.Reasoning) != 1 || !strings.Contains(res.Reasoning[0], "3 个 step") || len(res.Warnings) != 1 ||
		res.Sharding.PassUnit != "一个 step 中的一个 micro step（按输入中的编号）" || !strings.Contains(res.Sharding.Stages.Note, "stage 1") {
		t.Errorf("filled %q %q %q %q", res.Reasoning, res.Warnings, res.Sharding.PassUnit, res.Sharding.Stages.Note)
	}
	saved := &model.Phase1Result{Reasoning: []string{"as read"}, Sharding: model.ShardingAnalysis{PassUnit: "(step,)", Conclusion: "PP=1"}}
	Phase1(saved, Chinese)
	if saved.Reasoning[0] != "as read" || saved.Sharding.PassUnit != "(step,)" || saved.Sharding.Conclusion != "PP=1" {
		t.Errorf("a saved result's texts changed: %+v", saved)
	}
}
