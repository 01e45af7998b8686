package analysis

import (
	"fmt"
	"strconv"
	"strings"

	"spikescope/model"
)

// Layers of API-only dumps (msprobe level L1, construct.json "{}"): no
// module path names a layer, so layers cannot be known from names. What the
// data still shows is the repetition: every transformer layer runs the same
// sequence of APIs, so a pass is prologue + block × L + epilogue. The block
// (period) is found from the API names alone; the k-th block of a forward
// run is layer k, the k-th block of a backward run is layer L−1−k (backward
// runs deep → shallow). Within a block each API is named by its position
// ("npu_swiglu#0", the first npu_swiglu of the block): these positions are
// the anchors and pair the ops across dumps. Layer numbers are positions in
// the pass, not names, and the output says so.

// apiPeriodMaxOps bounds the API records searched for the period (the
// search is quadratic in them; the first micro-batch's stack suffices).
const apiPeriodMaxOps = 20000

// apiPeriodMax bounds the block length (APIs per layer and pass).
const apiPeriodMax = 2000

// minInferredLayers: fewer repetitions than this are no layer stack.
const minInferredLayers = 2

// apiSeparator starts the placeholder name of a record of the other pass
// (never an API name).
const apiSeparator = "\x00"

// apiLayerPos is the inferred place of one API record.
type apiLayerPos struct {
	layer int
	sub   string // position in the block ("npu_swiglu#0")
}

// apiStack is the repeating block of one pass.
type apiStack struct {
	block  []string // API names of one layer, execution order
	layers int      // repetitions in the longest run
}

// findAPIStack finds the repeating block of a name sequence: the period q
// whose longest stretch of names[i] == names[i+q] covers the most records
// (ties: the shortest period, since multiples of the true period cover the
// same stretch). nil when nothing repeats at least minInferredLayers times.
func findAPIStack(names []string, bwd bool) *apiStack {
	n := min(len(names), apiPeriodMaxOps)
	bestCover, bestQ, bestStart := 0, 0, 0
	for q := 1; q <= min(n/2, apiPeriodMax); q++ {
		run := 0
		for i := 0; i+q < n; i++ {
			if names[i] != names[i+q] {
				run = 0
				continue
			}
			run++
			// a stretch shorter than its period holds no full repetition
			if cover := run + q; run >= q*(minInferredLayers-1) && cover > bestCover {
				bestCover, bestQ, bestStart = cover, q, i-run+1
			}
		}
	}
	if bestQ == 0 || bestCover/bestQ < minInferredLayers {
		return nil
	}
	start := bestStart + blockPhase(names[bestStart:bestStart+bestCover], bestQ, bwd)
	return &apiStack{block: append([]string(nil), names[start:start+bestQ]...), layers: bestCover / bestQ}
}

// blockPhase picks where a layer starts inside a repeated stretch that is
// longer than a whole number of blocks: ops before the first layer that
// happen to equal the block's tail (an embedding's add; backward: the final
// norm's gradient) or after the last that equal its head (the final norm
// and output linear) extend the stretch, and any offset within the excess
// leaves the same count of whole blocks. Pre-norm transformer layers (every
// current LLM) begin their forward with the input norm, so their backward
// ends with it: the first offset that puts a norm there is taken; else the
// excess is put after the stack.
func blockPhase(stretch []string, q int, bwd bool) int {
	excess := len(stretch) % q
	for o := 0; o <= excess; o++ {
		k := o
		if bwd {
			k = o + q - 1
		}
		if k < len(stretch) && strings.Contains(strings.ToLower(stretch[k]), "norm") {
			return o
		}
	}
	return 0
}

// matchStack reports whether names[i:] starts with `layers` copies of the
// block.
func (s *apiStack) matchAt(names []string, i int) bool {
	q := len(s.block)
	if i+q*s.layers > len(names) {
		return false
	}
	for k := 0; k < q*s.layers; k++ {
		if names[i+k] != s.block[k%q] {
			return false
		}
	}
	return true
}

// blockSubs names the positions of a block: "<api>#<n>", n counting the
// earlier occurrences of the same API in the block.
func blockSubs(block []string) []string {
	seen := map[string]int{}
	out := make([]string, len(block))
	for k, name := range block {
		short := name
		if i := strings.IndexByte(short, '.'); i >= 0 {
			short = short[i+1:]
		}
		short = strings.ReplaceAll(short, ".", "_")
		out[k] = fmt.Sprintf("%s#%d", short, seen[name])
		seen[name]++
	}
	return out
}

// inferAPILayers places the API records of d in inferred layers, per pass:
// every run of `layers` consecutive blocks (one per micro-batch) is
// labelled. It returns the positions by op index (nil entries outside the
// stack) and the number of layers (0: no stack found).
func inferAPILayers(d *model.Dump) (map[int]apiLayerPos, int, int) {
	out := map[int]apiLayerPos{}
	layers, period := 0, 0
	for _, dir := range []model.Direction{model.Forward, model.Backward} {
		// The pass's APIs in execution order; every record of another pass
		// is a separator that matches nothing, so one micro-batch's stack
		// (ended by its backward) is one run and the next micro-batch
		// restarts at layer 0.
		var idx []int
		var names []string
		for i := range d.Ops {
			op := &d.Ops[i]
			if op.Kind != model.KindAPI || op.Direction == model.ParamGrad {
				continue
			}
			idx = append(idx, i)
			if op.Direction == dir && !op.Recompute {
				names = append(names, apiBase(op.Key))
			} else {
				names = append(names, apiSeparator+strconv.Itoa(i))
			}
		}
		st := findAPIStack(names, dir == model.Backward)
		if st == nil {
			continue
		}
		if dir == model.Forward || layers == 0 {
			layers, period = st.layers, len(st.block)
		}
		subs := blockSubs(st.block)
		q := len(st.block)
		for i := 0; i < len(names); {
			if !st.matchAt(names, i) {
				i++
				continue
			}
			for k := 0; k < q*st.layers; k++ {
				l := k / q
				if dir == model.Backward {
					l = st.layers - 1 - l
				}
				out[idx[i+k]] = apiLayerPos{layer: l, sub: subs[k%q]}
			}
			i += q * st.layers
		}
	}
	return out, layers, period
}

// schemeHasLayers reports whether any module path of the dumps named a
// layer (else the API-only inference applies).
func (s *layerScheme) hasLayers() bool { return len(s.Stacks) > 0 }

// apiOnly reports whether a dump holds API records and no module record.
func apiOnly(d *model.Dump) bool {
	apis := false
	for i := range d.Ops {
		switch d.Ops[i].Kind {
		case model.KindModule:
			if d.Ops[i].Direction != model.ParamGrad {
				return false
			}
		case model.KindAPI:
			apis = true
		}
	}
	return apis
}
