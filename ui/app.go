// Package ui is spikescope's terminal UI: one root model that routes
// messages to one pane per screen. Every slow thing (loading, analysis,
// pinning, writing the report) runs in a tea.Cmd and comes back as a typed
// message tagged with its request id; Update never blocks.
package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// screen names what the body shows: the root keeps one pane a screen
// (Model.panes) and routes keys, sizes, help, marks and copy to the active
// one through the pane contract (pane.go).
type screen int

const (
	screenLoading screen = iota
	screenError
	screenPhase1
	screenSeries
	screenPhase2
	screenPhase3
	screenDrill
	screenChain
	screenChooser
	screenPlan
	screenVerdict
	screenGradNorm
	numScreens // the number of screens, not one
)

// Layout: three header lines (title + pin, tabs + breadcrumb, the verdict) and two
// footer lines (status, short help).
const (
	headerLines = 3 // + the verdict line
	footerLines = 2
	// minWidth/minHeight: below this the screen asks for a bigger terminal.
	minWidth, minHeight = 40, 10
)

// Options configure the UI.
type Options struct {
	Backend Backend
	Inputs  []Input // shown while loading; the report never goes into their folders
	NoColor bool
	// ReportDir is where `r` writes reports ("" = DefaultReportDir()).
	ReportDir string
	// Suspend stops the program as a shell job (ctrl+z); nil: the key does
	// nothing. It runs in a command, and returns once the job continues.
	Suspend func()
	Title   string // header title, e.g. "demo run" or the input path
	// Mouse turns on mouse reporting (the wheel scrolls). Off, the mouse
	// stays the terminal's (text selection works) and the terminal's
	// alternate scroll mode turns the wheel into arrow keys.
	Mouse bool
	// State keeps the pin of these inputs across restarts (nil: not kept).
	State *PinStore
	// Follow starts follow mode after loading (follow.go), polling every
	// FollowInterval (0: DefaultFollowInterval); Bell rings the terminal
	// bell when the root-cause coordinate changes.
	Follow         bool
	FollowInterval time.Duration
	Bell           bool
}

// Model is the root Bubble Tea model.
type Model struct {
	opt         Options
	st          Styles
	keys        keyMap
	help        help.Model
	w, h        int
	ctx         context.Context
	cancel      context.CancelFunc
	screen      screen
	stack       []screen // screens to go back to
	showHlp     bool
	written     string // the file a report or plan was just written to, shown whole
	writtenWhat string // "report" or "plan"
	helpFilter  string // typed after / while the help is open
	helpTyping  bool   // / was pressed: letters go to the help's filter
	helpOff     int    // the help overlay's scroll (help.go)
	status      string
	pending     string // what an async request is doing ("pinning …")

	nextID   int
	loadID   int
	updateID int // the pin/control request whose reply is awaited
	reportID int
	planID   int
	// reportAsk is set after `r`: the next key picks the format (m, h).
	reportAsk bool
	// interrupted: the user quit with ctrl+c (exit 130)
	interrupted bool
	data        *Data
	loadErr     error
	feed        *progressFeed
	panicText   string
	quitting    bool

	// panes is the pane of each screen (pane.go), nil where it has none
	// yet; screen says which one is active
	panes [numScreens]pane

	keep      restore     // the saved pin (pinrestore.go)
	typeahead typeahead   // keys typed while loading (typeahead.go)
	noteIn    lineInput   // the note being typed (`a`)
	follow    followState // follow mode (follow.go)
}

// New returns the root model; Init starts loading.
func New(opt Options) *Model {
	st := NewStyles(opt.NoColor)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{opt: opt, st: st, keys: newKeyMap(), help: newHelp(st), w: 80, h: 24,
		ctx: ctx, cancel: cancel, screen: screenLoading, keep: restore{gate: &saveGate{}}}
	m.panes[screenLoading] = newLoadingPane(m.common(), opt.Inputs)
	m.keep.read = opt.State == nil // nothing to read: the pin starts empty
	m.layout()
	return m
}

// NewWithData returns a model showing d without loading (d comes from
// Backend.Load run elsewhere; used by tests of real runs).
func NewWithData(opt Options, d *Data) *Model {
	m := New(opt)
	d.index()
	m.setData(d, true)
	m.screen = screenPhase1
	m.layout()
	return m
}

// LoadErr is the load error, if loading failed (the caller maps it to an
// exit code).
func (m *Model) LoadErr() error { return m.loadErr }

// PanicText is the recovered panic, "" when none.
func (m *Model) PanicText() string { return m.panicText }

