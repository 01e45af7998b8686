package analysis

import (
	"math"
	"strings"
	"testing"

	"spikescope/model"
)

// stepRun is a step-level Phase 1 result of one rank with the given
// candidates at step 5 (parameters the rank holds: targets).
func stepRun(targets []string, cands ...model.Anomaly) *model.Phase1Result {
	p1 := &model.Phase1Result{DataKind: kindStep, Anomalies: cands}
	p1.Summary.Ranks = []int{0}
	p1.Targets = targets
	earliestFirst(p1.Anomalies)
	return p1
}

// The run: fc1 deviates 1.86× from its own history with a norm of
// 0.2111, fc2 1.6× with 0.2175. The coordinate is fc1 (Phase 1's first
// candidate), never fc2 by raw norm across parameters of different sizes.
func TestCoordinateByDeviationNotRawNorm(t *testing.T) {
	fc1, fc2 := "layers.2.mlp.linear_fc1.weight", "layers.2.mlp.linear_fc2.weight"
	names := []string{fc1, fc2, "layers.0.mlp.linear_fc1.weight", "layers.1.mlp.linear_fc1.weight", "layers.3.mlp.linear_fc1.weight"}
	p1 := stepRun(names,
		model.Anomaly{Rank: 0, Step: 5, TargetName: fc2, Norm: 0.2175, DeviationRatio: 1.6, Trigger: "iqr"},
		model.Anomaly{Rank: 0, Step: 5, TargetName: fc1, Norm: 0.2111, DeviationRatio: 1.86, Trigger: "iqr"})
	p2, err := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if err != nil {
		t.Fatal(err)
	}
	co := p2.RootCauseCoordinate
	if co == nil || co.TargetName != fc1 || co.TargetName != p1.Anomalies[0].TargetName {
		t.Fatalf("coordinate %s, Phase 1 first %s", jsn(co), p1.Anomalies[0].TargetName)
	}
	if !co.ParamDecides() || co.ParameterDecides == nil {
		t.Fatalf("two of five parameters: the parameter decides: %s", jsn(co))
	}
	if !strings.Contains(strings.Join(p2.Decisions, "\n"), "largest deviation from its own baseline (1.86×") {
		t.Fatalf("decisions = %q", p2.Decisions)
	}
	if p2.Events[0].Coordinate.TargetName != fc1 {
		t.Fatalf("event coordinate = %s", jsn(p2.Events[0].Coordinate))
	}
}

// Every parameter of the rank NaN at once: the parameter does not locate
// the origin; the choice stays deterministic and the output says so.
func TestParameterDoesNotDecideAllNonFinite(t *testing.T) {
	names := []string{"embedding.word_embeddings.weight", "layers.0.attn.weight", "layers.1.attn.weight", "layers.3.attn.weight", "output_layer.weight"}
	var cands []model.Anomaly
	for i := len(names) - 1; i >= 0; i-- {
		cands = append(cands, model.Anomaly{Rank: 1, Step: 7, TargetName: names[i], Norm: model.Float(math.NaN()), DeviationRatio: model.Float(math.NaN()), NonFinite: true, Trigger: "non_finite"})
	}
	p1 := stepRun(names, cands...)
	p1.Summary.Ranks = []int{0, 1}
	for run := 0; run < 2; run++ { // deterministic
		p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
		co := p2.RootCauseCoordinate
		if co == nil || co.ParamDecides() || co.TargetName != names[0] || !strings.Contains(co.ParameterNote, "all 5 parameters of rank 1") ||
			!strings.Contains(p2.Reasoning, "Phase 3") {
			t.Fatalf("coordinate = %s reasoning %q", jsn(co), p2.Reasoning)
		}
	}
	// two of five NaN: the parameter still decides (below half the rank)
	p1 = stepRun(names, cands[:2]...)
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if !p2.RootCauseCoordinate.ParamDecides() {
		t.Fatalf("2 of 5 non-finite: %s", jsn(p2.RootCauseCoordinate))
	}
}

// Most parameters of one rank spike together (a bad batch): the parameter
// does not decide; on a single-step dump (largest gradients, not spikes)
// it does.
func TestParameterDoesNotDecideSpikeTogether(t *testing.T) {
	names := []string{"a.weight", "b.weight", "c.weight", "d.weight"}
	var cands []model.Anomaly
	for i, n := range names[:3] {
		cands = append(cands, model.Anomaly{Rank: 0, Step: 4, TargetName: n, Norm: 10, DeviationRatio: model.Float(5 + i), Trigger: "iqr"})
	}
	p1 := stepRun(names, cands...)
	p2, _ := phase2Said(p1, nil, nil, DefaultPhase2Options())
	if co := p2.RootCauseCoordinate; co.ParamDecides() || co.TargetName != "c.weight" || !strings.Contains(co.ParameterNote, "spike together") {
		t.Fatalf("coordinate = %s", jsn(co))
	}
	ok, _ := ParameterLocatesOrigin(p2.RootCauseCoordinate, cands, 4, true)
	if !ok {
		t.Fatal("snapshot: finite candidates are the largest gradients, the parameter decides")
	}
}
