// Package cliflags holds the flags several commands of spikescope share
// (--mem-limit, --follow/--interval/--bell, --format, -o), the ranges of
// the numeric flags and the parsing of flags around positional arguments.
// A mistake is a UsageError (exit code 2).
package cliflags

import (
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

// UsageError is a command-line mistake (exit 2).
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// CmdError is a usage error of cmd, prefixed with its name; the TUI (cmd
// "") has none beyond the "spikescope:" every error line starts with.
func CmdError(cmd, msg string) UsageError {
	if cmd == "" {
		return UsageError{Msg: msg}
	}
	return UsageError{Msg: cmd + ": " + msg}
}

// CheckFormat is the --format check shared by the subcommands that load a
// monitor or dump path: nil for a known format, else a usage error of cmd
// that quotes the flag's value as given.
func CheckFormat(cmd string, f model.Format, given string) error {
	if f.Known() {
		return nil
	}
	return CmdError(cmd, fmt.Sprintf("unknown --format %q (want auto, trenddb, csv or dump)", given))
}

// Ranges of the numeric flags: a value outside them is a usage error, found
// before any input is read (--window 2^62 would otherwise spin, 10^8 would
// allocate gigabytes).
const (
	// MaxWindow bounds --window (micro steps per optimizer step).
	MaxWindow = 65536
	// MaxMult bounds the multipliers and ratios (--iqr-mult, --growth, …).
	MaxMult = 1e6
	// MaxCall bounds --call (a micro-batch's call number).
	MaxCall = 1 << 20
)

// InRange reports whether a multiplier or ratio flag is a finite
// number above 0 and at most MaxMult.
func InRange(v float64) bool { return v > 0 && v <= MaxMult }

// OptInt parses an optional integer flag ("" = not given) of cmd, from min
// to 2^31-1 (trace's --step/--rank take -1: a tree without such folders).
func OptInt(cmd, name, v string, min int) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min || n > math.MaxInt32 {
		return nil, CmdError(cmd, fmt.Sprintf("%s needs an integer from %d to 2147483647 (got %q)", name, min, v))
	}
	return &n, nil
}

// JSONFlagSet is the flag set of a JSON subcommand (detect, select,
// trace): parse errors and usage go to stderr, -o/--output to *out.
func JSONFlagSet(cmd string, stderr io.Writer, out *string) *flag.FlagSet {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(out, "o", "", "write the JSON to FILE instead of stdout")
	fs.StringVar(out, "output", "", "same as -o")
	return fs
}

// ParseInterspersed parses flags that may come before or after positional
// arguments (`report PATH --lang zh` as well as `report --lang zh PATH`).
func ParseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
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

// Follow are --follow and --interval, shared by detect and the TUI
// (which adds --bell).
type Follow struct {
	On       bool
	Interval time.Duration
	Bell     bool
}

// Bounds of --interval: a poll lists and stats the whole tree, so faster
// than this costs CPU for nothing; slower than an hour is not following.
const (
	minInterval = 100 * time.Millisecond
	maxInterval = time.Hour
)

// Register adds the flags to fs; bell adds --bell (the TUI's).
func (f *Follow) Register(fs *flag.FlagSet, bell bool) {
	fs.BoolVar(&f.On, "follow", false, "keep reading what the training job appends (trend.db or monitor CSV), until interrupted")
	fs.DurationVar(&f.Interval, "interval", 2*time.Second, "with --follow: time between polls (e.g. 2s, 500ms)")
	if bell {
		fs.BoolVar(&f.Bell, "bell", false, "with --follow: ring the terminal bell when the root-cause coordinate changes")
	}
}

// Check refuses an interval out of range, and --interval or --bell
// without --follow.
func (f *Follow) Check(cmd string, fs *flag.FlagSet) error {
	if f.Interval < minInterval || f.Interval > maxInterval {
		return CmdError(cmd, fmt.Sprintf("--interval must be from 100ms to 1h (got %s)", f.Interval))
	}
	if !f.On {
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
			return CmdError(cmd, strings.Join(given, " and ")+verb+" only with --follow")
		}
	}
	return nil
}

// Mem is --mem-limit, shared by the commands that read monitor rows.
type Mem struct{ value string }

// Register adds --mem-limit to fs.
func (m *Mem) Register(fs *flag.FlagSet) {
	fs.StringVar(&m.value, "mem-limit", "", fmt.Sprintf("refuse a monitor input whose estimated peak memory exceeds `SIZE` (512M, 8G; 0 = no limit; default %.0f%% of the memory this process may use)", memlimit.DefaultFraction*100))
}

// Budget parses the flag (not given: the machine's default budget); the
// command then runs under `defer memlimit.Apply(b)()`, the Go runtime's
// memory limit. A bad size is a usage error of cmd.
func (m *Mem) Budget(cmd string) (memlimit.Budget, error) {
	b := memlimit.Default()
	if m.value != "" {
		n, err := memlimit.ParseSize(m.value)
		if err != nil {
			return memlimit.Budget{}, CmdError(cmd, "--mem-limit: "+err.Error())
		}
		b = memlimit.Budget{Bytes: n}
	}
	return b, nil
}

// Lang is --lang, the language of what a command says about the run: the
// JSON's reasoning, warnings and notes (detect, select, trace, inspect),
// the report and PLAN.md (report, plan). Every command reads it the same
// way; not given, each command keeps its own default (def).
type Lang struct{ value string }

// Register adds --lang to fs; def says what no --lang gives.
func (l *Lang) Register(fs *flag.FlagSet, def string) {
	fs.StringVar(&l.value, "lang", "", "language of the texts: en or zh (default: "+def+")")
}

// Value is the flag as given: "en", "zh", or "" when not given; any other
// value is a usage error of cmd.
func (l *Lang) Value(cmd string) (string, error) {
	switch l.value {
	case "", "en", "zh":
		return l.value, nil
	}
	return "", CmdError(cmd, fmt.Sprintf("--lang %q: want en or zh", l.value))
}
