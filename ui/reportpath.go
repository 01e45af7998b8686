package ui

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Where `r` puts the report: never into the data (the working directory may
// be the run folder), never over an earlier report.
//
//	$XDG_STATE_HOME/spikescope/reports/<run>-<time>.md (or .html)
//	~/.local/state/spikescope/reports/<run>-<time>.md   (no XDG_STATE_HOME)
//
// A folder that lies inside an input folder (links resolved, folders
// compared by identity) is not used; the temp folder is then.

// DefaultReportDir is the folder of the TUI's reports.
func DefaultReportDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "spikescope", "reports")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".local", "state", "spikescope", "reports")
	}
	return filepath.Join(os.TempDir(), "spikescope-reports")
}

// reportFileName is <run>-<time><ext> (ext ".md" or ".html"), the run named after the title (the
// input path) without characters that are awkward in a file name.
func reportFileName(title string, now time.Time, n int, ext string) string {
	run := filepath.Base(strings.TrimRight(title, "/"))
	for _, suf := range []string{".trend.db", ".db", ".csv", ".json"} {
		run = strings.TrimSuffix(run, suf)
	}
	run = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
			return r
		}
		return '-'
	}, run)
	run = strings.Trim(run, "-.")
	if run == "" {
		run = "run"
	}
	if len(run) > 64 {
		run = run[:64]
	}
	name := run + "-" + now.Format("20060102-150405")
	if n > 1 {
		name += fmt.Sprintf("-%d", n)
	}
	return name + ext
}

// insideInput reports whether dir is an input folder or lies inside one
// (an input file's folder counts: the run folder of a trend.db).
func insideInput(dir string, inputs []Input) bool {
	real := dir
	if p, err := filepath.EvalSymlinks(dir); err == nil {
		real = p
	}
	for _, in := range inputs {
		if in.Path == "" || strings.HasPrefix(in.Path, "embedded:") {
			continue
		}
		ist, err := os.Stat(in.Path)
		if err != nil {
			continue
		}
		folder := in.Path
		if !ist.IsDir() {
			folder = filepath.Dir(in.Path)
			if ist, err = os.Stat(folder); err != nil {
				continue
			}
		}
		for d := real; ; d = filepath.Dir(d) {
			if st, err := os.Stat(d); err == nil && os.SameFile(st, ist) {
				return true
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return false
}

// writeReportFile picks the report's path (ending in ext, which tells the
// backend the format) and writes it through b, never
// over an existing file (a clash takes the next number). It runs in a
// tea.Cmd: all file-system work is here, none in Update.
func writeReportFile(ctx context.Context, b Backend, d *Data, dir, title string, inputs []Input, now time.Time, ext string) (string, error) {
	dir, err := reportFolder(dir, inputs)
	if err != nil {
		return "", err
	}
	for n := 1; n <= 1000; n++ {
		path := filepath.Join(dir, reportFileName(title, now, n, ext))
		err := b.WriteReport(ctx, d, path)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return path, err
	}
	return "", fmt.Errorf("%s: too many reports with the same name", dir)
}

// reportFolder is where reports and plans go: dir, else the state folder;
// never inside an input folder (the temp folder then); made when missing.
func reportFolder(dir string, inputs []Input) (string, error) {
	if dir == "" {
		dir = DefaultReportDir()
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	if insideInput(dir, inputs) {
		dir = filepath.Join(os.TempDir(), "spikescope-reports")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create the report folder %s: %w", dir, err)
	}
	return dir, nil
}
