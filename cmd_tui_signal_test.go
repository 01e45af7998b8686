//go:build linux

package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// The TUI under a real pseudo-terminal: this test binary is re-run as
// TestTUIProcess (the spikescope TUI on the demo run) with the pty's slave
// as its controlling terminal; signals go to that process and the test
// reads what it wrote and the tty mode it left.

// TestTUIProcess runs spikescope with the arguments in SPIKESCOPE_TEST_TUI
// (tab-separated); it is the child of the pty tests, not a test.
func TestTUIProcess(t *testing.T) {
	spec, ok := os.LookupEnv("SPIKESCOPE_TEST_TUI")
	if !ok {
		t.Skip("the TUI process of the pty tests")
	}
	var args []string
	switch spec {
	case "":
	case "@":
		// the arguments after "--" on the command line: a shell expands
		// them (process substitution, cmd_pipe_test.go)
		args = flag.Args()
	default:
		args = strings.Split(spec, "\t")
	}
	code := run(args, os.Stdout, os.Stderr)
	if f := os.Getenv("SPIKESCOPE_TEST_HWM"); f != "" {
		// this process's own peak RSS (VmHWM is per address space; the
		// rusage of a child counts the parent's RSS at the fork)
		if b, err := os.ReadFile("/proc/self/status"); err == nil {
			_ = os.WriteFile(f, b, 0o600)
		}
	}
	os.Exit(code)
}

// TestTUIShellProcess plays the shell of the pty tests (not a test): the
// session leader that runs TestTUIProcess as a foreground job in its own
// process group, as a job-control shell does — without one, the job's
// group is orphaned and the kernel discards SIGTSTP. It reports on fd 3
// "pid N", then "stopped" for each stop and "exit N" at the end.
func TestTUIShellProcess(t *testing.T) {
	if _, ok := os.LookupEnv("SPIKESCOPE_TEST_SHELL"); !ok {
		t.Skip("the shell process of the pty tests")
	}
	report := os.NewFile(3, "report")
	cmd := exec.Command(os.Args[0], "-test.run=^TestTUIProcess$")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Foreground: true, Ctty: 0}
	// caught, not ignored: an ignored signal stays ignored in the job
	signal.Notify(make(chan os.Signal, 8), syscall.SIGTTOU, syscall.SIGTTIN, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(report, "error", err)
		os.Exit(1)
	}
	fmt.Fprintln(report, "pid", cmd.Process.Pid)
	for {
		var ws syscall.WaitStatus
		if _, err := syscall.Wait4(cmd.Process.Pid, &ws, syscall.WUNTRACED, nil); err != nil {
			fmt.Fprintln(report, "error", err)
			os.Exit(1)
		}
		switch {
		case ws.Stopped():
			fmt.Fprintln(report, "stopped", int(ws.StopSignal()))
		case ws.Signaled():
			fmt.Fprintln(report, "killed", int(ws.Signal()))
			os.Exit(0)
		default:
			fmt.Fprintln(report, "exit", ws.ExitStatus())
			os.Exit(0)
		}
	}
}

// openPTY opens a pseudo-terminal pair of size 120×40.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skip("no /dev/ptmx:", err)
	}
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatal("unlockpt:", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, m.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatal("ptsname:", e)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ws := struct{ row, col, x, y uint16 }{40, 120, 0, 0}
	syscall.Syscall(syscall.SYS_IOCTL, s.Fd(), syscall.TIOCSWINSZ, uintptr(unsafe.Pointer(&ws)))
	return m, s
}

// ttyCanonical reports whether the tty is in canonical (cooked) mode with
// echo: the state a shell expects back.
func ttyCanonical(t *testing.T, f *os.File) bool {
	t.Helper()
	var tio syscall.Termios
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&tio))); e != 0 {
		t.Fatal("tcgets:", e)
	}
	return tio.Lflag&syscall.ICANON != 0 && tio.Lflag&syscall.ECHO != 0
}

// ptyTUI is one TUI process under a pty.
type ptyTUI struct {
	t      *testing.T
	cmd    *exec.Cmd // the shell
	pid    int       // the TUI
	events chan string
	master *os.File
	slave  *os.File
	mu     sync.Mutex
	out    bytes.Buffer
}

func startPTYTUI(t *testing.T, args ...string) *ptyTUI {
	t.Helper()
	m, s := openPTY(t)
	rd, wr, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTUIShellProcess$")
	cmd.Env = append(os.Environ(), "SPIKESCOPE_TEST_SHELL=1", "SPIKESCOPE_TEST_TUI="+strings.Join(args, "\t"), "TERM=xterm-256color", "NO_COLOR=1")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s, s, s
	cmd.ExtraFiles = []*os.File{wr}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	wr.Close()
	p := &ptyTUI{t: t, cmd: cmd, master: m, slave: s, events: make(chan string, 16)}
	go func() {
		sc := bufio.NewScanner(rd)
		for sc.Scan() {
			p.events <- sc.Text()
		}
		close(p.events)
	}()
	select {
	case ev := <-p.events:
		if _, err := fmt.Sscanf(ev, "pid %d", &p.pid); err != nil {
			t.Fatalf("shell: %q", ev)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("shell did not start the TUI")
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := m.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		syscall.Kill(p.pid, syscall.SIGKILL)
		cmd.Process.Kill()
		cmd.Wait()
		m.Close()
		s.Close()
	})
	return p
}

