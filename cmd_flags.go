package main

import (
	"flag"
	"fmt"
	"math"
	"strconv"

	"spikescope/model"
)

// checkFormat is the --format check shared by the subcommands that load a
// monitor or dump path: nil for a known format, else a usage error of cmd
// that quotes the flag's value as given.
func checkFormat(cmd string, f model.Format, given string) error {
	switch f {
	case model.FormatAuto, model.FormatTrendDB, model.FormatCSV, model.FormatDump:
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

// optInt parses an optional integer flag ("" = not given) of cmd.
func optInt(cmd, name, v string) (*int, error) {
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return nil, cmdError(cmd, name+" needs an integer from 0 to 2147483647 (got "+strconv.Quote(v)+")")
	}
	return &n, nil
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
