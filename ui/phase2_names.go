package ui

import (
	"regexp"
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// p2Name shortens a parameter (or module) name to w cells from the middle,
// keeping what tells two rows apart: the pipeline stage, the layer index
// and the leaf. The framework's prefix ("Module.module.module.decoder.",
// "module.language_model.encoder.") goes, the layer becomes "L2", class
// names inside a layer path go, forward/backward become fwd/bwd; what is
// still too long loses segments from the middle ("L2 mlp.…fc2.weight").
//
// Private to the Phase 2 screen until the shared shortener (ui/names.go)
// lands; the lead unifies them.
func p2Name(s string, w int) string {
	pre := p2StageRe.FindString(s)
	s = s[len(pre):]
	head, rest := p2Split(s)
	short := pre + head + rest
	if ansi.StringWidth(short) <= w {
		return short
	}
	return p2Middle(pre+head, rest, w)
}

// p2StageRe is the stage and chunk prefix of a name ("pp1:", "pp1:vpp0:").
var p2StageRe = regexp.MustCompile(`^(?:[a-z]+\d+:)+`)

// p2LayerRe finds the layer index of a module path: the last
// "layers.N." (or layer/h/blocks/block), with what comes before it.
var p2LayerRe = regexp.MustCompile(`(?:^|.*\.)(?:layers|layer|h|blocks|block)\.(\d+)\.`)

// p2Prefixes are the wrapper segments a name starts with that carry no
// identity (DDP/Float16 wrappers, the language-model container).
var p2Prefixes = map[string]bool{"Module": true, "module": true, "model": true, "decoder": true, "encoder": true,
	"language_model": true, "transformer": true, "backbone": true}

// p2Split returns the layer head ("L2 ", or "" without a layer index) and
// the rest of the name without wrapper prefixes and class names.
func p2Split(s string) (head, rest string) {
	if m := p2LayerRe.FindStringSubmatchIndex(s); m != nil {
		head, rest = "L"+s[m[2]:m[3]]+" ", s[m[1]:]
	} else {
		segs := strings.Split(s, ".")
		i := 0
		for i < len(segs)-1 && p2Prefixes[segs[i]] {
			i++
		}
		rest = strings.Join(segs[i:], ".")
	}
	if head == "" {
		return "", rest
	}
	var keep []string
	segs := strings.Split(rest, ".")
	for i, seg := range segs {
		switch {
		case i < len(segs)-1 && p2IsClass(seg):
			continue
		case seg == "forward" || seg == "backward":
			seg = map[string]string{"forward": "fwd", "backward": "bwd"}[seg]
			if len(keep) > 0 { // "linear_fc1 fwd.0": the pass reads apart from the module
				keep[len(keep)-1] += " " + seg
				continue
			}
		}
		keep = append(keep, seg)
	}
	return head, strings.Join(keep, ".")
}

// p2IsClass tells a class name segment ("ColumnParallelLinear",
// "TransformerLayer") from a module attribute (lower case, digits, _).
func p2IsClass(seg string) bool {
	if seg == "" || seg[0] < 'A' || seg[0] > 'Z' {
		return false
	}
	return strings.ContainsAny(seg, "abcdefghijklmnopqrstuvwxyz")
}

// p2Middle fits head+rest into w cells by dropping segments of rest from
// the middle: the last segments (the leaf) first, then the first ones.
func p2Middle(head, rest string, w int) string {
	segs := strings.Split(rest, ".")
	room := w - ansi.StringWidth(head) - 1 // 1 for "…"
	if room < 1 || ansi.StringWidth(segs[len(segs)-1])+2 > room {
		full := head + rest
		return "…" + ansi.TruncateLeft(full, ansi.StringWidth(full)-w+1, "")
	}
	tail := []string{segs[len(segs)-1]}
	used := ansi.StringWidth(tail[0])
	lo, hi := 0, len(segs)-1 // segs[lo:hi] are still out
	// a generic leaf ("weight", "bias", a call index) says little alone:
	// its module comes with it, shortened from the left if need be
	if hi > 0 && len(tail[0]) <= 6 {
		prev := segs[hi-1]
		if ansi.StringWidth(prev)+1+used > room {
			prev = "…" + ansi.TruncateLeft(prev, ansi.StringWidth(prev)-(room-used-1), "")
			return head + prev + "." + tail[0]
		}
		hi--
		tail = append([]string{prev}, tail...)
		used += ansi.StringWidth(prev) + 1
	}
	for hi > lo {
		n := ansi.StringWidth(segs[hi-1]) + 1
		if used+n > room {
			break
		}
		hi--
		tail = append([]string{segs[hi]}, tail...)
		used += n
	}
	var front []string
	for lo < hi {
		n := ansi.StringWidth(segs[lo]) + 1
		if used+n > room {
			break
		}
		front = append(front, segs[lo])
		used += n
		lo++
	}
	if lo == hi { // everything fits after all
		return head + rest
	}
	f := ""
	if len(front) > 0 {
		f = strings.Join(front, ".") + "."
	}
	return head + f + "…" + strings.Join(tail, ".")
}
