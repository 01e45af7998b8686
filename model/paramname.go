package model

import "regexp"

// squashPatterns are msprobe's squash_param_name regexes, tried in order
// (formats.md §1.4): a monitor keeps the part of a parameter name from
// layers./embedding/final/output/norm on.
var squashPatterns = []*regexp.Regexp{
	regexp.MustCompile(`^.*\.(layers?\..*)`),
	regexp.MustCompile(`^.*\.(embeddings?\..*)`),
	regexp.MustCompile(`^.*\.(final.*)`),
	regexp.MustCompile(`^.*\.(output.*)`),
	regexp.MustCompile(`^.*\.(norm.*)`),
}

// SquashParamName is msprobe's squash_param_name: the name as a monitor
// with squash_name writes it; a name no pattern matches is returned as is.
func SquashParamName(name string) string {
	for _, re := range squashPatterns {
		if m := re.FindStringSubmatch(name); m != nil {
			return m[1]
		}
	}
	return name
}
