package ui

import "testing"

// ctrl+c is an interrupt (exit 130) also on the loading screen, where it
// cancels the load; q is a plain quit.
func TestCtrlCWhileLoadingIsAnInterrupt(t *testing.T) {
	m := New(Options{Backend: &fakeBackend{block: true}})
	if c := press(m, "ctrl+c"); c == nil || m.ctx.Err() == nil || !m.Interrupted() {
		t.Fatalf("ctrl+c while loading: cancelled %v, interrupted %v", m.ctx.Err() != nil, m.Interrupted())
	}
	m = New(Options{Backend: &fakeBackend{block: true}})
	if press(m, "q"); m.Interrupted() {
		t.Fatal("q counted as an interrupt")
	}
}
