package ui

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// navigate applies the movement and sort keys shared by every table.
// It reports whether the key was one of them.
func (t *table) navigate(msg tea.KeyPressMsg, k keyMap, width int) bool {
	switch {
	case key.Matches(msg, k.Up):
		t.move(-1)
	case key.Matches(msg, k.Down):
		t.move(1)
	case key.Matches(msg, k.PageUp):
		t.move(-t.height)
	case key.Matches(msg, k.PageDown):
		t.move(t.height)
	case key.Matches(msg, k.Top):
		t.top()
	case key.Matches(msg, k.Bottom):
		t.bottom()
	case key.Matches(msg, k.Left):
		t.moveCol(-1, width)
	case key.Matches(msg, k.Right):
		t.moveCol(1, width)
	case key.Matches(msg, k.Sort):
		t.sortBy(t.colCur)
	default:
		return false
	}
	return true
}

// lineInput is a one-line prompt (filter text, step number).
type lineInput struct {
	active bool
	prompt string
	text   string
	digits bool // accept digits only
}

// update edits the input; done is true on enter, cancel on esc.
func (in *lineInput) update(msg tea.KeyPressMsg) (done, cancel bool) {
	switch msg.String() {
	case "enter":
		in.active = false
		return true, false
	case "esc":
		in.active = false
		return false, true
	case "backspace":
		if r := []rune(in.text); len(r) > 0 {
			in.text = string(r[:len(r)-1])
		}
		return false, false
	case "ctrl+u":
		in.text = ""
		return false, false
	}
	if t := msg.Text; t != "" && !strings.ContainsAny(t, "\n\r\t") {
		if in.digits {
			if _, err := strconv.Atoi(t); err != nil {
				return false, false
			}
		}
		in.text += t
	}
	return false, false
}

func (in *lineInput) view() string {
	return in.prompt + in.text + "█"
}
