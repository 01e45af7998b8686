package analysis

import (
	"strings"

	"spikescope/model"
)

// Placeholders (method.md Phase 3, "Key alignment"): TransformerEngine
// builds a layer whose norm is fused into the next linear
// (TELayerNormColumnParallelLinear) with an IdentityOp where the norm
// module stood. Its record holds the raw residual stream, the norm's record
// on a device with local modules holds the normalised one: the same path,
// a different function. Two records align only when they compute the same
// function, so a placeholder never pairs with a real module.

// placeholderClasses are module classes that pass their input through.
var placeholderClasses = map[string]bool{
	"IdentityOp":     true, // Megatron-core
	"IdentityFuncOp": true, // Megatron-core
	"Identity":       true, // torch.nn.Identity, mindspore.nn.Identity
}

// pairPlaceholders pairs placeholders with real modules like any other
// record (the behaviour before the rule; tests show what it did). Never set
// outside tests.
var pairPlaceholders = false

// isPlaceholder reports whether a module op is a pass-through placeholder.
func isPlaceholder(op *model.Op) bool {
	if op.Kind != model.KindModule {
		return false
	}
	// every placeholder class says Identity: the common case skips the
	// class normalisation (this runs for every compared pair)
	c := classOf(op)
	return strings.Contains(c, "Identity") && placeholderClasses[normalizeClass(c)]
}

// placeholderMismatch is the reason two module records cannot be compared
// because one is a placeholder and the other a real module
// ("class differs: RMSNorm vs IdentityOp"); nil otherwise.
func placeholderMismatch(a, b *model.Op) model.Reason {
	if a.Kind != model.KindModule || b.Kind != model.KindModule || pairPlaceholders {
		return nil
	}
	if isPlaceholder(a) == isPlaceholder(b) {
		return nil
	}
	return model.P3ClassDiffers{A: classOf(a), B: classOf(b)}
}

// placeholderPair reports whether op i of x and op j of y fail only because
// one of them is a placeholder (the anchor then falls back to the next
// aligned record of the layer).
func placeholderPair(x *dumpIndex, i int32, y *dumpIndex, j int32) model.Reason {
	if x == nil || y == nil || i < 0 || j < 0 {
		return nil
	}
	return placeholderMismatch(&x.d.Ops[i], &y.d.Ops[j])
}

// nextAligned is the first record after op i of x, in the same layer, pass
// and call (micro-batch), that aligns with its counterpart in y: where a
// placeholder stands for a norm fused into the next linear, that linear's
// output is the first tensor both devices compute alike. -1 when none.
func nextAligned(x, y *dumpIndex, i int32, nx, ny string) (int32, int32) {
	if x == nil || i < 0 {
		return -1, -1
	}
	in := &x.info[i]
	if in.Layer < 0 {
		return -1, -1
	}
	dir := x.d.Ops[i].Direction
	for _, c := range x.layers[in.Layer] {
		if c <= i {
			continue
		}
		op := &x.d.Ops[c]
		if op.Direction != dir || x.info[c].Recomp {
			continue
		}
		if op.Kind == model.KindModule && x.info[c].Sub == "" && c != i {
			// the layer module's record closes this call's run
			cj := pair(x, c, y)
			if ok, _ := checkPair(x, c, y, cj, nx, ny); ok {
				return c, cj
			}
			return -1, -1
		}
		cj := pair(x, c, y)
		if ok, _ := checkPair(x, c, y, cj, nx, ny); ok {
			return c, cj
		}
	}
	return -1, -1
}
