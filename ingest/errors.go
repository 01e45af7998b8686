// Package ingest turns msprobe files into model values. Everything is opened
// read-only; nothing is ever written into the user's data folders.
package ingest

import "fmt"

// InputError is bad input: a file that cannot be read or is not what it
// should be. Its message names the file and the problem on one line.
type InputError struct {
	Path    string
	Problem string
	Err     error
}

func (e *InputError) Error() string {
	if e.Path == "" {
		return e.Problem
	}
	return fmt.Sprintf("%s: %s", e.Path, e.Problem)
}

func (e *InputError) Unwrap() error { return e.Err }

// inputErr builds an InputError; format like fmt.Sprintf.
func inputErr(path string, err error, format string, a ...any) *InputError {
	return &InputError{Path: path, Problem: fmt.Sprintf(format, a...), Err: err}
}
