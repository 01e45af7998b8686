package main

import "io"

// runReport is a placeholder until its issue lands.
func runReport(args []string, stdout, stderr io.Writer) int {
	return exitCode(usageError{"report: not implemented yet"}, stderr)
}
