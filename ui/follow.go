package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/dustin/go-humanize"

	"spikescope/model"
)

// Follow mode (`spikescope PATH --follow`, or F): the backend polls the
// monitor every interval in a command — never in Update — and the tables
// are updated in place: the Phase 1 table keeps its filter, sort and the
// selected candidate (by identity), and candidates that appeared since
// following began are marked. The header says "following · last data 3 s
// ago · step 1,234". With Options.Bell the terminal bell rings when the
// root-cause coordinate changes.

// FollowNews is what one follow poll found.
type FollowNews struct {
	LastData time.Time // when rows last arrived (the first read counts)
	LastStep int       // the last step read (optimizer step on micro-step data)
	HasStep  bool
	NewRoot  bool     // the root-cause coordinate shown changed (with the baseline and pin)
	Warnings []string // problems with the files; the rows read before are kept
	// Version counts the analyses of the followed data: the UI passes the
	// one it shows, and gets new Data only for a later one.
	Version int
}

// followBackend is a Backend that can follow its monitor (PipelineBackend).
type followBackend interface {
	Follow(ctx context.Context, cur *Data, interval time.Duration, seen int) (*Data, FollowNews, error)
}

// followLoader is a Backend that can load through its follower
// (PipelineBackend.LoadFollowing): with --follow the input is read once.
type followLoader interface {
	LoadFollowing(ctx context.Context, interval time.Duration, progress model.ProgressFunc) (*Data, int, error)
}

// followLoadedMsg is a load through the follower: version is the follow
// version of its Data (0: the backend must read again to follow).
type followLoadedMsg struct {
	loadedMsg
	version int
}

// loader is how the input is loaded (off the update loop): through the
// follower when following from the start, so that the first poll reads
// nothing twice. version is the follow version of the Data (0: none).
func (m *Model) loader() func(ctx context.Context, progress model.ProgressFunc) (d *Data, version int, err error) {
	b := m.opt.Backend
	if fl, ok := b.(followLoader); ok && m.opt.Follow {
		every := m.followInterval()
		return func(ctx context.Context, progress model.ProgressFunc) (*Data, int, error) {
			return fl.LoadFollowing(ctx, every, progress)
		}
	}
	return func(ctx context.Context, progress model.ProgressFunc) (*Data, int, error) {
		if b == nil {
			return nil, 0, errors.New("no data source")
		}
		d, err := b.Load(ctx, progress)
		return d, 0, err
	}
}

// followLoaded notes what a load through the follower read: its data is
// the follower's first version, no first read is needed.
func (m *Model) followLoaded(msg followLoadedMsg) {
	if msg.id == m.loadID && msg.err == nil && msg.version > 0 {
		m.follow.primed, m.follow.version = true, msg.version
	}
}

// DefaultFollowInterval is the time between polls when none is given.
const DefaultFollowInterval = 2 * time.Second

// followMarks are the candidates shown when following began: the others
// are marked as new.
type followMarks struct{ base map[model.CandidateID]bool }

// isNew reports whether a came in while following.
func (d *Data) isNew(a *model.Anomaly) bool {
	return d != nil && d.follow != nil && !d.follow.base[model.IDOf(a)]
}

// newMark prefixes a candidate's row number when it is new.
func newMark(d *Data, a *model.Anomaly) string {
	if d.isNew(a) {
		return "+"
	}
	return ""
}

// followState is the root's follow mode.
type followState struct {
	on       bool // polling
	gen      int  // a toggle drops the replies and ticks of before
	inFlight bool // a Follow call runs: never two (the backend's follower is not shared)
	started  bool // a poll replied
	primed   bool // the backend's follower has read the input (no first read to wait for)
	version  int  // of the data shown
	news     FollowNews
	marks    *followMarks
	// pending is new data that arrived on a detail screen (its panes
	// show the old data): applied when the user is back on a phase screen.
	pending        *Data
	pendingBase    *Data
	pendingVersion int
	now            func() time.Time
}

type (
	followTickMsg struct{ gen int }
	followedMsg   struct {
		gen        int
		base, data *Data
		news       FollowNews
		err        error
	}
)

func (m *Model) followInterval() time.Duration {
	if m.opt.FollowInterval > 0 {
		return m.opt.FollowInterval
	}
	return DefaultFollowInterval
}

