package main

import (
	"context"
	"fmt"
	"io"

	"spikescope/pipeline"
)

// noticeCtx carries the load's notices (a run read out of core) to stderr,
// one line each, beside the results rather than in them.
func noticeCtx(stderr io.Writer) context.Context {
	return pipeline.WithNotice(context.Background(), func(line string) {
		msg, _ := pipeline.EscapeControl(line) // a path may hold control characters
		fmt.Fprintln(stderr, "spikescope:", msg)
	})
}
