package main

import "io"

// runInspect is a placeholder until its issue lands.
func runInspect(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"inspect: not implemented yet"}, stderr)
}
