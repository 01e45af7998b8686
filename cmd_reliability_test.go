package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"spikescope/ingest"
	"spikescope/model"
)

// runArgs runs the command line and returns exit code, stdout, stderr.
func runArgs(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// Item 1: -o never destroys an input — the input itself, a symlink or hard
// link to it, a file inside an input folder, a database's journal — and
// the input is byte-for-byte unchanged afterwards.
func TestOutputRefusesEveryInput(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "run.trend.db")
	writeFile(t, db, readFileT(t, demoTrendDB))
	tree := filepath.Join(dir, "tree")
	copyTree(t, demoDumpDir, tree)
	dumpB := filepath.Join(dir, "dumpB")
	copyTree(t, demoDumpDir, dumpB)
	mon := filepath.Join(dir, "mon")
	copyTree(t, demoMonitor, mon)
	p1 := filepath.Join(dir, "p1.json")
	writeFile(t, p1, demoPhase1JSON(t))
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(db, link); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.db")
	if err := os.Link(db, hard); err != nil {
		t.Fatal(err)
	}
	linkedTree := filepath.Join(dir, "linked-tree")
	if err := os.Symlink(tree, linkedTree); err != nil {
		t.Fatal(err)
	}
	var aCSV string
	filepath.Walk(mon, func(p string, info os.FileInfo, err error) error {
		if aCSV == "" && strings.HasSuffix(p, ".csv") {
			aCSV = p
		}
		return nil
	})
	cases := []struct {
		name  string
		args  []string
		guard string // the input that must stay unchanged
		why   string
	}{
		{"db itself", []string{"detect", db, "-o", db}, db, "is the input file"},
		{"symlink to the db", []string{"detect", db, "-o", link}, db, "is the input file"},
		{"hard link to the db", []string{"detect", db, "-o", hard}, db, "is the input file"},
		{"db given through a link", []string{"detect", link, "-o", db}, db, "is the input file"},
		{"db journal", []string{"detect", db, "-o", db + "-journal"}, db, "journal file of the input database"},
		{"csv in the tree", []string{"detect", mon, "-o", aCSV}, aCSV, "inside the input folder"},
		{"dump.json", []string{"trace", "--dump-a", tree, "--dump-b", dumpB, "-o", filepath.Join(tree, "dump.json")}, filepath.Join(tree, "dump.json"), "inside the input folder"},
		{"dump.json through a linked folder", []string{"trace", "--dump-a", tree, "--dump-b", dumpB, "-o", filepath.Join(linkedTree, "dump.json")}, filepath.Join(tree, "dump.json"), "inside the input folder"},
		{"new file in a dump folder", []string{"trace", "--dump-a", tree, "--dump-b", dumpB, "-o", filepath.Join(dumpB, "p3.json")}, filepath.Join(dumpB, "dump.json"), "inside the input folder"},
		{"phase1 json", []string{"select", "--phase1", p1, "-o", p1}, p1, "is the input file"},
		{"report over its phase1", []string{"report", "--phase1", p1, "-o", p1}, p1, "is the input file"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			before := readFileT(t, c.guard)
			code, _, stderr := runArgs(c.args...)
			if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.why) || !strings.Contains(stderr, "refusing to write") {
				t.Fatalf("exit %d, stderr %q; want exit 2 and one line saying %q", code, stderr, c.why)
			}
			if !bytes.Equal(before, readFileT(t, c.guard)) {
				t.Fatalf("%s changed", c.guard)
			}
			if _, err := os.Stat(filepath.Join(dumpB, "p3.json")); err == nil {
				t.Fatal("a file was written into an input folder")
			}
		})
	}
	// an output next to the database (not inside an input folder) is fine
	out := filepath.Join(dir, "p1-new.json")
	if code, _, stderr := runArgs("detect", db, "-o", out); code != 0 {
		t.Fatalf("detect -o %s: exit %d, %s", out, code, stderr)
	}
	if b := readFileT(t, out); !bytes.HasPrefix(b, []byte("{")) {
		t.Fatalf("output %q", b[:20])
	}
}

