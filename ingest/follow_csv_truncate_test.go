package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
)

// rowSet lists the rows of d as text (rank, step, micro, parameter,
// metric, statistics), sorted: two reads of the same files give the same
// set whatever order they read the files in.
func rowSet(d *model.MonitorData) []string {
	out := make([]string, d.Rows.Len())
	for i := range out {
		r := &d.Rows
		out[i] = fmt.Sprintf("%d %d %d %s %s %v %v %v %v", r.Rank[i], r.Step[i], r.MicroOf(i), d.Targets[r.Target[i]].Name, d.Metrics[r.Metric[i]],
			r.Value(model.StatNorm, i), r.Value(model.StatMin, i), r.Value(model.StatMax, i), r.Value(model.StatMean, i))
	}
	slices.Sort(out)
	return out
}

// Every truncation of a followed CSV is one case — emptied to 0 bytes, cut
// shorter, replaced (by another file or by an empty one), written anew in
// place past the old end: the poll warns that the file is read again, and
// the rows are those a fresh read of the tree gives.
func TestFollowCSVEveryTruncationIsReadAgain(t *testing.T) {
	row := func(step, norm int) string { return fmt.Sprintf("0,w,%d,0,0,0,0,%d\n", step, norm) }
	full := followHeader + row(2, 20) + row(3, 30) + row(4, 40)
	for _, c := range []struct {
		name  string
		apply func(t *testing.T, file string)
		want  string // in the warning
	}{
		{"emptied to 0 bytes", func(t *testing.T, file string) { os.Truncate(file, 0) }, "shrank (" + fmt.Sprint(len(full)) + " bytes read before, 0 now)"},
		{"cut at a line end", func(t *testing.T, file string) { os.Truncate(file, int64(len(followHeader+row(2, 20)))) }, "shrank"},
		{"cut inside a line", func(t *testing.T, file string) { os.Truncate(file, int64(len(followHeader+row(2, 20))+3)) }, "shrank"},
		{"cut to the header", func(t *testing.T, file string) { os.Truncate(file, int64(len(followHeader))) }, "shrank"},
		{"replaced", func(t *testing.T, file string) {
			tmp := file + ".tmp"
			os.WriteFile(tmp, []byte(followHeader+row(2, 21)), 0o644)
			os.Rename(tmp, file)
		}, "was replaced"},
		{"replaced by an empty file", func(t *testing.T, file string) {
			tmp := file + ".tmp"
			os.WriteFile(tmp, nil, 0o644)
			os.Rename(tmp, file)
		}, "was replaced"},
		{"written anew, longer", func(t *testing.T, file string) {
			os.WriteFile(file, []byte(followHeader+row(2, 22)+row(3, 32)+row(4, 42)+row(5, 52)), 0o644)
		}, "was written anew"},
		{"written anew, same lengths", func(t *testing.T, file string) {
			os.WriteFile(file, []byte(followHeader+row(2, 29)+row(3, 39)+row(4, 49)+row(5, 59)), 0o644)
		}, "was written anew"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			r0 := filepath.Join(root, "rank_0")
			os.MkdirAll(r0, 0o755)
			appendFile(t, filepath.Join(r0, "grad_unreduced_0-1.csv"), followHeader+row(0, 1)+row(1, 2))
			file := filepath.Join(r0, "grad_unreduced_2-5.csv")
			appendFile(t, file, full)
			f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
			if err != nil {
				t.Fatal(err)
			}
			if n := f.Data().Rows.Len(); n != 5 {
				t.Fatalf("first read: %d rows, want 5", n)
			}
			c.apply(t, file)
			p := poll(t, f)
			if !p.Reread || !p.Changed || len(said(p.Warnings)) == 0 || !strings.Contains(said(p.Warnings)[0], file+" "+c.want) || !strings.Contains(said(p.Warnings)[0], "read again") {
				t.Fatalf("poll: %+v; want a re-read and a warning naming %s with %q", p, file, c.want)
			}
			fresh, err := LoadCSV(context.Background(), root, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := rowSet(f.Data()), rowSet(fresh); !slices.Equal(got, want) {
				t.Fatalf("after the re-read:\n%q\na fresh read:\n%q", got, want)
			}
			if p := poll(t, f); p.Changed || len(said(p.Warnings)) > 0 {
				t.Fatalf("the next poll without a write: %+v", p)
			}
		})
	}
}

// A followed single file emptied to 0 bytes: the rows read before are
// gone too, with the warning.
func TestFollowCSVSingleFileEmptied(t *testing.T) {
	file := filepath.Join(t.TempDir(), "grad_unreduced_0-9.csv")
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,1\n0,w,1,0,0,0,0,2\n")
	f, err := FollowMonitor(context.Background(), file, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	os.Truncate(file, 0)
	p := poll(t, f)
	if !p.Reread || len(said(p.Warnings)) == 0 || !strings.Contains(said(p.Warnings)[0], "shrank") {
		t.Fatalf("poll: %+v", p)
	}
	if n := f.Data().Rows.Len(); n != 0 {
		t.Fatalf("%d rows kept from an emptied file", n)
	}
	appendFile(t, file, followHeader+"0,w,0,0,0,0,0,7\n")
	p = poll(t, f)
	if got := norms(f.Data()); !p.Changed || len(got) != 1 || got[0] != 7 {
		t.Fatalf("written again: %+v, norms %v", p, got)
	}
}