// followOnLoad starts following after the first load when asked to.
func (m *Model) followOnLoad() tea.Cmd {
	if !m.opt.Follow || m.follow.on {
		return nil
	}
	return m.startFollow()
}

// toggleFollow is the F key.
func (m *Model) toggleFollow() tea.Cmd {
	if m.follow.on {
		m.follow.on = false
		m.follow.gen++ // a poll in flight still replies: its data is dropped
		m.status = "follow paused: F resumes"
		return nil
	}
	return m.startFollow()
}

func (m *Model) startFollow() tea.Cmd {
	if _, ok := m.opt.Backend.(followBackend); !ok || m.data == nil {
		m.status = "this input cannot be followed"
		return nil
	}
	f := &m.follow
	if f.now == nil {
		f.now = time.Now
	}
	if f.marks == nil {
		f.marks = &followMarks{base: map[model.CandidateID]bool{}}
		if m.data.P1 != nil {
			for i := range m.data.P1.Anomalies {
				f.marks.base[model.IDOf(&m.data.P1.Anomalies[i])] = true
			}
		}
	}
	f.on = true
	f.gen++
	m.status = followingStatus
	if !f.primed {
		m.status = followReadingStatus
	}
	return m.followPoll()
}

// The status lines of follow mode: F on an input loaded without --follow
// reads it all again before the first poll, and says so.
const (
	followingStatus     = "following: new candidates are marked +"
	followReadingStatus = "following: reading the monitor again to start (as long as the load)"
)

// followPoll asks the backend for one poll, off the update loop.
func (m *Model) followPoll() tea.Cmd {
	f := &m.follow
	if !f.on || f.inFlight {
		return nil
	}
	f.inFlight = true
	b, _ := m.opt.Backend.(followBackend)
	ctx, cur, gen, seen, every := m.ctx, m.data, f.gen, f.version, m.followInterval()
	if f.pending != nil {
		seen = f.pendingVersion // no need to build it again
	}
	return safe(func() tea.Msg {
		d, news, err := b.Follow(ctx, cur, every, seen)
		return followedMsg{gen: gen, base: cur, data: d, news: news, err: err}
	})
}

// followMsg handles the follow messages.
func (m *Model) followMsg(msg tea.Msg) tea.Cmd {
	f := &m.follow
	switch msg := msg.(type) {
	case followTickMsg:
		if msg.gen != f.gen {
			return nil
		}
		m.applyPending()
		return m.followPoll()
	case followedMsg:
		f.inFlight = false // one Follow call at a time: the next may start now
		if m.quitting {
			return nil
		}
		if msg.gen != f.gen { // paused (and maybe resumed) meanwhile
			f.primed = f.primed || msg.err == nil
			return m.followPoll()
		}
		if msg.err != nil {
			if m.ctx.Err() != nil {
				return nil
			}
			f.on = false
			m.status = "following stopped: " + oneLine(msg.err.Error())
			return nil
		}
		f.started, f.news = true, msg.news
		if !f.primed && m.status == followReadingStatus {
			m.status = followingStatus
		}
		f.primed = true
		if n := len(msg.news.Warnings); n > 0 {
			m.status = "following: " + oneLine(msg.news.Warnings[n-1])
		}
		var cmds []tea.Cmd
		if msg.data != nil {
			f.pending, f.pendingBase, f.pendingVersion = msg.data, msg.base, msg.news.Version
			m.applyPending()
			if msg.news.NewRoot && m.opt.Bell {
				cmds = append(cmds, tea.Raw("\a"))
			}
		}
		gen := f.gen
		cmds = append(cmds, tea.Tick(m.followInterval(), func(time.Time) tea.Msg { return followTickMsg{gen: gen} }))
		return tea.Batch(cmds...)
	}
	return nil
}

// applyPending shows the pending data when the user is on a phase screen
// (or a candidate's series) and the data it was built on is still shown;
// built on older data (a pin came in between), it is dropped and the next
// poll builds it again on the current data.
func (m *Model) applyPending() {
	f := &m.follow
	if f.pending == nil {
		return
	}
	if f.pendingBase != m.data {
		f.pending, f.pendingBase = nil, nil
		return
	}
	switch m.screen {
	case screenPhase1, screenPhase2, screenPhase3, screenSeries:
	default:
		return
	}
	d := f.pending
	f.pending, f.pendingBase, f.version = nil, nil, f.pendingVersion
	d.follow = f.marks
	old := m.panes
	m.setData(d, false)
	keepView(old, m.panes, screenPhase1, keepPhase1View)
	keepView(old, m.panes, screenPhase2, keepPhase2View)
	keepView(old, m.panes, screenPhase3, keepPhase3View)
	keepView(old, m.panes, screenSeries, keepSeriesView)
	m.layout()
}

