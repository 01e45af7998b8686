package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"spikescope/model"
)

// followFake is the fixture backend with a scripted follow: each Follow
// call returns the next reply.
type followFake struct {
	*fakeBackend
	replies []followReply
	calls   int
	seen    []int // the versions the UI said it shows
}

type followReply struct {
	data *Data
	news FollowNews
}

func (f *followFake) Follow(ctx context.Context, cur *Data, interval time.Duration, seen int) (*Data, FollowNews, error) {
	f.seen = append(f.seen, seen)
	r := f.replies[min(f.calls, len(f.replies)-1)]
	f.calls++
	return r.data, r.news, nil
}

// withEarlier is the fixture with one more candidate, earlier than all:
// every old candidate moves one row down.
func withEarlier() *Data {
	d := fixture()
	p1 := *d.P1
	early := p1.Anomalies[0]
	early.Step, early.Rank, early.Trigger = 3, 1, "mad"
	p1.Anomalies = append([]model.Anomaly{early}, p1.Anomalies...)
	d.P1 = &p1
	return d
}

// deliver runs a command and feeds every message it gives back to the
// model, batches included; it returns the messages, not re-running ticks.
func deliver(t *testing.T, m *Model, c tea.Cmd) []tea.Msg {
	t.Helper()
	if c == nil {
		return nil
	}
	var out []tea.Msg
	msg := c()
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			out = append(out, deliver(t, m, c)...)
		}
		return out
	}
	out = append(out, msg)
	if _, tick := msg.(followTickMsg); tick {
		return out // the next poll is the test's to start
	}
	_, next := m.Update(msg)
	return append(out, deliver(t, m, next)...)
}

func TestFollowKeepsSelectionAndMarksNew(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{
		{nil, FollowNews{LastData: now.Add(-3 * time.Second), LastStep: 1234, HasStep: true, Version: 1}},
		{withEarlier(), FollowNews{LastData: now, LastStep: 1235, HasStep: true, Version: 2, NewRoot: true}},
	}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir(), Bell: true})
	m.follow.now = func() time.Time { return now }
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	press(m, "down") // the second candidate: step 14
	sel := *m.p1().candidate()
	deliver(t, m, press(m, "F"))
	if got := screenText(m); !strings.Contains(got, "following · last data 3 s ago · step 1,234") {
		t.Fatalf("header after the first poll:\n%s", got)
	}
	msgs := deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))
	if c := m.p1().candidate(); c == nil || model.IDOf(c) != model.IDOf(&sel) {
		t.Fatalf("the selection moved to %+v, want %+v (by identity, now one row lower)", c, sel)
	}
	if m.p1().tbl.cursor != 2 {
		t.Fatalf("cursor at %d, want 2 (the selected candidate's new row)", m.p1().tbl.cursor)
	}
	text := screenText(m)
	if !strings.Contains(text, "+1 ") || strings.Contains(text, "+2 ") {
		t.Fatalf("want only the new candidate marked +:\n%s", text)
	}
	if !strings.Contains(text, "step 1,235") {
		t.Fatalf("header not updated:\n%s", text)
	}
	bell := false
	for _, msg := range msgs {
		if r, ok := msg.(tea.RawMsg); ok && r.Msg == "\a" {
			bell = true
		}
	}
	if !bell {
		t.Errorf("no bell on a new root with Bell set; messages %v", msgs)
	}
	if got := fb.seen; len(got) != 2 || got[0] != 0 || got[1] != 0 {
		t.Errorf("versions passed %v, want [0 0] (nothing shown from the follower yet)", got)
	}
	deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))
	if got := fb.seen[len(fb.seen)-1]; got != 2 {
		t.Errorf("after showing version 2 the UI passed %d", got)
	}
	press(m, "F")
	if !strings.Contains(screenText(m), "follow paused") {
		t.Error("F did not pause")
	}
	if c := m.followMsg(followTickMsg{gen: m.follow.gen - 1}); c != nil {
		t.Error("a tick from before the pause started a poll")
	}
}

// Pausing and resuming while a poll runs never starts a second one: the
// late reply is dropped and starts the resumed poll.
func TestFollowOnePollAtATime(t *testing.T) {
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{{withEarlier(), FollowNews{Version: 1}}}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	first := press(m, "F")
	if first == nil {
		t.Fatal("F started no poll")
	}
	press(m, "F")
	if c := press(m, "F"); c != nil {
		t.Fatal("a second poll started while the first runs")
	}
	msg := first()
	_, next := m.Update(msg)
	if len(m.p1().anoms) != 3 {
		t.Fatal("the reply of before the pause was applied")
	}
	if next == nil {
		t.Fatal("the late reply did not start the resumed poll")
	}
	deliver(t, m, next)
	if len(m.p1().anoms) != 4 {
		t.Fatalf("the resumed poll's data was not applied: %d candidates", len(m.p1().anoms))
	}
}

