package pipeline

import (
	"context"
	"time"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/words"
)

// Following a run (`detect --follow`, the TUI's follow mode): the monitor
// is read once, then polled; after every poll that brought rows, Phase 1
// and Phase 2 run again on everything read so far and the candidates are
// compared with those already reported. Each candidate is reported once,
// by its identity in the input's own numbering (step, micro step, rank,
// parameter, metric); when more data changes an earlier verdict (the
// baselines move) the change is reported as "revised", never silently.

// FollowOptions configure a follow.
type FollowOptions struct {
	Interval time.Duration // between polls
	P1       analysis.Phase1Options
	P2       analysis.Phase2Options
	Mem      memlimit.Budget // checked against the first read (see Inputs.Mem)
	Lang     Lang            // the language of the lines' texts (--lang; Default: as detect's)
}

// Follow event kinds (FollowEvent.Event).
const (
	EventStart     = "start"     // the first pass is read
	EventCandidate = "candidate" // a candidate not reported before
	EventRoot      = "root"      // the root-cause coordinate changed (or went: no root_cause_coordinate)
	EventRevised   = "revised"   // a reported candidate was withdrawn, changed or came back
	EventWarning   = "warning"   // a problem with the files; the rows read before are kept
	EventStop      = "stop"      // interrupted: the last line
)

// Revision kinds (FollowEvent.Change).
const (
	ChangeWithdrawn = "withdrawn"
	ChangeChanged   = "changed"
	ChangeRestored  = "restored"
)

// FollowEvent is one line of `detect --follow`. A candidate line is the
// anomalies[] object of `detect` plus "event" and "time".
type FollowEvent struct {
	Event string `json:"event"`
	Time  string `json:"time"`
	*model.Anomaly
	// revised: what changed, the candidate as reported before and now
	// (Now is nil when withdrawn).
	Change string         `json:"change,omitempty"`
	Was    *model.Anomaly `json:"was,omitempty"`
	Now    *model.Anomaly `json:"now,omitempty"`
	// root: the new coordinate and the one before (nil at the first).
	Root         *model.Coordinate `json:"root_cause_coordinate,omitempty"`
	PreviousRoot *model.Coordinate `json:"previous_root,omitempty"`
	// start and stop: what was read.
	Path       string   `json:"db_path,omitempty"`
	Format     string   `json:"format,omitempty"`
	Rows       *int     `json:"total_rows,omitempty"`
	LastStep   *int     `json:"last_step,omitempty"`
	Candidates *int     `json:"anomaly_count,omitempty"`
	Polls      *int     `json:"polls,omitempty"`
	IntervalS  *float64 `json:"interval_seconds,omitempty"`
	// LastWrite is when the job last wrote (the files' newest time).
	LastWrite string `json:"last_write,omitempty"`
	// Message says what happened in a sentence (warnings, revisions, root).
	Message string `json:"message,omitempty"`
}

// AsWritten is the event as written out: parameter names as the input
// wrote them, stages in pp_stage / vpp_stage (model.AsWritten).
func (e FollowEvent) AsWritten() FollowEvent {
	an := func(a *model.Anomaly) *model.Anomaly {
		if a == nil {
			return nil
		}
		w := a.AsWritten()
		return &w
	}
	e.Anomaly, e.Was, e.Now = an(e.Anomaly), an(e.Was), an(e.Now)
	e.Root, e.PreviousRoot = e.Root.AsWritten(), e.PreviousRoot.AsWritten()
	e.Message = model.WrittenText(e.Message)
	return e
}

// seenCand is a reported candidate as last reported.
type seenCand struct {
	a    model.Anomaly
	live bool // in the latest result
}

// Follower follows one monitor path.
type Follower struct {
	path string
	mon  ingest.MonitorFollower
	opt  FollowOptions

	seen  map[model.CandidateID]*seenCand
	order []model.CandidateID // report order, for deterministic withdrawals
	root  *model.Coordinate

	// P1, P2 are the latest results; Data the data they were run on
	// (read so far), analysed the same as Phase 1 saw it (targets split by
	// pipeline stage, as a Session's Monitor).
	P1       *model.Phase1Result
	P2       *model.Phase2Result
	Data     *model.MonitorData
	analysed *model.MonitorData
	// LastData is when the job last wrote (the files' newest modification
	// time), else when a poll last found new rows (the first pass counts).
	LastData time.Time
	// Version counts the analyses (the first pass is 1): a caller that
	// saw this version has seen the latest data.
	Version int
	polls   int
	reread  bool // the latest poll read the data again (not only new rows)
	now     func() time.Time
}

