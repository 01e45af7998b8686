package analysis

import (
	"spikescope/model"
)

// dumpStage is the pipeline stage of A's dump (method.md, Phase 3
// "Layers": pipeline stages restart layer numbers). Phase 1's stages, when
// it inferred them for A's rank, give the stage and its first global layer;
// else A's own module records tell its position: the embedding only on the
// first stage, the final norm / output layer only on the last. nil when A
// holds the whole model or nothing tells.
func dumpStage(a *model.Dump, p1 *model.Phase1Result) *model.DumpStage {
	if a == nil {
		return nil
	}
	if p1 != nil {
		if pl := p1.Sharding.Stages; pl != nil && pl.Inferred && pl.Stages > 1 {
			if st := pl.StageOf(a.Rank); st >= 0 {
				ds := &model.DumpStage{Stage: model.IntPtr(st), Stages: pl.Stages, Position: stagePosition(st, pl.Stages),
					SourceReason: model.P3StagePhase1{Rank: a.Rank, Stage: st, Stages: pl.Stages}}
				if st < len(pl.LayerOffsets) {
					ds.LayerOffset = model.IntPtr(pl.LayerOffsets[st])
				}
				return ds
			}
		}
	}
	emb, fin, layered := false, false, false
	seen := map[string]bool{}
	for i := range a.Ops {
		op := &a.Ops[i]
		if op.Kind != model.KindModule || op.Direction != model.Forward {
			continue
		}
		path := modulePathOf(op)
		if seen[path] {
			continue
		}
		seen[path] = true
		if _, ok := model.LayerIndex(path); ok {
			layered = true
			continue
		}
		// module paths name the owner of the weight
		emb = emb || isEmbeddingParam(path+".weight")
		fin = fin || isFinalParam(path+".weight")
	}
	// the first stage's layer numbers are global anyway: only a later
	// stage is worth saying, and a dump limited by scope/list looks alike
	switch {
	case !layered || emb:
		return nil
	case fin:
		return &model.DumpStage{Position: "last", SourceReason: model.P3StageLast{}}
	}
	return &model.DumpStage{Position: "middle", SourceReason: model.P3StageMiddle{}}
}

func stagePosition(st, n int) string {
	switch st {
	case 0:
		return "first"
	case n - 1:
		return "last"
	}
	return "middle"
}

// stageOffset is A's pipeline stage and whether its layer rows get a
// global layer number (local + off): a single layer stack only (with
// several stacks, stacks > 1, or VPP chunks the local numbers are not one
// sequence), and not for the first stage at offset 0. ds is nil when the
// stage is unknown.
func stageOffset(in Phase3Input, stacks int) (ds *model.DumpStage, off int, global bool) {
	ds = dumpStage(in.A, in.Phase1)
	if ds == nil || ds.LayerOffset == nil || stacks > 1 || *ds.LayerOffset == 0 && ds.Stage != nil && *ds.Stage == 0 {
		return ds, 0, false
	}
	return ds, *ds.LayerOffset, true
}

// globalLayers sets the global layer (local + off) of every layer row.
func globalLayers(tables []model.AnchorTable, off int) {
	for i := range tables {
		for j := range tables[i].Layers {
			row := &tables[i].Layers[j]
			row.GlobalLayer = model.IntPtr(off + row.Layer)
		}
	}
}
