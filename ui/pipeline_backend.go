package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"spikescope/model"
	"spikescope/outfile"
	"spikescope/pipeline"
	"spikescope/report"
)

// PipelineBackend is the Backend of the real program: it runs the analysis
// pipeline on In and renders reports in Lang ("en" or "zh"). Every method
// is called inside a tea.Cmd.
type PipelineBackend struct {
	In   pipeline.Inputs
	Lang string

	// follower follows the monitor once Follow was called (follow mode).
	follower *pipeline.Follower
}

// Inputs lists the paths for the loading screen and the header.
func (b *PipelineBackend) Inputs() []Input {
	var out []Input
	for _, x := range []struct{ role, path string }{
		{"monitor", b.In.Path}, {"baseline", b.In.Baseline},
		{"A", b.In.DumpA}, {"B", b.In.DumpB}, {"C", b.In.DumpC}, {"D", b.In.DumpD},
	} {
		if x.path != "" {
			out = append(out, Input{Role: x.role, Path: x.path})
		}
	}
	return out
}

func (b *PipelineBackend) Load(ctx context.Context, progress model.ProgressFunc) (*Data, error) {
	s, err := pipeline.Load(ctx, b.In, progress)
	if err != nil {
		return nil, err
	}
	return b.data(s), nil
}

// LoadFollowing is Load for --follow: the monitor is read once, by the
// follower that the polls then use (its first poll reads only what the job
// wrote since). version is the follow version the Data shows, 0 when the
// input cannot be followed (Follow then says why).
func (b *PipelineBackend) LoadFollowing(ctx context.Context, interval time.Duration, progress model.ProgressFunc) (*Data, int, error) {
	s, f, err := pipeline.LoadFollowing(ctx, b.In, interval, progress)
	if err != nil {
		return nil, 0, err
	}
	b.follower = f
	if f == nil {
		return b.data(s), 0, nil
	}
	return b.data(s), f.Version, nil
}

func (b *PipelineBackend) Pin(ctx context.Context, cur *Data, a *model.Anomaly) (*Data, error) {
	ns, err := cur.session.WithPinnedAnomaly(a)
	if err != nil {
		return nil, err
	}
	return b.dataAfter(cur, ns), nil
}

func (b *PipelineBackend) Control(ctx context.Context, cur *Data, step, rank int) (*Data, error) {
	ns, err := cur.session.WithControl(step, rank)
	if err != nil {
		return nil, err
	}
	return b.dataAfter(cur, ns), nil
}

func (b *PipelineBackend) WriteReport(ctx context.Context, cur *Data, path string) error {
	render := report.Render
	if strings.EqualFold(filepath.Ext(path), ".html") {
		render = report.RenderHTML
	}
	md := render(cur.session.ReportInput(), b.Lang)
	// never over an earlier report (the UI then picks the next name)
	if err := outfile.CreateNew(path, []byte(md)); err != nil {
		return &reportFileError{path, err}
	}
	return nil
}

// Follow polls the followed monitor once: unless LoadFollowing read it,
// the first call reads it again to start following. It returns cur re-analysed on the data read so far
// when that data is newer than version seen (nil otherwise), and what the
// poll found. The UI calls it in a command, one call at a time.
func (b *PipelineBackend) Follow(ctx context.Context, cur *Data, interval time.Duration, seen int) (*Data, FollowNews, error) {
	if cur == nil || cur.session == nil {
		return nil, FollowNews{}, errors.New("nothing loaded to follow")
	}
	var news FollowNews
	var evs []pipeline.FollowEvent
	if b.follower == nil {
		f, err := pipeline.FollowSession(ctx, cur.session, interval)
		if err != nil {
			return nil, news, err
		}
		b.follower = f
	} else {
		var err error
		if evs, err = b.follower.Poll(ctx); err != nil {
			return nil, news, err
		}
	}
	f := b.follower
	news.LastData, news.Version = f.LastData, f.Version
	news.LastStep, news.HasStep = f.LastStep()
	for _, e := range evs {
		if e.Event == pipeline.EventWarning {
			news.Warnings = append(news.Warnings, e.Message)
		}
	}
	if f.Version == seen {
		return nil, news, nil
	}
	ns, err := cur.session.WithFollowed(f)
	if err != nil {
		return nil, news, err
	}
	// the root the screen will show against the one it shows: the
	// follower's own root has no baseline and no pin
	news.NewRoot = !sameRoot(rootOf(cur.P2), rootOf(ns.P2))
	d := b.data(ns)
	d.index() // off the update loop
	return d, news, nil
}

// dataAfter is data(s) for a request on cur: the follow marks stay.
func (b *PipelineBackend) dataAfter(cur *Data, s *pipeline.Session) *Data {
	d := b.data(s)
	d.follow = cur.follow
	return d
}

// data maps a session onto what the UI shows.
func (b *PipelineBackend) data(s *pipeline.Session) *Data {
	d := &Data{
		Inputs: b.Inputs(), Monitor: s.Monitor, BaselineMonitor: s.BaselineMonitor,
		P1: s.P1, P1Baseline: s.P1Baseline, P2: s.P2, P3: s.P3,
		A: s.A, B: s.B, C: s.C, D: s.D, Pin: s.In.Pin, session: s, GradNorm: s.GradNorm,
	}
	if s.C == nil {
		d.ControlNote = s.Control.Reason
	}
	if files, text, err := s.PlanFiles(nil, report.IsChinese(b.Lang)); err == nil {
		d.PlanFiles, d.PlanText = files, text
	}
	if s.Tracer != nil {
		var mu sync.Mutex // two requests may overlap (enter, esc, enter): one at a time
		d.OpsForLayer = func(anchor string, layer int, dir string) []model.DrillOp {
			mu.Lock()
			defer mu.Unlock()
			return s.OpsForLayer(anchor, layer, dir)
		}
	}
	src := s.CTree
	if src == nil {
		src = s.ATree
	}
	for _, c := range s.Control.Candidates {
		label := fmt.Sprintf("step %d rank %d", c.Step, c.Rank)
		if src != nil {
			if dd := src.Find(c.Step, c.Rank); dd != nil {
				label = dd.Path
			}
		}
		d.Controls = append(d.Controls, ControlOption{Step: c.Step, Rank: c.Rank, Label: label, Reason: c.Reason, Usable: c.Accepted})
	}
	for _, m := range s.Missing {
		line := m.What
		if m.Next != "" {
			line += " — " + m.Next
		}
		d.Missing = append(d.Missing, line)
	}
	return d
}

// reportFileError is a failed report write: the path and the OS's words
// ("permission denied"), still matching fs.ErrExist and the like.
type reportFileError struct {
	path string
	err  error
}

func (e *reportFileError) Error() string {
	var pe *fs.PathError
	if errors.As(e.err, &pe) {
		return e.path + ": " + pe.Err.Error()
	}
	return e.path + ": " + e.err.Error()
}
func (e *reportFileError) Unwrap() error { return e.err }

func rootOf(p2 *model.Phase2Result) *model.Coordinate {
	if p2 == nil {
		return nil
	}
	return p2.RootCauseCoordinate
}

// sameRoot is sameCoordinate with no root on both sides the same too.
func sameRoot(a, b *model.Coordinate) bool {
	return a == nil && b == nil || sameCoordinate(a, b)
}