// StartFollow reads the monitor at path (trend.db or CSV) in full, runs
// Phase 1 and 2, and returns the follower with the first lines: start, a
// candidate line per candidate, the root. Bad input is an
// *ingest.InputError, as for Detect.
func StartFollow(ctx context.Context, path string, f model.Format, opt FollowOptions, progress model.ProgressFunc) (*Follower, []FollowEvent, error) {
	opt = opt.withDefaults()
	plan, err := checkMonitorMemory(ctx, path, f, opt.Mem, false) // a follower appends rows: never out of core
	memWarning := plan.warning
	if err != nil {
		return nil, nil, err
	}
	mon, err := readFollowMonitor(ctx, path, f, progress)
	if err != nil {
		return nil, nil, err
	}
	fl := &Follower{path: path, mon: mon, opt: opt, seen: map[model.CandidateID]*seenCand{}, now: time.Now}
	fl.LastData = fl.now()
	fl.noteWrite()
	fl.analyse()
	start := fl.event(EventStart)
	start.Path, start.Format = path, string(fl.Data.Format)
	start.Rows, start.Candidates = intp(fl.Data.Rows.Len()), intp(len(fl.P1.Anomalies))
	start.LastStep, start.LastWrite = fl.lastStepPtr(), fl.lastWrite()
	iv := opt.Interval.Seconds()
	start.IntervalS = &iv
	start.Message = words.Say(model.FollowStarted{Path: path, Rows: fl.Data.Rows.Len(), Candidates: len(fl.P1.Anomalies), Interval: opt.Interval}, opt.Lang)
	evs := []FollowEvent{start}
	if memWarning != nil {
		evs = append(evs, fl.warning(words.Say(memWarning, opt.Lang)))
	}
	for _, w := range fl.P1.Warnings {
		evs = append(evs, fl.warning(w))
	}
	return fl, append(evs, fl.diff()...), nil
}

// withDefaults names the metric given by its reference id and fills in
// the interval.
func (opt FollowOptions) withDefaults() FollowOptions {
	switch opt.P1.Metric {
	case "1":
		opt.P1.Metric = "grad_unreduced"
	case "2":
		opt.P1.Metric = "grad_reduced"
	}
	if opt.Interval <= 0 {
		opt.Interval = 2 * time.Second
	}
	return opt
}

func intp(v int) *int { return &v }

func (f *Follower) event(kind string) FollowEvent {
	return FollowEvent{Event: kind, Time: f.now().UTC().Format(time.RFC3339)}
}

func (f *Follower) warning(msg string) FollowEvent {
	e := f.event(EventWarning)
	e.Message = msg
	return e
}

// analyse runs Phase 1 and 2 on everything read so far.
func (f *Follower) analyse() {
	f.Version++
	f.Data = f.mon.Data()
	words.Monitor(f.Data, f.opt.Lang)
	f.P1, f.analysed = analysis.Phase1Data(f.Data, f.opt.P1)
	f.P1.DBPath = f.path
	if f.opt.P1.Metric != "" && f.P1.Metric != f.opt.P1.Metric {
		f.P1.WarningsReasons = append(f.P1.WarningsReasons, model.MetricNotFound{Asked: f.opt.P1.Metric, Analysed: f.P1.Metric})
	}
	words.Phase1(f.P1, f.opt.Lang)
	f.P2 = nil
	if p2, err := phase2(f.P1, nil, nil, f.opt.P2, f.opt.Lang); err == nil {
		f.P2 = p2
	}
}

// LastStep is the last step read (the optimizer step on micro-step data);
// ok is false before any row.
func (f *Follower) LastStep() (step int, ok bool) {
	if r := f.P1.OptimizerStepRange; len(r) == 2 {
		return r[1], true
	}
	if s := f.P1.Summary.Steps; len(s) > 0 {
		return s[len(s)-1], true
	}
	return 0, false
}

func (f *Follower) lastStepPtr() *int {
	if s, ok := f.LastStep(); ok {
		return &s
	}
	return nil
}

