package ui

import (
	"context"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
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
	written int // the newest save written
}

// restore is the model's part in keeping the pin.
type restore struct {
	read    bool       // the saved state is in
	saved   SavedState // what was saved
	done    bool       // the saved pin was dealt with
	saveSeq int
	gate    *saveGate
	saving  string // the pin of the last save asked for
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
	if r.done || !r.read || m.data == nil || m.screen == screenLoading || m.screen == screenError {
		return nil
	}
	r.done = true
	if m.data.Pin != "" { // --pin: it replaces the saved one
		return m.savePin(m.data.Pin)
	}
	want := r.saved.Pin
	r.saving = want
	if want == "" {
		return nil
	}
	if m.data.P1 != nil {
		for i := range m.data.P1.Anomalies {
			a := m.data.P1.Anomalies[i]
			if canonicalPin(anomalyPin(&a)) != canonicalPin(want) {
				continue
			}
			return m.startUpdate("restore the saved pin "+coordString(&a), func(ctx context.Context, b Backend, d *Data) (*Data, error) {
				return b.Pin(ctx, d, &a)
			})
		}
	}
	m.status = "the saved pin " + escapeControl(want) + " is not a candidate of this run: not restored (spikescope --pin pins any coordinate)"
	return nil
}

// savePin saves pin (with the note kept) if it changed, off the loop.
func (m *Model) savePin(pin string) tea.Cmd {
	r := &m.keep
	st := m.opt.State
	if st == nil || !r.done || canonicalPin(pin) == canonicalPin(r.saving) {
		return nil
	}
	r.saving = pin
	r.saveSeq++
	seq, gate := r.saveSeq, r.gate
	s := SavedState{Inputs: strings.Split(st.Key, "\n"), Pin: pin}
	if canonicalPin(pin) == canonicalPin(r.saved.Pin) {
		s.Note = r.saved.Note
	}
	store := *st
	return safe(func() tea.Msg {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		if seq < gate.written { // a newer save got here first
			return stateSavedMsg{}
		}
		gate.written = seq
		return stateSavedMsg{err: saveState(store, s)}
	})
}

// Pin is the pinned coordinate in --pin syntax, "" when none (printed on
// exit so the user can reopen it).
func (m *Model) Pin() string {
	if m.data == nil {
		return ""
	}
	return m.data.Pin
}
