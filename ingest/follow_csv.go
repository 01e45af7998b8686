package ingest

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"spikescope/model"
)

// csvFollower follows a monitor CSV tree (or one file) that a training job
// is still writing. After the first full read it polls: every poll lists
// the tree again (new step-bucket files, new _part_N files, new rank
// folders) and stats every file; a file whose size or time changed is read
// from the end of its last complete line to the end of its current last
// complete line, so old rows are never parsed twice and a half-written
// line waits for the next poll. The new bytes are parsed by parseCSV
// behind the file's own header line and merged through csvMerger, like a
// full load.
//
// A file that shrinks or is replaced (a different inode) cannot be
// appended to: the tree is read again from the start, with a warning. So
// is a tree where a rank has several run folders (a restarted job): the
// latest run's rows win per step, which needs the whole tree.
type csvFollower struct {
	path   string
	single bool
	m      *csvMerger
	files  map[string]*followFile
	// warnings are the first read's (the tree's shape, skipped files);
	// later problems go out with their poll.
	warnings []model.Reason
	// wholeTree: some rank has several run folders, every change re-reads
	// the tree (see above).
	wholeTree bool
	escaped   int       // targets whose names were escaped so far
	lastWrite time.Time // the newest modification time seen
}

// followFile is one CSV of a followed tree and how far it was read.
type followFile struct {
	f      csvFile
	info   os.FileInfo // at the last read: identity (inode), size, time
	offset int64       // bytes read: the end of the last complete line
	lines  int         // complete lines read, the header's included
	header []byte      // the header line with its newline; nil until complete
	tail   []byte      // the last bytes before offset, as they were read
	// failed: the file could not be read; it is tried again when it changes.
	failed bool
}

// errFollowRestart asks for the tree to be read again from the start.
type errFollowRestart struct{ why model.Reason }

func (e *errFollowRestart) Error() string { return "follow: read again (" + e.why.Rule() + ")" }

func newCSVFollower(ctx context.Context, path string, p model.ProgressFunc) (*csvFollower, error) {
	c := &csvFollower{path: path}
	if err := c.readAll(ctx, p); err != nil {
		return nil, err
	}
	return c, nil
}

// readAll reads the tree from the start (the first pass, or after a file
// was replaced).
func (c *csvFollower) readAll(ctx context.Context, p model.ProgressFunc) error {
	disc, err := findMonitorCSVs(c.path)
	if err != nil {
		return err
	}
	if len(disc.files) == 0 {
		if disc.seen == 0 {
			return inputErr(c.path, nil, "empty folder")
		}
		return inputErr(c.path, nil, "no monitor CSV file (<metric>_<a>-<b>.csv or <slug>_step<a>-<b>.csv) among %d file(s)", disc.seen)
	}
	if len(disc.runOrder) > 0 {
		// the full loader drops a restarted rank's superseded rows; the
		// files are stat'ed first, so that what the job writes during the
		// read counts as unread (the next poll reads the tree again)
		stats := make([]os.FileInfo, len(disc.files))
		for i, f := range disc.files {
			stats[i], _ = os.Stat(f.path)
		}
		d, err := LoadCSV(ctx, c.path, p)
		if err != nil {
			return err
		}
		c.resetFrom(disc, stats, d)
		c.wholeTree = true
		return nil
	}
	var total int64
	for _, f := range disc.files {
		total += f.size
	}
	meter := newProgressMeter(p, c.path, "bytes", total)
	meter.add(0)
	c.single, c.wholeTree, c.escaped = disc.single, false, 0
	c.m = &csvMerger{d: &model.MonitorData{Path: c.path, Format: model.FormatCSV}, totalBytes: total,
		targets: map[targetKey]int32{}, metrics: map[string]uint8{}}
	c.files = map[string]*followFile{}
	ffs := make([]*followFile, len(disc.files))
	for i, f := range disc.files {
		ffs[i] = &followFile{f: f}
		c.files[f.path] = ffs[i]
	}
	res, errs := readFollowFiles(ctx, ffs, meter)
	meter.finish()
	if err := ctx.Err(); err != nil {
		return err
	}
	skip := &csvSkips{}
	for i, ff := range ffs {
		if errs[i] != nil {
			var ie *InputError
			if c.single || !errors.As(errs[i], &ie) {
				return errs[i]
			}
			ff.failed = true
			skip.errs = append(skip.errs, errs[i])
			continue
		}
		if res[i] != nil {
			if err := c.m.add(ff.f, res[i]); err != nil {
				return err
			}
		}
	}
	d := c.m.d
	c.warnings = append(slices.Clone(disc.warnings), d.WarningsReasons...)
	d.WarningsReasons = nil
	if len(skip.errs) > 0 {
		if len(skip.errs) == len(disc.files) {
			return inputErr(c.path, skip.errs[0], "none of the %d monitor CSV files could be read; the first: %v", len(disc.files), skip.errs[0])
		}
		c.warnings = append(skip.warnings(len(disc.files)), c.warnings...)
	}
	c.warnings = append(c.warnings, c.escapeNew()...)
	for _, ff := range ffs {
		c.seenWrite(ff.info)
	}
	return nil
}

