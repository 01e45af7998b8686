package main

import "io"

// runTUI is a placeholder until its issue lands.
func runTUI(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"tui: not implemented yet"}, stderr)
}
