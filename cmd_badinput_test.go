package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"math/rand"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"spikescope/model"
)

// Bad input across every subcommand: each input × each command gives the
// documented exit code, and on failure exactly one stderr line that names
// the file and the problem, with no trace of Go internals.

// demo files the bad inputs are made from
var (
	demoTrendDB = filepath.Join("testdata", "demo", "npu", "trend.db")
	demoDumpDir = filepath.Join("testdata", "demo", "npu", "dump", "step5", "rank3")
	demoMonitor = filepath.Join("testdata", "demo", "npu", "monitor_output")
)

// badCommands are the subcommands every input goes through; each builds
// the arguments for input path p.
var badCommands = []struct {
	name string
	args func(p string) []string
}{
	{"inspect", func(p string) []string { return []string{"inspect", p} }},
	{"detect", func(p string) []string { return []string{"detect", p} }},
	{"select", func(p string) []string { return []string{"select", "--phase1", p} }},
	{"trace-a", func(p string) []string { return []string{"trace", "--dump-a", p, "--dump-b", demoDumpDir} }},
	{"trace-b", func(p string) []string { return []string{"trace", "--dump-a", demoDumpDir, "--dump-b", p} }},
	{"report", func(p string) []string { return []string{"report", p} }},
	{"tui", func(p string) []string { return []string{p} }}, // stdout is not a terminal: text summary
}

// goInternals must never reach a user.
var goInternals = regexp.MustCompile(`panic|goroutine|\.go:\d|\*ingest\.|ingest\.InputError|strconv\.|runtime error|\*fs\.PathError|\*json\.`)

// badCase is one input and what every command must do with it.
type badCase struct {
	name    string
	path    string
	file    string            // the file stderr must name (a substring), or else path
	problem string            // regexp the problem must match (exit 2)
	codes   map[string]int    // exit code per command; default 2
	byCmd   map[string]string // problem regexp per command, overriding problem
	skip    map[string]string // command → why it is not run here
	warn    string            // on exit 0: inspect and detect output must say this
}

// selectProblem is what select says of anything that is not a Phase 1 JSON.
const selectProblem = `Phase 1 JSON|Phase 1 result|is a directory|no such file`

