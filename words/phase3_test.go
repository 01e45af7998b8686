package words

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"spikescope/model"
)

// phase3Samples is one value of every Phase 3 reason, with numbers and
// names set (the zero values say nothing of the numbers).
func phase3Samples() []model.Reason {
	ms := 2
	common := 39
	return []model.Reason{
		model.P3CallOfAnomaly{MicroBatch: 3, MicroStep: &ms},
		model.P3CallOfAnomaly{MicroBatch: 4},
		model.P3CallMostDivergent{MicroBatch: 2, Calls: 4},
		model.P3NeedsAB{}, model.P3OneControl{}, model.P3NoControlGroup{},
		model.P3RootDump{Step: 5, Rank: 3},
		model.P3NoBaselineDump{Step: 5, Rank: 7},
		model.P3SameDumpC{}, model.P3SameDumpD{},
		model.P3NameMapFile{Side: "B", Path: "/maps/layer_mapping.yaml"},
		model.P3NameMapMegatron{},
		model.P3NameMapBuiltin{FrameworkA: "mindspore", FrameworkB: "pytorch"},
		model.P3InferredLayers{Layers: 24, Period: 17},
		model.P3NoLayersAPI{},
		model.P3NoLayers{Prefix: "decoder.layers."},
		model.P3DtypeDiffers{Parts: []model.P3DtypePart{{Group: "A", Dtype: "bfloat16", Other: "B", OtherDtype: "float32", Count: 311, Of: 420}, {Group: "C", Dtype: "float16", Other: "D", OtherDtype: "float32", Count: 12, Of: 420}}},
		model.P3ControlBias{Parts: []model.P3DirRatio{{Dir: "fwd", Median: 1.3456}, {Dir: "bwd", Median: 0.71}}},
		model.P3PassUnjudgeable{Dir: "bwd", Why: []model.P3MetricNote{{Metric: "Mean", Note: model.P3BandSignChange{}}, {Metric: "Norm", Note: model.P3BandScatter{}}}},
		model.P3FewAnchors{Found: 2, Min: 3},
		model.P3StepOffset{Matches: []model.P3StepMatch{{DumpStep: 104, OptStep: 4, Agree: 38, Shared: 39}, {DumpStep: 105, OptStep: 5, Agree: 39, Shared: 39}}},
		model.P3ControlNoTree{}, model.P3ControlNoCandidate{},
		model.P3ControlAllSpike{Spiking: 6}, model.P3ControlUndecidable{},
		model.P3ControlNone{Spiking: 3, Undecidable: 2},
		model.P3ControlChosen{Step: 5, Rank: 5, Why: []model.Reason{model.P3CandNormal{Norm: 0.42917, P75: 0.46321}, model.P3CandOtherStage{Stage: 1, AStage: 0}}, HasD: true, Common: &common},
		model.P3ControlChosen{Step: 4, Rank: 3, Why: []model.Reason{model.P3CandNormal{Norm: 1.5, P75: 2.25}, model.P3CandOtherLayers{}}},
		model.P3ControlGiven{},
		model.P3ControlUser{Step: 6, Rank: 1},
		model.P3ControlNotInTree{At: "step 9 rank 2", Path: "/dumps/c", Has: "step 5 rank 1-3"},
		model.P3CandAnomaly{}, model.P3CandNoParamGrad{}, model.P3CandNonFinite{}, model.P3CandTooFew{},
		model.P3CandAboveP75{Norm: 12.5, P75: 0.875},
		model.P3CandNormal{Norm: 0.0123, P75: 0.456},
		model.P3CandOtherStage{Stage: 2, AStage: 1},
		model.P3CandOtherLayers{},
		model.P3BandNoRatio{}, model.P3BandSignChange{}, model.P3BandScatter{}, model.P3BandDegraded{},
		model.P3BandAllFixed{N: 17},
		model.P3BandFewLayers{Min: 6, Ops: 214},
		model.P3BandFewLayers{Min: 6},
		model.P3BandOverAll{Notes: []model.Reason{model.P3BandScatter{}}},
		model.P3BandPeers{Anchors: 4, Samples: 96},
		model.P3BandOwnSpread{Anchors: 3},
		model.P3BandWidened{N: 23},
		model.P3BandOps{Samples: 180, Unflagged: true, Layer: 5},
		model.P3BandOps{Samples: 42, Layer: 1},
		model.P3BandPass{Ops: 310, Median: 1.0213, Lower: 0.9412, Upper: 1.0625},
		model.P3RuleControl{}, model.P3RuleDegraded{}, model.P3RuleDegradedOps{},
		model.P3Unaligned{Dir: "fwd", Pair: "A/B", Why: model.P3ElementCount{A: 4096, B: 2048}},
		model.P3Unaligned{Dir: "bwd", Pair: "C/D", Why: model.P3MissingKeyIn{Group: "D"}},
		model.P3NoDump{Group: "C"}, model.P3MissingIn{Group: "A"}, model.P3MissingKeyIn{Group: "B"},
		model.P3NoComparableOp{Group: "A"}, model.P3NoFloatOutput{Group: "B"},
		model.P3ElementCount{A: 8192, B: 4096},
		model.P3NormNone{Group: "C"},
		model.P3StatNonFinite{Stat: "Max", Value: math.Inf(1), Group: "A"},
		model.P3BaselineBroken{Stat: "Norm", Value: math.NaN(), Group: "B", Other: "A"},
		model.P3BothNonFinite{Stat: "Min", ValueX: math.Inf(-1), X: "A", ValueY: math.NaN(), Y: "B"},
		model.P3ClassDiffers{A: "RMSNorm", B: "IdentityOp"},
		model.P3SplitFused{Group: "B", Seg: "wq", Found: "query_key_value", Split: true},
		model.P3SplitFused{Group: "B", Seg: "w_qkv", Found: "wq/wk/wv"},
		model.P3ComparedAtNext{Why: model.P3ClassDiffers{A: "TENorm", B: "IdentityOp"}, Key: "Module.decoder.layers.3.self_attention.linear_qkv.forward.0"},
		model.P3Masked{},
		model.P3DirUncompared{Layers: []int{1, 5, 6, 7}},
		model.P3DirUndetermined{Layers: []int{0, 2, 3}},
		model.P3DirNoBand{},
		model.P3DirAmplified{Layer: 2},
		model.P3DirBackwardItself{}, model.P3DirForwardUnsure{}, model.P3DirStandIn{},
		model.P3DirFewAnchors{Anchors: 1},
		model.P3DrillNoOps{},
		model.P3DrillCallFellBack{Calls: 2, Asked: 3},
		model.P3DrillNoneLeaves{},
		model.P3DrillUpstreamClean{Op: "Module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0"},
		model.P3DrillFirstOp{}, model.P3DrillUpstreamUnaligned{},
		model.P3DrillLargestAfter{Op: "Module.decoder.layers.2.mlp.linear_fc2.RowParallelLinear.forward.0"},
		model.P3DrillNonFinite{Stats: []string{"Norm=NaN", "Max=+Inf"}},
		model.P3DrillNonFinite{BeforeLayers: true, Stats: []string{"Max=+Inf"}, NoCounterpart: true, Baseline: "C"},
		model.P3ShapeNone{},
		model.P3ShapeAB{A: []int64{4, 2048}, B: []int64{4, 1024}},
		model.P3ShapeAB{A: []int64{4, 2048}, B: []int64{8, 2048}, Different: true},
		model.P3ShapeAC{A: []int64{4, 2048}, C: []int64{2, 2048}},
		model.P3ShapeAC{A: []int64{4, 2048}, C: []int64{2, 2048}, B: []int64{4, 2048}, D: []int64{2, 2048}, Baseline: true, Same: true},
		model.P3ShapeAC{A: []int64{4, 2048}, C: []int64{2, 2048}, B: []int64{4, 2048}, D: []int64{4, 2048}, Baseline: true},
		model.P3StagePhase1{Rank: 11, Stage: 2, Stages: 4},
		model.P3StageLast{}, model.P3StageMiddle{},
	}
}