// Item 5: every command reports a failed stdout write (a full disk) with
// exit 1 and one line.
func TestStdoutOnFullDiskExits1(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	defer full.Close()
	p1 := filepath.Join(t.TempDir(), "p1.json")
	writeFile(t, p1, demoPhase1JSON(t))
	for _, args := range [][]string{
		{"inspect", demoTrendDB},
		{"inspect", "--json", demoTrendDB},
		{"detect", demoTrendDB},
		{"select", "--phase1", p1},
		{"report", "--phase1", p1},
		{"trace", "--dump-a", demoDumpDir, "--dump-b", demoDumpDir},
		{"help"},
		{demoTrendDB}, // TUI with stdout not a terminal: the summary
	} {
		var errb bytes.Buffer
		code := run(args, full, &errb)
		if code != 1 || strings.Count(errb.String(), "\n") != 1 || !strings.Contains(errb.String(), "cannot write to standard output: no space left on device") {
			t.Errorf("%v: exit %d, stderr %q; want exit 1 and one line", args, code, errb.String())
		}
	}
}

// Item 3: a named pipe as construct.json, stack.json, dump.json, a Phase 1
// JSON or a trend.db is refused at once instead of hanging.
func TestFIFOInputsDoNotHang(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "a")
	copyTree(t, demoDumpDir, tree)
	mkfifo := func(p string) {
		os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("mkfifo:", err)
		}
	}
	for _, side := range []string{"construct.json", "stack.json"} {
		mkfifo(filepath.Join(tree, side))
	}
	fifoDump := filepath.Join(dir, "fd")
	copyTree(t, demoDumpDir, fifoDump)
	mkfifo(filepath.Join(fifoDump, "dump.json"))
	fifoP1 := filepath.Join(dir, "p1.json")
	mkfifo(fifoP1)
	fifoDB := filepath.Join(dir, "x.trend.db")
	mkfifo(fifoDB)
	type res struct {
		code           int
		stdout, stderr string
	}
	runT := func(args ...string) res {
		ch := make(chan res, 1)
		go func() { c, o, e := runArgs(args...); ch <- res{c, o, e} }()
		select {
		case r := <-ch:
			return r
		case <-time.After(20 * time.Second):
			t.Fatalf("%v hangs", args)
		}
		return res{}
	}
	// the side files are ignored with a warning; the trace runs
	r := runT("trace", "--dump-a", tree, "--dump-b", demoDumpDir)
	if r.code != 0 || !strings.Contains(r.stdout, "construct.json: ignored: is a named pipe, not a regular file") || !strings.Contains(r.stdout, "stack.json: ignored: is a named pipe") {
		t.Errorf("trace with FIFO side files: exit %d, stderr %q, warnings missing in %.300s", r.code, r.stderr, r.stdout)
	}
	// a saved result may come from a pipe (`--phase1 <(…)`): one that no
	// program writes into is refused after ingest.PipeWriterWait
	defer func(w time.Duration) { ingest.PipeWriterWait = w }(ingest.PipeWriterWait)
	ingest.PipeWriterWait = 200 * time.Millisecond
	for _, c := range []struct {
		args    []string
		problem string
	}{
		{[]string{"trace", "--dump-a", fifoDump, "--dump-b", demoDumpDir}, "is a named pipe, not a regular file"},
		{[]string{"select", "--phase1", fifoP1}, "is a named pipe that no program wrote into within 200ms"},
		{[]string{"inspect", fifoDB}, "is a named pipe, not a regular file"},
	} {
		r := runT(c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.problem) {
			t.Errorf("%v: exit %d, stderr %q", c.args, r.code, r.stderr)
		}
	}
}

