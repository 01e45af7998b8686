package main

import (
	"bytes"
	"strings"
	"testing"
)

// The TUI and `report` share their input flags; a mistake in one is named
// with the command it was made in.
func TestInputFlagErrorsNameTheCommand(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--step", "x"}, "spikescope: --step needs an integer"},
		{[]string{"report", "--step", "x", "a"}, "spikescope: report: --step needs an integer"},
		{[]string{"--rank", "-1"}, "spikescope: --rank needs an integer"},
		{[]string{"report", "--rank", "-1", "a"}, "spikescope: report: --rank needs an integer"},
		{[]string{"--format", "xml"}, `spikescope: unknown --format "xml"`},
		{[]string{"report", "--format", "xml", "a"}, `spikescope: report: unknown --format "xml"`},
		{[]string{"--pin", "bogus"}, "spikescope: --pin: "},
		{[]string{"report", "--pin", "bogus", "a"}, "spikescope: report: --pin: "},
		{[]string{"a", "b"}, "spikescope: one PATH at most (got 2); subcommands:"},
		{[]string{"report", "a", "b"}, "spikescope: report: one PATH at most (got 2)\n"},
	} {
		var out, errb bytes.Buffer
		code := run(c.args, &out, &errb)
		if code != 2 || !strings.HasPrefix(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q; want exit 2 and one line starting %q", c.args, code, errb.String(), c.want)
		}
	}
}
