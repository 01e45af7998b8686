package ingest

import (
	"errors"

	"spikescope/model"
)

// csvBadLines counts the lines of one monitor CSV that are not data (a bad
// cell, a wrong number of fields, a negative step, bad quoting). Such a
// line is skipped and reported as a data problem; the file's good rows are
// kept. A file that is mostly bad is not a monitor CSV: then it is refused
// with the first problem.
type csvBadLines struct {
	n     int
	first []error // the first csvBadExamples
}

// csvBadExamples is how many bad lines a warning names.
const csvBadExamples = 3

// csvBadFloor: more bad lines than good rows, and more than this many,
// refuse the file (a file of garbage must not pass as a damaged CSV).
const csvBadFloor = 100

// add records one bad line; good is the number of good rows so far. It
// fails when the file is plainly not data.
func (b *csvBadLines) add(err error, good int) error {
	b.n++
	if len(b.first) < csvBadExamples {
		b.first = append(b.first, err)
	}
	if b.n > csvBadFloor && b.n > good {
		return b.refusal()
	}
	return nil
}

// finish fails a file whose lines are all bad (no good row at all).
func (b *csvBadLines) finish(path string, good int) error {
	if b.n > 0 && good == 0 {
		return b.refusal()
	}
	return nil
}

func (b *csvBadLines) refusal() error {
	err := b.first[0]
	if b.n == 1 {
		return err
	}
	var ie *InputError
	if errors.As(err, &ie) {
		return inputErr(ie.Path, ie.Err, "%s (and %d more bad line(s): not a monitor CSV, or badly damaged)", ie.Problem, b.n-1)
	}
	return err
}

// warning is the data problem of a file with bad lines, or nil.
func (b *csvBadLines) warning(path string) model.Reason {
	if b.n == 0 {
		return nil
	}
	var ex []string
	for _, err := range b.first {
		var ie *InputError
		if errors.As(err, &ie) {
			ex = append(ex, ie.Problem)
		} else {
			ex = append(ex, err.Error())
		}
	}
	return model.CSVBadLines{Path: path, Count: b.n, Problems: ex, More: b.n > len(b.first)}
}
