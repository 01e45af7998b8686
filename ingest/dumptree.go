package ingest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"spikescope/model"
)

// File names msprobe writes into every rank folder.
const (
	dumpFileName      = "dump.json"
	constructFileName = "construct.json"
	stackFileName     = "stack.json"
)

// maxParallelDumps bounds how many dump.json files are read at once: each is
// held in memory whole while it is parsed.
const maxParallelDumps = 4

// dumpJob is one dump.json found by the tree walk.
type dumpJob struct {
	dir  string // folder holding dump.json
	file string // the dump.json path
	step int    // -1 without a step level
	rank int    // -1 until proc folders are mapped
	proc string // "proc2016" for a proc folder
	mode string // "graph" / "pynative" level, else ""
	size int64
}

// LoadDumpTree reads msprobe dump statistics at path: a dump.json file, a
// folder holding dump.json, or a tree
//
//	[graph|pynative/] [step<N>/] rank<N>|rank|proc<pid> / dump.json (+ construct.json, stack.json)
//
// Steps sort numerically; a bare "rank" folder is rank 0; proc<pid> folders
// (no rank known) get the ranks after the largest real rank of the tree, in
// pid order, the same rank for the same pid in every step. A step folder
// where a rank folder should be (msprobe's own test input step1/step1/) is
// read as rank 0 when the step has no rank folder, else skipped; both warn.
// Dumps come back sorted by (Step, Rank). progress gets bytes of dump.json
// parsed over their total size. A dump.json that fails in a tree of several
// is skipped with a warning; when every one fails the first error returns.
// Tree.Warnings repeats the warnings of its dumps.
func LoadDumpTree(ctx context.Context, path string, progress model.ProgressFunc) (*model.DumpTree, error) {
	tree := &model.DumpTree{Path: path}
	jobs, warns, err := findDumps(path)
	tree.WarningsReasons = append(tree.WarningsReasons, warns...)
	if err != nil {
		return nil, err
	}
	var total int64
	for _, j := range jobs {
		total += j.size
	}
	var done atomic.Int64
	var reportMu sync.Mutex
	reported := int64(-1)
	report := func() { // serialised and monotonic although workers race
		if progress == nil {
			return
		}
		reportMu.Lock()
		defer reportMu.Unlock()
		if n := done.Load(); n > reported {
			reported = n
			progress(model.Progress{Input: path, Done: n, Total: total, Unit: "bytes"})
		}
	}
	report()

	dumps := make([]*model.Dump, len(jobs))
	errs := make([]error, len(jobs))
	workers := min(maxParallelDumps, runtime.GOMAXPROCS(0), len(jobs))
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(jobs) || ctx.Err() != nil {
					return
				}
				counted := int64(0)
				add := func(pos int) {
					if d := int64(pos) - counted; d > 0 {
						counted += d
						done.Add(d)
						report()
					}
				}
				dumps[i], errs[i] = loadDumpJob(ctx, jobs[i], add)
				add(int(jobs[i].size))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var firstErr error
	for i, e := range errs {
		if e == nil {
			tree.Dumps = append(tree.Dumps, dumps[i])
			tree.WarningsReasons = append(tree.WarningsReasons, dumps[i].WarningsReasons...)
			continue
		}
		if errors.Is(e, context.Canceled) || errors.Is(e, context.DeadlineExceeded) {
			return nil, e
		}
		if firstErr == nil {
			firstErr = e
		}
		tree.WarningsReasons = append(tree.WarningsReasons, model.DumpSkipped{Err: e.Error()})
	}
	if len(tree.Dumps) == 0 {
		return nil, firstErr
	}
	sortDumps(tree.Dumps)
	tree.WarningsReasons = append(tree.WarningsReasons, duplicateDumpWarnings(tree.Dumps)...)
	return tree, nil
}

// duplicateDumpWarnings names (step, rank) pairs that more than one folder
// gave (e.g. "rank" and "rank0"): Find returns the first.
func duplicateDumpWarnings(ds []*model.Dump) []model.Reason {
	var out []model.Reason
	for i := 1; i < len(ds); i++ {
		a, b := ds[i-1], ds[i]
		if a.Step == b.Step && a.Rank == b.Rank && a.Mode == b.Mode {
			out = append(out, model.DumpSameStepRank{A: a.Path, B: b.Path, Step: a.Step, Rank: a.Rank})
		}
	}
	return out
}