func writeFile(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func readFileT(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// copyTree copies a folder of regular files.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		writeFile(t, filepath.Join(dst, rel), readFileT(t, p))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// alteredDB copies the demo trend.db to dir/name and runs the statements on
// the copy.
func alteredDB(t *testing.T, dir, name string, stmts ...string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	writeFile(t, p, readFileT(t, demoTrendDB))
	db, err := sql.Open("sqlite", p)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return p
}

// sparse makes a file of size bytes holding only head (the rest reads as
// zeros and takes no disk space).
func sparse(t *testing.T, p string, head []byte, size int64) string {
	t.Helper()
	writeFile(t, p, head)
	if err := os.Truncate(p, size); err != nil {
		t.Fatal(err)
	}
	return p
}

// demoPhase1JSON is detect's JSON for the demo trend.db.
func demoPhase1JSON(t *testing.T) []byte {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run([]string{"detect", demoTrendDB}, &out, &errb); code != 0 {
		t.Fatalf("detect on the demo: %d %s", code, errb.String())
	}
	return out.Bytes()
}

func badCases(t *testing.T) []badCase {
	dir := t.TempDir()
	at := func(rel string) string { return filepath.Join(dir, rel) }
	dumpJSON := readFileT(t, filepath.Join(demoDumpDir, "dump.json"))
	p1 := demoPhase1JSON(t)
	monitorOnly := map[string]int{"inspect": 0, "detect": 0, "report": 0, "tui": 0} // a loadable monitor source

	os.MkdirAll(at("empty"), 0o755)
	writeFile(t, at("norec/notes.txt"), []byte("hello\n"))
	writeFile(t, at("zero.db"), nil)
	writeFile(t, at("rank0/grad_unreduced_0-0.csv"), nil)
	writeFile(t, at("zdump/dump.json"), nil)
	writeFile(t, at("zeroP1.json"), nil)
	writeFile(t, at("trunc/dump.json"), dumpJSON[:3000])
	writeFile(t, at("truncP1.json"), p1[:len(p1)/2])
	writeFile(t, at("goodP1.json"), p1)
	// msprobe writes Python's bare NaN/Infinity tokens: valid input
	nan := bytes.Replace(dumpJSON, []byte(`"Max": 2.421875`), []byte(`"Max": NaN`), 1)
	nan = bytes.Replace(nan, []byte(`"Min": -2.390625`), []byte(`"Min": -Infinity`), 1)
	nan = bytes.Replace(nan, []byte(`"Norm": 716.0`), []byte(`"Norm": Infinity`), 1)
	if bytes.Count(nan, []byte("Infinity")) != 2 {
		t.Fatal("demo dump.json changed: the NaN/Infinity edit no longer applies")
	}
	writeFile(t, at("nan/dump.json"), nan)
	writeFile(t, at("notms/dump.json"), []byte(`{"hello": [1, 2, 3]}`))

	alteredDB(t, dir, "notable.db", "DROP TABLE monitoring_metrics")
	alteredDB(t, dir, "nonorm.db", "ALTER TABLE trend_data DROP COLUMN norm")
	alteredDB(t, dir, "texttype.db",
		`CREATE TABLE t2 (rank INTEGER NOT NULL, step TEXT NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL,
		 norm REAL, min REAL, max REAL, mean REAL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID`,
		"INSERT INTO t2 SELECT * FROM trend_data", "DROP TABLE trend_data", "ALTER TABLE t2 RENAME TO trend_data")
	alteredDB(t, dir, "nulls.db", "UPDATE trend_data SET norm = NULL")
	alteredDB(t, dir, "textrow.db", "UPDATE trend_data SET norm = 'oops' WHERE rank = 0 AND step = 3 AND target_id = 1 AND metric_id = 1")
	alteredDB(t, dir, "keyrow.db", "UPDATE trend_data SET step = 'abc' WHERE rank = 0 AND step = 3 AND target_id = 1 AND metric_id = 1")
	rng := rand.New(rand.NewSource(1))
	corrupt := append([]byte(nil), readFileT(t, demoTrendDB)[:100]...)
	for range 200000 {
		corrupt = append(corrupt, byte(rng.Intn(256)))
	}
	writeFile(t, at("corrupt.db"), corrupt)

	csvs, _ := filepath.Glob(filepath.Join(demoMonitor, "*rank1*", "grad_reduced_2-2.csv"))
	if len(csvs) != 1 {
		t.Fatalf("demo monitor tree changed: %v", csvs)
	}
	short := append(readFileT(t, csvs[0]), "1,2\n"...)
	writeFile(t, at("short/rank1/grad_reduced_2-2.csv"), short)
	copyTree(t, demoMonitor, at("tree"))
	treeBad := filepath.Join(at("tree"), filepath.Base(filepath.Dir(csvs[0])), "grad_reduced_2-2.csv")
	writeFile(t, treeBad, short)
	os.MkdirAll(at("dirfile/grad_unreduced_0-0.csv"), 0o755) // a folder named like a file
	os.MkdirAll(at("dirdump/dump.json"), 0o755)
	os.Symlink(at("nowhere/trend.db"), at("broken.db"))
	garbage := make([]byte, 5000)
	rng.Read(garbage)
	writeFile(t, at("garbage/rank0/grad_unreduced_0-0.csv"), garbage)

	// huge: sparse files, so no disk or memory is spent on them
	sparse(t, at("huge/rank0/grad_unreduced_0-0.csv"), nil, 3<<30)
	sparse(t, at("hugedump/dump.json"), nil, 3<<30)
	sparse(t, at("toobig/dump.json"), []byte("{"), 5<<30)
	sparse(t, at("huge.db"), nil, 3<<30)
	// a long line without a newline: a CSV that is not a monitor CSV
	writeFile(t, at("longline/rank0/grad_unreduced_0-0.csv"), append([]byte("vpp_stage,name,step,norm\n"), bytes.Repeat([]byte("a"), 2<<20)...))

	// special files: reading one may block forever (a FIFO) or never end
	// (/dev/zero)
	for _, p := range []string{at("fifo/rank0/grad_unreduced_0-0.csv"), at("fifodump/dump.json")} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(at("loop/rank0"), 0o755)
	os.Symlink("..", at("loop/rank0/up"))
	noSelectSpecial := map[string]string{"select": "cmd_select.go reads the Phase 1 JSON with os.ReadFile: hangs on a FIFO, never ends on /dev/zero; see the report"}

	noSelectHuge := map[string]string{"select": "cmd_select.go reads the Phase 1 JSON whole (3 GB); see the report"}
	return []badCase{
		{name: "missing path", path: at("nope"), file: "nope", problem: `does not exist|no such file`},
		{name: "empty folder", path: at("empty"), file: "empty", problem: `empty folder`, byCmd: map[string]string{"select": selectProblem}},
		{name: "no recognised file", path: at("norec"), file: "norec", problem: `no monitor CSV, trend.db or dump.json|no dump.json`, byCmd: map[string]string{"select": selectProblem}},
		{name: "0-byte .db", path: at("zero.db"), file: "zero.db", problem: `empty file \(0 bytes\)`, byCmd: map[string]string{"select": selectProblem}},
		{name: "0-byte .csv", path: at("rank0/grad_unreduced_0-0.csv"), file: "grad_unreduced_0-0.csv", problem: `empty file \(0 bytes\)`, byCmd: map[string]string{"select": selectProblem}},
		{name: "0-byte dump.json", path: at("zdump"), file: "dump.json", problem: `empty file \(0 bytes\)`, byCmd: map[string]string{"select": selectProblem}},
		{name: "0-byte P1.json", path: at("zeroP1.json"), file: "zeroP1.json", problem: `empty file \(0 bytes\)`, byCmd: map[string]string{"select": selectProblem}},
		{name: "truncated dump.json", path: at("trunc"), file: "dump.json", problem: `truncated JSON`, byCmd: map[string]string{"select": selectProblem}},
		{name: "truncated P1.json", path: at("truncP1.json"), file: "truncP1.json", problem: `unrecognised file|truncated JSON`, byCmd: map[string]string{"select": selectProblem}},
		{name: "valid P1.json", path: at("goodP1.json"), file: "goodP1.json", problem: `unrecognised file|not an msprobe dump.json`, codes: map[string]int{"select": 0}},
		{name: "dump.json with bare NaN/Infinity", path: at("nan"), file: "nan", byCmd: map[string]string{"select": selectProblem},
			codes: map[string]int{"inspect": 0, "detect": 0, "trace-a": 0, "trace-b": 0, "report": 0, "tui": 0}},
		{name: "dump.json not msprobe's", path: at("notms"), file: "dump.json", problem: `not an msprobe dump.json`, byCmd: map[string]string{"select": selectProblem}},
		{name: "trend.db missing a table", path: at("notable.db"), file: "notable.db", problem: `missing table\(s\) monitoring_metrics`, byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "trend.db missing the norm column", path: at("nonorm.db"), file: "nonorm.db", codes: monitorOnly, warn: "no norm statistic recorded",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "trend.db wrong column type", path: at("texttype.db"), file: "texttype.db", problem: `column trend_data.step has type TEXT`, byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "trend.db NULL norms", path: at("nulls.db"), file: "nulls.db", codes: monitorOnly, warn: "norm is missing (NULL, NaN or empty) in all",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "trend.db text in one norm", path: at("textrow.db"), file: "textrow.db", codes: monitorOnly, warn: "data problem: 1 cell in trend_data.norm is not a number (text or binary data): rank 0 step 3",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "trend.db text in one key", path: at("keyrow.db"), file: "keyrow.db", codes: monitorOnly, warn: "1 trend_data row(s) skipped",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "corrupt .db", path: at("corrupt.db"), file: "corrupt.db", problem: `corrupt SQLite database`, byCmd: map[string]string{"select": selectProblem, "trace-a": "SQLite database", "trace-b": "SQLite database"}},
		{name: "CSV with a short row (single file)", path: at("short/rank1/grad_reduced_2-2.csv"), file: "grad_reduced_2-2.csv", codes: monitorOnly, warn: "1 line(s) are not data and were skipped, the file's other rows were read: line 41: 2 fields, the header has 9",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "invalid JSON|not an msprobe", "trace-b": "invalid JSON|not an msprobe"}},
		{name: "CSV tree with one short row", path: at("tree"), file: "tree", codes: monitorOnly, warn: "1 line(s) are not data and were skipped, the file's other rows were read: line 41: 2 fields, the header has 9",
			byCmd: map[string]string{"select": selectProblem, "trace-a": "no dump.json", "trace-b": "no dump.json"}},
		{name: "file that is a folder", path: at("dirfile"), file: "dirfile", problem: `no files to read here \(1 subfolder\(s\) without files\)|no dump.json|is a directory`, byCmd: map[string]string{"select": selectProblem}},
		{name: "dump.json that is a folder", path: at("dirdump"), file: "dirdump", problem: `no files to read here \(1 subfolder\(s\) without files\)|is a directory`, byCmd: map[string]string{"select": selectProblem}},
		{name: "named pipe .csv", path: at("fifo/rank0/grad_unreduced_0-0.csv"), file: "grad_unreduced_0-0.csv", problem: `is a named pipe, not a regular file`, skip: noSelectSpecial},
		{name: "named pipe dump.json", path: at("fifodump"), file: "fifodump", problem: `is a named pipe, not a regular file|not files \(links to folders, broken links, pipes or devices\)`, byCmd: map[string]string{"select": selectProblem}},
		{name: "device /dev/zero", path: "/dev/zero", file: "/dev/zero", problem: `is a device, not a regular file`, skip: noSelectSpecial},
		{name: "folder with a link loop", path: at("loop"), file: "loop", problem: `no files to read here \(1 subfolder\(s\) without files, 1 entries that are not files|no dump.json`, byCmd: map[string]string{"select": selectProblem}},
		{name: "broken symlink", path: at("broken.db"), file: "broken.db", problem: `broken symbolic link: its target .*nowhere.trend.db does not exist|no such file`},
		{name: "binary garbage .csv", path: at("garbage"), file: "grad_unreduced_0-0.csv", problem: `binary data`, byCmd: map[string]string{"select": selectProblem, "trace-a": "no dump.json", "trace-b": "no dump.json"}},
		{name: "huge .csv (3 GB, sparse)", path: at("huge"), file: "grad_unreduced_0-0.csv", problem: `binary data`, skip: noSelectHuge, byCmd: map[string]string{"trace-a": "no dump.json", "trace-b": "no dump.json"}},
		{name: "huge dump.json (3 GB, sparse)", path: at("hugedump"), file: "dump.json", problem: `binary data`, skip: noSelectHuge},
		{name: "dump.json over the size cap (5 GB)", path: at("toobig"), file: "dump.json", problem: `over the 4 GiB a dump.json may have`, skip: noSelectHuge},
		{name: "huge .db (3 GB, sparse)", path: at("huge.db"), file: "huge.db", problem: `not an SQLite database|binary data`, skip: noSelectHuge},
		{name: "CSV with a 2 MiB line", path: at("longline"), file: "grad_unreduced_0-0.csv", problem: `a line longer than 1 MiB`, byCmd: map[string]string{"select": selectProblem, "trace-a": "no dump.json", "trace-b": "no dump.json"}},
	}
}

func TestBadInputEverySubcommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every subcommand on 30 inputs")
	}
	for _, c := range badCases(t) {
		for _, cmd := range badCommands {
			t.Run(c.name+"/"+cmd.name, func(t *testing.T) {
				if why := c.skip[cmd.name]; why != "" {
					t.Skip(why)
				}
				want, ok := c.codes[cmd.name]
				if !ok {
					want = 2
				}
				var out, errb bytes.Buffer
				code := run(cmd.args(c.path), &out, &errb)
				stderr := errb.String()
				if code != want {
					t.Fatalf("exit %d, want %d; stderr %q", code, want, stderr)
				}
				if goInternals.MatchString(stderr) || goInternals.MatchString(out.String()) {
					t.Errorf("Go internals reach the user: %q", stderr)
				}
				if want == 0 {
					if stderr != "" {
						t.Errorf("stderr %q on success", stderr)
					}
					checkWarned(t, cmd.name, c.warn, out.Bytes())
					return
				}
				if out.Len() != 0 && !json.Valid(out.Bytes()) {
					t.Errorf("stdout on failure is neither empty nor JSON: %q", out.String())
				}
				if strings.Count(stderr, "\n") != 1 || !strings.HasSuffix(stderr, "\n") {
					t.Errorf("stderr is not exactly one line: %q", stderr)
				}
				// the file at fault, or the folder given when the command
				// found nothing it reads in it
				if !strings.Contains(stderr, c.file) && !strings.Contains(stderr, c.path+": ") {
					t.Errorf("stderr %q names neither %s nor %s", stderr, c.file, c.path)
				}
				problem := c.problem
				if p, ok := c.byCmd[cmd.name]; ok {
					problem = p
				}
				if !regexp.MustCompile(problem).MatchString(stderr) {
					t.Errorf("stderr %q does not say %q", stderr, problem)
				}
			})
		}
	}
}