// keepView carries the view of screen s's old pane over to the new one
// when setData built a new one.
func keepView[P pane](old, now [numScreens]pane, s screen, keep func(old, p P)) {
	o, ok := old[s].(P)
	p, ok2 := now[s].(P)
	if ok && ok2 && old[s] != now[s] {
		keep(o, p)
	}
}

// keepPhase2View carries the Phase 2 screen's selected candidate (by
// identity) and its scroll over to the new pane.
func keepPhase2View(old, p *phase2Pane) {
	p.sv.offset = old.sv.offset
	a := old.candidate()
	if a == nil || p.data == nil || p.data.P2 == nil {
		return
	}
	id := model.IDOf(a)
	for i := range p.data.P2.Candidates {
		if model.IDOf(&p.data.P2.Candidates[i].Anomaly) != id {
			continue
		}
		p.sel = i
		// the row stays where it was on screen (candAt is filled by layout)
		if old.sel < len(old.candAt) {
			at := old.candAt[old.sel] - old.sv.offset
			if p.lines(); i < len(p.candAt) {
				p.sv.offset = max(0, p.candAt[i]-at)
			}
		}
		return
	}
}

// keepPhase3View carries the Phase 3 screen's anchor, metric, sort,
// column and selected layer (by its number) and the selected row's place
// on screen over to the new pane.
func keepPhase3View(old, p *phase3Pane) {
	var layer *int
	if l := old.selectedLayer(); l != nil {
		layer = &l.Layer
	}
	if r := p.result(); r != nil && old.anchor < len(r.Anchors) {
		p.anchor = old.anchor
	}
	p.metric = old.metric
	p.tbl.colCur, p.tbl.sortCol, p.tbl.sortDesc = old.tbl.colCur, old.tbl.sortCol, old.tbl.sortDesc
	p.rebuild()
	t := p.anchorTable()
	if layer == nil || t == nil {
		return
	}
	for i := range t.Layers {
		if t.Layers[i].Layer == *layer && p.tbl.selectData(i) {
			p.tbl.offset = max(0, p.tbl.cursor-(old.tbl.cursor-old.tbl.offset))
			p.tbl.clamp()
			return
		}
	}
}

// keepSeriesView carries the series screen's choices (metric, log axis,
// the ranks scrolled to) over to the new pane of the same candidate.
func keepSeriesView(old, s *seriesPane) {
	s.metric, s.logY, s.rankTop = old.metric, old.logY, old.rankTop
}

// keepPhase1View carries the Phase 1 table's filter, sort, selection (by
// identity) and the selected row's place on screen over to the new pane.
func keepPhase1View(old, p *phase1Pane) {
	p.filter = old.filter
	p.jump.active, p.jump.text = old.jump.active, old.jump.text
	p.tbl.sortCol, p.tbl.sortDesc, p.tbl.colCur = old.tbl.sortCol, old.tbl.sortDesc, old.tbl.colCur
	p.applyFilter()
	if a := old.candidate(); a != nil {
		id := model.IDOf(a)
		for i := range p.anoms {
			if model.IDOf(&p.anoms[i]) == id {
				p.tbl.selectData(i)
				break
			}
		}
	}
	p.tbl.offset = max(0, p.tbl.cursor-(old.tbl.cursor-old.tbl.offset))
}

// followText is the header's follow note, "" when not following.
func (m *Model) followText() string {
	f := &m.follow
	switch {
	case !f.on && f.started:
		return "follow paused"
	case !f.on:
		return ""
	case !f.started:
		return "following · reading…"
	}
	s := "following · last data " + agoText(f.now().Sub(f.news.LastData))
	if f.news.HasStep {
		s += " · step " + humanize.Comma(int64(f.news.LastStep))
	}
	return s
}

// agoText says how long ago, in whole seconds, minutes or hours.
func agoText(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%d s ago", max(0, int(d/time.Second)))
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d/time.Minute))
	}
	return fmt.Sprintf("%d h ago", int(d/time.Hour))
}
