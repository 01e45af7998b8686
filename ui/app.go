// Package ui is spikescope's terminal UI: one root model that routes
// messages to one pane per screen. Every slow thing (loading, analysis,
// pinning, writing the report) runs in a tea.Cmd and comes back as a typed
// message tagged with its request id; Update never blocks.
package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// screen names what the body shows.
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
)

// Layout: two header lines (title + pin, tabs + breadcrumb) and two
// footer lines (status, short help).
const (
	headerLines = 2
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
}

// Model is the root Bubble Tea model.
type Model struct {
	opt        Options
	st         Styles
	keys       keyMap
	help       help.Model
	w, h       int
	ctx        context.Context
	cancel     context.CancelFunc
	screen     screen
	stack      []screen // screens to go back to
	showHlp    bool
	helpFilter string // typed while the help is open
	status     string
	pending    string // what an async request is doing ("pinning …")

	nextID   int
	loadID   int
	updateID int // the pin/control request whose reply is awaited
	reportID int
	// interrupted: the user quit with ctrl+c (exit 130)
	interrupted bool
	opsID       int // the drill pane's pending operator list
	data        *Data
	loadErr     error
	feed        *progressFeed
	panicText   string
	quitting    bool

	loading *loadingPane
	p1      *phase1Pane
	series  *seriesPane
	p2      *phase2Pane
	p3      *phase3Pane
	drill   *drillPane
	chain   *chainPane
	chooser *chooserPane
}

