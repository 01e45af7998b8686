package ingest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyDump is a valid dump.json whose single op key carries a tag, so that
// tests can tell which file a dump came from.
func tinyDump(tag string) string {
	return fmt.Sprintf(`{"task":"statistics","level":"L1","framework":"pytorch","data":{"Torch.%s.0.forward":{"output":[]}}}`, tag)
}

type dumpID struct {
	step, rank int
	proc, mode string
	tag        string
}

func treeIDs(t *testing.T, dir string) ([]dumpID, []string) {
	t.Helper()
	tr := loadTree(t, dir)
	var out []dumpID
	for _, d := range tr.Dumps {
		tag := ""
		if len(d.Ops) > 0 {
			tag = d.Ops[0].ModulePath
		}
		out = append(out, dumpID{d.Step, d.Rank, d.Proc, d.Mode, tag})
	}
	return out, said(tr.WarningsReasons)
}

func sameIDs(t *testing.T, got, want []dumpID) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("dumps\n got %v\nwant %v", got, want)
	}
}

func TestDumpTreeStepsSortNumerically(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"step10", "step2", "step0"} {
		for _, r := range []string{"rank1", "rank10", "rank2"} {
			writeFile(t, filepath.Join(dir, s, r, "dump.json"), tinyDump(s+r))
		}
	}
	writeFile(t, filepath.Join(dir, "step_3", "rank0", "dump.json"), tinyDump("bad"))
	writeFile(t, filepath.Join(dir, "step2", "rank3", "notes.txt"), "no dump here")
	got, warns := treeIDs(t, dir)
	var want []dumpID
	for _, s := range []int{0, 2, 10} {
		for _, r := range []int{1, 2, 10} {
			want = append(want, dumpID{s, r, "", "", fmt.Sprintf("step%drank%d", s, r)})
		}
	}
	sameIDs(t, got, want)
	w := strings.Join(warns, "\n")
	if !strings.Contains(w, "step_3: skipped: step folder name is not step<N>") || !strings.Contains(w, filepath.Join("step2", "rank3")+": skipped: no dump.json") {
		t.Errorf("warnings %q", w)
	}
}

// proc<pid> folders get ranks after the largest real rank, in pid order,
// the same in every step; a bare "rank" folder is rank 0.
func TestDumpTreeProcAndBareRank(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []string{"step0", "step1"} {
		writeFile(t, filepath.Join(dir, s, "rank0", "dump.json"), tinyDump("r0"))
		writeFile(t, filepath.Join(dir, s, "rank1", "dump.json"), tinyDump("r1"))
		writeFile(t, filepath.Join(dir, s, "proc99", "dump.json"), tinyDump("p99"))
		writeFile(t, filepath.Join(dir, s, "proc7", "dump.json"), tinyDump("p7"))
	}
	got, _ := treeIDs(t, dir)
	var want []dumpID
	for s := 0; s < 2; s++ {
		want = append(want, dumpID{s, 0, "", "", "r0"}, dumpID{s, 1, "", "", "r1"}, dumpID{s, 2, "proc7", "", "p7"}, dumpID{s, 3, "proc99", "", "p99"})
	}
	sameIDs(t, got, want)

	bare := t.TempDir()
	writeFile(t, filepath.Join(bare, "rank", "dump.json"), tinyDump("bare"))
	got, _ = treeIDs(t, bare)
	sameIDs(t, got, []dumpID{{-1, 0, "", "", "bare"}})
}

func TestDumpTreeModeLevelAndPaths(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "graph", "step0", "rank0", "dump.json"), tinyDump("g"))
	writeFile(t, filepath.Join(dir, "pynative", "step0", "rank0", "dump.json"), tinyDump("p"))
	writeFile(t, filepath.Join(dir, "pynative", "step1", "rank0", "dump.json"), tinyDump("p1"))
	got, warns := treeIDs(t, dir)
	sameIDs(t, got, []dumpID{{0, 0, "", "graph", "g"}, {0, 0, "", "pynative", "p"}, {1, 0, "", "pynative", "p1"}})
	if !strings.Contains(strings.Join(warns, "\n"), "both graph and pynative") {
		t.Errorf("warnings %v", warns)
	}
	// Deeper entry points: a step folder, a rank folder, the dump.json
	// itself: step and rank come from the folder names.
	got, _ = treeIDs(t, filepath.Join(dir, "pynative", "step1"))
	sameIDs(t, got, []dumpID{{1, 0, "", "", "p1"}})
	got, _ = treeIDs(t, filepath.Join(dir, "pynative", "step1", "rank0"))
	sameIDs(t, got, []dumpID{{1, 0, "", "", "p1"}})
	got, _ = treeIDs(t, filepath.Join(dir, "graph", "step0", "rank0", "dump.json"))
	sameIDs(t, got, []dumpID{{0, 0, "", "", "g"}})
	got, _ = treeIDs(t, filepath.Join(quickStart, "step1", "proc2016", "dump.json"))
	sameIDs(t, got, []dumpID{{1, 0, "proc2016", "", "conv2d"}})
}