// Poll reads what the job wrote since the last poll and returns the lines
// it gives: warnings, then new candidates, revisions and a new root. The
// only error is ctx's.
func (f *Follower) Poll(ctx context.Context) ([]FollowEvent, error) {
	f.polls++
	p, err := f.mon.Poll(ctx)
	if err != nil {
		return nil, err
	}
	var evs []FollowEvent
	for _, w := range p.Warnings {
		evs = append(evs, f.warning(words.Say(w, f.opt.Lang)))
	}
	if p.Changed {
		f.LastData = f.now()
	}
	f.noteWrite()
	if !p.Changed {
		return evs, nil
	}
	f.reread = p.Reread
	f.analyse()
	return append(evs, f.diff()...), nil
}

// noteWrite takes the files' newest modification time as LastData.
func (f *Follower) noteWrite() {
	if w := f.mon.LastWrite(); !w.IsZero() {
		f.LastData = w
	}
}

func (f *Follower) lastWrite() string {
	if w := f.mon.LastWrite(); !w.IsZero() {
		return w.UTC().Format(time.RFC3339)
	}
	return ""
}

// Stop is the last line: what was followed.
func (f *Follower) Stop() FollowEvent {
	e := f.event(EventStop)
	e.Path, e.Polls = f.path, intp(f.polls)
	e.Rows, e.Candidates, e.LastStep = intp(f.Data.Rows.Len()), intp(len(f.P1.Anomalies)), f.lastStepPtr()
	e.LastWrite = f.lastWrite()
	e.Message = words.Say(model.FollowStopped{Path: f.path, Polls: f.polls, Rows: f.Data.Rows.Len(), Candidates: len(f.P1.Anomalies)}, f.opt.Lang)
	return e
}

// StopBeforeStart is the stop line of a follow interrupted during its
// first read: every follow ends with a stop line (said in l).
func StopBeforeStart(path string, l Lang) FollowEvent {
	e := FollowEvent{Event: EventStop, Time: time.Now().UTC().Format(time.RFC3339), Path: path}
	e.Message = words.Say(model.FollowStoppedEarly{Path: path}, l)
	return e
}

// Run polls every interval until ctx is done, passing every line to emit,
// then emits the stop line and returns nil. An emit error (stdout closed)
// ends the follow with that error.
func (f *Follower) Run(ctx context.Context, emit func(FollowEvent) error) error {
	t := time.NewTicker(f.opt.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return emit(f.Stop())
		case <-t.C:
		}
		evs, err := f.Poll(ctx)
		if err != nil {
			return emit(f.Stop()) // only ctx's: interrupted mid-poll
		}
		for _, e := range evs {
			if err := emit(e); err != nil {
				return err
			}
		}
	}
}

// diff compares the latest result with what was reported.
func (f *Follower) diff() []FollowEvent {
	var evs []FollowEvent
	cur := map[model.CandidateID]bool{}
	for i := range f.P1.Anomalies {
		a := f.P1.Anomalies[i]
		k := model.IDOf(&a)
		cur[k] = true
		s := f.seen[k]
		switch {
		case s == nil:
			f.seen[k] = &seenCand{a: a, live: true}
			f.order = append(f.order, k)
			e := f.event(EventCandidate)
			e.Anomaly = &a
			evs = append(evs, e)
			continue
		case !s.live:
			evs = append(evs, f.revised(ChangeRestored, s.a, &a, model.FollowRevised{Why: model.RevisedRestored}))
		case verdictChanged(&s.a, &a):
			evs = append(evs, f.revised(ChangeChanged, s.a, &a, model.FollowRevised{Why: model.RevisedFlagged, Now: flagOf(&a), Was: flagOf(&s.a)}))
		case s.a.TargetName != a.TargetName:
			why := model.FollowRevised{Why: model.RevisedNamed, Name: a.TargetName}
			if a.PPStage != nil && s.a.PPStage == nil {
				why = model.FollowRevised{Why: model.RevisedStage, Stage: *a.PPStage}
			}
			evs = append(evs, f.revised(ChangeChanged, s.a, &a, why))
		}
		s.a, s.live = a, true
	}
	for _, k := range f.order {
		if s := f.seen[k]; s.live && !cur[k] {
			s.live = false
			why := model.FollowRevised{Why: model.RevisedWithdrawn}
			if f.reread { // rows may have gone or changed, not only come
				why.Why = model.RevisedReread
			}
			evs = append(evs, f.revised(ChangeWithdrawn, s.a, nil, why))
		}
	}
	var root *model.Coordinate
	if f.P2 != nil {
		root = f.P2.RootCauseCoordinate
	}
	// a root that goes away (every candidate withdrawn) is a change too:
	// said once, so that a root coming back names the right previous one
	if f.P2 != nil && !sameCoordinate(root, f.root) {
		e := f.event(EventRoot)
		e.Root, e.PreviousRoot = root, f.root
		e.Message = words.Say(model.FollowRoot{Now: root, Was: f.root}, f.opt.Lang)
		evs = append(evs, e)
		f.root = root
	}
	return evs
}

