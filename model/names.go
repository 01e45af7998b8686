package model

import (
	"strconv"
	"strings"
)

// The parameter-name grammar, one place for every package: inside
// spikescope a parameter of pipeline stage k is "pp<k>:<name>", of model
// chunk v (with several) "pp<k>:vpp<v>:<name>"; <name> is the input's own
// name, its transformer layer the number after a layer-list word
// ("layers.2", "h.2"). What is written out keeps the input's own name with
// the stage in pp_stage (written.go).

// namePart reads a "<word><N>:" part at the start of s (N digits): N and
// what follows the colon.
func namePart(s, word string) (n int, rest string, ok bool) {
	if !strings.HasPrefix(s, word) {
		return -1, s, false
	}
	i := strings.IndexByte(s, ':')
	if i <= len(word) || s[len(word)] < '0' || s[len(word)] > '9' {
		return -1, s, false
	}
	n, err := strconv.Atoi(s[len(word):i])
	if err != nil {
		return -1, s, false
	}
	return n, s[i+1:], true
}

// StageName is the name of a parameter of pipeline stage s: "pp1:layers.2…".
func StageName(stage int, name string) string {
	return "pp" + strconv.Itoa(stage) + ":" + name
}

// SplitStageName undoes StageName: the stage and the parameter's own name;
// ok is false for a name without a "pp<N>:" prefix.
func SplitStageName(s string) (stage int, name string, ok bool) {
	return namePart(s, "pp")
}

// ChunkName is the name of a parameter of VPP model chunk v: "vpp1:…".
func ChunkName(v int, name string) string {
	return "vpp" + strconv.Itoa(v) + ":" + name
}

// StageParts splits a stage-qualified name: its stage, its chunk (-1
// without a "vpp<N>:" part) and the input's own name; ok is false for a
// name without a "pp<N>:" prefix.
func StageParts(s string) (stage, vpp int, own string, ok bool) {
	stage, rest, ok := SplitStageName(s)
	if !ok {
		return -1, -1, s, false
	}
	if v, r, ok := namePart(rest, "vpp"); ok {
		return stage, v, r, true
	}
	return stage, -1, rest, true
}

// SplitNamePrefixes splits the stage and chunk prefixes ("pp1:", "vpp1:",
// in that order, each optional) from a name.
func SplitNamePrefixes(s string) (prefix, base string) {
	rest := s
	if _, r, ok := namePart(rest, "pp"); ok {
		rest = r
	}
	if _, r, ok := namePart(rest, "vpp"); ok {
		rest = r
	}
	return s[:len(s)-len(rest)], rest
}

// StageBaseName is the parameter's own name without its stage and chunk
// prefixes.
func StageBaseName(s string) string {
	_, base := SplitNamePrefixes(s)
	return base
}

// ChunkPrefix splits a model chunk prefix off a name as a pin gives it:
// "vpp1:…" (the screens) or "1:…" (monitor v2 as written).
func ChunkPrefix(s string) (vpp int, own string, ok bool) {
	if v, r, ok := namePart(s, "vpp"); ok {
		return v, r, true
	}
	return namePart(s, "")
}

// WithChunk puts the VPP model chunk in front of a parameter's own name
// when the run has several chunks and the name does not carry it yet
// (names are split per chunk only when the stages were inferred).
func WithChunk(name string, vpp int, chunks bool) string {
	if !chunks {
		return name
	}
	pre, base := SplitNamePrefixes(name)
	if strings.Contains(pre, "vpp") {
		return name
	}
	return pre + ChunkName(vpp, base)
}

// OwnName is a parameter name as the input wrote it: a stage-qualified
// name without its "pp<N>:" and "vpp<N>:" parts, any other name as is.
func OwnName(s string) string {
	_, _, own, _ := StageParts(s)
	return own
}

// QualifiedName is the name inside spikescope of the input's own name of
// pipeline stage st (and model chunk v when the run has several chunks).
func QualifiedName(st, v int, chunks bool, own string) string {
	if chunks {
		own = ChunkName(v, own)
	}
	return StageName(st, own)
}

// layerWords are the containers of transformer layer lists in parameter
// names (Megatron/MindFormers "layers", HF GPT-2 "h", "blocks").
var layerWords = map[string]bool{"layers": true, "layer": true, "blocks": true, "h": true}

// layerDigits finds the layer list in a name: at is where its word starts
// (after a "pp1:"/"0:" prefix of its segment), [k, e) the layer number.
func layerDigits(name string) (at, k, e, n int, ok bool) {
	for i := 0; i < len(name); {
		j := strings.IndexByte(name[i:], '.')
		if j < 0 {
			return 0, 0, 0, -1, false
		}
		seg, w := name[i:i+j], i
		if c := strings.LastIndexByte(seg, ':'); c >= 0 {
			seg, w = seg[c+1:], i+c+1 // "pp1:layers", "0:layers"
		}
		// a layer-list word followed by a number segment
		if layerWords[seg] {
			k := i + j + 1
			e := k
			for e < len(name) && name[e] >= '0' && name[e] <= '9' {
				e++
			}
			if e > k && (e == len(name) || name[e] == '.') {
				if v, err := strconv.Atoi(name[k:e]); err == nil {
					return w, k, e, v, true
				}
			}
		}
		i += j + 1
	}
	return 0, 0, 0, -1, false
}

// LayerSpan finds the layer list in a name: at is where its word starts,
// end where the part after "layers.N." starts, n the layer number.
func LayerSpan(name string) (at, end, n int, ok bool) {
	at, _, e, n, ok := layerDigits(name)
	if !ok {
		return 0, 0, 0, false
	}
	return at, min(e+1, len(name)), n, true
}

// LayerIndex returns the transformer layer number of a parameter name
// ("layers.3.…", "layer.3.…"; MindSpore "….layers.3.…") and whether it has
// one. MoE expert indices and other list indices are not layers.
func LayerIndex(name string) (int, bool) {
	_, _, _, n, ok := layerDigits(name)
	return n, ok
}

// WithLayerIndex returns name with its transformer layer number (the one
// LayerIndex reads) replaced by n; name unchanged without one.
func WithLayerIndex(name string, n int) string {
	_, k, e, _, ok := layerDigits(name)
	if !ok {
		return name
	}
	return name[:k] + strconv.Itoa(n) + name[e:]
}