// loadDumpJob reads one dump.json with the construct.json and stack.json
// beside it. Problems with those two only warn: they are for display and
// parent links.
func loadDumpJob(ctx context.Context, j dumpJob, progress func(int)) (*model.Dump, error) {
	buf, err := readDumpFile(j.file)
	if err != nil {
		return nil, err
	}
	d, err := parseDumpJSON(ctx, buf, j.file, progress)
	if err != nil {
		return nil, err
	}
	d.Path, d.Step, d.Rank, d.Proc, d.Mode = j.dir, j.step, j.rank, j.proc, j.mode
	if b, present, err := readSideFile(filepath.Join(j.dir, constructFileName)); present {
		d.HasConstruct = true
		var nodes map[string]constructNode
		if err == nil {
			nodes, err = parseConstructJSON(b)
		}
		if err != nil {
			d.WarningsReasons = append(d.WarningsReasons, model.DumpSideIgnored{Path: filepath.Join(j.dir, constructFileName), Err: err.Error()})
		} else {
			applyConstruct(d, nodes)
		}
	}
	if b, present, err := readSideFile(filepath.Join(j.dir, stackFileName)); present {
		d.HasStack = true
		var stacks map[string][]string
		if err == nil {
			stacks, err = parseStackJSON(b)
		}
		if err == nil {
			d.Stacks = stacks
		}
		if err != nil {
			d.WarningsReasons = append(d.WarningsReasons, model.DumpSideIgnored{Path: filepath.Join(j.dir, stackFileName), Err: err.Error()})
		}
	}
	escapeDumpNames(d)
	return d, nil
}

// readDumpFile reads dump.json whole, with InputErrors naming the problem.
func readDumpFile(file string) ([]byte, error) {
	fi, err := os.Stat(file)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, statError(file, err)
	case err != nil:
		return nil, inputErr(file, err, "cannot read: %v", dumpPathErr(err))
	case fi.IsDir():
		return nil, inputErr(file, nil, "cannot read: is a directory, not a file")
	case !fi.Mode().IsRegular():
		return nil, notRegular(file, fi)
	case fi.Size() == 0:
		return nil, inputErr(file, nil, "empty file (0 bytes): not an msprobe dump.json")
	case fi.Size() > maxDumpJSONBytes:
		return nil, inputErr(file, nil, "%.1f GB is over the %d GiB a dump.json may have (it is read whole into memory; a statistics dump of one step is normally well under 1 GB: dump fewer steps, ranks or a lower level)", float64(fi.Size())/1e9, maxDumpJSONBytes>>30)
	}
	f, st, err := OpenInputFile(file, "dump.json", maxDumpJSONBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := sniffJSONObject(f, file, st.Size()); err != nil {
		return nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, inputErr(file, err, "cannot read: %v", dumpPathErr(err))
	}
	buf, err := readAllLimited(f, file, "dump.json", st.Size(), maxDumpJSONBytes)
	if err != nil {
		return nil, err
	}
	if len(buf) == 0 {
		return nil, inputErr(file, nil, "empty file (0 bytes): not an msprobe dump.json")
	}
	return buf, nil
}

// maxDumpJSONBytes bounds the size of one dump.json: it is parsed from
// memory, and with up to maxParallelDumps of them at once a larger file
// risks exhausting memory on an ordinary workstation.
const maxDumpJSONBytes = 4 << 30

// dumpSniffBytes is how much of a dump.json's start is checked before the
// whole file is read.
const dumpSniffBytes = 4096

// dumpSniffRefuse is the size above which a dump.json that does not start
// with "{" is refused from its first bytes; smaller ones go to the parser,
// whose message says more (an array, a truncated value, ...).
const dumpSniffRefuse = 64 << 20

