package ui

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// Parameter, module and operator names are long ("Module.module.module.
// decoder.layers.2.mlp.linear_fc1.ColumnParallelLinear.forward.0") and
// differ only in the middle and at the end, so cutting them from the left
// at 80 columns leaves four rows of "…llelLinear.forward.0". nameShortener
// shortens them from the middle instead: it drops the module path the run's
// layered names share (computed from the run, not a list of frameworks),
// the class name, and writes the layer as "L2" and the pass as "fwd.0":
// "L2 mlp.linear_fc1 fwd.0". The pipeline prefixes ("pp1:", "vpp1:") are
// part of a name's identity and always stay.

// nameShortener holds what one run's names share.
type nameShortener struct {
	// layerPrefix is the dot-ended module path in front of the layer list
	// ("Module.module.module.decoder.") common to every layered name of the
	// run; ok says whether any name had a layer.
	layerPrefix string
	ok          bool
	// allPrefix is what every name shares, for a run without layers
	// ("Module." of a ResNet dump); seen counts the names.
	allPrefix string
	seen      int
}

// passWords end the module path of a dump record ("….Linear.forward.0",
// "Functional.linear.3.backward").
var passWords = map[string]string{"forward": "fwd", "backward": "bwd", "parameters_grad": "grad"}

// newNameShortener learns the common layered prefix of names.
func newNameShortener(names func(yield func(string) bool)) *nameShortener {
	ns := &nameShortener{}
	names(func(s string) bool {
		_, base := model.SplitNamePrefixes(s)
		if ns.seen == 0 {
			ns.allPrefix = base[:strings.LastIndexByte(base, '.')+1]
		} else {
			ns.allPrefix = commonSegments(ns.allPrefix, base)
		}
		ns.seen++
		at, _, _, ok := model.LayerSpan(base)
		if !ok {
			return true
		}
		pre := base[:at]
		if !ns.ok {
			ns.layerPrefix, ns.ok = pre, true
			return true
		}
		ns.layerPrefix = commonSegments(ns.layerPrefix, pre)
		return true
	})
	return ns
}

// commonSegments is the longest common prefix of a and b that ends at a
// dot (whole segments only).
func commonSegments(a, b string) string {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	if i == len(a) && i == len(b) {
		return a
	}
	j := strings.LastIndexByte(a[:i], '.')
	return a[:j+1]
}

// nameParts is a shortened name: head ("pp1:L2"), the module path
// segments, and the tail (the pass and call, "fwd.0"; "" for a parameter).
type nameParts struct {
	head string
	path []string
	tail string
	// leaf is how many of the last path segments are the leaf that stays
	// (a parameter keeps "linear_fc1.weight", an operator "linear_fc1").
	leaf int
}

// parts shortens a name into its parts.
func (ns *nameShortener) parts(s string) nameParts {
	prefix, base := model.SplitNamePrefixes(s)
	var np nameParts
	np.head = prefix
	rest := base
	if at, end, n, ok := model.LayerSpan(base); ok {
		np.head += "L" + strconv.Itoa(n)
		lead := base[:at]
		if ns != nil && ns.ok && strings.HasPrefix(lead, ns.layerPrefix) {
			lead = lead[len(ns.layerPrefix):]
		}
		rest = lead + base[end:]
	} else if ns != nil {
		// an unlayered name drops what it shares with the layered ones
		// ("Module.module.module." before "embedding"), or in a run
		// without layers what every name shares
		c := ""
		switch {
		case ns.ok:
			c = commonSegments(ns.layerPrefix, base)
		case ns.seen > 1 && strings.HasPrefix(base, ns.allPrefix):
			c = ns.allPrefix
		}
		if c != "" && len(c) < len(base) {
			rest = base[len(c):]
		}
	}
	segs := strings.Split(strings.TrimSuffix(rest, "."), ".")
	if rest == "" {
		segs = nil
	}
	// the pass: "….Class.forward.0" (modules) or "….api.3.forward" (APIs)
	for i := len(segs) - 1; i >= 0 && i >= len(segs)-2; i-- {
		short, ok := passWords[segs[i]]
		if !ok {
			continue
		}
		np.tail = short
		if i+1 < len(segs) {
			np.tail += "." + strings.Join(segs[i+1:], ".")
		}
		segs = segs[:i]
		if k := len(segs) - 1; k >= 0 && isClassName(segs[k]) && k > 0 {
			segs = segs[:k] // the module's class: the path names it already
		}
		break
	}
	np.path = segs
	np.leaf = 1
	if np.tail == "" && len(segs) >= 2 {
		np.leaf = 2 // a parameter: module and attribute ("linear_fc1.weight")
	}
	return np
}

