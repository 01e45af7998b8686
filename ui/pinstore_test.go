package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// drain runs a command and every command its messages lead to, feeding the
// messages to m (a program's loop without the terminal).
func drain(m *Model, c tea.Cmd) {
	if c == nil {
		return
	}
	switch msg := c().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			drain(m, c)
		}
	default:
		_, next := m.Update(msg)
		drain(m, next)
	}
}

// started is a model on the fixture with a pin store, after loading.
func started(t *testing.T, st *PinStore) *Model {
	t.Helper()
	m := New(Options{Backend: fixtureBackend(), NoColor: true, State: st})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	drain(m, m.Init())
	if m.screen != screenPhase1 {
		t.Fatalf("screen %d after load", m.screen)
	}
	return m
}

func testStore(t *testing.T, path string) *PinStore {
	return &PinStore{Dir: t.TempDir(), Key: StateKey([]Input{{Role: "monitor", Path: path}}, false)}
}

// A pin made with `p` is back after a restart on the same input, not on
// another input; unpinning removes it.
func TestPinSurvivesRestart(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	m := started(t, st)
	press(m, "j")
	drain(m, press(m, "p"))
	want := m.data.Pin
	if want == nil {
		t.Fatal("p did not pin")
	}
	if _, err := os.Stat(statePath(st.Dir, st.Key)); err != nil {
		t.Fatalf("the pin was not saved: %v", err)
	}
	again := started(t, st)
	if !again.data.Pin.Equal(want) || !strings.Contains(screenText(again), "PIN "+want.Label()) {
		t.Fatalf("after a restart the pin is %q, want %q; status %q", again.data.Pin, want, again.status)
	}
	if !strings.Contains(again.status, "last session is back") {
		t.Fatalf("the footer does not say the pin was restored: %q", again.status)
	}
	other := &PinStore{Dir: st.Dir, Key: StateKey([]Input{{Role: "monitor", Path: "/data/other/trend.db"}}, false)}
	if o := started(t, other); o.data.Pin != nil {
		t.Fatalf("another input got the pin %q", o.data.Pin)
	}
	drain(again, press(again, "P"))
	if _, err := os.Stat(statePath(st.Dir, st.Key)); !os.IsNotExist(err) {
		t.Fatalf("unpinning left the saved pin: %v", err)
	}
	if third := started(t, st); third.data.Pin != nil {
		t.Fatalf("an unpinned input came back pinned: %q", third.data.Pin)
	}
}

