package words

import (
	"regexp"
	"strings"
)

// englishRun is three or more English words in a row: a sentence (or a
// piece of one) left untranslated. The method's own terms (opt_step,
// micro step, rank, norm, msprobe's names) stand alone or in pairs.
var englishRun = regexp.MustCompile(`(?i)\b[a-z]{2,}(?:[ ,;:()'-]+[a-z]{2,}){2,}\b`)

// methodTerms are English words a Chinese text may hold in a row: the
// method's and msprobe's terms the seed itself writes in English.
var methodTerms = map[string]bool{
	"micro": true, "step": true, "steps": true, "optimizer": true, "opt": true, "rank": true, "ranks": true,
	"norm": true, "grad": true, "gradient": true, "mean": true, "max": true, "min": true, "iqr": true, "mad": true,
	"msprobe": true, "dump": true, "task": true, "tensor": true, "statistics": true, "level": true,
	"list": true, "mix": true, "npu": true, "gpu": true, "cpu": true, "forward": true, "backward": true,
	"compare": true, "config": true, "json": true, "db": true, "trend": true, "csv": true, "pp": true, "vpp": true,
	"nan": true, "inf": true, "moe": true, "mcore": true, "te": true, "layer": true, "layers": true,
	"unreduced": true, "reduced": true, "weight": true, "bias": true, "the": false,
}

// EnglishSentence returns the first run of three or more English words in
// s that are not all the method's own terms ("" when there is none): what
// a Chinese text must not hold. Names (dotted, with digits or
// underscores) are not words.
func EnglishSentence(s string) string {
	for _, m := range englishRun.FindAllString(s, -1) {
		words := strings.FieldsFunc(strings.ToLower(m), func(r rune) bool { return !(r >= 'a' && r <= 'z') })
		terms := 0
		for _, w := range words {
			if methodTerms[w] {
				terms++
			}
		}
		if terms < len(words) {
			return m
		}
	}
	return ""
}