// isClassName reports whether a segment is a class name ("Linear",
// "TELayerNormColumnParallelLinear"): a capital first letter.
func isClassName(s string) bool {
	return s != "" && s[0] >= 'A' && s[0] <= 'Z'
}

func (np nameParts) join(path []string, cut bool) string {
	var b strings.Builder
	b.WriteString(np.head)
	if len(path) > 0 || cut {
		if np.head != "" && !strings.HasSuffix(np.head, ":") {
			b.WriteByte(' ')
		}
		if cut {
			b.WriteString("…")
		}
		b.WriteString(strings.Join(path, "."))
	}
	if np.tail != "" {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(np.tail)
	}
	return b.String()
}

// short is a name shortened from the middle without a width limit.
func (ns *nameShortener) short(s string) string {
	if s == "" {
		return s
	}
	np := ns.parts(s)
	return np.join(np.path, false)
}

// fit is a name in at most w cells: the short form, then path segments
// dropped from the left of the module path (the layer and the leaf stay,
// "L2 …experts.3.linear_fc1 fwd.0"; number segments go last), then the
// leaf cut from the left as a last resort.
func (ns *nameShortener) fit(s string, w int) string {
	if s == "" {
		return s
	}
	np := ns.parts(s)
	out := np.join(np.path, false)
	if ansi.StringWidth(out) <= w {
		return out
	}
	path := append([]string{}, np.path...)
	keep := min(np.leaf, len(path))
	for pass := 0; pass < 2; pass++ { // words first, then numbers
		for i := 0; i < len(path)-keep; {
			if pass == 0 && model.AllDigits(path[i]) {
				i++
				continue
			}
			path = append(path[:i], path[i+1:]...)
			if out = np.join(path, true); ansi.StringWidth(out) <= w {
				return out
			}
		}
	}
	if w < 2 {
		return ansi.Truncate(out, w, "")
	}
	// still too wide: keep the head (and the pass), cut the leaf from the left
	head := np.head
	if head != "" && !strings.HasSuffix(head, ":") {
		head += " "
	}
	tail := ""
	if np.tail != "" {
		tail = " " + np.tail
	}
	room := w - ansi.StringWidth(head) - ansi.StringWidth(tail)
	leaf := strings.Join(path, ".")
	if room >= 4 {
		lw := ansi.StringWidth(leaf)
		for cut := lw - room + 1; cut < lw; cut++ { // a wide character may need one cell more
			if out := head + "…" + ansi.TruncateLeft(leaf, cut, "") + tail; ansi.StringWidth(out) <= w {
				return out
			}
		}
	}
	return ansi.Truncate(out, w, "…")
}

// runNames are the shorteners of one session: parameter names (Phase 1,
// the series) and operator keys (Phase 3), and whether the run has several
// VPP model chunks (then every name shows its chunk).
type runNames struct {
	params, ops *nameShortener
	chunks      bool
}

// newRunNames learns the run's names (off the update loop: Data.index).
func newRunNames(d *Data) *runNames {
	rn := &runNames{}
	rn.params = newNameShortener(func(yield func(string) bool) {
		if d.P1 != nil {
			for _, n := range d.P1.Targets {
				if !yield(n) {
					return
				}
			}
			for i := range d.P1.Anomalies {
				if !yield(d.P1.Anomalies[i].TargetName) {
					return
				}
			}
		}
		if d.Monitor != nil {
			for _, t := range d.Monitor.Targets {
				if !yield(t.Name) {
					return
				}
			}
		}
	})
	rn.ops = newNameShortener(func(yield func(string) bool) {
		if d.A != nil {
			for i := range d.A.Ops {
				if !yield(d.A.Ops[i].Key) {
					return
				}
			}
			return
		}
		if d.P3 != nil && d.P3.DivergenceSummary.Drilldown != nil {
			for _, o := range d.P3.DivergenceSummary.Drilldown.Ops {
				if !yield(o.Key) {
					return
				}
			}
		}
	})
	if d.P1 != nil {
		rn.chunks = len(d.P1.Sharding.VPPStages) > 1
	}
	return rn
}

// namesOf is the data's shorteners, learned now when Data was made
// elsewhere without index (tests).
func namesOf(d *Data) *runNames {
	if d == nil {
		return &runNames{}
	}
	if d.names == nil {
		d.names = newRunNames(d)
	}
	return d.names
}

// param is a candidate's parameter as the screens name it: with its VPP
// chunk when the run has several.
func (rn *runNames) param(a *model.Anomaly) string {
	return model.WithChunk(a.TargetName, a.VPPStage, rn.chunks)
}

