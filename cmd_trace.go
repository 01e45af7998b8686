package main

import "io"

// runTrace is a placeholder until its issue lands.
func runTrace(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"trace: not implemented yet"}, stderr)
}