// Item 3: a side file linked to /dev/zero is refused (a device), and a
// dump.json of 200 MB of blanks is refused without being read into memory.
func TestDeviceAndBlankFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	tree := filepath.Join(dir, "a")
	copyTree(t, demoDumpDir, tree)
	os.Remove(filepath.Join(tree, "stack.json"))
	if err := os.Symlink("/dev/zero", filepath.Join(tree, "stack.json")); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runArgs("trace", "--dump-a", tree, "--dump-b", demoDumpDir)
	if code != 0 || !strings.Contains(stdout, "stack.json: ignored: is a device, not a regular file") {
		t.Errorf("stack.json → /dev/zero: exit %d, stderr %q", code, stderr)
	}
	// a construct.json over the size limit (sparse: no disk used) is
	// refused from its size, not read
	os.Remove(filepath.Join(tree, "stack.json"))
	sparse(t, filepath.Join(tree, "construct.json"), []byte("{"), ingest.MaxSideFileBytes+1)
	code, stdout, stderr = runArgs("trace", "--dump-a", tree, "--dump-b", demoDumpDir)
	if code != 0 || !strings.Contains(stdout, "construct.json: ignored: 4.3 GB is too large for a construct.json (at most 4 GiB)") {
		t.Errorf("huge construct.json: exit %d, stderr %q", code, stderr)
	}
	blank := filepath.Join(dir, "blank")
	if err := os.MkdirAll(blank, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(blank, "dump.json"))
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat([]byte(" "), 1<<20)
	for i := 0; i < 200; i++ {
		f.Write(chunk)
	}
	f.Close()
	var before, after runtimeMem
	before.read()
	code, _, stderr = runArgs("inspect", blank)
	after.read()
	if code != 2 || !strings.Contains(stderr, "holds only blanks") {
		t.Errorf("blank dump.json: exit %d, stderr %q", code, stderr)
	}
	if grew := after.total - before.total; grew > 100<<20 {
		t.Errorf("reading a blank dump.json allocated %d MB", grew>>20)
	}
}

// Item 3: every numeric flag has a range; --window 2^62 is refused at once.
func TestNumericFlagRanges(t *testing.T) {
	p1 := filepath.Join(t.TempDir(), "p1.json")
	writeFile(t, p1, demoPhase1JSON(t))
	for _, args := range [][]string{
		{"detect", demoTrendDB, "--window", "4611686018427387904"},
		{"detect", demoTrendDB, "--window", "100000000"},
		{"detect", demoTrendDB, "--window", "-1"},
		{"detect", demoTrendDB, "--iqr-mult", "+Inf"},
		{"detect", demoTrendDB, "--mad-mult", "1e300"},
		{"detect", demoTrendDB, "--min-effect", "NaN"},
		{"select", "--phase1", p1, "--growth", "Inf"},
		{"select", "--phase1", p1, "--device-ratio", "1e99"},
		{"trace", "--dump-a", demoDumpDir, "--dump-b", demoDumpDir, "--call", "99999999999"},
		{"trace", "--dump-a", demoDumpDir, "--dump-b", demoDumpDir, "--step", "-3"},
		{"report", demoTrendDB, "--rank", "-1"},
		{demoTrendDB, "--step", "-1"},
	} {
		start := time.Now()
		code, _, stderr := runArgs(args...)
		first, _, _ := strings.Cut(stderr, "\n")
		flagName := strings.TrimLeft(args[len(args)-2], "-")
		if code != 2 || !strings.Contains(first, flagName) || time.Since(start) > 5*time.Second {
			t.Errorf("%v: exit %d in %v, stderr %q; want exit 2 at once", args, code, time.Since(start), stderr)
		}
	}
}

// runtimeMem reads the bytes allocated so far.
type runtimeMem struct{ total uint64 }

func (m *runtimeMem) read() {
	var st runtime.MemStats
	runtime.ReadMemStats(&st)
	m.total = st.TotalAlloc
}

// detectJSON runs detect on p and decodes its Phase 1 result.
func detectJSON(t *testing.T, p string) *model.Phase1Result {
	t.Helper()
	code, out, stderr := runArgs("detect", p)
	if code != 0 {
		t.Fatalf("detect %s: exit %d: %s", p, code, stderr)
	}
	var r model.Phase1Result
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	return &r
}

