package pipeline

import (
	"context"
	"errors"
	"reflect"
	"sync"

	"spikescope/analysis"
	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
)

// loadKind tells how a path is read.
type loadKind int

const (
	loadMonitor loadKind = iota
	loadDump
)

// loadJob is one distinct input to read; a path given twice (e.g. the dump
// tree as PATH and as --dump-a) is read once.
type loadJob struct {
	path   string
	kind   loadKind
	format model.Format
	mon    *model.MonitorData
	tree   *model.DumpTree
	err    error
	// follow: read by a follower (LoadFollowing), kept in fol; mon is its
	// first view of the rows.
	follow bool
	fol    ingest.MonitorFollower
}

// The monitor readers, as variables so that a test can count the reads.
var (
	readMonitor       = ingest.LoadMonitor
	readFollowMonitor = ingest.FollowMonitor
)

// jobs dedupes the inputs to read.
type jobs struct{ list []*loadJob }

func (j *jobs) add(path string, kind loadKind, f model.Format) *loadJob {
	if path == "" {
		return nil
	}
	for _, x := range j.list {
		if x.path == path && x.kind == kind {
			return x
		}
	}
	x := &loadJob{path: path, kind: kind, format: f}
	j.list = append(j.list, x)
	return x
}

// detect returns the format of path: f when given, else detected.
func detect(path string, f model.Format) (model.Format, error) {
	if path == "" {
		return "", nil
	}
	if f != "" && f != model.FormatAuto {
		return f, nil
	}
	return ingest.DetectFormat(path)
}

// LoadWithin is Load under the Go runtime's soft memory limit of in.Mem
// (memlimit.Apply), restored after: what a command that goes on to render
// runs (report, plan).
func LoadWithin(ctx context.Context, in Inputs) (*Session, error) {
	defer memlimit.Apply(in.Mem)()
	return Load(ctx, in, nil)
}

// Load reads every input concurrently (progress reports name their input in
// Progress.Input), then runs Analyse. Bad input returns the reader's
// *ingest.InputError; missing optional inputs are not errors but Missing
// entries.
func Load(ctx context.Context, in Inputs, progress model.ProgressFunc) (*Session, error) {
	s, _, err := load(ctx, in, progress, false)
	return s, err
}

// load is Load; with follow, a monitor given as PATH is read by a follower,
// returned with the session (nil when PATH is not a monitor).
func load(ctx context.Context, in Inputs, progress model.ProgressFunc, follow bool) (*Session, *loadJob, error) {
	if in.Path == "" && in.DumpA == "" {
		return nil, nil, &ingest.InputError{Problem: "no input: give a monitor (trend.db, CSV) or dump path"}
	}
	if in.Path == "" {
		in.Path = in.DumpA
		in.Format = model.FormatDump
	}
	defaultOptions(&in)
	pf, err := detect(in.Path, in.Format)
	if err != nil {
		return nil, nil, err
	}
	in.Format = pf
	bf, err := detect(in.Baseline, "")
	if err != nil {
		return nil, nil, err
	}

	avoidSpillIn(in)
	plan, err := checkMemory(ctx, in.Mem, !follow, monitorInput{monitorPath(in.Path, pf), pf}, monitorInput{monitorPath(in.Baseline, bf), bf})
	if err != nil {
		return nil, nil, err
	}
	notify(ctx, plan.notice)
	memWarning := plan.warning

	// The layer mapping is small and read first: a bad file fails before
	// the large inputs are read.
	var lm *model.LayerMapping
	if in.LayerMapping != "" {
		if lm, err = ingest.ReadLayerMapping(in.LayerMapping); err != nil {
			return nil, nil, err
		}
	}

	var js jobs
	kindOf := func(f model.Format) loadKind {
		if f == model.FormatDump {
			return loadDump
		}
		return loadMonitor
	}
	main := js.add(in.Path, kindOf(pf), pf)
	main.follow = follow && main.kind == loadMonitor
	base := js.add(in.Baseline, kindOf(bf), bf)
	ja, jb := js.add(in.DumpA, loadDump, model.FormatDump), js.add(in.DumpB, loadDump, model.FormatDump)
	jc, jd := js.add(in.DumpC, loadDump, model.FormatDump), js.add(in.DumpD, loadDump, model.FormatDump)

	if err := runJobs(ctx, js.list, plan, progress); err != nil {
		return nil, nil, err
	}

	s := &Session{In: in, LayerMapping: lm}
	// A dump tree given as PATH (or baseline) feeds Phase 1 through its
	// parameter gradients and is also A's (B's) tree unless one was given.
	if main.tree != nil {
		s.Monitor = ingest.GradientsFromDumps(main.tree)
		if ja == nil {
			ja = main
		}
	} else {
		s.Monitor = main.mon
	}
	if base != nil {
		if base.tree != nil {
			s.BaselineMonitor = ingest.GradientsFromDumps(base.tree)
			if jb == nil {
				jb = base
			}
		} else {
			s.BaselineMonitor = base.mon
		}
	}
	s.ATree, s.BTree, s.CTree, s.DTree = treeOf(ja), treeOf(jb), treeOf(jc), treeOf(jd)
	if memWarning != nil && s.Monitor != nil {
		s.Monitor.WarningsReasons = append([]model.Reason{memWarning}, s.Monitor.WarningsReasons...)
	}
	s.sayLoad()
	if err := s.Analyse(); err != nil {
		return nil, nil, err
	}
	if !main.follow {
		main = nil
	}
	return s, main, nil
}

// defaultOptions fills options left at their zero value with the method's
// defaults, so that a caller that sets none gets the documented behaviour.
func defaultOptions(in *Inputs) {
	if reflect.ValueOf(in.P1).IsZero() {
		in.P1 = analysis.DefaultPhase1Options()
	}
	if reflect.ValueOf(in.P2).IsZero() {
		in.P2 = analysis.DefaultPhase2Options()
	}
	if reflect.ValueOf(in.P3).IsZero() {
		in.P3 = analysis.DefaultPhase3Options()
	}
}

// monitorPath is path when format f is a monitor's (trend.db, CSV), else
// "": a dump tree is not estimated.
func monitorPath(path string, f model.Format) string {
	if f == model.FormatDump {
		return ""
	}
	return path
}

func treeOf(j *loadJob) *model.DumpTree {
	if j == nil {
		return nil
	}
	return j.tree
}

// runJobs reads every job concurrently; the first failure cancels the others.
// The error returned is that of the first failing job in input order, so
// that the same bad input always gives the same message.
func runJobs(ctx context.Context, list []*loadJob, plan memPlan, progress model.ProgressFunc) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for _, j := range list {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p model.ProgressFunc
			if progress != nil {
				p = func(pr model.Progress) {
					if pr.Input == "" {
						pr.Input = j.path
					}
					progress(pr)
				}
			}
			switch {
			case j.kind == loadDump:
				j.tree, j.err = ingest.LoadDumpTree(ctx, j.path, p)
			case j.follow:
				if j.fol, j.err = readFollowMonitor(ctx, j.path, j.format, p); j.err == nil {
					j.mon = j.fol.Data()
				}
			default:
				j.mon, j.err = readMonitorPlanned(ctx, plan, j.path, j.format, p)
			}
			if j.err != nil {
				cancel()
			}
		}()
	}
	wg.Wait()
	var first error
	for _, j := range list {
		if j.err == nil {
			continue
		}
		// A job stopped by another's failure is not the news.
		if errors.Is(j.err, context.Canceled) && first != nil {
			continue
		}
		if first == nil || errors.Is(first, context.Canceled) {
			first = j.err
		}
	}
	return first
}
