package pipeline

import (
	"context"
	"fmt"

	"github.com/dustin/go-humanize"

	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
	"spikescope/spill"
)

// monitorInput is one monitor input of the memory check.
type monitorInput struct {
	path   string
	format model.Format // detected
}

// memPlan is how the monitor inputs are read: in memory (ooc nil), with
// a warning when the estimate is near the budget, or out of core (the
// rows held by spill files and the page cache, ingest.OutOfCore), with a
// notice for the user.
type memPlan struct {
	warning model.Reason
	notice  string
	ooc     *ingest.OutOfCore
}

// outOfCoreMinBytes is the least budget an out-of-core read works in: the
// base, and room for the chunk buffers, a bucket and the series table.
const outOfCoreMinBytes = memlimit.BaseBytes + 8<<20

// forceOutOfCore makes every estimated monitor input go out of core with
// these options (tests: tiny buckets and chunks); nil: by the budget.
var forceOutOfCore *ingest.OutOfCore

// checkMemory estimates the peak memory of reading the monitor inputs
// (dump trees are small and not estimated) before a row is read. Over the
// budget, a caller that can (outOfCore) reads them out of core when the
// spill folder has the disk and the budget the floor; otherwise, and for
// callers that cannot, it is an *ingest.InputError naming the input, the
// estimate, the limit (and the disk) and what to do. Within memlimit.Near
// of the budget it is a warning for the run's warnings. A budget of 0 or
// an input whose rows cannot be estimated is never refused.
func checkMemory(ctx context.Context, b memlimit.Budget, outOfCore bool, inputs ...monitorInput) (memPlan, error) {
	if b.Bytes <= 0 && forceOutOfCore == nil {
		return memPlan{}, nil
	}
	total := int64(memlimit.BaseBytes)
	var rows int64
	var named []monitorInput // the inputs estimated, PATH first
	seen := map[string]bool{}
	for _, in := range inputs {
		if in.path == "" || seen[in.path] { // a path given twice is read once
			continue
		}
		seen[in.path] = true
		n, ok := ingest.EstimateMonitorRows(ctx, in.path, in.format)
		if !ok {
			continue
		}
		peak, ok := memlimit.PeakBytes(in.format, n)
		if !ok {
			continue
		}
		total += peak
		rows += n
		named = append(named, in)
	}
	if len(named) == 0 {
		return memPlan{}, nil
	}
	if forceOutOfCore != nil && outOfCore {
		o := *forceOutOfCore
		return memPlan{ooc: &o}, nil
	}
	what := fmt.Sprintf("about %s monitor rows, which need about %s of memory at the peak", rowsText(rows), memlimit.Text(total))
	if total > b.Bytes {
		problem := what
		if len(named) > 1 {
			problem = "together with the baseline " + named[1].path + ", " + what
		}
		refuse := func(why, todo string) error {
			return &ingest.InputError{Path: named[0].path, Problem: fmt.Sprintf(
				"%s, more than %s: not read%s. Give --mem-limit a larger size if you know more memory is free, %sor point spikescope at a part of the run (%s)",
				problem, b.Describe(), why, todo, subsetAdvice(named[0].format))}
		}
		if !outOfCore {
			return memPlan{}, refuse("", "")
		}
		if b.Bytes < outOfCoreMinBytes {
			return memPlan{}, refuse(fmt.Sprintf(", not even through a temporary file (that needs a limit of at least %s)", memlimit.Text(outOfCoreMinBytes)), "")
		}
		var paths []string
		for _, in := range named {
			paths = append(paths, in.path)
		}
		dir := ingest.SpillDirFor(paths...)
		if dir == "" { // every folder within an input: the check below says so
			dir = spill.Dir()
		}
		disk := rows * ingest.OutOfCoreDiskBytesPerRow
		free, known := spill.Free(dir)
		if !known || free < disk+ingest.SpillHeadroom { // a full disk would stop every other writer too
			have := "whose free space cannot be read"
			if known {
				have = "which has " + memlimit.Text(free) + " free"
			}
			return memPlan{}, refuse(fmt.Sprintf(", and reading it through a temporary file needs about %s of disk in %s, %s", memlimit.Text(disk), dir, have),
				"free disk there or set SPIKESCOPE_SPILL_DIR to a folder with room, ")
		}
		if in := ingest.SpillInputWithin(dir, paths...); in != "" { // nothing is written into an input
			return memPlan{}, refuse(fmt.Sprintf(", and the temporary folder %s to read it through is within the input (%s)", dir, in),
				"set SPIKESCOPE_SPILL_DIR to a folder outside the input, ")
		}
		// half of what the base leaves goes to the buckets (shared by the
		// inputs, read at once), half to the analysis and the series tables
		heap := (b.Bytes - memlimit.BaseBytes) / 2 / int64(len(named))
		subject := named[0].path + " holds"
		if len(named) > 1 {
			subject = named[0].path + " and its baseline " + named[1].path + " hold"
		}
		return memPlan{ooc: &ingest.OutOfCore{Dir: dir, HeapBytes: heap}, notice: fmt.Sprintf(
			"%s %s, more than %s: reading through a temporary file in %s instead (about %s of disk, freed when spikescope exits)",
			subject, what, b.Describe(), dir, memlimit.Text(disk))}, nil
	}
	if float64(total) > memlimit.Near*float64(b.Bytes) {
		w := model.MemoryNear{Path: named[0].path, Rows: rows, Peak: memlimit.Text(total), Limit: memlimit.Text(b.Bytes),
			Default: b.Default, Percent: memlimit.DefaultFraction * 100}
		if len(named) > 1 {
			w.Baseline = named[1].path
		}
		return memPlan{warning: w}, nil
	}
	return memPlan{}, nil
}