// Item 4: text and binary cells in trend_data.norm are counted data
// problems, not non-finite gradients: no candidate at their coordinates,
// the earliest candidate stays where it was.
func TestBadNormCellsAreDataProblemsNotFindings(t *testing.T) {
	dir := t.TempDir()
	good := detectJSON(t, demoTrendDB)
	p := alteredDB(t, dir, "cells.trend.db",
		`UPDATE trend_data SET norm = 'garbage' WHERE rank = 2 AND step = 1 AND target_id = 1 AND metric_id = 1`,
		`UPDATE trend_data SET norm = X'00ff' WHERE rank = 2 AND step = 1 AND target_id = 2 AND metric_id = 1`,
		`UPDATE trend_data SET norm = 'x' WHERE rank = 5 AND step = 0 AND target_id = 3 AND metric_id = 1`)
	bad := detectJSON(t, p)
	for _, a := range bad.Anomalies {
		if a.NonFinite {
			t.Errorf("a bad cell became a non-finite candidate: rank %d step %d %s", a.Rank, a.Step, a.TargetName)
		}
	}
	if len(good.Anomalies) == 0 || len(bad.Anomalies) == 0 {
		t.Fatal("no anomalies")
	}
	g, b := good.Anomalies[0], bad.Anomalies[0]
	if g.Rank != b.Rank || g.Step != b.Step || g.TargetName != b.TargetName {
		t.Errorf("earliest candidate moved: %+v → %+v", g, b)
	}
	w := strings.Join(bad.Warnings, "\n")
	if !strings.Contains(w, "data problem: 3 cells in trend_data.norm are not numbers (text or binary data): rank 2 step 1 (") || !strings.Contains(w, "rank 5 step 0 (") {
		t.Errorf("warnings %q", bad.Warnings)
	}
	if bad.Summary.TotalRows != good.Summary.TotalRows-3 {
		t.Errorf("rows %d, want %d (the three bad cells' rows left out)", bad.Summary.TotalRows, good.Summary.TotalRows-3)
	}
}

// Item 4: duplicate key rows (a hand-made table without a primary key) are
// counted and used once.
func TestDuplicateTrendRowsAreCountedAndUsedOnce(t *testing.T) {
	good := detectJSON(t, demoTrendDB)
	p := alteredDB(t, t.TempDir(), "dups.trend.db",
		`CREATE TABLE t2 AS SELECT * FROM trend_data`,
		`INSERT INTO t2 SELECT * FROM trend_data WHERE rank = 2 AND step < 3`,
		`DROP TABLE trend_data`,
		`ALTER TABLE t2 RENAME TO trend_data`)
	bad := detectJSON(t, p)
	if bad.Summary.TotalRows != good.Summary.TotalRows {
		t.Errorf("rows %d, want %d", bad.Summary.TotalRows, good.Summary.TotalRows)
	}
	w := strings.Join(bad.Warnings, "\n")
	if !strings.Contains(w, "trend_data row(s) repeat the rank, step, parameter and metric of an earlier row") || !strings.Contains(w, "the first repeat: rank 2 step 0 ") {
		t.Errorf("warnings %q", bad.Warnings)
	}
	if len(good.Anomalies) != len(bad.Anomalies) {
		t.Errorf("%d candidates with duplicates, %d without", len(bad.Anomalies), len(good.Anomalies))
	}
}

// Item 4: a header-only CSV in a tree is reported with the rank it leaves
// without data.
func TestHeaderOnlyCSVInTreeIsReported(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, demoMonitor, dir)
	csvs, _ := filepath.Glob(filepath.Join(dir, "*rank1*", "grad_unreduced_2-2.csv"))
	if len(csvs) != 1 {
		t.Fatalf("demo tree changed: %v", csvs)
	}
	head, _, _ := strings.Cut(string(readFileT(t, csvs[0])), "\n")
	writeFile(t, csvs[0], []byte(head+"\n"))
	code, out, stderr := runArgs("inspect", dir)
	if code != 0 {
		t.Fatalf("exit %d %s", code, stderr)
	}
	if !strings.Contains(out, csvs[0]+": header only, no data rows: rank 1 has nothing from this file") {
		t.Errorf("inspect output lacks the header-only warning:\n%s", out)
	}
}

// Item 7: a control character in a parameter name (an ESC sequence) never
// reaches the terminal raw: inspect and the TUI's summary show it escaped,
// and the load says so.
func TestControlCharactersInNamesAreEscaped(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	os.MkdirAll(filepath.Dir(p), 0o755)
	writeFile(t, p, []byte("vpp_stage,name,step,micro_step,norm\n0,layers.0.\x1b[2Jevil\x07.weight,0,0,1.5\n0,layers.0.ok.weight,0,0,1.5\n"))
	for _, args := range [][]string{{"inspect", dir}, {dir}} {
		code, out, stderr := runArgs(args...)
		if code != 0 {
			t.Fatalf("%v: exit %d %s", args, code, stderr)
		}
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%v: a raw control character reached the output: %q", args, out)
		}
	}
	_, out, _ := runArgs("inspect", dir)
	if !strings.Contains(out, `layers.0.\x1b[2Jevil\x07.weight`) || !strings.Contains(out, "1 parameter name(s) hold control characters, shown escaped") {
		t.Errorf("inspect:\n%s", out)
	}
	// a path with an ESC in an error line
	bad := filepath.Join(dir, "x\x1b[31m.trend.db")
	writeFile(t, bad, []byte("not sqlite"))
	_, _, stderr := runArgs("inspect", bad)
	if strings.Contains(stderr, "\x1b") || !strings.Contains(stderr, `x\x1b[31m.trend.db`) {
		t.Errorf("stderr %q", stderr)
	}
}

