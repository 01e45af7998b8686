package analysis

import (
	"regexp"
	"strings"

	"spikescope/model"
)

// Key alignment across devices (method.md Phase 3, "Key alignment"): two
// devices name the same computation differently (TransformerEngine class
// prefixes, flash vs fused attention kernels, call counters that depend on
// recompute and on how many other APIs ran before). Ops are therefore paired
// by an identity built from normalised names plus the op's order of
// appearance within its layer, never by the raw key.

var (
	reTEPrefix       = regexp.MustCompile(`\.(MindSpeedTE|TE)([A-Z])`)
	reFlashFused     = regexp.MustCompile(`(Flash|Fused)Attention`)
	reModuleCallIdx  = regexp.MustCompile(`\.(forward|backward|parameters_grad)\.\d+$`)
	reAPICallIdx     = regexp.MustCompile(`\.\d+\.(forward|backward)$`)
	reFlashFusedPath = regexp.MustCompile(`^(flash|fused)_attention$`)
)

// normalizeKey rewrites a dump key into the form that is equal on two
// devices for the same computation: the TransformerEngine class prefix
// (".TE" and MindSpeed's ".MindSpeedTE" before an upper-case letter) is
// removed, FlashAttention/FusedAttention become Attention, and call indices
// are dropped both for modules (".forward.N") and APIs (".N.forward"; API
// counters are global per step and shift with every extra call elsewhere).
func normalizeKey(key string) string {
	k := reTEPrefix.ReplaceAllString(key, ".$2")
	k = reFlashFused.ReplaceAllString(k, "Attention")
	if reModuleCallIdx.MatchString(k) {
		return reModuleCallIdx.ReplaceAllString(k, ".$1")
	}
	return reAPICallIdx.ReplaceAllString(k, ".$1")
}

// normalizeClass applies normalizeKey's class rules to a bare class name.
func normalizeClass(class string) string {
	c := class
	if strings.HasPrefix(c, "MindSpeedTE") && len(c) > len("MindSpeedTE") && isUpperASCII(c[len("MindSpeedTE")]) {
		c = c[len("MindSpeedTE"):]
	} else if strings.HasPrefix(c, "TE") && len(c) > 2 && isUpperASCII(c[2]) {
		c = c[2:]
	}
	if strings.Contains(c, "Attention") {
		c = reFlashFused.ReplaceAllString(c, "Attention")
	}
	return c
}

// normalizePathSegment maps module path segments that differ only by the
// attention kernel (TransformerEngine's flash_attention / fused_attention
// children) to one name.
func normalizePathSegment(s string) string {
	if reFlashFusedPath.MatchString(s) {
		return "attention"
	}
	return s
}

func isUpperASCII(b byte) bool { return b >= 'A' && b <= 'Z' }

// allDigits is model.AllDigits (one definition for every name reader).
func allDigits(s string) bool { return model.AllDigits(s) }

// apiBase is an API key without its call index and direction:
// "NPU.npu_swiglu.3.forward" → "NPU.npu_swiglu".
func apiBase(key string) string {
	k := key
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		k = k[:i] // direction
	}
	if i := strings.LastIndexByte(k, '.'); i >= 0 && allDigits(k[i+1:]) {
		k = k[:i]
	}
	return k
}

// modulePathOf returns the module path of a module op ("module.module.
// decoder.layers.0.mlp"), from the op when the reader filled it, else parsed
// from the key (prefix, path, class, direction, call index).
func modulePathOf(op *model.Op) string {
	if op.ModulePath != "" {
		return op.ModulePath
	}
	return parseModuleKeyPath(op.Key)
}

// parseModuleKeyPath extracts the module path from a module key such as
// "Module.module.decoder.layers.0.mlp.MLP.forward.0"; "" when it cannot.
func parseModuleKeyPath(key string) string {
	segs := strings.Split(key, ".")
	// drop trailing call index and direction
	n := len(segs)
	if n > 0 && allDigits(segs[n-1]) {
		n--
	}
	if n > 0 && (segs[n-1] == "forward" || segs[n-1] == "backward" || segs[n-1] == "parameters_grad") {
		n--
	}
	n-- // class
	if n <= 1 {
		return ""
	}
	return strings.Join(segs[1:n], ".")
}

// classOf returns the class of a module op (from the op, else the key).
func classOf(op *model.Op) string {
	if op.Class != "" {
		return op.Class
	}
	segs := strings.Split(op.Key, ".")
	n := len(segs)
	if n > 0 && allDigits(segs[n-1]) {
		n--
	}
	if n > 0 && (segs[n-1] == "forward" || segs[n-1] == "backward" || segs[n-1] == "parameters_grad") {
		n--
	}
	if n >= 1 {
		return segs[n-1]
	}
	return ""
}

// isModuleKey tells module keys ("Module.…", "Cell.…") from API keys.
func isModuleKey(key string) bool {
	return strings.HasPrefix(key, "Module.") || strings.HasPrefix(key, "Cell.")
}

// primaryTensor is the tensor an op is compared by: its first floating-point
// output (forward: the op's result; backward: the gradient it produced for
// its first input). Using one tensor for all four statistics keeps Max, Min,
// Mean and Norm about the same data (the reference mixes tensors, bug 21).
func primaryTensor(op *model.Op) *model.TensorStat {
	for i := range op.Outputs {
		t := &op.Outputs[i]
		if isFloatTensor(t) {
			return t
		}
	}
	return nil
}

// isFloatTensor is true for tensors that carry numeric statistics: a float
// dtype, or (dtype unknown) any recorded Norm.
func isFloatTensor(t *model.TensorStat) bool {
	d := strings.ToLower(t.Dtype)
	if strings.Contains(d, "float") || strings.Contains(d, "bf16") || strings.Contains(d, "half") || strings.Contains(d, "double") {
		return true
	}
	if d == "" {
		return t.Has[model.StatNorm]
	}
	return false
}
