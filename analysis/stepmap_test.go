package analysis

import (
	"testing"

	"spikescope/model"
)

func TestSquashParamName(t *testing.T) {
	for in, want := range map[string]string{
		"module.module.decoder.layers.2.mlp.linear_fc2.weight": "layers.2.mlp.linear_fc2.weight",
		"layers.2.mlp.linear_fc2.weight":                       "layers.2.mlp.linear_fc2.weight",
		"module.module.embedding.word_embeddings.weight":       "embedding.word_embeddings.weight",
		"module.module.decoder.final_layernorm.weight":         "final_layernorm.weight",
		"module.module.output_layer.weight":                    "output_layer.weight",
		"module.module.lm_head.weight":                         "lm_head.weight",
	} {
		if got := squashParamName(in); got != want {
			t.Errorf("squashParamName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMatchDumpStep(t *testing.T) {
	dump := normTable{"a": 1, "b": 2, "c": 3, "d": 4}
	mon := map[int]normTable{
		0: {"a": 1.5, "b": 2.5, "c": 3.5, "d": 4.5},
		1: {"a": 1.005, "b": 1.99, "c": 3.02, "d": 4}, // c off by 0.66%: agrees
		2: {"a": 1, "b": 2.2, "c": 3.3, "d": 4.4},
	}
	if opt, n, sh, ok := matchDumpStep(dump, mon); !ok || opt != 1 || n != 4 || sh != 4 {
		t.Errorf("unique match: opt %d agree %d shared %d ok %v, want 1 4 4 true", opt, n, sh, ok)
	}
	// Two steps agree on as many parameters: ambiguous.
	mon[2] = normTable{"a": 1, "b": 2, "c": 3, "d": 4}
	if _, _, _, ok := matchDumpStep(dump, mon); ok {
		t.Error("a tie was taken as a match")
	}
	// The best step agrees on under half the shared parameters: no match.
	delete(mon, 1)
	mon[2] = normTable{"a": 1, "b": 2.5, "c": 3.5, "d": 4.5}
	if _, _, _, ok := matchDumpStep(dump, mon); ok {
		t.Error("1 of 4 parameters taken as a match")
	}
}

// SuggestControlRank: the nearest rank to the root that is no candidate at
// the step (the lower on a tie); -1 when every rank is one.
func TestSuggestControlRank(t *testing.T) {
	opt := 4
	p1 := &model.Phase1Result{Summary: model.Phase1Summary{Ranks: []int{0, 1, 2, 3, 4, 5}}, Anomalies: []model.Anomaly{
		{Rank: 3, OptimizerStep: &opt}, {Rank: 2, OptimizerStep: &opt}, {Rank: 4, Step: 9},
	}}
	for _, c := range []struct{ step, rank, want int }{
		{4, 3, 4}, // 2 is a candidate at step 4, 4 only at step 9
		{9, 3, 2}, // at step 9: 2 and 4 are both at distance 1 → 2
		{4, 0, 1},
	} {
		if got := SuggestControlRank(p1, c.step, c.rank); got != c.want {
			t.Errorf("SuggestControlRank(step %d, rank %d) = %d, want %d", c.step, c.rank, got, c.want)
		}
	}
	p1.Summary.Ranks = []int{2, 3}
	if got := SuggestControlRank(p1, 4, 3); got != -1 {
		t.Errorf("all ranks candidates: got %d, want -1", got)
	}
	if got := SuggestControlRank(nil, 4, 3); got != -1 {
		t.Errorf("no Phase 1: got %d", got)
	}
}

// Phase1InDumpSteps shifts optimizer steps (or steps of step-level data)
// and leaves the input untouched.
func TestPhase1InDumpSteps(t *testing.T) {
	opt := 5
	p1 := &model.Phase1Result{Anomalies: []model.Anomaly{{Rank: 3, OptimizerStep: &opt, Step: 21}, {Rank: 1, Step: 7}}}
	got := Phase1InDumpSteps(p1, 100)
	if *got.Anomalies[0].OptimizerStep != 105 || got.Anomalies[0].Step != 21 || got.Anomalies[1].Step != 107 {
		t.Errorf("shifted %+v", got.Anomalies)
	}
	if *p1.Anomalies[0].OptimizerStep != 5 || p1.Anomalies[1].Step != 7 {
		t.Errorf("input changed: %+v", p1.Anomalies)
	}
	if Phase1InDumpSteps(p1, 0) != p1 {
		t.Error("offset 0 copies")
	}
}
