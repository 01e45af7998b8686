package main

import "io"

// runDetect is a placeholder until its issue lands.
func runDetect(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"detect: not implemented yet"}, stderr)
}