// revised is the line of a revision of the candidate reported as was;
// why says what changed (its coordinate is filled in here).
func (f *Follower) revised(change string, was model.Anomaly, now *model.Anomaly, why model.FollowRevised) FollowEvent {
	e := f.event(EventRevised)
	e.Change, e.Was, e.Now = change, &was, now
	why.Step, why.Rank, why.Target = was.Step, was.Rank, was.TargetName
	e.Message = words.Say(why, f.opt.Lang)
	return e
}

// verdictChanged: the same coordinate is flagged for another reason. The
// deviation itself moves a little with every step (the baseline grows) and
// is not a change of verdict.
func verdictChanged(a, b *model.Anomaly) bool {
	return a.Trigger != b.Trigger || a.Test != b.Test || a.NonFinite != b.NonFinite
}

// flagOf is what flagged a candidate.
func flagOf(a *model.Anomaly) model.FollowFlag {
	return model.FollowFlag{Trigger: a.Trigger, Test: a.Test, NonFinite: a.NonFinite}
}

func sameCoordinate(a, b *model.Coordinate) bool {
	if a == nil || b == nil {
		return a == b
	}
	return eqIntPtr(a.OptimizerStep, b.OptimizerStep) && eqIntPtr(a.MicroStep, b.MicroStep) &&
		eqIntPtr(a.Step, b.Step) && a.Rank == b.Rank && a.TargetName == b.TargetName
}

func eqIntPtr(a, b *int) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// LoadFollowing is Load with the monitor given as PATH read by a Follower
// (the TUI's --follow): the session and the follower share that one read —
// the same rows, the session's Phase 1 standing for the follower's first
// analysis — so the follower's first Poll reads only what the job wrote
// since. The follower is nil when PATH is not a monitor (a dump tree);
// the session is then Load's.
func LoadFollowing(ctx context.Context, in Inputs, interval time.Duration, progress model.ProgressFunc) (*Session, *Follower, error) {
	s, main, err := load(ctx, in, progress, true)
	if err != nil || main == nil || main.fol == nil {
		return s, nil, err
	}
	if s.In.Phase1 != nil { // Phase 1 did not run on the monitor
		return s, nil, nil
	}
	opt := FollowOptions{Interval: interval, P1: s.In.P1, P2: s.In.P2, Mem: s.In.Mem, Lang: s.In.Lang}.withDefaults()
	fl := &Follower{path: s.In.Path, mon: main.fol, opt: opt, seen: map[model.CandidateID]*seenCand{}, now: time.Now}
	fl.LastData = fl.now()
	fl.noteWrite()
	fl.Version = 1
	fl.Data, fl.analysed, fl.P1 = main.mon, s.Monitor, s.P1
	if p2, err := phase2(fl.P1, nil, nil, opt.P2, opt.Lang); err == nil {
		fl.P2 = p2
	}
	fl.diff() // the session's candidates count as reported
	return s, fl, nil
}

// FollowSession starts following the monitor of s (the TUI's F on an input
// loaded without --follow): the monitor is read again by a Follower with
// s's options.
func FollowSession(ctx context.Context, s *Session, interval time.Duration) (*Follower, error) {
	if s.In.Path == "" || s.Monitor == nil || s.Monitor.Format == model.FormatDump {
		return nil, &ingest.InputError{Problem: "only a monitor (trend.db or CSV tree) that a job is still writing can be followed"}
	}
	f, _, err := StartFollow(ctx, s.In.Path, s.In.Format, FollowOptions{Interval: interval, P1: s.In.P1, P2: s.In.P2, Lang: s.In.Lang}, nil)
	return f, err
}

// WithFollowed returns a copy of s on the follower's latest data: its
// Phase 1, then Phase 2 and 3 under s's pin and control choice; the
// baseline's Phase 1 and the dumps are s's.
func (s *Session) WithFollowed(f *Follower) (*Session, error) {
	c := *s
	c.Monitor, c.P1 = f.analysed, f.P1
	if err := c.fromPhase2(); err != nil {
		return nil, err
	}
	return &c, nil
}
