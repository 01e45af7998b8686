package ingest

import (
	"math"
	"strconv"
	"strings"

	"spikescope/model"
)

// Op keys and module paths of a dump: the layer number, the module/API
// split of a key ("Module.<path>.<Class>.<dir>.<call>").

// layerSegments name the list of transformer layers in a module path, the
// segment before the layer number: Megatron/LLaMA "layers.3", BERT
// "encoder.layer.3", GPT-2/BLOOM "h.3", ViT "blocks.3", T5 "block.3" (whose
// "layer.<i>" below is a sub-layer: the first match wins).
var layerSegments = map[string]bool{"layers": true, "layer": true, "blocks": true, "block": true, "h": true}

// layerOf returns N for the first "<seg>.<N>." segment pair of path whose
// name is in layerSegments, or -1. It ignores other numbered segments such as
// MoE "local_experts.<e>" and the model-list index "Module.0.".
func layerOf(path string) int {
	prev := ""
	for path != "" {
		seg := path
		if i := strings.IndexByte(path, '.'); i >= 0 {
			seg, path = path[:i], path[i+1:]
		} else {
			path = ""
		}
		if layerSegments[prev] && isDigits(seg) {
			if n, err := strconv.Atoi(seg); err == nil {
				return n
			}
		}
		prev = seg
	}
	return -1
}

// isDigits is model.AllDigits (one definition for every name reader).
func isDigits(s string) bool { return model.AllDigits(s) }

// cutLast splits s at its last dot: ("a.b", "c") for "a.b.c"; ("", s) without a dot.
func cutLast(s string) (before, last string) {
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		return s[:i], s[i+1:]
	}
	return "", s
}

// isModulePrefix reports whether a key prefix is that of a module (PyTorch)
// or cell (MindSpore) record; every other prefix is an API.
func isModulePrefix(prefix string) bool { return prefix == "Module" || prefix == "Cell" }

// parseOpKey fills Kind, Prefix, ModulePath, Class, Direction, CallIndex and
// Layer from op.Key. Key grammar (formats.md §3.2):
//
//	Module.{path}.{Class}.forward|backward.{N}    module (Cell. for MindSpore)
//	Module.{path}.{Class}.parameters_grad[.{N}]   parameter gradients
//	{Prefix}.{api}.{N}.forward|backward           API
//
// It reports false for keys outside the grammar; those are kept as forward
// API ops named by the whole key.
func parseOpKey(op *model.Op) bool {
	key := op.Key
	op.CallIndex, op.Layer = -1, -1
	dot := strings.IndexByte(key, '.')
	if dot <= 0 {
		op.Kind, op.ModulePath = model.KindAPI, key
		return false
	}
	op.Prefix = key[:dot]
	if isModulePrefix(op.Prefix) {
		op.Kind = model.KindModule
	} else {
		op.Kind = model.KindAPI
	}
	rest := key[dot+1:]
	before, last := cutLast(rest)
	var body string // module path + class, or API name
	moduleStyle := false
	ok := true
	switch {
	case last == "parameters_grad":
		op.Direction, body, moduleStyle = model.ParamGrad, before, true
	case isDigits(last):
		before2, mid := cutLast(before)
		switch mid {
		case "parameters_grad":
			op.Direction = model.ParamGrad
		case "forward":
			op.Direction = model.Forward
		case "backward":
			op.Direction = model.Backward
		default:
			ok = false
		}
		if ok {
			op.CallIndex = atoiSat(last)
			body, moduleStyle = before2, true
		}
	case last == "forward" || last == "backward":
		if last == "backward" {
			op.Direction = model.Backward
		}
		before2, mid := cutLast(before)
		if isDigits(mid) && before2 != "" {
			op.CallIndex = atoiSat(mid)
			body = before2
		} else {
			body, moduleStyle = before, op.Kind == model.KindModule
		}
	default:
		ok = false
	}
	if !ok {
		op.Direction, op.ModulePath = model.Forward, rest
		return false
	}
	if moduleStyle && op.Kind == model.KindModule {
		op.ModulePath, op.Class = cutLast(body)
		op.Layer = layerOf(op.ModulePath)
	} else {
		op.ModulePath = body
		if op.Kind == model.KindModule {
			op.Layer = layerOf(body)
		}
	}
	return body != ""
}

// atoiSat parses digits, saturating instead of failing on overflow.
func atoiSat(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return math.MaxInt32
	}
	return n
}
