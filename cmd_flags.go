package main

import (
	"fmt"

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
	return usageError{fmt.Sprintf("%s: unknown --format %q (want auto, trenddb, csv or dump)", cmd, given)}
}
