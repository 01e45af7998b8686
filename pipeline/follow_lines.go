package pipeline

import (
	"context"
	"encoding/json"
	"io"

	"spikescope/model"
)

// FollowLines is `detect --follow`: one JSON line on w per new candidate,
// root-cause change or revision (each line one Write, so a pipe gets it at
// once), until ctx is done; then the stop line. Interrupted during the
// first read it writes the stop line alone.
func FollowLines(ctx context.Context, path string, f model.Format, opt FollowOptions, w io.Writer) error {
	emit := func(e FollowEvent) error {
		b, err := json.Marshal(e.AsWritten())
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	fl, first, err := StartFollow(ctx, path, f, opt, nil)
	if err != nil {
		if ctx.Err() != nil { // interrupted during the first read: still the last line
			return emit(StopBeforeStart(path, opt.Lang))
		}
		return err
	}
	for _, e := range first {
		if err := emit(e); err != nil {
			return err
		}
	}
	return fl.Run(ctx, emit)
}
