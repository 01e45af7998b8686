package ui

import (
	"os/exec"
	"strings"
	"testing"
)

// The command printed on exit reopens the pin: the user's words without
// their --pin, then the pin, quoted so a shell gives back each word as is.
func TestReuseCommandQuotesAndReplacesPin(t *testing.T) {
	args := []string{"/data/run 7/trend.db", "--pin", "opt=1,rank=0", "--step=3", "-pin=opt=2", "--baseline", "it's"}
	got := reuseCommand(args, "opt=5,ms=2,rank=3,param=a b")
	out, err := exec.Command("sh", "-c", `for w in `+got+`; do printf '%s\n' "$w"; done`).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "spikescope\n/data/run 7/trend.db\n--step=3\n--baseline\nit's\n--pin\nopt=5,ms=2,rank=3,param=a b\n"
	if string(out) != want {
		t.Fatalf("%s\nsplits into\n%s\nwant\n%s", got, out, want)
	}
}

// With no state folder (neither XDG_STATE_HOME nor HOME) the exit line does
// not claim the pin is kept; it still gives the command.
func TestPinExitTextSaysWhetherKept(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "")
	if d := DefaultStateDir(); d != "" {
		t.Fatalf("no XDG_STATE_HOME and no HOME, yet a state folder: %q", d)
	}
	got := pinExitText([]string{"run"}, "opt=3,rank=0", "no folder to keep it in")
	if strings.Contains(got, "is kept") || !strings.Contains(got, "not kept (no folder to keep it in)") || !strings.Contains(got, "spikescope run --pin opt=3,rank=0") {
		t.Errorf("exit text without a state folder:\n%s", got)
	}
	if got := pinExitText([]string{"run"}, "opt=3,rank=0", ""); !strings.Contains(got, "is kept") {
		t.Errorf("exit text with a state folder:\n%s", got)
	}
}
