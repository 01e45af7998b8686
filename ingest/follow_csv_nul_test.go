package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// Bytes appended later in a file are not its start: a line with NUL bytes
// (a node that crashed mid-write leaves a run of zeros) is one bad line, as
// a full read counts it, and the lines after it are read, not the whole
// rest of the file refused as "binary data" on every poll.
func TestFollowCSVNulLineAppendedIsOneBadLine(t *testing.T) {
	root := t.TempDir()
	r0 := filepath.Join(root, "rank_0")
	os.MkdirAll(r0, 0o755)
	file := filepath.Join(r0, "grad_unreduced_0-9.csv")
	// past the 512 bytes whose sniff tells text from binary
	appendFile(t, file, followHeader+strings.Repeat("0,w,0,0,0,0,0,1\n", 40))
	f, err := FollowMonitor(context.Background(), root, model.FormatCSV, nil)
	if err != nil {
		t.Fatal(err)
	}
	appendFile(t, file, "0,w,1,0,0,0,0,\x00\x00\x00\x00\n0,w,2,0,0,0,0,3\n")
	p := poll(t, f)
	full, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, want := norms(f.Data()), norms(full)
	if len(got) != len(want) || len(got) != 41 || got[40] != 3 {
		t.Fatalf("followed norms %v (warnings %q), a full read gives %v", got, said(p.Warnings), want)
	}
	if len(said(p.Warnings)) != 1 || strings.Contains(said(p.Warnings)[0], "binary") || !strings.Contains(said(p.Warnings)[0], "line 42") {
		t.Fatalf("warnings %q: want one naming line 42, the bad line", said(p.Warnings))
	}
}
