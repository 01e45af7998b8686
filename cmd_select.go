package main

import "io"

// runSelect is a placeholder until its issue lands.
func runSelect(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"select: not implemented yet"}, stderr)
}
