package ingest

// Where a spill file may go: never into an input of the run (its folder,
// symbolic links followed), for the in-memory spill of min/max/mean, the
// out-of-core read and the pipeline's memory check alike.

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"spikescope/spill"
)

// avoided are folders no spill file may go into besides the input being
// read: the run's other inputs (dump folders), which the monitor reader
// does not see. Kept for the process's life (more is only safer).
var avoided struct {
	sync.Mutex
	paths []string
}

// AvoidSpillIn adds paths (a run's dump folders) to the folders every
// later spill stays out of; "" is ignored.
func AvoidSpillIn(paths ...string) {
	avoided.Lock()
	defer avoided.Unlock()
	for _, p := range paths {
		if p != "" && !slices.Contains(avoided.paths, p) {
			avoided.paths = append(avoided.paths, p)
		}
	}
}

// SpillInputWithin is the input or avoided folder (AvoidSpillIn) that
// dir lies within, "" when none.
func SpillInputWithin(dir string, inputs ...string) string {
	for _, in := range inputs {
		if insideInput(dir, in) {
			return in
		}
	}
	avoided.Lock()
	others := slices.Clone(avoided.paths)
	avoided.Unlock()
	for _, in := range others {
		// an earlier input no longer there holds nothing to protect (and
		// would count as everything: insideInput errs on the safe side)
		if _, err := os.Stat(in); err == nil && insideInput(dir, in) {
			return in
		}
	}
	return ""
}

// SpillDirFor is the spill folder for reading inputs: the first of
// spill.Candidates outside every one of them and every avoided folder
// (AvoidSpillIn), "" when none is.
func SpillDirFor(inputs ...string) string {
	for _, d := range spill.Candidates() {
		if SpillInputWithin(d, inputs...) == "" {
			return d
		}
	}
	return ""
}

// insideInput reports whether dir is the input's folder (input itself when
// it is a folder, else the folder holding it) or inside it; a path that
// cannot be resolved counts as inside (no spill beside an input, ever).
func insideInput(dir, input string) bool {
	if input == "" {
		return false
	}
	in := input
	if st, err := os.Stat(input); err != nil {
		return true
	} else if !st.IsDir() {
		in = filepath.Dir(input)
	}
	a, err1 := resolved(dir)
	b, err2 := resolved(in)
	if err1 != nil || err2 != nil {
		return true
	}
	rel, err := filepath.Rel(b, a)
	return err != nil || !(rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)))
}

// resolved is path absolute, with symbolic links followed.
func resolved(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		return p, nil
	} else if errors.Is(err, os.ErrNotExist) {
		return abs, nil
	}
	return "", err
}
