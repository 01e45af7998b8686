package ui

import "spikescope/model"

// mcoreFixture is the fixture with the names of a Megatron-core run on
// PP 2 × VPP 2: stage- and chunk-prefixed parameter names that differ only
// in their middle and leaf, a non-finite earliest candidate, and a layer
// whose qkv/proj/fc1/fc2 operators carry the full module path and class.
func mcoreFixture() *Data {
	d := fixture()
	const pre = "Module.module.module.decoder.layers.3."
	qkv := "pp1:vpp1:module.decoder.layers.2.self_attention.linear_qkv.weight"
	fc1 := "pp1:vpp1:module.decoder.layers.2.mlp.linear_fc1.weight"
	md := *d.Monitor
	md.Targets = []model.Target{{Name: qkv, VPPStage: 1}, {Name: fc1, VPPStage: 1}}
	d.Monitor = &md
	p1 := *d.P1
	p1.Anomalies = append([]model.Anomaly{}, p1.Anomalies...)
	for i := range p1.Anomalies {
		p1.Anomalies[i].VPPStage = 1
		p1.Anomalies[i].TargetName = qkv
	}
	p1.Anomalies[0].NonFinite = true
	p1.Anomalies[2].TargetName = fc1
	p1.Targets = []string{qkv, fc1, "pp0:vpp0:module.embedding.word_embeddings.weight"}
	p1.Sharding.PPStages, p1.Sharding.VPPStages = 2, []int{0, 1}
	p1.Sharding.Stages = &model.StageLayout{Stages: 2, Inferred: true,
		RankStages: map[string]int{"0": 0, "1": 0, "2": 1, "3": 1}}
	d.P1 = &p1
	p3 := *d.P3
	dd := *p3.DivergenceSummary.Drilldown
	dd.Ops = append([]model.DrillOp{}, dd.Ops...)
	keys := []string{"input_layernorm.RMSNorm", "self_attention.linear_qkv.ColumnParallelLinear",
		"mlp.linear_fc1.ColumnParallelLinear", "self_attention.linear_proj.RowParallelLinear", "mlp.linear_fc2.RowParallelLinear"}
	for i := range dd.Ops {
		dd.Ops[i].Key = pre + keys[i] + ".forward.0"
	}
	dd.Ops[1].Aligned = false
	dd.Operator = dd.Ops[2].Key
	dd.Chain = []string{dd.Ops[1].Key, dd.Ops[0].Key}
	p3.DivergenceSummary.Drilldown = &dd
	p3.Conclusion = &model.Phase3Conclusion{}
	*p3.Conclusion = *d.P3.Conclusion
	p3.Conclusion.Operator = &dd
	d.P3 = &p3
	d.OpsForLayer = nil
	return d
}

func mcoreBackend() *fakeBackend { return &fakeBackend{data: mcoreFixture()} }

// mcoreGlobalFixture is mcoreFixture with the model's layer of each
// stage-local name known (stage 1, chunk 1 of 2 stages × 3 layers per
// chunk: its layers.2 is the model's layer 11), and Phase 2 on those
// names: cross-step pairs and candidates that must show it.
func mcoreGlobalFixture() *Data {
	d := mcoreFixture()
	p1 := *d.P1
	p1.Anomalies = append([]model.Anomaly{}, p1.Anomalies...)
	pl := *p1.Sharding.Stages
	pl.ChunkLayers = 3
	p1.Sharding.Stages = &pl
	for i := range p1.Anomalies {
		p1.Anomalies[i].GlobalLayer = model.IntPtr(pl.GlobalLayer(1, 1, 2))
	}
	d.P1 = &p1
	p2 := *d.P2
	one, stage := 1, 1
	p2.CrossStep = append([]model.CrossStepPair{}, p2.CrossStep...)
	for i := range p2.CrossStep {
		p2.CrossStep[i].TargetName, p2.CrossStep[i].PPStage, p2.CrossStep[i].VPPStage = p1.Anomalies[0].TargetName, &stage, &one
	}
	p2.Candidates = []model.CandidateVerdict{
		{Anomaly: p1.Anomalies[0], Value: 9.5, Verdict: "no baseline", Selected: true},
		{Anomaly: p1.Anomalies[2], Value: 1.9, Verdict: "no baseline"},
	}
	c := *p2.RootCauseCoordinate
	c.TargetName, c.GlobalLayer = p1.Anomalies[0].TargetName, p1.Anomalies[0].GlobalLayer
	p2.RootCauseCoordinate = &c
	d.P2 = &p2
	return d
}

func mcoreGlobalBackend() *fakeBackend { return &fakeBackend{data: mcoreGlobalFixture()} }
