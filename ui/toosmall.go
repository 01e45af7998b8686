package ui

import (
	"fmt"
	"strings"
)

// tooSmall is the screen of a terminal below minWidth×minHeight: the
// sentence wrapped to the width and cut to the height, so it never wraps
// or scrolls on the terminal itself.
func tooSmall(w, h int) string {
	text := fmt.Sprintf("spikescope needs %d×%d (now %d×%d): enlarge the window or press q", minWidth, minHeight, w, h)
	lines := wrap(text, max(1, w))
	if len(lines) > max(1, h) {
		lines = lines[:max(1, h)]
	}
	for i, l := range lines {
		lines[i] = clip(l, max(1, w))
	}
	return strings.Join(lines, "\n")
}