// numberRE is a number as the sentences print one (no sign: "L5" and
// "1-3" hold numbers too).
var numberRE = regexp.MustCompile(`[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?`)

// Every Phase 3 reason says in Chinese every number (and every name) its
// English sentence says, and no English sentence; every rule of
// model/reasons_phase3.go has a sample here.
func TestPhase3ReasonsSayTheSameNumbers(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range phase3Samples() {
		seen[r.Rule()] = true
		en, zh := Say(r, English), Say(r, Chinese)
		if en == "" || zh == "" || en == zh {
			t.Errorf("%s: en %q zh %q", r.Rule(), en, zh)
			continue
		}
		if s := EnglishSentence(zh); s != "" {
			t.Errorf("%s: Chinese %q holds English %q", r.Rule(), zh, s)
		}
		zhNums := map[string]int{}
		for _, n := range numberRE.FindAllString(zh, -1) {
			zhNums[n]++
		}
		for _, n := range numberRE.FindAllString(en, -1) {
			if zhNums[n] == 0 {
				t.Errorf("%s: %s of the English %q is not in the Chinese %q", r.Rule(), n, en, zh)
			}
		}
		for _, w := range []string{"NaN", "+Inf", "-Inf", "bfloat16", "float32", "query_key_value", "wq/wk/wv", "Module.decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0", "/maps/layer_mapping.yaml", "mindspore", "RMSNorm", "Norm=NaN"} {
			if strings.Count(en, w) > strings.Count(zh, w) {
				t.Errorf("%s: %q said %d times in English, %d in Chinese", r.Rule(), w, strings.Count(en, w), strings.Count(zh, w))
			}
		}
	}
	for rule := range modelRules(t) {
		if strings.HasPrefix(rule, "phase3.") && !seen[rule] {
			t.Errorf("%s has no sample in phase3Samples", rule)
		}
	}
}

// A few English sentences as Phase 3 wrote them before its reasons were
// typed (the goldens hold the rest).
func TestPhase3EnglishAsBefore(t *testing.T) {
	ms := 2
	for _, c := range []struct {
		r    model.Reason
		want string
	}{
		{model.P3CallOfAnomaly{MicroBatch: 3, MicroStep: &ms}, "layers compared at micro-batch 3 (Phase 1 micro step 2 of A's anomaly)"},
		{model.P3DirAmplified{Layer: 2}, "backward divergence follows the forward divergence at L2: propagated/amplified, trace the forward first"},
		{model.P3DirUndetermined{Layers: []int{3, 1, 2, 7}}, "no flagged layer, but layers L1-L3, L7 could not be compared: not consistent"},
		{model.P3Unaligned{Dir: "fwd", Pair: "A/B", Why: model.P3ElementCount{A: 4096, B: 2048}}, "fwd A/B: element count 4096 vs 2048"},
		{model.P3StatNonFinite{Stat: "Max", Value: math.Inf(1), Group: "A"}, "Max is +Inf in A"},
	} {
		if got := Say(c.r, Default); got != c.want {
			t.Errorf("%s: %q, want %q", c.r.Rule(), got, c.want)
		}
	}
}