// sniffJSONObject checks the start of file (size bytes): binary data is
// refused at once, and so is a large file that does not start (after
// blanks and a BOM) with "{", without reading it all.
func sniffJSONObject(f io.Reader, file string, size int64) error {
	head := make([]byte, dumpSniffBytes)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return inputErr(file, err, "cannot read: %v", dumpPathErr(err))
	}
	head = bytes.TrimLeft(bytes.TrimPrefix(head[:n], []byte("\ufeff")), " \t\r\n")
	if len(head) == 0 && int64(n) == dumpSniffBytes {
		// blanks only so far: skip blanks without keeping them, so a
		// large file of blanks is refused without being read into memory
		if head, err = skipBlanks(f, file); err != nil {
			return err
		}
		if len(head) == 0 {
			return inputErr(file, nil, "holds only blanks (%s), not an msprobe dump.json", sizeText(size))
		}
	}
	if len(head) == 0 || head[0] == '{' {
		return nil
	}
	if isSQLiteHead(head) {
		return inputErr(file, nil, "is an SQLite database (a trend.db?), not an msprobe dump.json")
	}
	if r, _ := utf8.DecodeRune(head); head[0] == 0 || r == utf8.RuneError {
		return inputErr(file, nil, "binary data, not JSON: not an msprobe dump.json")
	}
	if size <= dumpSniffRefuse {
		return nil
	}
	return inputErr(file, nil, "does not start with '{' (starts with %q): not an msprobe dump.json", firstRunes(head, 12))
}

// skipBlanks reads f until its first non-blank byte and returns the rest
// of that chunk (empty at the end of the file).
func skipBlanks(f io.Reader, file string) ([]byte, error) {
	buf := make([]byte, 64<<10)
	for {
		n, err := f.Read(buf)
		if rest := bytes.TrimLeft(buf[:n], " \t\r\n"); len(rest) > 0 {
			return rest, nil
		}
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		if err != nil {
			return nil, inputErr(file, err, "cannot read: %v", dumpPathErr(err))
		}
	}
}

// firstRunes is the first n characters of b up to a line end or other
// control character, for a message.
func firstRunes(b []byte, n int) string {
	s := string(b)
	for i, r := range s {
		if n == 0 || r < ' ' || r == 0x7f {
			return s[:i]
		}
		n--
	}
	return s
}

// readSideFile reads construct.json / stack.json; present is false when the
// file is absent.
func readSideFile(file string) (b []byte, present bool, err error) {
	if _, err := os.Lstat(file); err != nil {
		return nil, false, nil
	}
	b, err = ReadInputFile(file, filepath.Base(file), MaxSideFileBytes)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			return nil, true, errors.New(ie.Problem)
		}
		return nil, true, err
	}
	return b, true, nil
}

// dumpPathErr drops the path from *fs.PathError: InputError adds it.
func dumpPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// folder name kinds
const (
	folderOther = iota
	folderMode  // graph, pynative
	folderStep  // step<N>
	folderBadStep
	folderRank // rank<N>, rank
	folderProc // proc<pid>
)

// classifyFolder tells what a folder name is and its number (-1 for none).
func classifyFolder(name string) (kind, n int) {
	switch {
	case name == "graph" || name == "pynative":
		return folderMode, -1
	case name == "rank":
		return folderRank, 0
	case strings.HasPrefix(name, "rank") && isDigits(name[4:]):
		return folderRank, atoiSat(name[4:])
	case strings.HasPrefix(name, "proc") && isDigits(name[4:]):
		return folderProc, atoiSat(name[4:])
	case strings.HasPrefix(name, "step") && isDigits(name[4:]):
		return folderStep, atoiSat(name[4:])
	case strings.HasPrefix(name, "step"):
		return folderBadStep, -1
	}
	return folderOther, -1
}

// folderEntry is a sub-folder with its classification.
type folderEntry struct {
	name string
	kind int
	n    int
}

// subFolders lists the folders in dir (following symbolic links), sorted by
// kind then number then name, and whether dir holds an entry named dump.json.
func subFolders(dir string) (subs []folderEntry, hasDump bool, nEntries int, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, 0, err
	}
	for _, e := range entries {
		if e.Name() == dumpFileName {
			hasDump = true
			continue
		}
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if fi, err := os.Stat(filepath.Join(dir, e.Name())); err == nil && fi.IsDir() {
				isDir = true
			}
		}
		if !isDir {
			continue
		}
		k, n := classifyFolder(e.Name())
		subs = append(subs, folderEntry{e.Name(), k, n})
	}
	sort.Slice(subs, func(i, j int) bool {
		a, b := subs[i], subs[j]
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		if a.n != b.n {
			return a.n < b.n
		}
		return a.name < b.name
	})
	return subs, hasDump, len(entries), nil
}

// treeWalker collects dump jobs and warnings.
type treeWalker struct {
	jobs  []dumpJob
	warns []model.Reason
}

