package ui

import (
	"fmt"
	"reflect"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Keys typed while the run loads are kept and run, in order, once it has
// loaded: a user who knows the screens can type `3 enter` and wait. Kept
// are the keys some screen uses, and the text after a `/` or `:` (the
// filter or step it starts); the footer counts them. If the load fails they
// are dropped, and the footer says so.

// maxTypeahead caps the keys kept while loading.
const maxTypeahead = 64

// typeahead is the keys kept while loading.
type typeahead struct {
	keys   []tea.KeyPressMsg
	typing bool // after a kept / or :, until enter or esc: text is kept too
	over   int  // keys not kept (over the cap)
}

// boundKeys is every key of the keymap but q, ctrl+c and ctrl+z, which work
// while loading: the keys worth keeping.
func (k keyMap) boundKeys() []string {
	skip := map[string]bool{}
	for _, b := range []key.Binding{k.Quit, k.Suspend} {
		for _, s := range b.Keys() {
			skip[s] = true
		}
	}
	var out []string
	v := reflect.ValueOf(k)
	for i := range v.NumField() {
		for _, s := range v.Field(i).Interface().(key.Binding).Keys() {
			if !skip[s] {
				out = append(out, s)
				skip[s] = true
			}
		}
	}
	return out
}

// keptKeys is the loading screen's binding of the keys it keeps.
func (k keyMap) keptKeys() key.Binding {
	return key.NewBinding(key.WithKeys(k.boundKeys()...), key.WithHelp("other keys", "kept, they run once the run is loaded"))
}

// keepKey records msg if it is worth keeping; false: the key does nothing.
func (m *Model) keepKey(msg tea.KeyPressMsg) bool {
	ta := &m.typeahead
	s := msg.String()
	bound := key.Matches(msg, m.keys.keptKeys())
	switch {
	case ta.typing:
		if s == "enter" || s == "esc" {
			ta.typing = false
		}
	case !bound:
		return false
	case key.Matches(msg, m.keys.Filter), key.Matches(msg, m.keys.Jump):
		ta.typing = true
	}
	if len(ta.keys) >= maxTypeahead {
		ta.over++
		m.status = fmt.Sprintf("%d keys kept for after loading; %d more were not kept", len(ta.keys), ta.over)
		return true
	}
	ta.keys = append(ta.keys, msg)
	names := make([]string, len(ta.keys))
	for i, k := range ta.keys {
		names[i] = k.String()
	}
	m.status = fmt.Sprintf("kept %s: they run once the run is loaded", shortParam(strings.Join(names, " "), 40))
	return true
}

// replay runs the kept keys on the loaded screens.
func (m *Model) replay() tea.Cmd {
	keys := m.typeahead.keys
	m.typeahead = typeahead{}
	var cmds []tea.Cmd
	for _, k := range keys {
		_, c := m.key(k)
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

// dropTypeahead forgets the kept keys after a failed load, saying so.
func (m *Model) dropTypeahead() {
	if n := len(m.typeahead.keys); n > 0 {
		m.status = fmt.Sprintf("the %d keys typed while loading were dropped: the run did not load", n)
	}
	m.typeahead = typeahead{}
}