// A damaged state file is ignored with a sentence naming it; the UI runs
// and the next pin replaces the file.
func TestCorruptStateIsIgnored(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	path := statePath(st.Dir, st.Key)
	if err := os.WriteFile(path, []byte("{\"pin\": \"opt=3,"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := started(t, st)
	if m.data.Pin != nil || !strings.Contains(m.status, "damaged") || !strings.Contains(m.status, path) {
		t.Fatalf("pin %q, status %q", m.data.Pin, m.status)
	}
	drain(m, press(m, "p"))
	b, err := os.ReadFile(path)
	var s SavedState
	if err != nil || json.Unmarshal(b, &s) != nil || s.Pin != m.data.Pin.String() {
		t.Fatalf("after a pin the file holds %q (%v)", b, err)
	}
}

// A saved pin that is no longer a candidate is not applied, and the footer
// says so.
func TestStaleSavedPinSaysWhy(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	if err := saveState(*st, SavedState{Pin: "opt=99,rank=0,param=gone.weight"}); err != nil {
		t.Fatal(err)
	}
	m := started(t, st)
	if m.data.Pin != nil || !strings.Contains(m.status, "not a candidate") {
		t.Fatalf("pin %q, status %q", m.data.Pin, m.status)
	}
}

// The same input reached by a relative path or a link has one key; two
// inputs have two.
func TestStateKeyResolvesPaths(t *testing.T) {
	dir := t.TempDir()
	run := filepath.Join(dir, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(run, filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	abs := StateKey([]Input{{Role: "monitor", Path: run}}, false)
	for _, p := range []string{"run", "./run/", "link", filepath.Join(dir, "link")} {
		if k := StateKey([]Input{{Role: "monitor", Path: p}}, false); k != abs {
			t.Errorf("%s: key %q, want %q", p, k, abs)
		}
	}
	if StateKey([]Input{{Role: "monitor", Path: run}, {Role: "baseline", Path: dir}}, false) == abs {
		t.Error("adding a baseline kept the key")
	}
	if StateKey(nil, true) != StateKey([]Input{{Role: "monitor", Path: run}}, true) {
		t.Error("the demo run's key depends on its temporary folder")
	}
}

// Saves replace the file whole: a reader running beside them only ever
// sees one complete state or the other, and no temporary file is left.
func TestSaveStateIsAtomic(t *testing.T) {
	st := PinStore{Dir: t.TempDir(), Key: "k"}
	long, short := strings.Repeat("a", maxStateFileBytes/2), "b" // long: several writes, under the read limit
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for i := 0; i < 100; i++ {
			note := long
			if i%2 == 1 {
				note = short
			}
			if err := saveState(st, SavedState{Pin: "rank=1", Note: note}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	reads := 0
	for running := true; running; {
		select {
		case <-done:
			running = false
		default:
		}
		b, err := os.ReadFile(statePath(st.Dir, st.Key))
		if os.IsNotExist(err) {
			continue
		}
		var s SavedState
		if err != nil || json.Unmarshal(b, &s) != nil || (s.Note != long && s.Note != short) {
			t.Fatalf("read %d bytes of a half-written state (%v)", len(b), err)
		}
		reads++
	}
	wg.Wait()
	ents, _ := os.ReadDir(st.Dir)
	if len(ents) != 1 || reads == 0 {
		t.Fatalf("%d files in the state folder after the saves (want 1), %d reads", len(ents), reads)
	}
}

// The state folder is never inside an input folder.
func TestStateNeverInsideInput(t *testing.T) {
	in := t.TempDir()
	st := PinStore{Dir: filepath.Join(in, "state"), Key: "k", Inputs: []Input{{Role: "monitor", Path: in}}}
	if err := saveState(st, SavedState{Pin: "rank=1"}); err == nil || !strings.Contains(err.Error(), "inside an input folder") {
		t.Fatalf("saving into the input: %v", err)
	}
	if _, err := os.Stat(st.Dir); !os.IsNotExist(err) {
		t.Fatal("the state folder was made inside the input")
	}
}

// `y` copies the selected candidate in the syntax --pin reads (the pin
// parser gives back the same coordinate) and says so in the footer.
func TestCopyGivesPinSyntax(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "j")
	c := press(m, "y")
	if c == nil {
		t.Fatal("y gave no clipboard command")
	}
	a := m.p1().candidate()
	text, _ := m.p1().copyText()
	p, err := model.ParseCoord(text)
	if err != nil || p.Rank == nil || *p.Rank != a.Rank || p.Param != a.TargetName ||
		(a.OptimizerStep == nil && (p.Step == nil || *p.Step != a.Step)) {
		t.Fatalf("copied %q: parsed %+v, %v", text, p, err)
	}
	if !strings.Contains(m.status, "copied the coordinate "+text) {
		t.Fatalf("footer %q", m.status)
	}
	opt, ms := 3, 2
	b := &model.Anomaly{OptimizerStep: &opt, MicroStep: &ms, Step: 14, Rank: 5, TargetName: "a,b.weight"}
	p, err = model.ParseCoord(b.Coord().String())
	if err != nil || *p.OptStep != 3 || *p.MicroStep != 2 || *p.Rank != 5 || p.Step != nil || p.Param != "a,b.weight" {
		t.Fatalf("%q parses to %+v, %v", b.Coord(), p, err)
	}
	if q, err := model.ParseCoord("micro_step=2,opt=3,rank=5,name=a,b.weight"); err != nil || q.String() != b.Coord().String() {
		t.Fatalf("spellings differ: %q vs %q", q, b.Coord())
	}
}

// `a` writes a one-line note on the pin: the header shows it, it is saved
// with the pin and comes back with it; another pin starts without one.
func TestNoteKeptWithPin(t *testing.T) {
	st := testStore(t, "/data/run/trend.db")
	m := started(t, st)
	press(m, "a")
	if !strings.Contains(m.status, "pin a coordinate first") || m.noteIn.active {
		t.Fatalf("a without a pin: %q", m.status)
	}
	drain(m, press(m, "p"))
	drain(m, press(m, "a", "l", "r", " ", "w", "a", "r", "m", "u", "p", "enter"))
	if m.Note() != "lr warmup" || !strings.Contains(screenText(m), "· lr warmup") {
		t.Fatalf("note %q; header:\n%s", m.Note(), screenText(m))
	}
	again := started(t, st)
	if again.Note() != "lr warmup" || !strings.Contains(screenText(again), "· lr warmup") {
		t.Fatalf("after a restart the note is %q (pin %q)", again.Note(), again.data.Pin)
	}
	press(again, "j")
	drain(again, press(again, "p"))
	if again.data.Pin.Equal(m.data.Pin) || again.Note() != "" {
		t.Fatalf("another pin %q kept the note %q", again.data.Pin, again.Note())
	}
}

// On Phase 2, y copies the candidate under the cursor: the one p pins.
func TestCopyOnPhase2IsWhatPPins(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	press(m, "2", "j")
	text, _ := m.p2().copyText()
	if a := m.p2().candidate(); a == nil || text != a.Coord().String() || !strings.Contains(text, "step=14") {
		t.Fatalf("copied %q, the cursor is on %+v", text, m.p2().candidate())
	}
}

// A note too long for the header beside the pin is shown in the footer
// while the footer has nothing else to say.
func TestLongNoteInFooter(t *testing.T) {
	m := loaded(t, fixtureBackend(), fixture(), 80, 24, true)
	drain(m, press(m, "p"))
	long := strings.Repeat("word ", 12) + "end"
	press(m, "a")
	for _, r := range long {
		press(m, string(r))
	}
	press(m, "enter", "j")
	lines := strings.Split(screenText(m), "\n")
	if strings.Contains(lines[0], "word") || !strings.Contains(lines[len(lines)-2], "note on the pin: word") {
		t.Fatalf("header %q, footer %q", lines[0], lines[len(lines)-2])
	}
}