// Interrupted reports whether the user quit with ctrl+c.
func (m *Model) Interrupted() bool { return m.interrupted }

// Init starts loading and progress forwarding.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{m.startLoad(), m.readState()}
	if !m.opt.Mouse {
		cmds = append(cmds, tea.Raw(altScrollOn))
	}
	return tea.Batch(cmds...)
}

// DECSET 1007, alternate scroll: on the alternate screen the terminal sends
// the wheel as arrow keys (xterm, VTE, iTerm2, kitty, WezTerm), so the wheel
// scrolls without mouse reporting. Run resets it on exit.
const altScrollOn, altScrollOff = "\x1b[?1007h", "\x1b[?1007l"

func (m *Model) newID() int { m.nextID++; return m.nextID }

// safe turns a panic inside a command into a panicMsg, so the program
// quits cleanly and the terminal is restored.
func safe(c tea.Cmd) tea.Cmd {
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = panicMsg{text: fmt.Sprint(r)}
			}
		}()
		return c()
	}
}

// startLoad runs Backend.Load off the loop; progress arrives through a
// feed read by a re-armed command (glow's pattern): the feed keeps the
// latest report per input, so a slow UI skips reports but never the last.
func (m *Model) startLoad() tea.Cmd {
	id := m.newID()
	m.loadID = id
	feed := newProgressFeed()
	m.feed = feed
	read, ctx := m.loader(), m.ctx // follow.go: through the follower with --follow
	load := func() tea.Msg {
		defer feed.finish()
		d, version, err := read(ctx, feed.report)
		if err == nil && d != nil {
			d.index()
		}
		if version > 0 {
			return followLoadedMsg{loadedMsg{id: id, data: d, err: err}, version}
		}
		return loadedMsg{id: id, data: d, err: err}
	}
	return tea.Batch(safe(load), feed.wait(id))
}

// progressFeed hands progress from the loader goroutines to the UI.
type progressFeed struct {
	mu     sync.Mutex
	latest map[string]model.Progress
	order  []string
	notify chan struct{} // one pending wake-up at most
	done   chan struct{}
	ended  bool
}

func newProgressFeed() *progressFeed {
	return &progressFeed{latest: map[string]model.Progress{}, notify: make(chan struct{}, 1), done: make(chan struct{})}
}

// report is the model.ProgressFunc: cheap, safe from any goroutine.
func (f *progressFeed) report(p model.Progress) {
	f.mu.Lock()
	if f.ended {
		f.mu.Unlock()
		return
	}
	if _, ok := f.latest[p.Input]; !ok {
		f.order = append(f.order, p.Input)
	}
	f.latest[p.Input] = p
	f.mu.Unlock()
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

func (f *progressFeed) finish() {
	f.mu.Lock()
	if !f.ended {
		f.ended = true
		close(f.done)
	}
	f.mu.Unlock()
}

func (f *progressFeed) snapshot() []model.Progress {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]model.Progress, 0, len(f.order))
	for _, in := range f.order {
		out = append(out, f.latest[in])
	}
	return out
}

// wait returns the command that delivers the next progress snapshot.
func (f *progressFeed) wait(id int) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-f.notify:
			return progressMsg{id: id, ps: f.snapshot()}
		case <-f.done:
			return progressDoneMsg{id: id}
		}
	}
}

