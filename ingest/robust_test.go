package ingest

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// Partial data and hostile files: a broken file of a tree is skipped with a
// warning, binary or endless files are refused from their first bytes, and
// bad rows of a trend.db are skipped and counted.

const v1Row = "0,w,%d,0,1,2,3,%d,[2],torch.float32\n"

// csvTree writes rank folders rank0..rank(n-1) with one grad_unreduced file
// each (norm = 10·rank + step for steps 0 and 1) and returns the root.
func csvTree(t *testing.T, n int) string {
	t.Helper()
	root := t.TempDir()
	for r := 0; r < n; r++ {
		body := v1Head + fmt.Sprintf(v1Row, 0, 10*r) + fmt.Sprintf(v1Row, 1, 10*r+1)
		writeMonFile(t, filepath.Join(root, fmt.Sprintf("rank%d", r), "grad_unreduced_0-1.csv"), body)
	}
	return root
}

func TestCSVTreeKeepsGoodRowsOfDamagedFile(t *testing.T) {
	root := csvTree(t, 3)
	bad := filepath.Join(root, "rank1", "grad_unreduced_0-1.csv")
	writeMonFile(t, bad, v1Head+fmt.Sprintf(v1Row, 0, 10)+"0,w,1\n"+fmt.Sprintf(v1Row, 2, 12))
	d, err := LoadMonitor(context.Background(), root, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	// ranks 0 and 2: two steps each; rank 1: its two good lines
	if d.Rows.Len() != 6 {
		t.Fatalf("rows %d, want 6", d.Rows.Len())
	}
	i := mustMonRow(t, d, 2, 1, "w", "grad_unreduced")
	assertMonVal(t, "rank 2 step 1 norm", d.Rows.Value(model.StatNorm, i), 21)
	i = mustMonRow(t, d, 1, 2, "w", "grad_unreduced")
	assertMonVal(t, "rank 1 step 2 norm (after the bad line)", d.Rows.Value(model.StatNorm, i), 12)
	want := bad + ": 1 line(s) are not data and were skipped, the file's other rows were read: line 3: 3 fields, the header has 10"
	if len(said(d.WarningsReasons)) < 1 || said(d.WarningsReasons)[0] != want {
		t.Errorf("warnings %q, want %q first", said(d.WarningsReasons), want)
	}
}

func TestCSVTreeAllBrokenFails(t *testing.T) {
	root := csvTree(t, 2)
	first := filepath.Join(root, "rank0", "grad_unreduced_0-1.csv")
	writeMonFile(t, first, "")
	writeMonFile(t, filepath.Join(root, "rank1", "grad_unreduced_0-1.csv"), "a,b\n1,2\n")
	_, err := LoadMonitor(context.Background(), root, model.FormatCSV, nil)
	wantMonInputError(t, err, root, "none of the 2 monitor CSV files could be read; the first: "+first+": empty file (0 bytes)")
}

func TestCSVTreeNamesTenSkippedFiles(t *testing.T) {
	root := csvTree(t, 13)
	for r := 1; r < 13; r++ {
		writeMonFile(t, filepath.Join(root, fmt.Sprintf("rank%d", r), "grad_unreduced_0-1.csv"), v1Head+"0,w,x,0,1,2,3,4,[2],f\n")
	}
	d, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 2 {
		t.Errorf("rows %d, want rank 0's 2", d.Rows.Len())
	}
	if len(said(d.WarningsReasons)) != 12 {
		t.Fatalf("%d warnings, want summary + 10 files + rest: %q", len(said(d.WarningsReasons)), said(d.WarningsReasons))
	}
	if said(d.WarningsReasons)[0] != "12 of 13 monitor CSV files could not be read and were skipped: their rows are missing from the analysis" ||
		!strings.HasSuffix(said(d.WarningsReasons)[1], filepath.Join("rank1", "grad_unreduced_0-1.csv")+`: line 2, column step: "x" is not a number`) ||
		said(d.WarningsReasons)[11] != "… and 2 more skipped file(s)" {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestCSVSingleFileOnlyBadLinesFails(t *testing.T) {
	root := csvTree(t, 1)
	p := filepath.Join(root, "rank0", "grad_unreduced_0-1.csv")
	writeMonFile(t, p, v1Head+"0,w,1\n0,w,x,0,1,2,3,4,[2],f\n")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "line 2: 3 fields, the header has 10 (and 1 more bad line(s): not a monitor CSV, or badly damaged)")
	_, err = LoadCSV(context.Background(), root, nil) // a tree of one file: that file's error
	wantMonInputError(t, err, p, "line 2: 3 fields, the header has 10")
	// one bad line among good ones: kept, counted
	writeMonFile(t, p, v1Head+"0,w,1\n"+fmt.Sprintf(v1Row, 2, 2))
	d, err := LoadCSV(context.Background(), p, nil)
	if err != nil || d.Rows.Len() != 1 || !strings.Contains(strings.Join(said(d.WarningsReasons), "|"), "line 2: 3 fields, the header has 10") {
		t.Fatalf("%v %q", err, said(d.WarningsReasons))
	}
}

func TestCSVBinaryRefused(t *testing.T) {
	dir := t.TempDir()
	nul := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, nul, "vpp\x00stage,name")
	_, err := LoadCSV(context.Background(), nul, nil)
	wantMonInputError(t, err, nul, "binary data (a NUL byte at offset 3), not a monitor CSV (text)")
	latin := filepath.Join(dir, "rank1", "grad_unreduced_0-0.csv")
	writeMonFile(t, latin, "vpp_stage,name\xff,step\n")
	_, err = LoadCSV(context.Background(), latin, nil)
	wantMonInputError(t, err, latin, "binary data (byte 0xff at offset 14 is not UTF-8 text)")
	// a UTF-8 character cut by the 512-byte sniff is not binary
	cut := filepath.Join(dir, "rank2", "grad_unreduced_0-0.csv")
	writeMonFile(t, cut, v1Head+"0,"+strings.Repeat("x", csvSniffBytes-len(v1Head)-3)+"é,0,0,1,2,3,4,[2],f\n")
	d, err := LoadCSV(context.Background(), cut, nil)
	if err != nil || d.Rows.Len() != 1 {
		t.Fatalf("cut character: %v", err)
	}
}

func TestCSVLineLengthBounded(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, v1Head+strings.Repeat("a", csvMaxLineBytes+10))
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "a line longer than 1 MiB: not a monitor CSV, or the file is damaged")
}

