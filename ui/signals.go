package ui

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"
)

// tuiSignalGrace is how long the UI may take to quit on a signal before
// the program is killed (which restores the terminal too).
const tuiSignalGrace = 3 * time.Second

// tuiSignals is the TUI's own signal handling (Bubble Tea's is turned off:
// it ends SIGTERM with exit 0 and knows neither SIGHUP nor SIGTSTP).
//
//   - SIGHUP (an SSH disconnect), SIGTERM, SIGINT: quit, which restores the
//     terminal (alternate screen off, cursor on, tty mode back), and exit
//     128+signal; a UI that does not quit within tuiSignalGrace is killed,
//     which restores the terminal as well.
//   - SIGTSTP (kill -TSTP, ctrl+z in the UI): give the terminal back (cooked
//     mode, main screen, cursor on), stop, and take it again on SIGCONT.
//     The stop is SIGSTOP: once a Go program has caught SIGTSTP, the runtime
//     never gives it back its default action.
type tuiSignals struct {
	ch   chan os.Signal
	cont chan os.Signal // SIGCONT, read by suspend
	done chan struct{}
	mu   sync.Mutex
	sig  syscall.Signal // the signal that ended the UI, or 0
}

// watchTUISignals starts handling the signals for p; stop ends it.
func watchTUISignals(p *tea.Program) *tuiSignals {
	s := &tuiSignals{ch: make(chan os.Signal, 4), cont: make(chan os.Signal, 1), done: make(chan struct{})}
	signal.Notify(s.ch, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGINT, syscall.SIGTSTP)
	signal.Notify(s.cont, syscall.SIGCONT)
	go s.loop(p)
	return s
}

func (s *tuiSignals) loop(p *tea.Program) {
	for {
		select {
		case <-s.done:
			return
		case v := <-s.ch:
			sig, _ := v.(syscall.Signal)
			switch sig {
			case syscall.SIGTSTP:
				s.suspend(p)
			default:
				s.mu.Lock()
				first := s.sig == 0
				if first {
					s.sig = sig
				}
				s.mu.Unlock()
				if first {
					go p.Send(tea.Quit())
					time.AfterFunc(tuiSignalGrace, p.Kill)
				}
			}
		}
	}
}

// suspend releases the terminal, stops the process group (as the shell's
// job) and, once continued, takes the terminal again and repaints.
func (s *tuiSignals) suspend(p *tea.Program) {
	if err := p.ReleaseTerminal(); err != nil {
		return
	}
	for len(s.cont) > 0 { // a SIGCONT from before this stop
		<-s.cont
	}
	_ = syscall.Kill(0, syscall.SIGSTOP)
	// here after SIGCONT, which may still be on its way to s.cont
	select {
	case <-s.cont:
	case <-time.After(time.Second):
	}
	_ = p.RestoreTerminal()
	go p.Send(tea.ClearScreen())
}

// suspendSelf is ctrl+z in the UI: the same as kill -TSTP (Run sets it as
// Options.Suspend).
func suspendSelf() { _ = syscall.Kill(os.Getpid(), syscall.SIGTSTP) }

// stop ends the handling and returns the signal that ended the UI (0:
// none).
func (s *tuiSignals) stop() syscall.Signal {
	signal.Stop(s.ch)
	signal.Stop(s.cont)
	close(s.done)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sig
}