// Update routes one message. It recovers from a panic in any pane: the
// program then quits and runTUI prints the panic as one line.
func (m *Model) Update(msg tea.Msg) (_ tea.Model, cmd tea.Cmd) {
	defer func() {
		if r := recover(); r != nil {
			m.panicText = fmt.Sprint(r)
			m.cancel()
			cmd = tea.Quit
		}
	}()
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.w, m.h = msg.Width, msg.Height
		m.layout()
		return m, nil
	case panicMsg:
		m.panicText = msg.text
		m.cancel()
		return m, tea.Quit
	case progressMsg:
		if msg.id != m.loadID {
			return m, nil
		}
		m.panes[screenLoading].Update(msg)
		return m, m.feed.wait(msg.id) // re-arm: one snapshot per message
	case progressDoneMsg:
		return m, nil
	case followTickMsg, followedMsg:
		return m, m.followMsg(msg)
	case followLoadedMsg:
		m.followLoaded(msg)
		return m.Update(msg.loadedMsg)
	case loadedMsg:
		if msg.id != m.loadID || m.quitting {
			return m, nil // cancelled: the program is quitting
		}
		if msg.err != nil {
			m.loadErr = msg.err
			m.panes[screenError] = newErrorPane(m.common(), msg.err)
			m.screen = screenError
			m.layout()
			m.dropTypeahead()
			return m, nil
		}
		m.setData(msg.data, true)
		m.screen, m.stack = screenPhase1, nil
		m.layout()
		restore := m.restorePin()
		return m, tea.Batch(restore, m.replay(), m.followOnLoad())
	case stateMsg:
		m.keep.read, m.keep.saved = true, msg.s
		if msg.warn != "" {
			m.status = msg.warn
		}
		return m, m.restorePin()
	case stateSavedMsg:
		if msg.err != nil {
			m.status = oneLine(msg.err.Error())
		}
		return m, nil
	case updatedMsg:
		if msg.id != m.updateID {
			return m, nil // superseded by a newer pin/control request
		}
		m.pending = ""
		if msg.err != nil {
			m.status = msg.what + " failed: " + oneLine(msg.err.Error())
			return m, nil
		}
		m.setData(msg.data, false)
		m.status = msg.what + " done"
		if msg.id == m.keep.id {
			m.status = m.restoredText()
		}
		if m.active() == nil { // a detail screen of the old data: setData dropped it
			m.screen, m.stack = screenPhase3, nil
		}
		m.layout()
		return m, m.savePin(m.data.Pin)
	case planMsg:
		if msg.id != m.planID {
			return m, nil
		}
		m.pending = ""
		if msg.err != nil {
			m.status = "plan failed: " + oneLine(msg.err.Error())
		} else {
			m.showWritten("plan", msg.path)
		}
		return m, nil
	case reportMsg:
		if msg.id != m.reportID {
			return m, nil
		}
		m.pending = ""
		if msg.err != nil {
			m.status = "report failed: " + oneLine(msg.err.Error())
		} else {
			m.showWritten("report", msg.path)
		}
		return m, nil
	case tea.KeyPressMsg:
		_, cmd := m.key(msg)
		return m, cmd
	case tea.MouseWheelMsg:
		return m, m.wheel(msg)
	}
	// a pane's own reply (the drill pane's operators): the pane that asked
	// takes it, the others ignore it
	for _, p := range m.live() {
		p.Update(msg)
	}
	return m, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// setData installs a (new) session result and rebuilds the panes that
// show it; the Phase 1 pane keeps its cursor, filter and sort when the
// candidates did not change (a pin does not change Phase 1), the series
// is redrawn for its candidate, and the other detail screens, built on the
// old data, are dropped.
func (m *Model) setData(d *Data, fresh bool) {
	if d == nil {
		d = &Data{}
	}
	old := m.data
	if old != nil && d.series == nil && d.Monitor == old.Monitor && d.P1 == old.P1 {
		d.series, d.baseSeries = old.series, old.baseSeries
	}
	d.index() // normally done by the load command; a no-op then
	m.data = d
	c, was := m.common(), m.panes
	m.panes = [numScreens]pane{screenLoading: was[screenLoading], screenError: was[screenError],
		screenPhase1: was[screenPhase1], screenPhase2: newPhase2Pane(c), screenPhase3: newPhase3Pane(c)}
	if p1, ok := was[screenPhase1].(*phase1Pane); ok && !fresh && old != nil && old.P1 == d.P1 {
		p1.data = d
	} else {
		m.panes[screenPhase1] = newPhase1Pane(c)
	}
	if s := was[screenSeries]; s != nil {
		m.panes[screenSeries] = newSeriesPane(c, s.candidate())
	}
}

// common is the context a new pane starts from.
func (m *Model) common() common {
	return common{st: m.st, keys: m.keys, data: m.data, width: m.w, height: m.bodyHeight()}
}

// active is the pane on screen, nil when it has none.
func (m *Model) active() pane { return m.panes[m.screen] }