func TestCSVQuoteErrorsWorded(t *testing.T) {
	dir := t.TempDir()
	bare := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, bare, v1Head+"0,w\"x,0,0,1,2,3,4,[2],f\n0,w,1,0,1,2,3,4,[2],f\n")
	d, err := LoadCSV(context.Background(), bare, nil)
	if err != nil || d.Rows.Len() != 1 || !strings.Contains(strings.Join(said(d.WarningsReasons), "|"), `line 2: a stray quote (") inside an unquoted field`) {
		t.Fatalf("%v %q", err, said(d.WarningsReasons))
	}
}

func TestDumpSniffRefusesEarly(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "a", "dump.json")
	writeFile(t, db, sqliteMagic+"rest of a database")
	badInput(t, filepath.Dir(db), db, "is an SQLite database (a trend.db?), not an msprobe dump.json")

	bin := filepath.Join(dir, "b", "dump.json")
	writeFile(t, bin, "\x00\x01\x02")
	badInput(t, filepath.Dir(bin), bin, "binary data, not JSON: not an msprobe dump.json")

	// a large text file that is no JSON object is refused from its start
	big := filepath.Join(dir, "c", "dump.json")
	writeFile(t, big, "[1, 2")
	if err := os.Truncate(big, dumpSniffRefuse+1); err != nil {
		t.Fatal(err)
	}
	badInput(t, filepath.Dir(big), big, `does not start with '{' (starts with "[1, 2")`)

	huge := filepath.Join(dir, "d", "dump.json")
	writeFile(t, huge, "{")
	if err := os.Truncate(huge, maxDumpJSONBytes+1); err != nil {
		t.Fatal(err)
	}
	badInput(t, filepath.Dir(huge), huge, "4.3 GB is over the 4 GiB a dump.json may have")
}

func TestTrendDBBadKeyRowsSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), "k.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank, step, target_id, metric_id, norm)`,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'w',0,0)`,
		`INSERT INTO trend_data VALUES(0,0,1,1,1.0),(0,1,1,1,2.0),(0,'x',1,1,3.0),(1,0,1,1,4.0),(1,99999999999,1,1,5.0)`)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 3 {
		t.Fatalf("rows %d, want the 3 good ones", d.Rows.Len())
	}
	assertMonVal(t, "rank 1 step 0", d.Rows.Value(model.StatNorm, mustMonRow(t, d, 1, 0, "w", "grad_unreduced")), 4)
	assertMonVal(t, "rank 0 step 1", d.Rows.Value(model.StatNorm, mustMonRow(t, d, 0, 1, "w", "grad_unreduced")), 2)
	want := "2 trend_data row(s) skipped: a key column (rank, step, target_id, metric_id) is not a usable integer; the first: trend data row "
	found := false
	for _, w := range said(d.WarningsReasons) {
		found = found || strings.HasPrefix(w, want)
	}
	if !found {
		t.Errorf("warnings %q lack %q", said(d.WarningsReasons), want)
	}
}

func TestStatCoverageWarnings(t *testing.T) {
	dir := t.TempDir()
	noNorm := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, noNorm, "vpp_stage,name,step,min,max\n0,w,0,1,2\n")
	d, err := LoadMonitor(context.Background(), noNorm, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, said(d.WarningsReasons), "no norm statistic recorded (only min, max): spike detection compares gradient norms and has none")

	nanNorm := filepath.Join(dir, "rank1", "grad_unreduced_0-0.csv")
	writeMonFile(t, nanNorm, "vpp_stage,name,step,norm,max\n0,w,0,,2\n0,w,1,nan,3\n")
	d, err = LoadMonitor(context.Background(), nanNorm, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantWarning(t, said(d.WarningsReasons), "norm is missing (NULL, NaN or empty) in all 2 rows: spike detection compares gradient norms and has none")
	for _, w := range said(d.WarningsReasons) {
		if strings.HasPrefix(w, "max ") {
			t.Errorf("max has numbers but warned: %q", w)
		}
	}
	if !math.IsNaN(d.Rows.Value(model.StatNorm, 1)) {
		t.Errorf("nan norm read as %v", d.Rows.Value(model.StatNorm, 1))
	}
}

func wantWarning(t *testing.T, ws []string, want string) {
	t.Helper()
	for _, w := range ws {
		if w == want {
			return
		}
	}
	t.Errorf("warnings %q lack %q", ws, want)
}

func TestDetectCompressedAndSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	gz := filepath.Join(dir, "dump.json.gz")
	writeFile(t, gz, "\x1f\x8b\x08\x00rest")
	_, err := DetectFormat(gz)
	wantMonInputError(t, err, gz, "gzip-compressed file: decompress it first")

	zipped := filepath.Join(dir, "z", "rank0", "grad_unreduced_0-0.csv")
	writeFile(t, zipped, "PK\x03\x04rest")
	_, err = LoadCSV(context.Background(), zipped, nil)
	wantMonInputError(t, err, zipped, "zip-compressed file: decompress it first")

	u16 := filepath.Join(dir, "u", "rank0", "grad_unreduced_0-0.csv")
	writeFile(t, u16, "\xff\xfev\x00p\x00")
	_, err = LoadCSV(context.Background(), u16, nil)
	wantMonInputError(t, err, u16, "UTF-16 text (as some spreadsheet programs save CSV): save it as UTF-8")

	packed := filepath.Join(dir, "packed")
	writeFile(t, filepath.Join(packed, "step0", "rank0", "dump.json.gz"), "\x1f\x8b")
	writeFile(t, filepath.Join(packed, "notes.txt"), "x")
	_, err = DetectFormat(packed)
	wantMonInputError(t, err, packed, "no monitor CSV, trend.db or dump.json here, but 1 compressed file(s) (.gz, .zip, …): decompress them first")

	_, err = DetectFormat("/dev/zero")
	wantMonInputError(t, err, "/dev/zero", "is a device, not a regular file")

	nothing := filepath.Join(dir, "nothing")
	os.MkdirAll(filepath.Join(nothing, "step0", "rank0"), 0o755)
	os.Symlink(filepath.Join(dir, "gone"), filepath.Join(nothing, "link"))
	_, err = DetectFormat(nothing)
	wantMonInputError(t, err, nothing, "no files to read here (2 subfolder(s) without files, 1 entries that are not files (links to folders, broken links, pipes or devices))")
}
