package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/ingest"
)

// The output goes through a temporary file and a rename: a failed write
// leaves the earlier output whole and no temporary file behind.
func TestOutputIsReplacedWhole(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "p1.json")
	if err := os.WriteFile(out, []byte("earlier output"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Write(out, "output", []byte("new output")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(out); string(got) != "new output" {
		t.Fatalf("got %q", got)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want the earlier file's 0600", st.Mode().Perm())
	}
	// a read-only folder: the write fails, the old file stays as it was
	if os.Geteuid() != 0 {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
		err := Write(out, "output", []byte("third"))
		if err == nil || !strings.Contains(err.Error(), "cannot write the output: permission denied") {
			t.Fatalf("err %v", err)
		}
		if got, _ := os.ReadFile(out); string(got) != "new output" {
			t.Fatalf("after a failed write: %q", got)
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("left behind: %v", ents)
	}
}

func TestRefuseInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "trend.db")
	dump := filepath.Join(dir, "dump")
	os.WriteFile(db, []byte("x"), 0o644)
	os.Mkdir(dump, 0o755)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ out, why string }{
		{db, "it is the input file"},
		{link, "it is the input file"},
		{filepath.Join(dump, "p3.json"), "it is inside the input folder"},
		{db + "-wal", "it is the wal file of the input database"},
		{filepath.Join(dir, "p1.json"), ""},
		{"", ""},
	} {
		err := RefuseInput(c.out, "", db, dump)
		var ie *ingest.InputError
		switch {
		case c.why == "" && err != nil:
			t.Errorf("%s: refused: %v", c.out, err)
		case c.why != "" && (!errors.As(err, &ie) || !strings.Contains(err.Error(), c.why)):
			t.Errorf("%s: err %v, want an InputError saying %q", c.out, err, c.why)
		}
	}
}