// live lists the panes that exist, in screen order.
func (m *Model) live() []pane {
	var out []pane
	for _, p := range m.panes {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// open pushes detail pane p as screen s (a pane's reply.open, or the
// root's own screens: the verdict, the plan).
func (m *Model) open(s screen, p pane) {
	if p == nil {
		return
	}
	m.panes[s] = p
	m.push(s)
}

// apply does what a pane's reply asks of the root.
func (m *Model) apply(r reply) tea.Cmd {
	if r.quit {
		return m.quit()
	}
	if r.open != nil {
		m.open(r.at, r.open)
	}
	if r.request != nil {
		return m.startUpdate(r.request.what, r.request.run)
	}
	return r.cmd
}

// layout gives every pane its size after a resize.
func (m *Model) layout() {
	m.help.SetWidth(m.w)
	for _, p := range m.live() {
		p.SetSize(m.w, m.bodyHeight())
	}
}

func (m *Model) bodyHeight() int {
	h := m.h - headerLines - m.footerRoom()
	if h < 1 {
		h = 1
	}
	return h
}

// push opens a detail screen on top of the current one.
func (m *Model) push(s screen) {
	m.stack = append(m.stack, m.screen)
	m.screen = s
	m.layout()
}

// back returns to the previous screen; false at a top screen.
func (m *Model) back() bool {
	if len(m.stack) == 0 {
		return false
	}
	m.screen = m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	return true
}

// goTop switches to a phase screen, clearing the detail stack.
func (m *Model) goTop(s screen) {
	m.screen, m.stack = s, nil
	m.layout()
}

// waiting: the loading or the error screen, before the data; the root's
// keys wait for it.
func (m *Model) waiting() bool { return m.screen == screenLoading || m.screen == screenError }

// plans: w, the next-collection plan, works on Phase 2 and 3 (it says
// what their results lack).
func (m *Model) plans() bool { return m.screen == screenPhase2 || m.screen == screenPhase3 }

// quit cancels everything in flight and quits.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cancel()
	return tea.Quit
}

// key handles a key press: modal states first (help, text input, loading,
// error), then the root's keys, then the active pane's, then back. handled
// says whether any of them used the key (the help lists exactly those).
func (m *Model) key(msg tea.KeyPressMsg) (handled bool, _ tea.Cmd) {
	k := m.keys
	switch {
	case msg.String() == "ctrl+c": // exits 130 like SIGINT, also while loading
		m.interrupted = true
		return true, m.quit()
	case key.Matches(msg, k.Suspend): // job control: give the terminal back and stop
		if f := m.opt.Suspend; f != nil {
			return true, func() tea.Msg { f(); return nil }
		}
		return true, nil
	}
	if m.noteIn.active {
		return true, m.noteTyping(msg)
	}
	if m.reportAsk {
		m.reportAsk = false
		switch msg.String() {
		case "m":
			return true, m.writeReport(".md")
		case "h":
			return true, m.writeReport(".html")
		}
		m.status = "no report written"
		return true, nil
	}
	if m.showHlp {
		m.helpKey(msg)
		return true, nil
	}
	p := m.active()
	if p == nil {
		return false, nil
	}
	if p.capturing() {
		r := p.Update(msg)
		m.status = r.status
		return true, m.apply(r)
	}
	if m.screen == screenLoading && !key.Matches(msg, k.Quit) {
		return m.keepKey(msg), nil
	}
	if m.waiting() {
		r := p.Update(msg)
		return r.handled, m.apply(r)
	}
	m.status = ""
	if m.written != "" { // the written path stays until the next key; y copies it
		path := m.written
		m.written, m.writtenWhat = "", ""
		m.layout()
		if key.Matches(msg, k.Copy) {
			m.status = "copied the path " + escapeControl(path)
			return true, tea.SetClipboard(path)
		}
	}
	switch {
	case key.Matches(msg, k.Quit):
		return true, m.quit()
	case key.Matches(msg, k.Help):
		m.showHlp = true
		return true, nil
	case key.Matches(msg, k.Phase1):
		m.goTop(screenPhase1)
		return true, nil
	case key.Matches(msg, k.Phase2):
		m.goTop(screenPhase2)
		return true, nil
	case key.Matches(msg, k.Phase3):
		m.goTop(screenPhase3)
		// C is worth choosing only when B is there: without B Phase 3
		// cannot run whatever C is, and the screen says what to collect
		if m.data.P3 == nil && m.data.A != nil && m.data.B != nil && len(m.data.Controls) > 0 {
			return true, m.apply(openChooser(m.common()))
		}
		return true, nil
	case key.Matches(msg, k.Pin):
		return true, m.pinSelected()
	case key.Matches(msg, k.Unpin):
		if m.data.Pin == nil {
			m.status = "nothing is pinned"
			return true, nil
		}
		return true, m.startUpdate("unpin", func(ctx context.Context, b Backend, d *Data) (*Data, error) { return b.Pin(ctx, d, nil) })
	case key.Matches(msg, k.Report):
		m.reportAsk = true
		m.status = "write the report as: m Markdown · h HTML (with plots) · any other key cancels"
		return true, nil
	case key.Matches(msg, k.Plan) && m.plans():
		return true, m.showPlan()
	case key.Matches(msg, k.Verdict) && m.screen != screenVerdict:
		m.open(screenVerdict, newVerdictPane(m.common())) // open lays it out
		return true, nil
	case key.Matches(msg, k.GradNorm) && m.screen != screenGradNorm:
		m.open(screenGradNorm, newGradNormPane(m.common())) // open lays it out
		return true, nil
	case key.Matches(msg, k.Note):
		m.noteKey()
		return true, nil
	case key.Matches(msg, k.Copy) && copies(p):
		return true, m.copySelected(p)
	case key.Matches(msg, k.Follow):
		return true, m.toggleFollow()
	}
	if r := p.Update(msg); r.handled {
		m.status = r.status
		return true, m.apply(r)
	}
	if key.Matches(msg, k.Back) {
		if !m.back() {
			m.status = "at the top screen (q quits)"
		}
		m.layout()
		return true, nil
	}
	return false, nil
}

// wheelLines is how many rows one notch of the mouse wheel scrolls.
const wheelLines = 3

// wheel scrolls the active list like the arrow keys (the mouse is opt-in,
// Options.Mouse; without it the terminal's alternate scroll mode sends the
// arrow keys itself).
func (m *Model) wheel(msg tea.MouseWheelMsg) tea.Cmd {
	code := tea.KeyDown
	switch msg.Button {
	case tea.MouseWheelUp:
		code = tea.KeyUp
	case tea.MouseWheelDown:
	default:
		return nil
	}
	if m.screen == screenLoading { // nothing to scroll yet, and not a key to keep
		return nil
	}
	var cmds []tea.Cmd
	for range wheelLines {
		_, c := m.key(tea.KeyPressMsg{Code: code})
		cmds = append(cmds, c)
	}
	return tea.Batch(cmds...)
}

// copies says whether y is a key of pane p: it has something to copy.
func copies(p pane) bool { _, what := p.copyText(); return what != "" }

// helpKey scrolls the help overlay (arrows and the list keys j/k, g/G,
// ctrl+d/u), edits its filter after / or closes it.
func (m *Model) helpKey(msg tea.KeyPressMsg) {
	if m.helpScroll(msg) {
		return
	}
	switch msg.String() {
	case "?":
		m.showHlp, m.helpFilter, m.helpTyping = false, "", false
		return
	case "esc":
		if m.helpFilter != "" || m.helpTyping {
			m.helpFilter, m.helpTyping = "", false
		} else {
			m.showHlp = false
		}
		return
	case "enter":
		m.helpTyping = false // the filter stays; the list keys scroll again
		return
	case "backspace":
		if r := []rune(m.helpFilter); len(r) > 0 {
			m.helpFilter = string(r[:len(r)-1])
		} else if !m.helpTyping {
			m.showHlp = false
		}
		return
	}
	if !m.helpTyping {
		switch msg.String() {
		case "/":
			m.helpTyping, m.helpOff = true, 0
		case "q":
			m.showHlp = false
		}
		return
	}
	if t := msg.Text; t != "" && !strings.ContainsAny(t, "\n\r\t") {
		m.helpFilter += t
	}
}

// pinSelected pins the candidate under the cursor (Phase 1 or its series).
func (m *Model) pinSelected() tea.Cmd {
	var a *model.Anomaly
	if p := m.active(); p != nil {
		a = p.candidate()
	}
	if a == nil {
		m.status = "select a candidate (Phase 1 or 2) to pin it"
		return nil
	}
	ac := *a
	return m.startUpdate("pin "+coordString(&ac), func(ctx context.Context, b Backend, d *Data) (*Data, error) {
		return b.Pin(ctx, d, &ac)
	})
}

// startUpdate runs a Pin/Control request off the loop; a newer request
// supersedes it (its reply is dropped).
func (m *Model) startUpdate(what string, f func(context.Context, Backend, *Data) (*Data, error)) tea.Cmd {
	id := m.newID()
	m.updateID = id
	m.pending = what + "…"
	b, ctx, d := m.opt.Backend, m.ctx, m.data
	return safe(func() tea.Msg {
		nd, err := f(ctx, b, d)
		return updatedMsg{id: id, what: what, data: nd, err: err}
	})
}

// writeReport writes the report off the loop, Markdown (ext ".md") or HTML
// (".html"): the path is chosen and the file written inside the command
// (see writeReportFile).
func (m *Model) writeReport(ext string) tea.Cmd {
	id := m.newID()
	m.reportID = id
	m.pending = "writing the report…"
	b, ctx, d := m.opt.Backend, m.ctx, m.data
	dir, title, inputs, now := m.opt.ReportDir, m.opt.Title, m.opt.Inputs, time.Now()
	return safe(func() tea.Msg {
		path, err := writeReportFile(ctx, b, d, dir, title, inputs, now, ext)
		return reportMsg{id: id, path: path, err: err}
	})
}
