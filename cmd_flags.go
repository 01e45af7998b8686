package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"spikescope/memlimit"
	"spikescope/model"
)

// checkFormat is the --format check shared by the subcommands that load a
// monitor or dump path: nil for a known format, else a usage error of cmd
// that quotes the flag's value as given.
func checkFormat(cmd string, f model.Format, given string) error {
	if f.Known() {
		return nil
	}
	return cmdError(cmd, fmt.Sprintf("unknown --format %q (want auto, trenddb, csv or dump)", given))
}

// cmdError is a usage error of cmd, prefixed with its name; the TUI (cmd
// "") has none beyond the "spikescope:" every error line starts with.
func cmdError(cmd, msg string) usageError {
	if cmd == "" {
		return usageError{msg}
	}
	return usageError{cmd + ": " + msg}
}

// Ranges of the numeric flags: a value outside them is a usage error, found
// before any input is read (--window 2^62 would otherwise spin, 10^8 would
// allocate gigabytes).
const (
	// maxWindowFlag bounds --window (micro steps per optimizer step).
	maxWindowFlag = 65536
	// maxMultFlag bounds the multipliers and ratios (--iqr-mult, --growth, …).
	maxMultFlag = 1e6
	// maxCallFlag bounds --call (a micro-batch's call number).
	maxCallFlag = 1 << 20
)

// inFlagRange reports whether a multiplier or ratio flag is a finite
// number above 0 and at most maxMultFlag.
func inFlagRange(v float64) bool { return v > 0 && v <= maxMultFlag }

// optInt parses an optional integer flag ("" = not given) of cmd, from min
// to 2^31-1 (trace's --step/--rank take -1: a tree without such folders).
func optInt(cmd, name, v string, min int) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > math.MaxInt32 {
		return nil, cmdError(cmd, fmt.Sprintf("%s needs an integer from %d to 2147483647 (got %q)", name, min, v))
	}
	return &n, nil
}

// jsonFlagSet is the flag set of a JSON subcommand (detect, select,
// trace): parse errors and usage go to stderr, -o/--output to *out.
func jsonFlagSet(cmd string, stderr io.Writer, out *string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(out, "o", "", "write the JSON to FILE instead of stdout")
	fs.StringVar(out, "output", "", "same as -o")
	return fs
}

// parseArgs parses args on fs (see parseInterspersed); ok false means exit
// with code: 0 after -h, 2 after a bad flag. usage "" is a JSON command's
// (jsonFlagSet: the flag package prints the error and the usage on stderr);
// else -h prints usage on stdout and a bad flag is one error line.
func parseArgs(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (paths []string, code int, ok bool) {
	paths, err := parseInterspersed(fs, args)
	switch {
	case err == nil:
		return paths, 0, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return nil, 0, false
	case usage == "":
		return nil, 2, false
	}
	return nil, exitCode(usageError{fs.Name() + ": " + err.Error()}, stderr), false
}

// parseInterspersed parses flags that may come before or after positional
// arguments (`report PATH --lang zh` as well as `report --lang zh PATH`).
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return pos, nil
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// followFlags are --follow and --interval, shared by detect and the TUI
// (which adds --bell).
type followFlags struct {
	on       bool
	interval time.Duration
	bell     bool
}

// Bounds of --interval: a poll lists and stats the whole tree, so faster
// than this costs CPU for nothing; slower than an hour is not following.
const (
	minFollowInterval = 100 * time.Millisecond
	maxFollowInterval = time.Hour
)

// register adds the flags to fs; bell adds --bell (the TUI's).
func (f *followFlags) register(fs *flag.FlagSet, bell bool) {
	fs.BoolVar(&f.on, "follow", false, "keep reading what the training job appends (trend.db or monitor CSV), until interrupted")
	fs.DurationVar(&f.interval, "interval", 2*time.Second, "with --follow: time between polls (e.g. 2s, 500ms)")
	if bell {
		fs.BoolVar(&f.bell, "bell", false, "with --follow: ring the terminal bell when the root-cause coordinate changes")
	}
}

// check refuses an interval out of range, and --interval or --bell
// without --follow.
func (f *followFlags) check(cmd string, fs *flag.FlagSet) error {
	if f.interval < minFollowInterval || f.interval > maxFollowInterval {
		return cmdError(cmd, fmt.Sprintf("--interval must be from 100ms to 1h (got %s)", f.interval))
	}
	if !f.on {
		var given []string
		fs.Visit(func(fl *flag.Flag) {
			if fl.Name == "interval" || fl.Name == "bell" {
				given = append(given, "--"+fl.Name)
			}
		})
		if len(given) > 0 {
			verb := " works"
			if len(given) > 1 {
				verb = " work"
			}
			return cmdError(cmd, strings.Join(given, " and ")+verb+" only with --follow")
		}
	}
	return nil
}

// memFlag is --mem-limit, shared by the commands that read monitor rows.
type memFlag struct{ value string }

// register adds --mem-limit to fs.
func (m *memFlag) register(fs *flag.FlagSet) {
	fs.StringVar(&m.value, "mem-limit", "", fmt.Sprintf("refuse a monitor input whose estimated peak memory exceeds `SIZE` (512M, 8G; 0 = no limit; default %.0f%% of the memory this process may use)", memlimit.DefaultFraction*100))
}

// budget parses the flag (not given: the machine's default budget); the
// command then runs under `defer memlimit.Apply(b)()`, the Go runtime's
// memory limit. A bad size is a usage error of cmd.
func (m *memFlag) budget(cmd string) (memlimit.Budget, error) {
	b := memlimit.Default()
	if m.value != "" {
		n, err := memlimit.ParseSize(m.value)
		if err != nil {
			return memlimit.Budget{}, cmdError(cmd, "--mem-limit: "+err.Error())
		}
		b = memlimit.Budget{Bytes: n}
	}
	return b, nil
}
