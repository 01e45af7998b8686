package ingest

import (
	"context"
	"os"
	"time"

	"spikescope/model"
)

// MonitorFollower is a monitor source that a training job is still
// writing: Data is what was read so far, Poll reads what came since.
type MonitorFollower interface {
	// Data is a view of the rows read so far; later polls never change it.
	Data() *model.MonitorData
	// Poll reads what was written since the last poll. Problems with the
	// files are warnings (the rows read before are kept); the only error
	// is ctx's.
	Poll(ctx context.Context) (FollowPoll, error)
	// LastWrite is when the job last wrote (the newest modification time
	// of the files seen at the last read or poll); zero when unknown.
	LastWrite() time.Time
}

// FollowPoll is what one poll found.
type FollowPoll struct {
	Changed  bool // rows were added, or the data was read again
	Reread   bool // read again from the start (a new trend.db, a replaced or shrunk CSV)
	NewRows  int  // rows added (all rows after a re-read)
	Warnings []model.Reason
}

// FollowMonitor reads the monitor at path like LoadMonitor and returns a
// follower of it. Only trend.db and monitor CSVs can be followed; a dump
// tree is an InputError.
func FollowMonitor(ctx context.Context, path string, f model.Format, p model.ProgressFunc) (MonitorFollower, error) {
	if f == model.FormatAuto || f == "" {
		var err error
		if f, err = DetectFormat(path); err != nil {
			return nil, err
		}
	}
	switch f {
	case model.FormatCSV:
		return newCSVFollower(ctx, path, p)
	case model.FormatTrendDB:
		return newTrendDBFollower(ctx, path, p)
	}
	return nil, inputErr(path, nil, "is a %s; --follow reads monitor output that a job is still writing (a trend.db or a monitor CSV tree)", formatWords(f))
}

// formatWords names a format for a message.
func formatWords(f model.Format) string {
	if f == model.FormatDump {
		return "dump tree"
	}
	return string(f) + " input"
}

// trendDBFollower follows a trend.db. msprobe's data2db writes the whole
// database anew, so there is nothing to append: a poll notices a new file
// (another inode, size or time, of the file or its -wal) and reads it again
// through the read-only opener. A read that fails (a file caught half
// written) keeps the rows read before and is tried again on the next
// change. A -wal left by the replaced file's writer is not replayed over
// the new file: the opener remembers which file the log was beside
// (foreignWAL, trenddb_wal.go).
type trendDBFollower struct {
	path  string
	file  string      // the database file (path, or the one found in the folder)
	info  os.FileInfo // the file at the last read
	stamp string      // fileStamp at the last read
	d     *model.MonitorData
	// failedStamp is the stamp whose read failed (warned once).
	failedStamp string
}

func newTrendDBFollower(ctx context.Context, path string, p model.ProgressFunc) (*trendDBFollower, error) {
	t := &trendDBFollower{path: path}
	file, err := t.dbFile()
	if err != nil {
		return nil, err
	}
	// data2db may rename a new file over the one being read: a read that
	// fails on a file replaced meanwhile is tried again on the new one
	for tries := 1; ; tries++ {
		info, stamp := statStamp(file)
		d, err := loadMonitorHeap(ctx, path, model.FormatTrendDB, p)
		if err == nil {
			t.file, t.info, t.stamp, t.d = file, info, stamp, d
			return t, nil
		}
		if _, now := statStamp(file); ctx.Err() != nil || now == stamp || tries == followFirstReadTries {
			return nil, err
		}
	}
}

// followFirstReadTries bounds the first reads of a trend.db replaced while
// it was read.
const followFirstReadTries = 3

// dbFile is the database file behind path.
func (t *trendDBFollower) dbFile() (string, error) {
	st, err := os.Stat(t.path)
	if err != nil {
		return "", statError(t.path, err)
	}
	if !st.IsDir() {
		return t.path, nil
	}
	f, _, err := findTrendDBFile(t.path)
	return f, err
}

// statStamp is the file's identity and its fileStamp (size and time of the
// file and its -wal).
func statStamp(file string) (os.FileInfo, string) {
	st, _ := os.Stat(file)
	return st, fileStamp(file)
}

func (t *trendDBFollower) LastWrite() time.Time {
	var last time.Time
	for _, p := range []string{t.file, t.file + "-wal"} {
		if st, err := os.Stat(p); err == nil && st.ModTime().After(last) {
			last = st.ModTime()
		}
	}
	return last
}

func (t *trendDBFollower) Data() *model.MonitorData {
	d := *t.d
	return &d
}

func (t *trendDBFollower) Poll(ctx context.Context) (FollowPoll, error) {
	var out FollowPoll
	file, err := t.dbFile()
	if err != nil {
		return out, nil // between data2db's delete and rename: the next poll sees the file
	}
	info, stamp := statStamp(file)
	if info == nil {
		return out, nil
	}
	if file == t.file && stamp == t.stamp && t.info != nil && os.SameFile(info, t.info) {
		return out, nil
	}
	if stamp == t.failedStamp {
		return out, nil
	}
	d, err := loadMonitorHeap(ctx, t.path, model.FormatTrendDB, nil)
	if err != nil {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		t.failedStamp = stamp
		out.Warnings = append(out.Warnings, model.FollowDBUnreadable{Err: err.Error()})
		return out, nil
	}
	if file != t.file {
		out.Warnings = append(out.Warnings, model.FollowNowReading{File: file, Was: t.file})
	}
	t.file, t.info, t.stamp, t.d, t.failedStamp = file, info, stamp, d, ""
	out.Changed, out.Reread, out.NewRows = true, true, d.Rows.Len()
	return out, nil
}
