package main

import (
	"os/exec"
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