// The bell is opt-in: without Options.Bell a new root rings nothing.
func TestFollowNoBellUnlessAsked(t *testing.T) {
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{
		{nil, FollowNews{Version: 1}},
		{withEarlier(), FollowNews{Version: 2, NewRoot: true}},
	}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	msgs := deliver(t, m, press(m, "F"))
	msgs = append(msgs, deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))...)
	if len(m.p1().anoms) != 4 {
		t.Fatalf("the new root's data was not applied: %d candidates", len(m.p1().anoms))
	}
	for _, msg := range msgs {
		if r, ok := msg.(tea.RawMsg); ok && strings.Contains(rawText(r.Msg), "\a") {
			t.Fatalf("a bell without --bell: %v", msgs)
		}
	}
}

func rawText(v any) string { s, _ := v.(string); return s }

// withEarlierP2 is withEarlier with the new candidate in Phase 2's list
// too, first: the candidates of before move one row down.
func withEarlierP2() *Data {
	d := withEarlier()
	p2 := *d.P2
	p2.Candidates = append([]model.CandidateVerdict{{Anomaly: d.P1.Anomalies[0], Value: 1, Verdict: "no baseline"}}, p2.Candidates...)
	d.P2 = &p2
	return d
}

// On the Phase 2 screen too, new data keeps the selected candidate (by
// identity) and the scroll: a poll every interval must not throw the
// reader back to the top.
func TestFollowKeepsPhase2Selection(t *testing.T) {
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{
		{nil, FollowNews{Version: 1}},
		{withEarlierP2(), FollowNews{Version: 2}},
	}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 14}) // the list scrolls
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	deliver(t, m, press(m, "F"))
	press(m, "2")
	press(m, "j")
	sel := m.p2().candidate()
	if m.screen != screenPhase2 || sel == nil || m.p2().sel != 1 {
		t.Fatalf("screen %d, selection %d: want Phase 2 on its second candidate", m.screen, m.p2().sel)
	}
	want := model.IDOf(sel)
	m.View()
	at := m.p2().candAt[m.p2().sel] - m.p2().sv.offset // the selected row's place on screen
	deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))
	if len(m.data.P2.Candidates) != 3 {
		t.Fatalf("the new data was not applied: %d Phase 2 candidates", len(m.data.P2.Candidates))
	}
	if c := m.p2().candidate(); c == nil || model.IDOf(c) != want || m.p2().sel != 2 {
		t.Fatalf("after a poll the selection is %d (%+v), want 2 (%+v)", m.p2().sel, c, want)
	}
	m.View()
	if now := m.p2().candAt[m.p2().sel] - m.p2().sv.offset; now != at {
		t.Errorf("the selected row moved on screen from line %d to %d (offset %d, %d lines, height %d)", at, now, m.p2().sv.offset, len(m.p2().lines()), m.p2().sv.height)
	}
}

// On the Phase 3 screen, new data (Phase 3 is run again on it) keeps the
// anchor, the metric and the selected layer the user moved to.
func TestFollowKeepsPhase3View(t *testing.T) {
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{
		{nil, FollowNews{Version: 1}},
		{withEarlier(), FollowNews{Version: 2}},
	}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	deliver(t, m, press(m, "F"))
	press(m, "3")
	if m.screen != screenPhase3 {
		t.Fatalf("screen %d, want Phase 3", m.screen)
	}
	press(m, "m")
	press(m, "g")
	press(m, "j")
	metric, layer := m.p3().metric, m.p3().selectedLayer()
	if layer == nil {
		t.Fatal("no layer selected on Phase 3")
	}
	deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))
	if len(m.p1().anoms) != 4 {
		t.Fatalf("the new data was not applied: %d candidates", len(m.p1().anoms))
	}
	if l := m.p3().selectedLayer(); m.p3().metric != metric || l == nil || l.Layer != layer.Layer {
		t.Fatalf("after a poll: metric %d layer %v, want metric %d layer %d", m.p3().metric, l, metric, layer.Layer)
	}
}

// On a candidate's series, new data keeps the metric the user switched to.
func TestFollowKeepsSeriesMetric(t *testing.T) {
	fb := &followFake{fakeBackend: fixtureBackend(), replies: []followReply{
		{nil, FollowNews{Version: 1}},
		{withEarlier(), FollowNews{Version: 2}},
	}}
	m := New(Options{Backend: fb, NoColor: true, ReportDir: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	m.Update(loadedMsg{id: m.loadID, data: fixture()})
	deliver(t, m, press(m, "F"))
	deliver(t, m, press(m, "enter"))
	if m.screen != screenSeries || m.series() == nil {
		t.Fatalf("screen %d, want the series", m.screen)
	}
	press(m, "m")
	metric := m.series().metric
	if metric == 0 {
		t.Fatal("m did not switch the series' metric")
	}
	deliver(t, m, m.followMsg(followTickMsg{gen: m.follow.gen}))
	if len(m.p1().anoms) != 4 {
		t.Fatalf("the new data was not applied: %d candidates", len(m.p1().anoms))
	}
	if m.series().metric != metric {
		t.Fatalf("after a poll the series shows metric %d, want %d", m.series().metric, metric)
	}
}
