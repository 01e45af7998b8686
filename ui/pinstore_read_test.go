package ui

import (
	"bytes"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The state file is read with the checks every file read gets: a named
// pipe (which would block the read forever), a folder or a file far larger
// than any saved pin is refused at once with a sentence naming it, and the
// UI starts without a pin.
func TestOddStateFileIsRefused(t *testing.T) {
	cases := []struct {
		name, want string
		make       func(path string) error
	}{
		{"pipe", "not a regular file", func(p string) error { return syscall.Mkfifo(p, 0o600) }},
		{"folder", "not a regular file", func(p string) error { return os.Mkdir(p, 0o700) }},
		{"huge", "too large", func(p string) error {
			// valid JSON, padded: only its size is wrong
			return os.WriteFile(p, append([]byte(`{"pin": "opt=3,rank=0,param=w"}`), bytes.Repeat([]byte(" "), 2*maxStateFileBytes)...), 0o600)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st := testStore(t, "/data/run/trend.db")
			path := statePath(st.Dir, st.Key)
			if err := c.make(path); err != nil {
				t.Fatal(err)
			}
			type res struct {
				s    SavedState
				warn string
			}
			done := make(chan res, 1)
			go func() {
				s, w := loadState(*st)
				done <- res{s, w}
			}()
			select {
			case r := <-done:
				if r.s.Pin != "" || !strings.Contains(r.warn, path) || !strings.Contains(r.warn, c.want) {
					t.Errorf("pin %q, message %q: want no pin and a sentence naming %s that says %q", r.s.Pin, r.warn, path, c.want)
				}
			case <-time.After(5 * time.Second):
				if c.name == "pipe" {
					// unblock the reader so that the test can end
					if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
						f.Close()
					}
				}
				t.Fatal("reading the state file did not return in 5 s")
			}
		})
	}
}

// The state folder: $XDG_STATE_HOME when it is an absolute path (the XDG
// rule: a relative one is ignored), else ~/.local/state, else none.
func TestDefaultStateDirFollowsXDG(t *testing.T) {
	for _, c := range []struct{ xdg, home, want string }{
		{"/st", "/home/u", "/st/spikescope/pins"},
		{"rel/st", "/home/u", "/home/u/.local/state/spikescope/pins"},
		{"", "/home/u", "/home/u/.local/state/spikescope/pins"},
		{"/st", "", "/st/spikescope/pins"},
		{"", "", ""},
	} {
		t.Setenv("XDG_STATE_HOME", c.xdg)
		t.Setenv("HOME", c.home)
		if got := DefaultStateDir(); got != c.want {
			t.Errorf("XDG_STATE_HOME=%q HOME=%q: %q, want %q", c.xdg, c.home, got, c.want)
		}
	}
}

// A save never writes what the next start would refuse to read: a note
// too long for the state file is not saved, with a sentence saying so, and
// the state saved before stays.
func TestTooLongNoteIsNotSaved(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	if err := saveState(*st, SavedState{Pin: "opt=3,rank=0,param=w", Note: "short"}); err != nil {
		t.Fatal(err)
	}
	err := saveState(*st, SavedState{Pin: "opt=3,rank=0,param=w", Note: strings.Repeat("n", maxStateFileBytes)})
	if err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("saving a %d-byte note: %v, want a sentence that it is too long", maxStateFileBytes, err)
	}
	if s, warn := loadState(*st); warn != "" || s.Note != "short" {
		t.Fatalf("after the refused save: note %q, message %q; want the state saved before", s.Note, warn)
	}
}

// A pin made just before quitting is kept although its save command never
// ran (the process ends with the program): saveOnExit writes it. A save of
// before that runs late does not overwrite it.
func TestPinMadeJustBeforeQuitIsKept(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	m := started(t, st)
	press(m, "j")
	msg := press(m, "p")() // the pin request; its reply asks for a save
	_, save := m.Update(msg)
	if m.data.Pin == nil || save == nil {
		t.Fatalf("p did not pin (pin %q) or asked for no save", m.data.Pin)
	}
	if _, err := os.Stat(statePath(st.Dir, st.Key)); !os.IsNotExist(err) {
		t.Fatalf("saved before the save command ran: %v", err)
	}
	if err := saveOnExit(m); err != nil {
		t.Fatal(err)
	}
	again := started(t, st)
	if !again.data.Pin.Equal(m.data.Pin) {
		t.Fatalf("after the exit the saved pin is %q, want %q", again.data.Pin, m.data.Pin)
	}
	drain(m, save) // the late command: it must not write an older state
	if s, _ := loadState(*st); !samePin(savedPin(s.Pin), m.data.Pin) {
		t.Fatalf("a late save replaced the pin with %q", s.Pin)
	}
}

// Quitting without a change writes nothing: a pin another spikescope
// saved on the same input meanwhile stays.
func TestExitWithoutChangeKeepsOtherProcessPin(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	m := started(t, st)
	other := SavedState{Pin: "opt=99,rank=7,param=elsewhere.weight", Note: "theirs"}
	if err := saveState(*st, other); err != nil {
		t.Fatal(err)
	}
	if err := saveOnExit(m); err != nil {
		t.Fatal(err)
	}
	if s, _ := loadState(*st); s.Pin != other.Pin || s.Note != other.Note {
		t.Fatalf("after an exit with no change the saved state is %+v, want the other process's %+v", s, other)
	}
}