// New returns the root model; Init starts loading.
func New(opt Options) *Model {
	st := NewStyles(opt.NoColor)
	ctx, cancel := context.WithCancel(context.Background())
	m := &Model{opt: opt, st: st, keys: newKeyMap(), help: newHelp(st), w: 80, h: 24,
		ctx: ctx, cancel: cancel, screen: screenLoading}
	m.loading = newLoadingPane(st, opt.Inputs)
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
func (m *Model) Init() tea.Cmd { return m.startLoad() }

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
	b, ctx := m.opt.Backend, m.ctx
	load := func() tea.Msg {
		defer feed.finish()
		if b == nil {
			return loadedMsg{id: id, err: errors.New("no data source")}
		}
		d, err := b.Load(ctx, feed.report)
		if err == nil && d != nil {
			d.index()
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
		for _, p := range msg.ps {
			m.loading.add(p)
		}
		return m, m.feed.wait(msg.id) // re-arm: one snapshot per message
	case progressDoneMsg:
		return m, nil
	case loadedMsg:
		if msg.id != m.loadID || m.quitting {
			return m, nil // cancelled: the program is quitting
		}
		if msg.err != nil {
			m.loadErr = msg.err
			m.screen = screenError
			return m, nil
		}
		m.setData(msg.data, true)
		m.screen, m.stack = screenPhase1, nil
		m.layout()
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
		if m.screen == screenChooser {
			m.screen, m.stack = screenPhase3, nil
		}
		if m.screen == screenDrill || m.screen == screenChain {
			m.screen, m.stack = screenPhase3, nil
		}
		m.layout()
		return m, nil
	case opsMsg:
		if msg.id == m.opsID && m.drill != nil {
			m.drill.setOps(msg.ops)
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
			m.status = "report written to " + msg.path
		}
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// setData installs a (new) session result and rebuilds the panes that
// show it; the Phase 1 pane keeps its cursor, filter and sort when the
// candidates did not change (a pin does not change Phase 1).
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
	if fresh || m.p1 == nil || old == nil || old.P1 != d.P1 {
		m.p1 = newPhase1Pane(m.st, d)
	} else {
		m.p1.data = d
	}
	m.p2 = newPhase2Pane(m.st, d)
	m.p3 = newPhase3Pane(m.st, d)
	m.drill, m.chain = nil, nil
	if m.series != nil {
		m.series = newSeriesPane(m.st, d, m.series.a)
	}
}

// layout gives every pane its size after a resize.
func (m *Model) layout() {
	m.help.SetWidth(m.w)
	bw, bh := m.w, m.bodyHeight()
	m.loading.width = bw
	if m.p1 != nil {
		m.p1.setSize(bw, bh)
	}
	if m.series != nil {
		m.series.setSize(bw, bh)
	}
	if m.p2 != nil {
		m.p2.setSize(bw, bh)
	}
	if m.p3 != nil {
		m.p3.setSize(bw, bh)
	}
	if m.drill != nil {
		m.drill.setSize(bw, bh)
	}
	if m.chain != nil {
		m.chain.setSize(bw, bh)
	}
	if m.chooser != nil {
		m.chooser.setSize(bw, bh)
	}
}

func (m *Model) bodyHeight() int {
	h := m.h - headerLines - footerLines
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

// quit cancels everything in flight and quits.
func (m *Model) quit() tea.Cmd {
	m.quitting = true
	m.cancel()
	return tea.Quit
}

// key handles a key press: modal states first (help, text input, loading,
// error), then global keys, then the screen's own keys.
func (m *Model) key(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	switch msg.String() {
	case "ctrl+c": // exits 130 like SIGINT, also while loading
		m.interrupted = true
		return m.quit()
	case "ctrl+z": // job control: give the terminal back and stop
		if f := m.opt.Suspend; f != nil {
			return func() tea.Msg { f(); return nil }
		}
		return nil
	}
	if m.showHlp {
		switch msg.String() {
		case "?":
			m.showHlp, m.helpFilter = false, ""
		case "esc":
			if m.helpFilter != "" {
				m.helpFilter = ""
			} else {
				m.showHlp = false
			}
		case "backspace":
			if r := []rune(m.helpFilter); len(r) > 0 {
				m.helpFilter = string(r[:len(r)-1])
			} else {
				m.showHlp = false
			}
		default:
			if t := msg.Text; t != "" && !strings.ContainsAny(t, "\n\r\t") {
				m.helpFilter += t
			}
		}
		return nil
	}
	if m.screen == screenPhase1 && m.p1 != nil && m.p1.inputActive() {
		_, st := m.p1.update(msg, k)
		m.status = st
		return nil
	}
	if m.screen == screenDrill && m.drill != nil && m.drill.filter.active {
		m.drill.update(msg, k)
		return nil
	}
	switch m.screen {
	case screenLoading, screenError:
		if key.Matches(msg, k.Quit) || (m.screen == screenError && key.Matches(msg, k.Back)) {
			return m.quit()
		}
		return nil
	}
	m.status = ""
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit()
	case key.Matches(msg, k.Help):
		m.showHlp = true
		return nil
	case key.Matches(msg, k.Phase1):
		m.goTop(screenPhase1)
		return nil
	case key.Matches(msg, k.Phase2):
		m.goTop(screenPhase2)
		return nil
	case key.Matches(msg, k.Phase3):
		m.goTop(screenPhase3)
		// C is worth choosing only when B is there: without B Phase 3
		// cannot run whatever C is, and the screen says what to collect
		if m.data.P3 == nil && m.data.A != nil && m.data.B != nil && len(m.data.Controls) > 0 {
			m.openChooser()
		}
		return nil
	case key.Matches(msg, k.Pin):
		return m.pinSelected()
	case key.Matches(msg, k.Unpin):
		if m.data.Pin == "" {
			m.status = "nothing is pinned"
			return nil
		}
		return m.startUpdate("unpin", func(ctx context.Context, b Backend, d *Data) (*Data, error) { return b.Pin(ctx, d, nil) })
	case key.Matches(msg, k.Report):
		return m.writeReport()
	case key.Matches(msg, k.Control) && (m.screen == screenPhase3 || m.screen == screenPhase2):
		m.openChooser()
		return nil
	}
	return m.screenKey(msg)
}

// screenKey handles the keys of the current screen.
func (m *Model) screenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := m.keys
	isBack := key.Matches(msg, k.Back)
	isEnter := key.Matches(msg, k.Enter)
	switch m.screen {
	case screenPhase1:
		if ok, st := m.p1.update(msg, k); ok {
			m.status = st
			return nil
		}
		if isEnter {
			if a := m.p1.selected(); a != nil {
				m.series = newSeriesPane(m.st, m.data, a)
				m.push(screenSeries)
			}
			return nil
		}
	case screenSeries:
		if key.Matches(msg, k.Metric) {
			m.series.nextMetric()
			return nil
		}
	case screenPhase2:
		if m.p2.navigate(msg, k) {
			return nil
		}
		if isEnter {
			if a := m.p2.selected(); a != nil {
				m.series = newSeriesPane(m.st, m.data, a)
				m.push(screenSeries)
			}
			return nil
		}
	case screenPhase3:
		if m.p3.update(msg, k) {
			return nil
		}
		if isEnter {
			l := m.p3.selectedLayer()
			if l == nil {
				return nil
			}
			anchor := m.p3.anchorTable().Name
			m.drill = newDrillPane(m.st, m.data, anchor, l.Layer, m.p3.drillDirection(), m.p3.metric)
			m.push(screenDrill)
			if m.drill.waiting {
				return m.fetchOps(m.drill)
			}
			return nil
		}
	case screenDrill:
		if m.drill.update(msg, k) {
			return nil
		}
		if isEnter {
			if op := m.drill.selected(); op != nil {
				m.chain = newChainPane(m.st, m.data, m.drill, op)
				m.push(screenChain)
			}
			return nil
		}
	case screenChain:
		if m.chain.sv.navigate(msg, k, len(m.chain.lines())) {
			return nil
		}
	case screenChooser:
		if m.chooser.tbl.navigate(msg, k, m.w) {
			return nil
		}
		if isEnter {
			o := m.chooser.selected()
			if o == nil {
				return nil
			}
			step, rank := o.Step, o.Rank
			return m.startUpdate(fmt.Sprintf("control C step %d rank %d", step, rank),
				func(ctx context.Context, b Backend, d *Data) (*Data, error) { return b.Control(ctx, d, step, rank) })
		}
	}
	if isBack {
		if !m.back() {
			m.status = "at the top screen (q quits)"
		}
		m.layout()
	}
	return nil
}

func (m *Model) openChooser() {
	if len(m.data.Controls) == 0 {
		m.status = "no candidate C dump to choose from"
		return
	}
	m.chooser = newChooserPane(m.st, m.data)
	m.push(screenChooser)
}

// pinSelected pins the candidate under the cursor (Phase 1 or its series).
func (m *Model) pinSelected() tea.Cmd {
	var a *model.Anomaly
	switch m.screen {
	case screenPhase1:
		a = m.p1.selected()
	case screenPhase2:
		a = m.p2.selected()
	case screenSeries:
		a = m.series.a
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

// fetchOps compares the operators of the drill pane's layer off the loop.
func (m *Model) fetchOps(p *drillPane) tea.Cmd {
	id := m.newID()
	m.opsID = id
	f, layer, dir := m.data.OpsForLayer, p.layer, p.dir
	return safe(func() tea.Msg {
		// the whole layer, not only the anchor's module: what ran before
		// the anchor is where a divergence may start
		return opsMsg{id: id, ops: f("", layer, dir)}
	})
}

// writeReport writes the Markdown report off the loop: the path is chosen
// and the file written inside the command (see writeReportFile).
func (m *Model) writeReport() tea.Cmd {
	id := m.newID()
	m.reportID = id
	m.pending = "writing the report…"
	b, ctx, d := m.opt.Backend, m.ctx, m.data
	dir, title, inputs, now := m.opt.ReportDir, m.opt.Title, m.opt.Inputs, time.Now()
	return safe(func() tea.Msg {
		path, err := writeReportFile(ctx, b, d, dir, title, inputs, now)
		return reportMsg{id: id, path: path, err: err}
	})
}
