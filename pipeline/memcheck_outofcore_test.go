package pipeline

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"spikescope/ingest"
	"spikescope/memlimit"
	"spikescope/model"
)

// Load with the out-of-core read forced (chunks of 7 rows, buckets of 50)
// gives the demo's in-memory session: both devices' monitors read through
// spill files (PATH and the baseline), the same Phase 1, Phase 2 and
// Phase 3 results, progress reported, the spill folder left empty.
func TestLoadOutOfCoreLikeInMemory(t *testing.T) {
	want := loadDemo(t)
	dir := t.TempDir()
	forceOutOfCore = &ingest.OutOfCore{Dir: dir, ChunkRows: 7, BucketRows: 50}
	defer func() { forceOutOfCore = nil }()
	var progressed atomic.Bool // progress comes from every reader's goroutines
	got, err := Load(context.Background(), demoInputs(), func(model.Progress) { progressed.Store(true) })
	if err != nil {
		t.Fatal(err)
	}
	if !got.Monitor.Rows.Mapped || got.BaselineMonitor == nil || !got.BaselineMonitor.Rows.Mapped {
		t.Fatal("the monitors were not read out of core")
	}
	if want.Monitor.Rows.Mapped {
		t.Fatal("the in-memory load is mapped")
	}
	if !progressed.Load() {
		t.Error("no progress reported")
	}
	for _, c := range []struct {
		name string
		a, b any
	}{{"phase 1", want.P1, got.P1}, {"baseline phase 1", want.P1Baseline, got.P1Baseline}, {"phase 2", want.P2, got.P2}, {"phase 3", want.P3, got.P3},
		{"warnings", want.Monitor.Warnings, got.Monitor.Warnings}, {"missing", want.Missing, got.Missing}} {
		a, err1 := json.Marshal(c.a)
		b, err2 := json.Marshal(c.b)
		if err1 != nil || err2 != nil || string(a) != string(b) {
			t.Errorf("%s differs out of core (%v %v):\n%.300s\nwant\n%.300s", c.name, err1, err2, b, a)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill files left in %s: %v", dir, ents)
	}
}

// Over the budget with the spill folder inside the input (here through a
// symbolic link), the run is refused up front, saying so and what to do,
// rather than read through a temporary file beside the input.
func TestMemCheckSpillFolderInsideInput(t *testing.T) {
	root := t.TempDir()
	in := filepath.Join(root, "run")
	if err := os.MkdirAll(filepath.Join(in, "tmp"), 0o755); err != nil {
		t.Fatal(err)
	}
	// a CSV whose size (sparse) estimates millions of rows
	csv := filepath.Join(in, "grad_unreduced_0-9.csv")
	if err := os.WriteFile(csv, []byte("name,vpp_stage,micro_step,step,norm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(csv, 4_000_000*ingest.CSVFileBytesPerRow); err != nil { // 240 MB of disk out of core
		t.Fatal(err)
	}
	link := filepath.Join(root, "spill")
	if err := os.Symlink(filepath.Join(in, "tmp"), link); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", link)
	b := memlimit.Budget{Bytes: 64 << 20}
	plan, err := checkMonitorMemory(context.Background(), in, model.FormatAuto, b, true)
	if err == nil || plan.ooc != nil {
		t.Fatalf("read out of core through a folder inside the input: %+v, %v", plan, err)
	}
	msg := err.Error()
	for _, w := range []string{in + ": ", "temporary folder " + link, "within the input (" + in + ")", "SPIKESCOPE_SPILL_DIR"} {
		if !strings.Contains(msg, w) {
			t.Errorf("refusal %q lacks %q", msg, w)
		}
	}
	// with the folder elsewhere the same input goes out of core
	t.Setenv("SPIKESCOPE_SPILL_DIR", t.TempDir())
	if plan, err := checkMonitorMemory(context.Background(), in, model.FormatAuto, b, true); err != nil || plan.ooc == nil {
		t.Fatalf("spill folder outside the input: %+v, %v", plan, err)
	}
}

// A spill folder inside one of the run's dump folders — an input the
// monitor reader never sees — is refused as one inside the monitor is.
func TestMemCheckSpillFolderInsideADumpFolder(t *testing.T) {
	root := t.TempDir()
	mon, dumps := filepath.Join(root, "run"), filepath.Join(root, "dumps_a")
	for _, d := range []string{mon, filepath.Join(dumps, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	csv := filepath.Join(mon, "grad_unreduced_0-9.csv")
	if err := os.WriteFile(csv, []byte("name,vpp_stage,micro_step,step,norm\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(csv, 4_000_000*ingest.CSVFileBytesPerRow); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SPIKESCOPE_SPILL_DIR", filepath.Join(dumps, "tmp"))
	err := CheckMemoryFor(context.Background(), Inputs{Path: mon, DumpA: dumps, Mem: memlimit.Budget{Bytes: 64 << 20}}, false)
	if err == nil || !strings.Contains(err.Error(), "within the input ("+dumps+")") {
		t.Fatalf("spill folder inside dump A: %v", err)
	}
	if ents, _ := os.ReadDir(filepath.Join(dumps, "tmp")); len(ents) != 0 {
		t.Fatalf("written into the dump folder: %v", ents)
	}
}
