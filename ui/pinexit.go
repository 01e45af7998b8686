package ui

import (
	"fmt"
	"strings"

	"spikescope/pipeline"
)

// ReopenText is what the TUI prints on exit with a pin, once the terminal
// is restored: the command that reopens it (args are the command line's
// words), and whether the pin is kept for this input (noStore: there is no
// state folder, neither XDG_STATE_HOME nor HOME is set). "" without a pin
// or after an error.
func (e Ending) ReopenText(args []string, noStore bool) string {
	if e.Err != nil || e.Pin == nil {
		return ""
	}
	why := e.PinNotKept
	if noStore {
		why = "no folder to keep it in: set XDG_STATE_HOME or HOME"
	}
	return pinExitText(args, e.Pin.String(), why)
}

// pinExitText is what the TUI prints on exit with a pin: the command that
// reopens it, and whether the pin is kept for this input (why not: no
// state folder, neither XDG_STATE_HOME nor HOME set, or the save failed).
func pinExitText(args []string, pin, notKept string) string {
	line, _ := pipeline.EscapeControl(reuseCommand(args, pin))
	if notKept != "" {
		why, _ := pipeline.EscapeControl(notKept)
		return fmt.Sprintf("the pin is not kept (%s); to reopen it:\n  %s\n", why, line)
	}
	return fmt.Sprintf("the pin is kept for this input; to reopen it elsewhere:\n  %s\n", line)
}

// reuseCommand is the command line that reopens the run at pin: args
// without any --pin, then --pin, each word quoted for a POSIX shell.
func reuseCommand(args []string, pin string) string {
	words := []string{"spikescope"}
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if strings.HasPrefix(a, "-") && name == "pin" {
			if !hasValue {
				i++ // the value is the next word
			}
			continue
		}
		words = append(words, shellQuote(a))
	}
	return strings.Join(append(words, "--pin", shellQuote(pin)), " ")
}

// shellQuote quotes s for a POSIX shell unless it is plain.
func shellQuote(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=,:+@%", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
