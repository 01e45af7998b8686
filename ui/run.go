package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"

	"spikescope/model"
	"spikescope/outfile"
)

// Ending is how a terminal session of the UI ended; the command maps it to
// an exit code.
type Ending struct {
	// Signal is the SIGHUP, SIGTERM or SIGINT that ended the UI (the
	// terminal is restored), 0 when none did.
	Signal      syscall.Signal
	Interrupted bool         // ctrl+c
	Killed      bool         // killed: the UI did not quit within the signal grace
	Panic       string       // an internal error, "" when none
	Err         error        // the program's error, else the load's (not a cancel)
	Pin         *model.Coord // the coordinate pinned at the end, nil when none
	// PinNotKept says why the pin could not be saved for the next start
	// ("" when it was, or when there is no pin or no state folder).
	PinNotKept string
}

// SignalCode is the exit code of an ending by a signal (128 + the signal;
// the terminal is restored), ctrl+c (130) or a kill (143); ok is false for
// any other ending.
func (e Ending) SignalCode() (code int, ok bool) {
	switch {
	case e.Signal != 0:
		return 128 + int(e.Signal), true
	case e.Interrupted:
		return 130, true
	case e.Killed:
		return 143, true
	}
	return 0, false
}

// IsTerminal reports whether w (or the writer an outfile.StdoutWriter
// wraps) is a terminal: else the command prints Summary instead of the UI.
func IsTerminal(w io.Writer) bool { return outfile.IsTerminal(w) }

// Run runs the UI on the terminal with its own signal handling (signals.go)
// and ctrl+z suspending the process. stdout is the terminal the program
// draws on: after a panic escaped the program, the terminal is restored
// there.
func Run(opt Options, stdout io.Writer) (e Ending) {
	opt.Suspend = suspendSelf
	m := New(opt)
	// Bubble Tea's own panic handler prints a stack trace; the model
	// recovers panics itself (Update, View, commands) and this recover is
	// the last resort: restore the terminal, report one line.
	p := tea.NewProgram(m, tea.WithoutCatchPanics(), tea.WithoutSignalHandler())
	state, _ := term.GetState(os.Stdin.Fd())
	defer func() {
		if r := recover(); r != nil {
			p.Kill()
			restoreTerminal(stdout, state)
			e = Ending{Panic: oneLine(fmt.Sprint(r))}
		}
	}()
	sigs := watchTUISignals(p)
	_, err := p.Run()
	e.Signal = sigs.stop()
	if !opt.Mouse {
		io.WriteString(stdout, altScrollOff)
	}
	e.Pin = m.pin()
	if err := saveOnExit(m); err != nil && e.Pin != nil {
		e.PinNotKept = oneLine(err.Error())
	}
	switch {
	case m.PanicText() != "":
		e.Panic = oneLine(m.PanicText())
	case e.Signal != 0:
	case m.Interrupted(), errors.Is(err, tea.ErrInterrupted):
		e.Interrupted = true
	case errors.Is(err, tea.ErrProgramKilled):
		e.Killed = true
	case err != nil:
		e.Err = err
	case m.LoadErr() != nil && !errors.Is(m.LoadErr(), context.Canceled):
		e.Err = m.LoadErr()
	}
	return e
}

// restoreTerminal leaves the alternate screen, shows the cursor and resets
// the tty mode after a panic escaped the program.
func restoreTerminal(w io.Writer, st *term.State) {
	io.WriteString(w, "\x1b[?1049l\x1b[?25h\x1b[0m"+altScrollOff+"\r\n")
	if st != nil {
		_ = term.Restore(os.Stdin.Fd(), st)
	}
}