// A broken dump in a tree of several is skipped with a warning.
func TestDumpTreeSkipsBrokenRank(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "step0", "rank0", "dump.json"), tinyDump("ok"))
	writeFile(t, filepath.Join(dir, "step0", "rank1", "dump.json"), `{"data": {"Torch.a.0.forward": {`)
	got, warns := treeIDs(t, dir)
	sameIDs(t, got, []dumpID{{0, 0, "", "", "ok"}})
	if w := strings.Join(warns, "\n"); !strings.Contains(w, "skipped: "+filepath.Join(dir, "step0", "rank1", "dump.json")+": truncated JSON") {
		t.Errorf("warnings %q", w)
	}
}

// badInput checks that loading path fails with an *InputError for errPath
// whose message holds the problem.
func badInput(t *testing.T, path, errPath, problem string) {
	t.Helper()
	_, err := LoadDumpTree(context.Background(), path, nil)
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("%s: got %T %v, want *InputError", path, err, err)
	}
	msg := err.Error()
	if ie.Path != errPath || !strings.HasPrefix(msg, errPath+": ") || !strings.Contains(msg, problem) || strings.Contains(msg, "\n") {
		t.Errorf("%s: error %q, want path %s and %q", path, msg, errPath, problem)
	}
}

func TestDumpBadTruncated(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(quickStart, "step0", "proc2016", "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "dump.json")
	writeFile(t, p, string(b[:1000]))
	badInput(t, p, p, "truncated JSON: input ends at byte 1000")
	writeFile(t, p, `{"data": {"Torch.a.0.forward": {"output": [{"Max": Infin`)
	badInput(t, p, p, "truncated JSON: input ends at byte 56")
	writeFile(t, p, `{"data": {"Torch.a.0.forward": {"output": [{"Max": 1.5.2}]}}}`)
	badInput(t, p, p, `invalid JSON at byte 51: malformed number "1.5.2"`)
}

func TestDumpBadNotMsprobe(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dump.json")
	writeFile(t, p, `{"name": "x", "values": [1, 2]}`)
	badInput(t, p, p, `not an msprobe dump.json: no "data" or "task" key (top-level keys: "name", "values")`)
	writeFile(t, p, `[{"data": {}}]`)
	badInput(t, p, p, "not an msprobe dump.json: the top-level value is an array, not an object")
	writeFile(t, p, `{"task": "statistics", "data": [1]}`)
	badInput(t, p, p, `not an msprobe dump.json: "data" is an array, not an object`)
}

func TestDumpBadEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	badInput(t, dir, dir, "empty folder")
}

func TestDumpBadNoDumpJSON(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	writeFile(t, filepath.Join(dir, "step0", "rank0", "stack.json"), "{}")
	badInput(t, dir, dir, "no dump.json found")
	badInput(t, msprobeFixtures, msprobeFixtures, "no dump.json found")
}

func TestDumpBadZeroBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "dump.json")
	writeFile(t, p, "")
	badInput(t, p, p, "empty file (0 bytes)")
	writeFile(t, p, " \n")
	badInput(t, p, p, "truncated JSON: input ends at byte 2")
}

func TestDumpBadMissingPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope", "dump.json")
	badInput(t, p, p, "does not exist")
}

// Tests run as root, so permissions cannot make a file unreadable: a
// directory named dump.json and a broken symbolic link stand in.
func TestDumpBadUnreadable(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "rank0", "dump.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	badInput(t, filepath.Join(dir, "rank0"), filepath.Join(dir, "rank0", "dump.json"), "cannot read: is a directory")

	link := filepath.Join(dir, "rank1", "dump.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone.json"), link); err != nil {
		t.Fatal(err)
	}
	badInput(t, filepath.Join(dir, "rank1"), link, "broken symbolic link: its target")
	badInput(t, link, link, "broken symbolic link: its target")
}
