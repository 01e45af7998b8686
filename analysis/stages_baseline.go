package analysis

import "spikescope/model"

// baselineKey is the name under which a candidate meets the baseline's
// candidates (Phase 2, cross-device check). With its global layer known it
// is the stage-free name with the global layer number
// ("pp1:layers.2.mlp.linear_fc2.weight" → "layers.6.mlp.linear_fc2.weight"),
// so a baseline with another pipeline layout — a GPU reference on fewer
// cards, PP 1 — compares the same layer, never the same-named layer of
// another stage. With a stage but no global layer only the same layout
// compares (the name itself); without stages the name is already global.
func baselineKey(a *model.Anomaly) string {
	if a.GlobalLayer == nil {
		return a.TargetName
	}
	return model.WithLayerIndex(model.StageBaseName(a.TargetName), *a.GlobalLayer)
}
