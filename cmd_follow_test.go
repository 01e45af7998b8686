//go:build linux

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/model"
	"spikescope/pipeline"
)

// detect --follow as a process: JSON lines, each a complete line as soon
// as it is out; SIGTERM (and SIGINT) end it with a stop line and exit 0.
func TestDetectFollowProcessStopsOnSignal(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestTUIProcess$")
			cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_TUI="+strings.Join([]string{"detect", demoNPU + "/monitor_output", "--follow", "--interval", "100ms"}, "\t"))
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			var kinds []string
			signalled := false
			for sc.Scan() {
				var line struct {
					Event string `json:"event"`
					Polls *int   `json:"polls"`
				}
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("not a JSON line: %q", sc.Text())
				}
				kinds = append(kinds, line.Event)
				if line.Event == "root" && !signalled {
					time.Sleep(250 * time.Millisecond) // a poll or two
					cmd.Process.Signal(sig)
					signalled = true
				}
			}
			err = cmd.Wait()
			if err != nil {
				t.Fatalf("exit: %v (stderr %q), want 0", err, stderr.String())
			}
			if len(kinds) < 3 || kinds[0] != "start" || kinds[1] != "candidate" || kinds[len(kinds)-1] != "stop" {
				t.Fatalf("lines %v: want start, candidates, root, …, stop", kinds)
			}
		})
	}
}

func TestDetectFollowBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{demoNPU + "/dump", "--follow"}, "is a dump tree"},
		{[]string{demoNPU + "/trend.db", "--interval", "1s"}, "--interval works only with --follow"},
		{[]string{demoNPU + "/trend.db", "--follow", "--interval", "1ms"}, "--interval must be from 100ms to 1h (got 1ms)"},
		{[]string{demoNPU + "/trend.db", "--follow", "-o", t.TempDir() + "/x.json"}, "-o and --summary do not apply"},
		{[]string{t.TempDir() + "/none", "--follow"}, "none"},
		// the TUI's flags (stdout here is not a terminal)
		{[]string{"", demoNPU + "/trend.db", "--bell"}, "--bell works only with --follow"},
		{[]string{"", demoNPU + "/trend.db", "--follow"}, "spikescope detect PATH --follow prints JSON lines"},
	} {
		var out, errb bytes.Buffer
		args := append([]string{"detect"}, c.args...)
		if c.args[0] == "" {
			args = c.args[1:]
		}
		code := run(args, &out, &errb)
		lines := strings.Split(strings.TrimSpace(errb.String()), "\n")
		if code != 2 || len(lines) != 1 || !strings.Contains(lines[0], c.want) || out.Len() > 0 {
			t.Errorf("detect %v: exit %d, stderr %q, stdout %q; want exit 2 and one line with %q", c.args, code, errb.String(), out.String(), c.want)
		}
	}
}

// Interrupted before the first read is done, detect --follow still ends
// with a stop line (the one a reader of the lines waits for) and exit 0.
func TestDetectFollowInterruptedAtOnceEndsWithStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errb bytes.Buffer
	code := detectFollowCtx(ctx, demoNPU+"/trend.db", model.FormatAuto, pipeline.FollowOptions{Interval: time.Second}, &out, &errb)
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	var last struct {
		Event, Message string
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || code != 0 || last.Event != "stop" || errb.Len() > 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit 0 and a stop line last", code, out.String(), errb.String())
	}
}