// Item 7: the messages say what is wrong.
func TestMessagesNameTheRealProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		writeFile(t, p, []byte(body))
		return p
	}
	p1 := write("p1.json", string(demoPhase1JSON(t)))
	code, p2, stderr := runArgs("select", "--phase1", p1)
	if code != 0 {
		t.Fatal(stderr)
	}
	p2f := write("p2.json", p2)
	p1neg := write("neg.json", `{"anomalies": [{"rank": -1, "step": 3, "target_name": "w", "norm": 2}]}`)
	p1negStep := write("negstep.json", `{"anomalies": [{"rank": 1, "step": -3, "target_name": "w", "norm": 2}]}`)
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"select", "--phase1", p2f}, "this is a Phase 2 result (select's output), not a Phase 1 result"},
		{[]string{"select", "--phase1", write("package.json", `{"name": "x", "version": "1.0.0", "dependencies": {}}`)}, `not a Phase 1 result: it has no "anomalies" list (its keys: "dependencies", "name", "version")`},
		{[]string{"select", "--phase1", write("map.geojson", `{"type": "FeatureCollection", "features": [{"type": "Feature", "geometry": null}]}`)}, `not a Phase 1 result: it has no "anomalies" list`},
		{[]string{"select", "--phase1", p1neg}, "anomaly 1 has a negative rank -1"},
		{[]string{"select", "--phase1", p1negStep}, "anomaly 1 has a negative step -3"},
		{[]string{"report", "--phase1", p2f}, "this is a Phase 2 result"},
	}
	for _, c := range cases {
		code, _, stderr := runArgs(c.args...)
		if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, stderr, c.want)
		}
	}
	// a valid dump.json whose statistics have the wrong JSON types is not
	// "invalid JSON"
	wrong := write("wrong/dump.json", `{"task": "statistics", "level": "mix", "data": {"Functional.linear.0.forward": {"input_args": [{"type": "torch.Tensor", "Max": {}, "Min": [], "Mean": true, "Norm": "x"}]}}}`)
	code, out, stderr := runArgs("inspect", filepath.Dir(wrong))
	if strings.Contains(stderr+out, "invalid JSON") || !strings.Contains(out, "none of its 1 tensor records has Max/Min/Mean/Norm") {
		t.Errorf("wrong types: exit %d, stderr %q, out %q", code, stderr, out)
	}
}

// Item 7: negative ranks and steps in the data are data problems: a
// trend.db row and a CSV line with one are skipped and counted.
func TestNegativeRanksAndStepsAreRefused(t *testing.T) {
	dir := t.TempDir()
	db := alteredDB(t, dir, "neg.trend.db", `UPDATE trend_data SET rank = -1 WHERE rank = 3 AND step = 2 AND target_id = 1 AND metric_id = 1`)
	r := detectJSON(t, db)
	if w := strings.Join(r.Warnings, "\n"); !strings.Contains(w, "1 trend_data row(s) skipped") || !strings.Contains(w, "rank -1 is negative") {
		t.Errorf("trend.db warnings %q", r.Warnings)
	}
	for _, rk := range r.Summary.Ranks {
		if rk < 0 {
			t.Errorf("rank %d analysed", rk)
		}
	}
	p := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	os.MkdirAll(filepath.Dir(p), 0o755)
	writeFile(t, p, []byte("vpp_stage,name,step,micro_step,norm\n0,w,-2,0,1.5\n0,w,0,0,1.5\n0,w,1,0,1.5\n"))
	code, out, stderr := runArgs("inspect", "--json", p)
	if code != 0 || !strings.Contains(out, "line 2, column step: -2 is negative") || !strings.Contains(out, `"rows": 2`) {
		t.Errorf("CSV: exit %d %s\n%s", code, stderr, out)
	}
}
