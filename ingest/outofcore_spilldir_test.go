package ingest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// Out of core, a spill folder inside the input — named so, or through a
// symbolic link, or as the input's own folder — is refused with one line
// naming the input and the folder, before a spill file is made there.
func TestOutOfCoreSpillFolderInsideInput(t *testing.T) {
	root := t.TempDir()
	in := filepath.Join(root, "run")
	if err := os.CopyFS(in, os.DirFS("../testdata/monitor/csv_v2")); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(in, "tmp")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "spill")
	if err := os.Symlink(sub, link); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadDir(in)
	for _, c := range []struct{ dir, env string }{{sub, ""}, {link, ""}, {in, ""}, {"", link}} {
		t.Setenv("SPIKESCOPE_SPILL_DIR", c.env)
		_, err := LoadMonitorOutOfCore(context.Background(), in, model.FormatAuto, nil, OutOfCore{Dir: c.dir, ChunkRows: 3, BucketRows: 5})
		var ie *InputError
		if !errors.As(err, &ie) || !strings.HasPrefix(err.Error(), in+": ") || !strings.Contains(err.Error(), "within the input") || strings.Contains(err.Error(), "\n") {
			t.Errorf("spill folder %q (env %q): %v, want one line saying the folder is inside %s", c.dir, c.env, err, in)
		}
	}
	if ents, _ := os.ReadDir(sub); len(ents) != 0 {
		t.Errorf("spill files left in the input: %v", ents)
	}
	if after, _ := os.ReadDir(in); len(after) != len(before) {
		t.Errorf("the input folder changed: %v, was %v", after, before)
	}
	// outside the input the same load goes ahead
	out := t.TempDir()
	if d, err := LoadMonitorOutOfCore(context.Background(), in, model.FormatAuto, nil, OutOfCore{Dir: out, ChunkRows: 3, BucketRows: 5}); err != nil || !d.Rows.Mapped {
		t.Fatalf("spill folder outside the input: %v", err)
	}
}

// A trend.db kept in the system's temporary folder spills to the next
// folder (/var/tmp), not beside itself and not nowhere.
func TestSpillDirForSkipsTheInputsFolder(t *testing.T) {
	t.Setenv("SPIKESCOPE_SPILL_DIR", "")
	in := t.TempDir() // under os.TempDir()
	db := filepath.Join(in, "run.trend.db")
	if err := os.WriteFile(db, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("TMPDIR", in)
	got := SpillDirFor(db)
	if st, err := os.Stat("/var/tmp"); err != nil || !st.IsDir() {
		if got != "" {
			t.Fatalf("spill folder %q for an input in the only candidate", got)
		}
		return
	}
	if got != "/var/tmp" {
		t.Fatalf("spill folder %q, want /var/tmp (the temporary folder holds the input)", got)
	}
	other := filepath.Join(t.TempDir(), "x.trend.db")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if d := SpillDirFor(other); d != in {
		t.Fatalf("spill folder %q for an input elsewhere, want the temporary folder %s", d, in)
	}
}
