package ingest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"spikescope/model"
	"spikescope/testdata/synth"
)

// data2db renames a new trend.db over the one being read: the first read
// is not refused for it (it is tried again on the new file, or the next
// poll reads it), and by the next poll the new file's rows are in, once.
func TestFollowTrendDBReplacedWhileRead(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "monitor.trend.db")
	small := synth.DefaultConfig()
	small.OptSteps = 4
	if err := synth.Generate(small).WriteTrendDB(db); err != nil {
		t.Fatal(err)
	}
	old, err := LoadMonitor(context.Background(), db, model.FormatTrendDB, nil)
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, ".next.trend.db")
	if err := synth.Generate(synth.DefaultConfig()).WriteTrendDB(big); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	progress := func(model.Progress) {
		once.Do(func() {
			if err := os.Rename(big, db); err != nil {
				t.Error(err)
			}
		})
	}
	f, err := FollowMonitor(context.Background(), db, model.FormatTrendDB, progress)
	if err != nil {
		t.Fatal(err)
	}
	p := poll(t, f)
	full, err := LoadMonitor(context.Background(), db, model.FormatTrendDB, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Data().Rows.Len() != full.Rows.Len() || full.Rows.Len() <= old.Rows.Len() {
		t.Fatalf("after a poll (%+v): %d rows followed, the new file has %d, the old one %d", p, f.Data().Rows.Len(), full.Rows.Len(), old.Rows.Len())
	}
	if p := poll(t, f); p.Changed {
		t.Fatalf("the new file was read twice: %+v", p)
	}
}