// findDumps turns path into the list of dump.json files to read.
func findDumps(path string) ([]dumpJob, []model.Reason, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil, statError(path, err)
	case err != nil:
		return nil, nil, inputErr(path, err, "cannot read: %v", dumpPathErr(err))
	}
	w := &treeWalker{}
	if !fi.IsDir() {
		w.single(filepath.Dir(path), path)
		return w.finish(path)
	}
	subs, hasDump, nEntries, err := subFolders(path)
	if err != nil {
		return nil, nil, inputErr(path, err, "cannot read folder: %v", dumpPathErr(err))
	}
	if nEntries == 0 {
		return nil, nil, inputErr(path, nil, "empty folder: no dump.json (expected dump.json or step<N>/rank<N>/dump.json)")
	}
	if hasDump {
		w.single(path, filepath.Join(path, dumpFileName))
		return w.finish(path)
	}
	mode := ""
	if k, _ := classifyFolder(filepath.Base(path)); k == folderMode {
		mode = filepath.Base(path)
	}
	w.modeLevel(path, subs, mode)
	return w.finish(path)
}

// single is one dump.json given directly (or its folder): step and rank come
// from the folder names when they look like msprobe's (…/step3/rank5/).
func (w *treeWalker) single(dir, file string) {
	j := dumpJob{dir: dir, file: file, step: -1, rank: 0}
	base := filepath.Base(dir)
	parent := filepath.Base(filepath.Dir(dir))
	k, n := classifyFolder(base)
	switch k {
	case folderRank:
		j.rank = n
	case folderProc:
		j.proc = base
		j.rank = -1
	case folderStep:
		j.step = n // step<N>/dump.json without a rank level
	}
	if k == folderRank || k == folderProc {
		if pk, pn := classifyFolder(parent); pk == folderStep {
			j.step = pn
		}
	}
	w.jobs = append(w.jobs, j)
}

// modeLevel handles an optional graph/pynative level, then steps.
func (w *treeWalker) modeLevel(dir string, subs []folderEntry, mode string) {
	nMode := 0
	for _, s := range subs {
		if s.kind == folderMode {
			nMode++
			sub := filepath.Join(dir, s.name)
			ss, hasDump, _, err := subFolders(sub)
			if err != nil {
				w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderUnreadable, Err: fmt.Sprint(dumpPathErr(err))})
				continue
			}
			if hasDump {
				w.addJob(sub, -1, 0, "", s.name)
			}
			w.stepLevel(sub, ss, s.name, stepOf(sub))
		}
	}
	if nMode > 1 {
		w.warns = append(w.warns, model.DumpFolder{Path: dir, Kind: model.FolderBothModes})
	}
	w.stepLevel(dir, subs, mode, stepOf(dir))
}

// stepOf is N when dir itself is named step<N>, else -1.
func stepOf(dir string) int {
	if k, n := classifyFolder(filepath.Base(dir)); k == folderStep {
		return n
	}
	return -1
}

// stepLevel handles step<N> folders (and rank folders directly in dir, which
// get step dirStep: -1, or N when dir itself is step<N>).
func (w *treeWalker) stepLevel(dir string, subs []folderEntry, mode string, dirStep int) {
	if dirStep >= 0 { // dir is a step folder: step folders in it are odd rank folders
		w.rankLevel(dir, subs, dirStep, mode)
		return
	}
	for _, s := range subs {
		switch s.kind {
		case folderStep:
			sub := filepath.Join(dir, s.name)
			ss, hasDump, _, err := subFolders(sub)
			if err != nil {
				w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderUnreadable, Err: fmt.Sprint(dumpPathErr(err))})
				continue
			}
			if hasDump { // step<N>/dump.json: one rank, no rank level
				w.addJob(sub, s.n, 0, "", mode)
			}
			w.rankLevel(sub, ss, s.n, mode)
		case folderBadStep:
			w.warns = append(w.warns, model.DumpFolder{Path: filepath.Join(dir, s.name), Kind: model.FolderStepName})
		}
	}
	w.rankLevel(dir, subs, dirStep, mode)
}

