package ui

import (
	"context"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"spikescope/model"
)

// How the pin comes back: the saved state is read in a command while the
// run loads; once both are in, a saved pin that is one of this run's
// candidates is pinned again (a request like `p`). A pin given with --pin
// wins over the saved one and replaces it. Every change of pin is saved in
// a command; saves run one at a time and an older one never overwrites a
// newer.

// stateMsg answers readState.
type stateMsg struct {
	s    SavedState
	warn string
}

// stateSavedMsg answers a save; err is shown in the footer.
type stateSavedMsg struct{ err error }

// saveGate orders the saves of one model.
type saveGate struct {
	mu      sync.Mutex
	written int   // the newest save written
	err     error // how it went
}

// restore is the model's part in keeping the pin.
type restore struct {
	read    bool       // the saved state is in
	saved   SavedState // what was saved
	done    bool       // the saved pin was dealt with
	saveSeq int
	gate    *saveGate
	saving  *model.Coord // the pin of the last save asked for
	note    string       // the note on that pin
	id      int          // the request that restores the saved pin
}

// readState reads the saved state off the loop.
func (m *Model) readState() tea.Cmd {
	st := m.opt.State
	if st == nil {
		return nil
	}
	return safe(func() tea.Msg {
		s, warn := loadState(*st)
		return stateMsg{s: s, warn: warn}
	})
}

// restorePin runs once the data and the saved state are both in: it pins
// the saved coordinate again, or says why not; a pin given on the command
// line is saved instead.
func (m *Model) restorePin() tea.Cmd {
	r := &m.keep
	if r.done || !r.read || m.data == nil || m.waiting() {
		return nil
	}
	r.done = true
	if m.data.Pin != nil { // --pin: it replaces the saved one
		return m.savePin(m.data.Pin)
	}
	want := savedPin(r.saved.Pin)
	r.saving, r.note = want, r.saved.Note
	if r.saved.Pin == "" {
		return nil
	}
	if m.data.P1 != nil {
		for i := range m.data.P1.Anomalies {
			a := m.data.P1.Anomalies[i]
			if !samePin(a.Coord(), want) {
				continue
			}
			c := m.startUpdate("restore the saved pin "+coordString(&a), func(ctx context.Context, b Backend, d *Data) (*Data, error) {
				return b.Pin(ctx, d, &a)
			})
			r.id = m.updateID
			return c
		}
	}
	m.status = "the saved pin " + escapeControl(r.saved.Pin) + " is not a candidate of this run: not restored (spikescope --pin pins any coordinate)"
	return nil
}

// savePin records a change of pin and saves it off the loop; a new
// coordinate starts without a note, unless it is the saved one.
func (m *Model) savePin(pin *model.Coord) tea.Cmd {
	r := &m.keep
	if !r.done || samePin(pin, r.saving) {
		return nil
	}
	r.saving, r.note = pin, ""
	if samePin(pin, savedPin(r.saved.Pin)) {
		r.note = r.saved.Note
	}
	return m.writeState()
}

// writeState saves the current pin and note, off the loop; saves run one
// at a time and an older one never overwrites a newer.
func (m *Model) writeState() tea.Cmd {
	r, st := &m.keep, m.opt.State
	if st == nil {
		return nil
	}
	r.saveSeq++
	seq, gate := r.saveSeq, r.gate
	s := SavedState{Inputs: strings.Split(st.Key, "\n"), Pin: r.saving.String(), Note: r.note}
	store := *st
	return safe(func() tea.Msg {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		if seq < gate.written { // a newer save got here first
			return stateSavedMsg{}
		}
		gate.written = seq
		gate.err = saveState(store, s)
		return stateSavedMsg{err: gate.err}
	})
}

// saveOnExit makes sure the last change of pin or note is saved, once the
// program has stopped: a save still waiting in a command when the user
// quit would end with the process. It writes only a change not saved yet
// (another spikescope on the same input may have saved since), and
// reports how the last save went. A function, not a method: it runs after
// the program, never on its update loop.
func saveOnExit(m *Model) error {
	r, st := &m.keep, m.opt.State
	if st == nil {
		return nil
	}
	r.gate.mu.Lock()
	defer r.gate.mu.Unlock()
	if r.gate.written >= r.saveSeq { // saved (or nothing changed)
		return r.gate.err
	}
	r.gate.written = r.saveSeq // a late command of this save writes the same state
	r.gate.err = saveState(*st, SavedState{Inputs: strings.Split(st.Key, "\n"), Pin: r.saving.String(), Note: r.note})
	return r.gate.err
}

// noteKey is `a`: a one-line note on the pinned coordinate, kept with it.
func (m *Model) noteKey() {
	if m.data == nil || m.data.Pin == nil {
		m.status = "pin a coordinate first (p): the note is kept with the pin"
		return
	}
	m.noteIn = lineInput{active: true, prompt: "note on the pin (enter keeps it, esc cancels): ", text: m.keep.note}
	m.status = m.noteIn.view()
}

// noteTyping edits the note; enter keeps it (and saves it), esc cancels.
func (m *Model) noteTyping(msg tea.KeyPressMsg) tea.Cmd {
	done, cancel := m.noteIn.update(msg)
	switch {
	case cancel:
		m.status = "the note is unchanged"
	case done:
		m.keep.note = strings.TrimSpace(m.noteIn.text)
		if m.keep.note == "" {
			m.status = "the note is removed"
		} else {
			m.status = "note kept with the pin"
		}
		return m.writeState()
	default:
		m.status = m.noteIn.view()
	}
	return nil
}

// restoredText is the footer once the saved pin is back: the note with it.
func (m *Model) restoredText() string {
	if n := m.Note(); n != "" {
		return "the pin of the last session is back; its note: " + escapeControl(n)
	}
	return "the pin of the last session is back"
}

// noteInHeader is the note as the header shows it after the pin (" · …"),
// "" when there is none or it does not fit beside the pin: then the footer
// shows it while it has nothing else to say.
func (m *Model) noteInHeader() string {
	n := m.Note()
	if n == "" {
		return ""
	}
	t := " · " + escapeControl(n)
	// the header's title keeps 16 cells, two more separate it from the pin
	if 16+2+ansi.StringWidth("PIN "+m.Pin()+t) > m.w {
		return ""
	}
	return t
}

// Note is the note on the pin, "" when none.
func (m *Model) Note() string {
	if m.Pin() == "" {
		return ""
	}
	return m.keep.note
}

// Pin is the pinned coordinate in --pin syntax, "" when none (printed on
// exit so the user can reopen it).
func (m *Model) Pin() string {
	if m.data == nil {
		return ""
	}
	return m.pin().String()
}

// pin is the pinned coordinate, nil when none.
func (m *Model) pin() *model.Coord {
	if m.data == nil {
		return nil
	}
	return m.data.Pin
}

// savedPin is the pin of the saved state (its text, --pin syntax); nil
// when none or not a pin.
func savedPin(s string) *model.Coord {
	if s == "" {
		return nil
	}
	c, err := model.ParseCoord(s)
	if err != nil {
		return nil
	}
	return c
}

// samePin: two pins name the same candidate (nil: no pin). The model
// chunk is not compared: a candidate's name carries it.
func samePin(a, b *model.Coord) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, y := *a, *b
	x.VPP, y.VPP = nil, nil
	return x.Equal(&y)
}