// output is everything written so far.
func (p *ptyTUI) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitFor waits until the output after offset from contains s; it returns
// the offset just past it.
func (p *ptyTUI) waitFor(from int, s string) int {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		out := p.output()
		if from <= len(out) {
			if i := strings.Index(out[from:], s); i >= 0 {
				return from + i + len(s)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.t.Fatalf("no %q after byte %d in %q", s, from, tail(p.output(), 400))
	return 0
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// wait waits for the TUI to exit or stop: its exit code, or the signal
// that stopped it (stopped true).
func (p *ptyTUI) wait() (code int, stopped bool) {
	p.t.Helper()
	select {
	case ev := <-p.events:
		var n int
		switch {
		case sscan(ev, "exit %d", &n):
			return n, false
		case sscan(ev, "stopped %d", &n):
			return n, true
		}
		p.t.Fatalf("TUI: %q", ev)
	case <-time.After(20 * time.Second):
		p.t.Fatalf("did not exit or stop; output %q", tail(p.output(), 400))
	}
	return 0, false
}

// signal sends sig to the TUI.
func (p *ptyTUI) signal(sig syscall.Signal) {
	p.t.Helper()
	if err := syscall.Kill(p.pid, sig); err != nil {
		p.t.Fatal(err)
	}
}

func sscan(s, format string, n *int) bool {
	_, err := fmt.Sscanf(s, format, n)
	return err == nil
}

const (
	altScreenOn  = "\x1b[?1049h"
	altScreenOff = "\x1b[?1049l"
	cursorOn     = "\x1b[?25h"
)

// Item 5: SIGHUP (an SSH disconnect), SIGTERM and SIGINT restore the
// terminal — alternate screen off, cursor shown, tty back in canonical
// mode with echo — and exit 128+signal.
func TestTUISignalsRestoreTerminal(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGHUP, 129}, {syscall.SIGTERM, 143}, {syscall.SIGINT, 130}} {
		t.Run(c.sig.String(), func(t *testing.T) {
			p := startPTYTUI(t)
			at := p.waitFor(0, altScreenOn)
			at = p.waitFor(at, "Phase 1")
			if ttyCanonical(t, p.slave) {
				t.Fatal("the TUI did not put the tty in raw mode")
			}
			p.signal(c.sig)
			code, _ := p.wait()
			time.Sleep(100 * time.Millisecond) // the reader drains the master
			rest := p.output()[at:]
			if code != c.code {
				t.Errorf("exit %d, want %d", code, c.code)
			}
			if !strings.Contains(rest, altScreenOff) || !strings.Contains(rest, cursorOn) {
				t.Errorf("after %v: alternate screen off %v, cursor on %v; tail %q", c.sig, strings.Contains(rest, altScreenOff), strings.Contains(rest, cursorOn), tail(rest, 200))
			}
			if !ttyCanonical(t, p.slave) {
				t.Errorf("after %v the tty is left in raw mode", c.sig)
			}
		})
	}
}

// Item 5: SIGTSTP gives the terminal back and stops; SIGCONT takes it again
// (alternate screen, raw mode), and the UI still answers keys.
func TestTUISuspendAndResume(t *testing.T) {
	p := startPTYTUI(t)
	at := p.waitFor(0, altScreenOn)
	at = p.waitFor(at, "Phase 1")
	p.signal(syscall.SIGTSTP)
	sig, stopped := p.wait()
	if !stopped {
		t.Fatalf("not stopped by SIGTSTP: %v", sig)
	}
	at = p.waitFor(at, altScreenOff)
	if !ttyCanonical(t, p.slave) {
		t.Error("stopped with the tty in raw mode")
	}
	p.signal(syscall.SIGCONT)
	at = p.waitFor(at, altScreenOn)
	deadline := time.Now().Add(10 * time.Second)
	for ttyCanonical(t, p.slave) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if ttyCanonical(t, p.slave) {
		t.Error("resumed without raw mode")
	}
	// ctrl+z in the UI is the same job-control stop
	time.Sleep(200 * time.Millisecond)
	p.master.Write([]byte{0x1a})
	if _, stopped := p.wait(); !stopped {
		t.Fatal("ctrl+z did not stop")
	}
	at = p.waitFor(at, altScreenOff)
	if !ttyCanonical(t, p.slave) {
		t.Error("stopped by ctrl+z with the tty in raw mode")
	}
	p.signal(syscall.SIGCONT)
	p.waitFor(at, altScreenOn)
	time.Sleep(200 * time.Millisecond)
	p.master.Write([]byte("q"))
	if code, _ := p.wait(); code != 0 {
		t.Errorf("q after resume: exit %d", code)
	}
	if !ttyCanonical(t, p.slave) {
		t.Error("tty left raw after q")
	}
}

// Item 5: ctrl+c exits 130 — also on the loading screen, where a slow
// load is cancelled (a FIFO-free slow input: a large trend.db).
func TestTUICtrlCExits130(t *testing.T) {
	p := startPTYTUI(t)
	at := p.waitFor(0, altScreenOn)
	p.waitFor(at, "Phase 1")
	p.master.Write([]byte{0x03})
	if code, _ := p.wait(); code != 130 {
		t.Errorf("ctrl+c: exit %d, want 130", code)
	}
	if !ttyCanonical(t, p.slave) {
		t.Error("tty left raw after ctrl+c")
	}
}