// seenWrite notes a file's modification time (nil: not read).
func (c *csvFollower) seenWrite(st os.FileInfo) {
	if st != nil && st.ModTime().After(c.lastWrite) {
		c.lastWrite = st.ModTime()
	}
}

func (c *csvFollower) LastWrite() time.Time { return c.lastWrite }

// resetFrom takes a tree read whole by LoadCSV: every file counts as read
// to where it was before the read (stats, nil when it could not be
// stat'ed).
func (c *csvFollower) resetFrom(disc *discovery, stats []os.FileInfo, d *model.MonitorData) {
	c.single = disc.single
	c.m = &csvMerger{d: d, targets: map[targetKey]int32{}, metrics: map[string]uint8{}}
	c.files = map[string]*followFile{}
	for i, f := range disc.files {
		ff := &followFile{f: f, offset: f.size}
		if st := stats[i]; st != nil {
			ff.info, ff.offset = st, st.Size()
			c.seenWrite(st)
		}
		c.files[f.path] = ff
	}
	c.warnings, d.WarningsReasons = d.WarningsReasons, nil
	c.escaped = 0
	c.warnings = append(c.warnings, c.escapeNew()...)
}

// readFollowFiles reads files from their offsets on GOMAXPROCS goroutines.
func readFollowFiles(ctx context.Context, ffs []*followFile, meter *progressMeter) ([]*csvResult, []error) {
	res := make([]*csvResult, len(ffs))
	errs := make([]error, len(ffs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(ffs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				if errs[i] = ctx.Err(); errs[i] == nil {
					res[i], errs[i] = ffs[i].readNew(ctx, meter)
				}
			}
		}()
	}
	for i := range ffs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return res, errs
}

// escapeNew escapes control characters in the names of targets added since
// the last call (LoadMonitor does it for a full load).
func (c *csvFollower) escapeNew() []model.Reason {
	d := c.m.d
	n, first := 0, ""
	for i := c.escaped; i < len(d.Targets); i++ {
		if e, ok := EscapeControl(d.Targets[i].Name); ok {
			if n == 0 {
				first = e
			}
			d.Targets[i].Name = e
			n++
		}
	}
	c.escaped = len(d.Targets)
	if n == 0 {
		return nil
	}
	return []model.Reason{model.NamesEscaped{Count: n, First: first}}
}

// Data is a view of the rows read so far. Rows are only ever appended, so
// the view stays valid (and unchanged) while later polls add rows.
func (c *csvFollower) Data() *model.MonitorData {
	d := *c.m.d
	d.MicroOneBased = maps.Clone(d.MicroOneBased)
	d.Warnings = nil
	d.WarningsReasons = slices.Clone(c.warnings)
	d.WarningsReasons = append(d.WarningsReasons, statCoverageWarnings(&d)...)
	return &d
}

