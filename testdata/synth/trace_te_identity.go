package synth

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"spikescope/model"
)

// TransformerEngine placeholders for the Phase 3 generator (trace.go):
// a Megatron-core layer built with TE fuses each norm into the following
// linear (TELayerNormColumnParallelLinear) and leaves an IdentityOp where
// the norm module stood. msprobe records that IdentityOp: its output is its
// input, the raw residual stream (the previous layer's output, the
// embedding's before layer 0, the attention residual add before the MLP),
// and its backward passes the fused linear's input gradient on.

// traceAddIdentityOps inserts the IdentityOp records of input_layernorm and
// pre_mlp_layernorm into a TE-flavoured dump (TraceTE), for every layer, call
// and pass, with statistics copied from the tensors they pass through.
//
// The raw stream's statistics depend on the tokens (data sample data) far
// more than a normalised tensor's do, most before layer 0 (the embedding's
// output).
func traceAddIdentityOps(d *model.Dump, data uint64) {
	isMod := func(op *model.Op, sub string) bool {
		return op.Kind == model.KindModule && strings.HasSuffix(op.ModulePath, sub) && strings.Contains(op.ModulePath, ".layers.")
	}
	layerPath := func(op *model.Op) string {
		p := op.ModulePath
		if op.Kind != model.KindModule {
			p = op.Parent
		}
		i := strings.Index(p, ".layers.")
		if i < 0 {
			return ""
		}
		rest := p[i+len(".layers."):]
		if j := strings.IndexByte(rest, '.'); j >= 0 {
			rest = rest[:j]
		}
		return p[:i] + ".layers." + rest
	}
	mk := func(like *model.Op, sub string, out model.TensorStat) model.Op {
		path := layerPath(like) + "." + sub
		dir := "forward"
		if like.Direction == model.Backward {
			dir = "backward"
		}
		op := model.Op{Key: fmt.Sprintf("%s.%s.IdentityOp.%s.%d", like.Prefix, path, dir, like.CallIndex), Kind: model.KindModule,
			Prefix: like.Prefix, ModulePath: path, Class: "IdentityOp", Direction: like.Direction, CallIndex: like.CallIndex,
			Layer: like.Layer, Outputs: []model.TensorStat{out}, Inputs: []model.TensorStat{out}, Recompute: like.Recompute}
		op.Layer = traceLayerNum(path)
		if like.Parent != "" {
			// the layer module of the same pass and call
			op.Parent = fmt.Sprintf("%s.%s.TransformerLayer.%s.%d", like.Prefix, layerPath(like), dir, like.CallIndex)
		}
		if like.Direction == model.Forward {
			// the raw stream depends on the tokens (data sample data), most
			// before layer 0 (the embedding's output), less deeper
			sig := 0.02
			if op.Layer == 0 && sub == "input_layernorm" {
				sig = 0.15
			}
			for st := model.Stat(0); st < model.NumStats; st++ {
				op.Outputs[0].Stat[st] *= math.Exp(sig * traceGauss("raw-stream", data, op.Layer, sub, like.CallIndex, st))
			}
		}
		return op
	}
	var out []model.Op
	var lastResid *model.TensorStat // the residual stream entering the next layer (forward)
	for i := range d.Ops {
		op := &d.Ops[i]
		switch {
		case op.Direction == model.Forward && op.Kind == model.KindModule && strings.HasSuffix(op.ModulePath, ".embedding"):
			t := op.Outputs[0]
			lastResid = &t
		case op.Direction == model.Forward && isMod(op, ".self_attention.linear_qkv") && lastResid != nil:
			out = append(out, mk(op, "input_layernorm", *lastResid))
		case op.Direction == model.Forward && isMod(op, ".mlp.linear_fc1") && len(out) > 0:
			// the attention residual add is the record just before
			out = append(out, mk(op, "pre_mlp_layernorm", out[len(out)-1].Outputs[0]))
		}
		out = append(out, *op)
		switch {
		case op.Direction == model.Forward && op.Kind == model.KindModule && op.Class == "TransformerLayer":
			t := op.Outputs[0]
			lastResid = &t
		case op.Direction == model.Backward && isMod(op, ".self_attention.linear_qkv"):
			out = append(out, mk(op, "input_layernorm", op.Outputs[0]))
		case op.Direction == model.Backward && isMod(op, ".mlp.linear_fc1"):
			out = append(out, mk(op, "pre_mlp_layernorm", op.Outputs[0]))
		}
	}
	d.Ops = out
	d.Index = make(map[string]int, len(out))
	for i := range d.Ops {
		d.Ops[i].Order = i
		d.Index[d.Ops[i].Key] = i
	}
}

// TraceBuildTEIdentity builds the four groups of q with B and D in TE names
// with IdentityOp placeholders (q.FlavB must be TraceTE).
func TraceBuildTEIdentity(q TraceQuad) (a, b, c, d *model.Dump) {
	a, b, c, d = q.Build()
	if b != nil {
		traceAddIdentityOps(b, q.Seed*4+1) // A/B's data sample
	}
	if d != nil {
		traceAddIdentityOps(d, q.Seed*4+2) // C/D's
	}
	return
}

// traceLayerNum is the layer number of a module path ("…layers.3.mlp" → 3).
func traceLayerNum(path string) int {
	i := strings.Index(path, ".layers.")
	if i < 0 {
		return -1
	}
	rest := path[i+len(".layers."):]
	if j := strings.IndexByte(rest, '.'); j >= 0 {
		rest = rest[:j]
	}
	n, err := strconv.Atoi(rest)
	if err != nil {
		return -1
	}
	return n
}