// checkWarned checks that a successful inspect or detect repeats the
// loader's warning (detect: in the Phase 1 JSON's "warnings").
func checkWarned(t *testing.T, cmd, warn string, out []byte) {
	t.Helper()
	switch cmd {
	case "detect":
		var p1 model.Phase1Result
		if err := json.Unmarshal(out, &p1); err != nil {
			t.Fatalf("detect stdout is not JSON: %v", err)
		}
		if warn == "" {
			return
		}
		for _, w := range p1.Warnings {
			if strings.Contains(w, warn) {
				return
			}
		}
		t.Errorf("Phase 1 warnings %q lack %q", p1.Warnings, warn)
	case "inspect", "report", "tui":
		if warn != "" && cmd == "inspect" && !strings.Contains(string(out), warn) {
			t.Errorf("inspect output lacks the warning %q:\n%s", warn, out)
		}
		if len(out) == 0 {
			t.Errorf("%s printed nothing", cmd)
		}
	}
}

// TestBadInputTreeKeepsGoodRowsOfBrokenCSV: one bad line in one of the 160
// files of the demo monitor tree leaves the analysis intact (the same
// earliest anomaly, every row of that file but the bad line) and is named
// in the warnings as a data problem.
func TestBadInputTreeKeepsGoodRowsOfBrokenCSV(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, demoMonitor, dir)
	csvs, _ := filepath.Glob(filepath.Join(dir, "*rank1*", "grad_reduced_2-2.csv"))
	if len(csvs) != 1 {
		t.Fatalf("demo monitor tree changed: %v", csvs)
	}
	writeFile(t, csvs[0], append(readFileT(t, csvs[0]), "1,2\n"...))
	detect := func(p string) *model.Phase1Result {
		var out, errb bytes.Buffer
		if code := run([]string{"detect", p}, &out, &errb); code != 0 {
			t.Fatalf("detect %s: exit %d: %s", p, code, errb.String())
		}
		var r model.Phase1Result
		if err := json.Unmarshal(out.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	good, broken := detect(demoMonitor), detect(dir)
	if len(good.Anomalies) == 0 || len(broken.Anomalies) == 0 {
		t.Fatalf("no anomalies: %d / %d", len(good.Anomalies), len(broken.Anomalies))
	}
	g, b := good.Anomalies[0], broken.Anomalies[0]
	if g.Rank != b.Rank || g.Step != b.Step || g.TargetName != b.TargetName {
		t.Errorf("earliest anomaly moved: %+v vs %+v", g, b)
	}
	want := csvs[0] + ": 1 line(s) are not data and were skipped, the file's other rows were read: line 41: 2 fields, the header has 9"
	if len(broken.Warnings) < 1 || broken.Warnings[0] != want {
		t.Errorf("warnings %q, want first %q", broken.Warnings, want)
	}
	if good.Summary.TotalRows != broken.Summary.TotalRows {
		t.Errorf("rows %d with the bad line, %d without: the file's good rows were not all kept", broken.Summary.TotalRows, good.Summary.TotalRows)
	}
}