// Poll reads what was written since the last poll.
func (c *csvFollower) Poll(ctx context.Context) (FollowPoll, error) {
	var out FollowPoll
	disc, err := findMonitorCSVs(c.path)
	if err != nil {
		out.Warnings = append(out.Warnings, model.FollowListFailed{Err: err.Error()})
		return out, nil
	}
	if len(disc.runOrder) > 0 && !c.wholeTree {
		return c.restart(ctx, out, model.FollowNewRunFolder{Path: c.path})
	}
	var changed []*followFile
	for _, f := range disc.files {
		ff, known := c.files[f.path]
		st, err := os.Stat(f.path)
		if err != nil {
			continue // gone between the listing and now: the next poll tells
		}
		c.seenWrite(st)
		if !known {
			ff = &followFile{f: f}
			c.files[f.path] = ff
		} else if ff.info != nil && os.SameFile(ff.info, st) && st.Size() == ff.info.Size() && st.ModTime().Equal(ff.info.ModTime()) {
			continue
		}
		// every truncation is one case: emptied, cut shorter or replaced,
		// rows already read may be gone (a file emptied to 0 bytes too)
		if why := ff.cut(st); why != nil {
			return c.restart(ctx, out, why)
		}
		if st.Size() == 0 {
			continue // created, nothing written yet
		}
		if c.wholeTree {
			return c.restart(ctx, out, nil)
		}
		ff.f.size = st.Size()
		changed = append(changed, ff)
	}
	before := c.m.d.Rows.Len()
	for _, ff := range changed {
		r, err := ff.readNew(ctx, nil)
		if err != nil {
			if ctx.Err() != nil {
				return out, ctx.Err()
			}
			var rs *errFollowRestart
			if errors.As(err, &rs) {
				return c.restart(ctx, out, rs.why)
			}
			ff.failed = true
			out.Warnings = append(out.Warnings, model.FollowSkippedNew{Err: err.Error()})
			continue
		}
		if r == nil {
			continue
		}
		if err := c.m.add(ff.f, r); err != nil {
			out.Warnings = append(out.Warnings, model.FollowSkippedNew{Err: err.Error()})
			continue
		}
		out.Warnings = append(out.Warnings, c.m.d.WarningsReasons...)
		c.m.d.WarningsReasons = c.m.d.WarningsReasons[:0]
	}
	out.Warnings = append(out.Warnings, c.escapeNew()...)
	out.NewRows = c.m.d.Rows.Len() - before
	out.Changed = out.NewRows > 0
	return out, nil
}

// restart reads the tree again from the start, saying why.
func (c *csvFollower) restart(ctx context.Context, out FollowPoll, why model.Reason) (FollowPoll, error) {
	if why != nil {
		out.Warnings = append(out.Warnings, why)
	}
	keep := *c
	if err := c.readAll(ctx, nil); err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		*c = keep
		out.Warnings = append(out.Warnings, model.FollowRereadFailed{Err: err.Error()})
		return out, nil
	}
	out.Changed, out.Reread, out.NewRows = true, true, c.m.d.Rows.Len()
	return out, nil
}

// followTailBlock is how far back a read looks at a time for the last
// newline of a file.
const followTailBlock = 64 << 10

// readNew parses the complete lines written since the last read; nil when
// there are none. A partly written last line is left for the next read.
func (ff *followFile) readNew(ctx context.Context, meter *progressMeter) (*csvResult, error) {
	if st, err := os.Stat(ff.f.path); err == nil {
		if why := ff.cut(st); why != nil {
			return nil, &errFollowRestart{why}
		}
		if st.Size() == 0 {
			return nil, nil // created, nothing written yet
		}
	}
	fh, st, err := OpenInputFile(ff.f.path, "CSV", 0)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if why := ff.cut(st); why != nil {
		return nil, &errFollowRestart{why}
	}
	ff.info = st
	end, err := lastLineEnd(fh, ff.offset, st.Size())
	if err != nil {
		return nil, inputErr(ff.f.path, err, "cannot read: %v", unwrapPathError(err))
	}
	if end <= ff.offset {
		return nil, nil
	}
	ff.failed = false
	if ff.header == nil {
		hdr, err := bufio.NewReader(io.LimitReader(io.NewSectionReader(fh, 0, end), csvMaxLineBytes+1)).ReadBytes('\n')
		if err != nil {
			if err == io.EOF {
				err = errCSVLineTooLong
			}
			return nil, csvParseError(ff.f.path, err)
		}
		ff.header = hdr
		if end == int64(len(hdr)) { // a header and nothing else yet
			ff.offset, ff.lines = end, 1
			return nil, nil
		}
		nl := &newlineCounter{r: io.NewSectionReader(fh, 0, end), meter: meter}
		r, err := parseCSV(ctx, ff.f, nl, end)
		if err != nil {
			return nil, err
		}
		ff.offset, ff.lines = end, nl.n
		ff.keepTail(fh)
		return r, nil
	}
	// appended after a complete line, or the file was written anew in place
	// (truncated and refilled past the old end): then read it again. The
	// header and the last line read must still be there, byte for byte.
	if !ff.sameAt(fh, 0, ff.header) || !ff.sameAt(fh, ff.offset-int64(len(ff.tail)), ff.tail) {
		return nil, &errFollowRestart{model.FollowWrittenAnew{Path: ff.f.path, Line: ff.lines}}
	}
	nl := &newlineCounter{r: io.NewSectionReader(fh, ff.offset, end-ff.offset), meter: meter}
	r, err := parseCSVAppended(ctx, ff.f, ff.header, nl, int64(len(ff.header))+end-ff.offset)
	shift := ff.lines - 1 // line 2 of the chunk is line ff.lines+1 of the file
	if err != nil {
		return nil, shiftErrorLines(err, shift)
	}
	for i, w := range r.warnings {
		r.warnings[i] = shiftReasonLines(w, shift)
	}
	ff.offset, ff.lines = end, ff.lines+nl.n
	ff.keepTail(fh)
	return r, nil
}