// noticeKey holds the function a face gives for notices (WithNotice).
type noticeKey struct{}

// WithNotice returns ctx carrying fn, which receives the one-line notices
// of a load that are no warning of the results (the run is read out of
// core): a face prints them (stderr), the results stay as they are.
func WithNotice(ctx context.Context, fn func(line string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, fn)
}

// notify gives line to ctx's notice function, if any.
func notify(ctx context.Context, line string) {
	if fn, ok := ctx.Value(noticeKey{}).(func(string)); ok && fn != nil && line != "" {
		fn(line)
	}
}

// subsetAdvice says how to read less of an input of format f.
func subsetAdvice(f model.Format) string {
	if f == model.FormatCSV {
		return "one rank folder, or a folder holding the CSV files of a range of steps"
	}
	return "a trend.db converted from fewer ranks or steps of the monitor output"
}

// rowsText prints a row count for a sentence: "16.0 million", "850,000".
func rowsText(n int64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.1f billion", float64(n)/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.1f million", float64(n)/1e6)
	}
	return humanize.Comma(n)
}

// checkMonitorMemory is checkMemory of one monitor path of format f (auto:
// detected; a format the reader will refuse is not estimated).
func checkMonitorMemory(ctx context.Context, path string, f model.Format, b memlimit.Budget, outOfCore bool) (memPlan, error) {
	if b.Bytes <= 0 && forceOutOfCore == nil {
		return memPlan{}, nil
	}
	df, err := detect(path, f)
	if err != nil {
		return memPlan{}, nil // the reader words it
	}
	return checkMemory(ctx, b, outOfCore, monitorInput{monitorPath(path, df), df})
}

// CheckMemory is Load's memory check of in on its own, for a face that
// wants a refusal before it starts (the TUI: one line on the terminal, not
// a load error screen); the notice of an out-of-core read goes to ctx's
// (WithNotice). Load checks again and adds the warning. Inputs it cannot
// detect are left to Load to word.
func CheckMemory(ctx context.Context, in Inputs) error { return CheckMemoryFor(ctx, in, false) }

// CheckMemoryFor is CheckMemory of a face that follows PATH (follow): a
// follower appends rows, so such a run is never read out of core.
func CheckMemoryFor(ctx context.Context, in Inputs, follow bool) error {
	if in.Mem.Bytes <= 0 {
		return nil
	}
	pf, err := detect(in.Path, in.Format)
	if err != nil {
		return nil
	}
	bf, err := detect(in.Baseline, "")
	if err != nil {
		return nil
	}
	avoidSpillIn(in)
	plan, err := checkMemory(ctx, in.Mem, !follow, monitorInput{monitorPath(in.Path, pf), pf}, monitorInput{monitorPath(in.Baseline, bf), bf})
	notify(ctx, plan.notice)
	return err
}

// avoidSpillIn keeps every spill of this run out of all its inputs: the
// monitor readers see only their own path, not the dump folders.
func avoidSpillIn(in Inputs) {
	ingest.AvoidSpillIn(in.Path, in.Baseline, in.DumpA, in.DumpB, in.DumpC, in.DumpD)
}

// readMonitorPlanned reads a monitor input as plan says.
func readMonitorPlanned(ctx context.Context, plan memPlan, path string, f model.Format, p model.ProgressFunc) (*model.MonitorData, error) {
	if plan.ooc != nil && monitorPath(path, f) != "" {
		return ingest.LoadMonitorOutOfCore(ctx, path, f, p, *plan.ooc)
	}
	return readMonitor(ctx, path, f, p)
}
