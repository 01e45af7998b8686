package ui

import (
	"fmt"
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
	case key.Matches(msg, k.HalfUp):
		t.move(-max(1, t.height/2))
	case key.Matches(msg, k.HalfDown):
		t.move(max(1, t.height/2))
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

// centre puts the cursor on view position pos and scrolls so that the row
// sits in the middle of the screen (`:N`), as far as the list allows.
func (t *table) centre(pos int) {
	t.cursor = pos
	t.offset = pos - t.height/2
	t.clamp()
}

// findMatch moves the cursor to the next (d = 1) or previous (d = -1) row
// of the view that match accepts, wrapping around the ends (n/N). It
// returns the match's number among all matches and their count (0: none;
// the cursor stays).
func (t *table) findMatch(d int, match func(row int) bool) (nth, count int, wrapped bool) {
	n := len(t.view)
	if n == 0 {
		return 0, 0, false
	}
	found := -1
	for k := 1; k <= n; k++ {
		pos := ((t.cursor+d*k)%n + n) % n
		if match(t.view[pos]) {
			found = pos
			wrapped = (d > 0 && pos <= t.cursor) || (d < 0 && pos >= t.cursor)
			break
		}
	}
	if found < 0 {
		return 0, 0, false
	}
	for pos, row := range t.view {
		if match(row) {
			count++
			if pos <= found {
				nth++
			}
		}
	}
	t.cursor = found
	t.clamp()
	return nth, count, wrapped
}

// searchStep is n (prev false) or N on a table searched for q: the
// cursor moves to the next or previous match and the footer says which it
// is. match builds the matcher, only once there is a query.
func (t *table) searchStep(prev bool, q string, match func() func(row int) bool) reply {
	d := 1
	if prev {
		d = -1
	}
	nth, count, wrapped := 0, 0, false
	if q != "" {
		nth, count, wrapped = t.findMatch(d, match())
	}
	return reply{handled: true, status: matchStatus(q, nth, count, wrapped)}
}

// matchStatus is the footer line after n/N for query q.
func matchStatus(q string, nth, count int, wrapped bool) string {
	switch {
	case q == "":
		return "no search yet: / types one, n and N then step through its matches"
	case count == 0:
		return fmt.Sprintf("no row matches %q", q)
	}
	s := fmt.Sprintf("match %d of %d for %q", nth, count, q)
	if wrapped {
		s += " (wrapped around)"
	}
	return s
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