// followTailBytes is how much of what a file held before its read offset
// is kept to recognise the same file on the next poll.
const followTailBytes = 256

// cut says why the file at st cannot be what was read of it: it was
// replaced (another inode) or is shorter than what was read (emptied or cut
// shorter); nil when it may have been appended to.
func (ff *followFile) cut(st os.FileInfo) model.Reason {
	if ff.info == nil || ff.offset == 0 {
		return nil
	}
	replaced := !os.SameFile(ff.info, st)
	if !replaced && st.Size() >= ff.offset {
		return nil
	}
	return model.FollowCut{Path: ff.f.path, Replaced: replaced, Before: ff.offset, Now: st.Size()}
}

// keepTail keeps the last bytes before the read offset.
func (ff *followFile) keepTail(fh io.ReaderAt) {
	from := max(0, ff.offset-followTailBytes)
	buf := make([]byte, ff.offset-from)
	if n, _ := fh.ReadAt(buf, from); n == len(buf) {
		ff.tail = buf
	} else {
		ff.tail = nil
	}
}

// sameAt reports whether fh holds want at off.
func (ff *followFile) sameAt(fh io.ReaderAt, off int64, want []byte) bool {
	if len(want) == 0 {
		return true
	}
	got := make([]byte, len(want))
	n, _ := fh.ReadAt(got, off)
	return n == len(got) && bytes.Equal(got, want)
}

// lastLineEnd is the offset just after the last newline of the file in
// [from, size), or from when there is none. It reads backwards from size
// in blocks; a line longer than csvMaxLineBytes is not waited for (the
// parser then names it).
func lastLineEnd(f io.ReaderAt, from, size int64) (int64, error) {
	// no larger than the bytes to look at: a first read of a tree of
	// small files would allocate a block per file
	buf := make([]byte, max(0, min(followTailBlock, size-from)))
	for hi := size; hi > from; {
		lo := max(from, hi-followTailBlock)
		n, err := f.ReadAt(buf[:hi-lo], lo)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			return lo + int64(i) + 1, nil
		}
		if size-lo > csvMaxLineBytes {
			return size, nil
		}
		hi = lo
	}
	return from, nil
}

// newlineCounter counts the newlines (complete lines) it passes on, and
// reports the bytes to a progress meter (nil: none).
type newlineCounter struct {
	r     io.Reader
	n     int
	meter *progressMeter
}

func (c *newlineCounter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += bytes.Count(p[:n], []byte{'\n'})
	if c.meter != nil {
		c.meter.add(int64(n))
	}
	return n, err
}

// lineRE finds the line numbers parseCSV's messages give.
var lineRE = regexp.MustCompile(`\bline (\d+)\b`)

// shiftLines adds shift to every line number of a message about path
// (after the path, which may hold anything), so that a line of an
// appended chunk is named by its line in the file.
func shiftLines(msg, path string, shift int) string {
	head := ""
	if strings.HasPrefix(msg, path) {
		head, msg = msg[:len(path)], msg[len(path):]
	}
	return head + lineRE.ReplaceAllStringFunc(msg, func(s string) string {
		n, err := strconv.Atoi(s[len("line "):])
		if err != nil || n < 2 {
			return s // line 1 is the header, the file's own
		}
		return "line " + strconv.Itoa(n+shift)
	})
}

// shiftReasonLines shifts the line numbers of a warning about lines of a
// chunk read from a file's middle to the file's own.
func shiftReasonLines(r model.Reason, shift int) model.Reason {
	switch w := r.(type) {
	case model.CSVIncompleteLine:
		if w.Line >= 2 {
			w.Line += shift
		}
		return w
	case model.CSVBadLines:
		w.Problems = slices.Clone(w.Problems)
		for i, p := range w.Problems {
			w.Problems[i] = shiftLines(p, "", shift)
		}
		return w
	}
	return r
}

// shiftErrorLines shifts the line numbers of an InputError's problem.
func shiftErrorLines(err error, shift int) error {
	var ie *InputError
	if !errors.As(err, &ie) {
		return err
	}
	c := *ie
	c.Problem = shiftLines(ie.Problem, "", shift)
	return &c
}
