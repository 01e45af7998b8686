package model

import (
	"strconv"
	"strings"
)

// JoinInts prints ranks or steps as one list ("0, 1, 2" with sep ", "):
// the pipeline's missing-data lines, the reports and the TUI all list them.
func JoinInts(v []int, sep string) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.Itoa(x)
	}
	return strings.Join(parts, sep)
}
