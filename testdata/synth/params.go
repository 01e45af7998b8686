package synth

import (
	"fmt"
	"math"

	"spikescope/model"
)

// Model dimensions of the synthetic mcore GPT (TP=2 shards, seq 4096, mbs 1).
const (
	hidden     = 4096
	ffnHidden  = 11008 // per rank after TP=2: fc1 [11008, 4096] (gate+up), fc2 [4096, 5504]
	tpSize     = 2
	qkvOut     = 3072 // (4096 + 2·1024) / TP
	attnLocal  = 2048 // 16 local heads · 128
	kvLocal    = 512  // 4 local groups · 128
	headDim    = 128
	localHeads = 16
	seqLen     = 4096
	vocabLocal = 32000
	// modulePrefix is the named_parameters() prefix of a DDP-wrapped
	// Float16Module chunk.
	modulePrefix = "module.module."
)

// paramKind is one of the per-layer parameters (or a global one).
type paramKind int

const (
	pEmbedding paramKind = iota
	pInputLN
	pQKV
	pProj
	pPreMLPLN
	pFC1
	pFC2
	pFinalLN
	pOutput
)

// Param is one monitored weight.
type Param struct {
	Full     string // named_parameters() name, e.g. module.module.decoder.layers.0.mlp.linear_fc1.weight
	Squashed string // msprobe squash_param_name result, used in CSV and trend.db
	Layer    int    // -1 for embedding / final norm / output layer
	Kind     paramKind
	Shape    []int64
	// Module is the dump module path and class owning the weight, e.g.
	// "module.module.decoder.layers.0.mlp.linear_fc1" / "ColumnParallelLinear".
	Module, Class string
	BaseNorm      float64 // typical per-micro-batch main_grad norm
}

// Elements is the number of values of the weight.
func (p Param) Elements() int64 {
	n := int64(1)
	for _, d := range p.Shape {
		n *= d
	}
	return n
}

// DumpKey is the parameters_grad key of the weight in a dump (call index n).
func (p Param) DumpKey(n int) string {
	return fmt.Sprintf("Module.%s.%s.parameters_grad.%d", p.Module, p.Class, n)
}

// layerParam describes one per-layer weight kind.
type layerParam struct {
	kind     paramKind
	suffix   string // after decoder.layers.{L}.
	module   string // module path after decoder.layers.{L}.
	class    string
	shape    []int64
	baseNorm float64
}

var layerParams = []layerParam{
	{pInputLN, "input_layernorm.weight", "input_layernorm", "RMSNorm", []int64{hidden}, 0.0118},
	{pQKV, "self_attention.linear_qkv.weight", "self_attention.linear_qkv", "ColumnParallelLinear", []int64{qkvOut, hidden}, 0.0628},
	{pProj, "self_attention.linear_proj.weight", "self_attention.linear_proj", "RowParallelLinear", []int64{hidden, attnLocal}, 0.0352},
	{pPreMLPLN, "pre_mlp_layernorm.weight", "pre_mlp_layernorm", "RMSNorm", []int64{hidden}, 0.0097},
	{pFC1, "mlp.linear_fc1.weight", "mlp.linear_fc1", "ColumnParallelLinear", []int64{ffnHidden, hidden}, 0.0601},
	{pFC2, "mlp.linear_fc2.weight", "mlp.linear_fc2", "RowParallelLinear", []int64{hidden, ffnHidden / tpSize}, 0.0443},
}

// buildParams lists the weights in named_parameters() order.
func buildParams(layers int) []Param {
	ps := []Param{{
		Full: modulePrefix + "embedding.word_embeddings.weight", Layer: -1, Kind: pEmbedding,
		Shape: []int64{vocabLocal, hidden}, Module: "module.module.embedding.word_embeddings",
		Class: "VocabParallelEmbedding", BaseNorm: 0.0312,
	}}
	for l := 0; l < layers; l++ {
		// Deeper layers see slightly smaller gradients.
		depth := 1 - 0.35*float64(l)/math.Max(1, float64(layers))
		for _, lp := range layerParams {
			ps = append(ps, Param{
				Full:     fmt.Sprintf("%sdecoder.layers.%d.%s", modulePrefix, l, lp.suffix),
				Layer:    l,
				Kind:     lp.kind,
				Shape:    lp.shape,
				Module:   fmt.Sprintf("module.module.decoder.layers.%d.%s", l, lp.module),
				Class:    lp.class,
				BaseNorm: lp.baseNorm * depth,
			})
		}
	}
	ps = append(ps,
		Param{Full: modulePrefix + "decoder.final_layernorm.weight", Layer: -1, Kind: pFinalLN,
			Shape: []int64{hidden}, Module: "module.module.decoder.final_layernorm", Class: "RMSNorm", BaseNorm: 0.0154},
		Param{Full: modulePrefix + "output_layer.weight", Layer: -1, Kind: pOutput,
			Shape: []int64{vocabLocal, hidden}, Module: "module.module.output_layer", Class: "ColumnParallelLinear", BaseNorm: 0.0486},
	)
	for i := range ps {
		ps[i].Squashed = model.SquashParamName(ps[i].Full)
	}
	return ps
}