// title is a candidate's parameter in at most w cells for a screen about
// it alone: in full when it fits, else shortened from the middle.
func (rn *runNames) title(a *model.Anomaly, w int) string {
	full := rn.param(a)
	if g := globalMark(a); g != "" {
		full += g[:len(g)-1] + " of the model)"
	}
	if ansi.StringWidth(full) <= w {
		return full
	}
	return rn.fitA(a, w)
}

// detailLines is the selected row's full name under a table: "▸ name" in
// up to n lines of width cells, broken at any cell; a name longer still
// loses its middle ("…"), never its ends.
func detailLines(name string, width, n int) []string {
	w := max(10, width-2)
	if n < 1 {
		n = 1
	}
	if sw := ansi.StringWidth(name); sw > w*n {
		keep := w*n - 1
		name = ansi.Truncate(name, keep/2, "") + "…" + ansi.TruncateLeft(name, sw-(keep-keep/2), "")
	}
	out := []string{}
	if name == "" {
		return []string{"▸"}
	}
	for i := 0; i < n && name != ""; i++ {
		part := ansi.Truncate(name, w, "")
		if i < n-1 && len(part) < len(name) { // break after a dot near the end
			if j := strings.LastIndexByte(part, '.'); j >= len(part)*2/3 {
				part = part[:j+1]
			}
		}
		name = name[len(part):]
		pre := "▸ "
		if i > 0 {
			pre = "  "
		}
		out = append(out, pre+part)
	}
	return out
}

// layerToken is the layer a shortened name shows ("L0").
var layerToken = regexp.MustCompile(`\bL(\d+)\b`)

// globalMark is " (L3)": the model's layer of a candidate whose name is
// stage-local (a pipeline stage's "layers.0" is the model's layer 3); ""
// when the name's layer is the model's own or unknown.
func globalMark(a *model.Anomaly) string {
	if a == nil {
		return ""
	}
	return layerMark(a.TargetName, a.GlobalLayer)
}

// layerMark is " (L3)" for a parameter name whose model layer is *g
// ("" when g is nil or the name's own layer is the model's).
func layerMark(name string, g *int) string {
	if g == nil {
		return ""
	}
	if n, ok := model.LayerIndex(name); ok && n == *g {
		return ""
	}
	return " (L" + strconv.Itoa(*g) + ")"
}

// withGlobal puts a candidate's model layer right after the stage-local
// layer of its shortened name: "pp1:vpp1:L0 (L3) mlp.dense_4h_to_h.weight".
func withGlobal(short string, a *model.Anomaly) string {
	return withMark(short, globalMark(a))
}

// withMark puts mark (a layerMark) right after the layer of a shortened
// name, or at its end when the name shows no layer.
func withMark(short, mark string) string {
	if mark == "" {
		return short
	}
	if loc := layerToken.FindStringIndex(short); loc != nil {
		return short[:loc[1]] + mark + short[loc[1]:]
	}
	return short + mark
}

// pairLayer is the model layer of a cross-step pair's parameter on a
// pipeline stage: a Phase 1 candidate's of that name (and chunk), else the
// stage layout's; nil when unknown.
func pairLayer(d *Data, c *model.CrossStepPair) *int {
	if d == nil || d.P1 == nil {
		return nil
	}
	for i := range d.P1.Anomalies {
		a := &d.P1.Anomalies[i]
		if a.GlobalLayer != nil && a.TargetName == c.TargetName && (c.VPPStage == nil || *c.VPPStage == a.VPPStage) {
			return a.GlobalLayer
		}
	}
	n, ok := model.LayerIndex(c.TargetName)
	if !ok || c.PPStage == nil {
		return nil
	}
	vpp := 0
	if c.VPPStage != nil {
		vpp = *c.VPPStage
	}
	if g := d.P1.Sharding.Stages.GlobalLayer(*c.PPStage, vpp, n); g >= 0 {
		return &g
	}
	return nil
}

// fitA is a candidate's parameter in at most w cells with its model layer.
func (rn *runNames) fitA(a *model.Anomaly, w int) string {
	g := ansi.StringWidth(globalMark(a))
	return withGlobal(rn.params.fit(rn.param(a), max(1, w-g)), a)
}

// modelLayerNote is " · model layer 3" after a stage-local full name.
func modelLayerNote(a *model.Anomaly) string {
	if globalMark(a) == "" {
		return ""
	}
	return " · model layer " + strconv.Itoa(*a.GlobalLayer)
}