// rankLevel adds the rank/proc folders of dir as dumps of the given step.
func (w *treeWalker) rankLevel(dir string, subs []folderEntry, step int, mode string) {
	nRanks := 0
	for _, s := range subs {
		if s.kind == folderRank || s.kind == folderProc {
			nRanks++
		}
	}
	for _, s := range subs {
		sub := filepath.Join(dir, s.name)
		switch s.kind {
		case folderRank, folderProc:
			if _, err := os.Lstat(filepath.Join(sub, dumpFileName)); err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderNoDump})
				} else { // an unreadable folder is not an empty one
					w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderCannotRead, Err: fmt.Sprint(dumpPathErr(err))})
				}
				continue
			}
			rank, proc := s.n, ""
			if s.kind == folderProc {
				rank, proc = -1, s.name
			}
			w.addJob(sub, step, rank, proc, mode)
		case folderStep:
			if step < 0 { // a step level, handled by stepLevel
				continue
			}
			if _, err := os.Lstat(filepath.Join(sub, dumpFileName)); err != nil {
				continue
			}
			if nRanks > 0 {
				w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderStepAsRank})
				continue
			}
			w.warns = append(w.warns, model.DumpFolder{Path: sub, Kind: model.FolderStepRank0})
			nRanks++
			w.addJob(sub, step, 0, "", mode)
		}
	}
}

func (w *treeWalker) addJob(dir string, step, rank int, proc, mode string) {
	w.jobs = append(w.jobs, dumpJob{dir: dir, file: filepath.Join(dir, dumpFileName), step: step, rank: rank, proc: proc, mode: mode})
}

// finish maps proc folders to ranks, sizes the files and checks that
// something was found.
func (w *treeWalker) finish(path string) ([]dumpJob, []model.Reason, error) {
	if len(w.jobs) == 0 {
		msg := "no dump.json found (expected dump.json, rank<N>/dump.json or step<N>/rank<N>/dump.json)"
		if len(w.warns) > 0 {
			if f, ok := w.warns[0].(model.DumpFolder); ok {
				msg += "; " + folderProblem(f)
			}
		}
		return nil, w.warns, inputErr(path, nil, "%s", msg)
	}
	mapProcRanks(w.jobs)
	for i := range w.jobs {
		if fi, err := os.Stat(w.jobs[i].file); err == nil && !fi.IsDir() {
			w.jobs[i].size = fi.Size()
		}
	}
	return w.jobs, w.warns, nil
}

// folderProblem is a skipped folder in the error's words (the error of a
// tree where nothing was found names the first).
func folderProblem(f model.DumpFolder) string {
	switch f.Kind {
	case model.FolderUnreadable:
		return fmt.Sprintf("%s: skipped: %s", f.Path, f.Err)
	case model.FolderStepName:
		return f.Path + ": skipped: step folder name is not step<N>"
	case model.FolderNoDump:
		return f.Path + ": skipped: no dump.json"
	case model.FolderCannotRead:
		return fmt.Sprintf("%s: skipped: cannot read the folder: %s", f.Path, f.Err)
	case model.FolderStepAsRank:
		return f.Path + ": skipped: a step folder where a rank folder should be"
	case model.FolderStepRank0:
		return f.Path + ": a step folder where a rank folder should be: read as rank 0"
	case model.FolderBothModes:
		return f.Path + ": both graph and pynative dumps present: each dump keeps its Mode"
	}
	return f.Path + ": skipped"
}

// mapProcRanks gives proc<pid> folders the ranks after the largest real rank,
// in pid order; one pid keeps its rank across steps.
func mapProcRanks(jobs []dumpJob) {
	maxRank := -1
	var pids []int
	seen := map[int]bool{}
	for _, j := range jobs {
		if j.proc == "" {
			maxRank = max(maxRank, j.rank)
			continue
		}
		pid, _ := strconv.Atoi(j.proc[len("proc"):])
		if !seen[pid] {
			seen[pid] = true
			pids = append(pids, pid)
		}
	}
	sort.Ints(pids)
	rankOf := map[int]int{}
	for i, pid := range pids {
		rankOf[pid] = maxRank + 1 + i
	}
	for i := range jobs {
		if jobs[i].proc != "" {
			pid, _ := strconv.Atoi(jobs[i].proc[len("proc"):])
			jobs[i].rank = rankOf[pid]
		}
	}
}

// sortDumps orders dumps by (Step, Rank, Mode, Path).
func sortDumps(ds []*model.Dump) {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if a.Step != b.Step {
			return a.Step < b.Step
		}
		if a.Rank != b.Rank {
			return a.Rank < b.Rank
		}
		if a.Mode != b.Mode {
			return a.Mode < b.Mode
		}
		return a.Path < b.Path
	})
}
