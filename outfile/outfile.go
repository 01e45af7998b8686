// Package outfile writes spikescope's output files (-o) so that they never
// harm an input: a path that is, links to or lies inside an input is
// refused, and a file is replaced only once its new content is complete.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"spikescope/ingest"
)

// RefuseInput is the -o check every command makes before it reads
// anything: the output must not be one of the inputs (nor a link to one, nor
// a hard link: files are compared by identity), nor lie inside an input
// folder, nor be the journal or write-ahead log of an input database. A
// refusal is an *ingest.InputError (bad usage: exit 2). Empty paths are
// skipped.
func RefuseInput(out string, inputs ...string) error {
	if out == "" {
		return nil
	}
	o := resolveOutput(out)
	for _, in := range inputs {
		if in == "" || strings.HasPrefix(in, "embedded:") {
			continue
		}
		if why := outputHitsInput(o, in); why != "" {
			return &ingest.InputError{Path: out, Problem: "refusing to write the output here: " + why + "; choose another -o path"}
		}
	}
	return nil
}

// resolvedOutput is an output path with links resolved as far as they go.
type resolvedOutput struct {
	path string      // absolute, symlinks resolved (the file itself may not exist)
	info os.FileInfo // the existing file, else nil
}

func resolveOutput(out string) resolvedOutput {
	abs, err := filepath.Abs(out)
	if err != nil {
		abs = out
	}
	r := resolvedOutput{path: abs}
	if p, err := filepath.EvalSymlinks(abs); err == nil {
		r.path = p
	} else if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		r.path = filepath.Join(dir, filepath.Base(abs))
	}
	if st, err := os.Stat(r.path); err == nil {
		r.info = st
	}
	return r
}

// outputHitsInput says why o may not be written (the input in), or "".
func outputHitsInput(o resolvedOutput, in string) string {
	ist, err := os.Stat(in)
	if err != nil {
		return ""
	}
	if o.info != nil && os.SameFile(o.info, ist) {
		if ist.IsDir() {
			return fmt.Sprintf("it is the input folder %s", in)
		}
		return fmt.Sprintf("it is the input file %s", in)
	}
	if ist.IsDir() {
		// walk up from the output's folder, comparing by identity
		for dir := filepath.Dir(o.path); ; dir = filepath.Dir(dir) {
			if dst, err := os.Stat(dir); err == nil && os.SameFile(dst, ist) {
				return fmt.Sprintf("it is inside the input folder %s", in)
			}
			if parent := filepath.Dir(dir); parent == dir {
				break
			}
		}
		return ""
	}
	// a database's companions: writing one would fake a journal or log
	rin, err := filepath.EvalSymlinks(in)
	if err != nil {
		return ""
	}
	if ra, err := filepath.Abs(rin); err == nil {
		rin = ra
	}
	for _, suf := range []string{"-journal", "-wal", "-shm"} {
		if o.path == rin+suf {
			return fmt.Sprintf("it is the %s file of the input database %s", suf[1:], in)
		}
	}
	return ""
}

// Write writes data (what: "output", "report") to out through a temporary
// file in the same folder, renamed over out once complete: a failed or interrupted run never
// leaves half a file, and an earlier output stays whole until the new one is
// ready. A link at out is followed (its target is replaced); an existing
// file keeps its permissions.
func Write(out, what string, data []byte) error {
	cannot := "cannot write the " + what + ": "
	target := out
	if p, err := filepath.EvalSymlinks(out); err == nil {
		target = p
	}
	perm := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		if st.IsDir() {
			return &ingest.InputError{Path: out, Problem: cannot + "is a folder"}
		}
		if !st.Mode().IsRegular() {
			return &ingest.InputError{Path: out, Problem: cannot + "not a regular file"}
		}
		perm = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*.tmp")
	if err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	if err := tmp.Chmod(perm); err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	if err := tmp.Sync(); err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	if err := tmp.Close(); err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	if err := os.Rename(tmp.Name(), target); err != nil {
		return &ingest.InputError{Path: out, Problem: cannot + RootCause(err), Err: err}
	}
	done = true
	return nil
}

// RootCause is the last part of an os error ("permission denied").
func RootCause(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
