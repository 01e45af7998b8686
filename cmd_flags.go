package main

import (
	"errors"
	"flag"
	"fmt"
	"io"

	"spikescope/cliflags"
)

// parseArgs parses args on fs (see parseInterspersed); ok false means exit
// with code: 0 after -h, 2 after a bad flag. usage "" is a JSON command's
// (cliflags.JSONFlagSet: the flag package prints the error and the usage on stderr);
// else -h prints usage on stdout and a bad flag is one error line.
func parseArgs(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) (paths []string, code int, ok bool) {
	paths, err := cliflags.ParseInterspersed(fs, args)
	switch {
	case err == nil:
		return paths, 0, true
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(stdout, usage)
		return nil, 0, false
	case usage == "":
		return nil, 2, false
	}
	return nil, exitCode(cliflags.CmdError(fs.Name(), err.Error()), stderr), false
}
