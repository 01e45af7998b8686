package ingest

import (
	"context"
	"database/sql"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

const monitorTestdata = "../testdata/monitor"

// row finds the row (rank, step, target name, metric name) in d, or -1.
func findMonRow(d *model.MonitorData, rank, step int32, target, metric string) int {
	mi := d.MetricIndex(metric)
	for i := range d.Rows.Len() {
		if d.Rows.RankOf(i) == rank && d.Rows.Step[i] == step && int(d.Rows.MetricOf(i)) == mi &&
			d.Targets[d.Rows.TargetOf(i)].Name == target {
			return i
		}
	}
	return -1
}

func mustMonRow(t *testing.T, d *model.MonitorData, rank, step int32, target, metric string) int {
	t.Helper()
	i := findMonRow(d, rank, step, target, metric)
	if i < 0 {
		t.Fatalf("no row rank=%d step=%d target=%s metric=%s", rank, step, target, metric)
	}
	return i
}

// assertMonVal checks a stored statistic: the source's value exactly (a
// norm), or the float32 nearest it (min, max, mean); NaN for NaN.
func assertMonVal(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.IsNaN(want) {
		if !math.IsNaN(got) {
			t.Errorf("%s = %v, want NaN", what, got)
		}
		return
	}
	if got != want && got != float64(float32(want)) {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// wantInputError checks that err is an *InputError naming path and
// containing every fragment of the problem.
func wantMonInputError(t *testing.T, err error, path string, fragments ...string) {
	t.Helper()
	var ie *InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err = %v (%T), want *InputError", err, err)
	}
	msg := err.Error()
	if path != "" && !strings.Contains(msg, path) {
		t.Errorf("message %q does not name %q", msg, path)
	}
	for _, f := range fragments {
		if !strings.Contains(msg, f) {
			t.Errorf("message %q lacks %q", msg, f)
		}
	}
	if strings.Contains(msg, "\n") {
		t.Errorf("message %q spans several lines", msg)
	}
}

func TestTrendDBFormats21(t *testing.T) {
	path := filepath.Join(monitorTestdata, "formats21.trend.db")
	before, _ := os.ReadFile(path)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != model.FormatTrendDB || d.Rows.Len() != 11 {
		t.Fatalf("format %s rows %d, want trenddb 11", d.Format, d.Rows.Len())
	}
	if got := strings.Join(d.Metrics, ","); got != "grad_unreduced,grad_reduced" {
		t.Errorf("metrics %s", got)
	}
	if len(d.Targets) != 3 || d.Targets[2].Name != "layers.0.mlp.linear_fc2.weight" {
		t.Errorf("targets %+v", d.Targets)
	}
	if d.ExplicitMicro || d.HasStat != [model.NumStats]bool{true, true, true, true} {
		t.Errorf("ExplicitMicro %v HasStat %v", d.ExplicitMicro, d.HasStat)
	}
	// key order (rank, step, target_id, metric_id)
	for i := 1; i < d.Rows.Len(); i++ {
		a := [4]int32{d.Rows.RankOf(i - 1), d.Rows.Step[i-1], d.Rows.TargetOf(i - 1), int32(d.Rows.MetricOf(i - 1))}
		b := [4]int32{d.Rows.RankOf(i), d.Rows.Step[i], d.Rows.TargetOf(i), int32(d.Rows.MetricOf(i))}
		if !(a[0] < b[0] || a[0] == b[0] && (a[1] < b[1] || a[1] == b[1] && (a[2] < b[2] || a[2] == b[2] && a[3] < b[3]))) {
			t.Fatalf("rows %d,%d out of key order: %v %v", i-1, i, a, b)
		}
	}
	fc2 := "layers.0.mlp.linear_fc2.weight"
	spike := mustMonRow(t, d, 1, 3, fc2, "grad_unreduced")
	assertMonVal(t, "spike norm", d.Rows.Value(model.StatNorm, spike), 4.913)
	assertMonVal(t, "spike min", d.Rows.Value(model.StatMin, spike), -0.02713)
	assertMonVal(t, "spike max", d.Rows.Value(model.StatMax, spike), 0.028179)
	if d.Rows.MicroOf(spike) != model.NoMicro {
		t.Errorf("micro %d, want NoMicro (step is a global micro-step index)", d.Rows.MicroOf(spike))
	}
	if d.Rows.HasMicro() {
		t.Error("a micro-step column is held for a trend.db without micro steps (4 bytes a row)")
	}
	red := mustMonRow(t, d, 0, 2, fc2, "grad_reduced")
	assertMonVal(t, "reduced norm", d.Rows.Value(model.StatNorm, red), 2.487)
	nf := mustMonRow(t, d, 1, 3, "layers.0.self_attention.linear_qkv.weight", "grad_unreduced")
	assertMonVal(t, "NULL norm", d.Rows.Value(model.StatNorm, nf), math.NaN())
	assertMonVal(t, "clamped min", d.Rows.Value(model.StatMin, nf), math.Inf(-1))
	assertMonVal(t, "clamped max", d.Rows.Value(model.StatMax, nf), math.Inf(1))
	assertMonVal(t, "NULL mean", d.Rows.Value(model.StatMean, nf), math.NaN())
	big := mustMonRow(t, d, 1, 3, "layers.0.self_attention.linear_qkv.layer_norm_weight", "grad_unreduced")
	assertMonVal(t, "1e9 stays finite", d.Rows.Value(model.StatNorm, big), 1e9)
	after, _ := os.ReadFile(path)
	if string(before) != string(after) {
		t.Error("the database file changed")
	}
	for _, ext := range []string{"-wal", "-shm", "-journal"} {
		if _, err := os.Stat(path + ext); err == nil {
			t.Errorf("%s%s created", path, ext)
		}
	}
}

func TestTrendDBNormOnly(t *testing.T) {
	d, err := LoadTrendDB(context.Background(), filepath.Join(monitorTestdata, "norm_only.trend.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.HasStat != [model.NumStats]bool{true, false, false, false} {
		t.Errorf("HasStat %v, want norm only", d.HasStat)
	}
	if got := strings.Join(d.Metrics, ","); got != "actv,grad_unreduced" {
		t.Errorf("metrics %s", got)
	}
	if d.Rows.Len() != 4 {
		t.Fatalf("rows %d", d.Rows.Len())
	}
	for s := model.StatMin; s < model.NumStats; s++ {
		if !d.Rows.Lacks[s] || d.Rows.Stats[s] != nil {
			t.Errorf("%s, absent from the database, is stored: %v", s, d.Rows.Stats[s])
		}
	}
	w := "layers.0.mlp.linear_fc1.weight"
	i := mustMonRow(t, d, 0, 0, w, "grad_unreduced")
	assertMonVal(t, "norm", d.Rows.Value(model.StatNorm, i), 0.5)
	assertMonVal(t, "absent min", d.Rows.Value(model.StatMin, i), math.NaN())
	assertMonVal(t, "NULL norm", d.Rows.Value(model.StatNorm, mustMonRow(t, d, 0, 1, w, "grad_unreduced")), math.NaN())
	a := mustMonRow(t, d, 0, 1, "layers.0.mlp.output", "actv")
	assertMonVal(t, "-clamp", d.Rows.Value(model.StatNorm, a), math.Inf(-1))
	if d.Targets[d.Rows.TargetOf(a)].VPPStage != 1 {
		t.Errorf("vpp %d", d.Targets[d.Rows.TargetOf(a)].VPPStage)
	}
}

func TestTrendDBGenA(t *testing.T) {
	d, err := LoadTrendDB(context.Background(), filepath.Join(monitorTestdata, "gen_a_monitor_metrics.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 6 || !d.ExplicitMicro {
		t.Fatalf("rows %d explicit %v", d.Rows.Len(), d.ExplicitMicro)
	}
	if len(d.Targets) != 1 {
		t.Fatalf("targets %+v: micro steps must merge into one target", d.Targets)
	}
	if !d.Rows.HasMicro() {
		t.Fatal("no micro-step column for a trend.db with micro steps")
	}
	// grad_unreduced at step 1: micro 0 and micro 1 (inf stored as REAL inf, NULL min)
	var got []string
	for i := range d.Rows.Len() {
		if d.Metrics[d.Rows.MetricOf(i)] == "grad_unreduced" && d.Rows.Step[i] == 1 {
			switch d.Rows.MicroOf(i) {
			case 0:
				assertMonVal(t, "u1m0 norm", d.Rows.Value(model.StatNorm, i), 0.045127)
				got = append(got, "m0")
			case 1:
				assertMonVal(t, "u1m1 norm", d.Rows.Value(model.StatNorm, i), math.Inf(1))
				assertMonVal(t, "u1m1 min", d.Rows.Value(model.StatMin, i), math.NaN())
				got = append(got, "m1")
			}
		}
		if d.Metrics[d.Rows.MetricOf(i)] == "grad_reduced" && d.Rows.MicroOf(i) != model.NoMicro {
			t.Errorf("grad_reduced row %d micro %d, want NoMicro", i, d.Rows.MicroOf(i))
		}
	}
	if strings.Join(got, ",") != "m0,m1" {
		t.Errorf("unreduced step 1 rows: %v", got)
	}
	r := mustMonRow(t, d, 0, 1, "layers.0.mlp.linear_fc2.weight", "grad_reduced")
	assertMonVal(t, "reduced step 1", d.Rows.Value(model.StatNorm, r), 2.487)
}

// execSQL creates a database at path with the given statements (tests only).
func execSQL(t testing.TB, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

const (
	ddlTargets = `CREATE TABLE monitoring_targets (target_id INTEGER PRIMARY KEY AUTOINCREMENT, target_name TEXT NOT NULL, vpp_stage INTEGER NOT NULL, micro_step INTEGER NOT NULL DEFAULT 0, UNIQUE(target_name, vpp_stage, micro_step))`
	ddlMetrics = `CREATE TABLE monitoring_metrics (metric_id INTEGER PRIMARY KEY AUTOINCREMENT, metric_name TEXT UNIQUE NOT NULL)`
	ddlTrend   = `CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, norm REAL DEFAULT NULL, min REAL DEFAULT NULL, max REAL DEFAULT NULL, mean REAL DEFAULT NULL, PRIMARY KEY (rank, step, target_id, metric_id)) WITHOUT ROWID`
)

func TestTrendDBMicroStepFalse(t *testing.T) {
	// data2db --micro_step false: step = optimizer step, micro step in the target.
	path := filepath.Join(t.TempDir(), "m.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced'),(2,'grad_reduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'w',0,0),(2,'w',0,1),(3,'v',0,0),(4,'v',0,1)`,
		`INSERT INTO trend_data VALUES(0,5,1,1,1.0,0,0,0),(0,5,2,1,2.0,0,0,0),(0,5,1,2,3.0,0,0,0),(0,5,4,1,4.0,0,0,0)`)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !d.ExplicitMicro || len(d.Targets) != 2 {
		t.Fatalf("explicit %v targets %+v", d.ExplicitMicro, d.Targets)
	}
	want := map[float64][2]any{1: {"w", int32(0)}, 2: {"w", int32(1)}, 3: {"w", model.NoMicro}, 4: {"v", int32(1)}}
	for i := range d.Rows.Len() {
		w := want[d.Rows.Value(model.StatNorm, i)]
		if d.Targets[d.Rows.TargetOf(i)].Name != w[0] || d.Rows.MicroOf(i) != w[1] || d.Rows.Step[i] != 5 {
			t.Errorf("row %d: target %s micro %d step %d, want %v", i, d.Targets[d.Rows.TargetOf(i)].Name, d.Rows.MicroOf(i), d.Rows.Step[i], w)
		}
	}
}

func TestTrendDBDumpDBKeepsCallIndex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dump_data.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'forward'),(2,'backward'),(3,'recompute'),(4,'parameters_grad')`,
		`INSERT INTO monitoring_targets VALUES(1,'Functional.linear.input.0',0,0),(2,'Functional.linear.input.0',0,1)`,
		`INSERT INTO trend_data VALUES(0,0,1,1,1.0,0,0,0),(0,0,2,1,2.0,0,0,0)`)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.ExplicitMicro || len(d.Targets) != 2 || d.Targets[1].MicroStep != 1 {
		t.Fatalf("explicit %v targets %+v", d.ExplicitMicro, d.Targets)
	}
	if len(said(d.WarningsReasons)) == 0 || !strings.Contains(said(d.WarningsReasons)[0], "dump statistics") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestTrendDBUnknownIDsKept(t *testing.T) {
	path := filepath.Join(t.TempDir(), "u.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'w',0,0)`,
		`INSERT INTO trend_data VALUES(0,0,1,1,1.0,0,0,0),(0,0,7,1,2.0,0,0,0),(0,0,1,3,3.0,0,0,0)`)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	i := mustMonRow(t, d, 0, 0, "target_id 7", "grad_unreduced")
	assertMonVal(t, "unknown target norm", d.Rows.Value(model.StatNorm, i), 2)
	j := mustMonRow(t, d, 0, 0, "w", "metric_id 3")
	assertMonVal(t, "unknown metric norm", d.Rows.Value(model.StatNorm, j), 3)
	if len(said(d.WarningsReasons)) != 2 {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestTrendDBMissingTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trend.db")
	execSQL(t, path, ddlTrend, ddlMetrics)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "missing table(s) monitoring_targets")
}

func TestTrendDBNotATrendDB(t *testing.T) {
	path := filepath.Join(t.TempDir(), "other.db")
	execSQL(t, path, `CREATE TABLE users (id INTEGER)`)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "not a msprobe trend database", "trend_data, monitoring_targets, monitoring_metrics", "users")
}

func TestTrendDBMissingColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank INTEGER, target_id INTEGER, norm REAL)`)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "table trend_data lacks column(s) step, metric_id")
}

func TestTrendDBNoStatColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, zeros REAL)`)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "lacks column(s) norm, min, max, mean")
}

func TestTrendDBWrongColumnType(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, norm TEXT)`)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "column trend_data.norm has type TEXT, expected REAL")

	path2 := filepath.Join(t.TempDir(), "y.trend.db")
	execSQL(t, path2, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank VARCHAR(8), step INTEGER, target_id INTEGER, metric_id INTEGER, norm REAL)`)
	_, err = LoadTrendDB(context.Background(), path2, nil)
	wantMonInputError(t, err, path2, "column trend_data.rank has type VARCHAR(8)")
}

func TestTrendDBTextInKeyColumn(t *testing.T) {
	// an untyped column holding text where an integer key belongs
	path := filepath.Join(t.TempDir(), "x.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank, step, target_id, metric_id, norm)`,
		`INSERT INTO trend_data VALUES(0,'abc',1,1,1.0)`)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, `column step holds text "abc"`)
}

func TestTrendDBCorrupt(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(monitorTestdata, "formats21.trend.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	trunc := filepath.Join(dir, "trunc.trend.db")
	os.WriteFile(trunc, src[:len(src)/3], 0o644)
	_, err = LoadTrendDB(context.Background(), trunc, nil)
	wantMonInputError(t, err, trunc)

	// a header that says SQLite followed by garbage pages
	garbage := append([]byte(nil), src[:100]...)
	for i := 0; i < 8192; i++ {
		garbage = append(garbage, byte(i*7))
	}
	bad := filepath.Join(dir, "garbage.trend.db")
	os.WriteFile(bad, garbage, 0o644)
	_, err = LoadTrendDB(context.Background(), bad, nil)
	wantMonInputError(t, err, bad)

	notdb := filepath.Join(dir, "text.db")
	os.WriteFile(notdb, []byte("hello, this is not a database"), 0o644)
	_, err = LoadTrendDB(context.Background(), notdb, nil)
	wantMonInputError(t, err, notdb, "not an SQLite database")
}

func TestTrendDBDoesNotCreateFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "absent.trend.db")
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "does not exist")
	if _, serr := os.Stat(path); serr == nil {
		t.Fatal("loading a missing trend.db created it")
	}
}

func TestTrendDBZeroBytes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.trend.db")
	os.WriteFile(path, nil, 0o644)
	_, err := LoadTrendDB(context.Background(), path, nil)
	wantMonInputError(t, err, path, "empty file (0 bytes)")
}

func TestTrendDBUnreadable(t *testing.T) {
	// tests run as root, so chmod 000 does not stop reads: a folder where
	// a file is expected is the unreadable case we can build everywhere.
	dir := filepath.Join(t.TempDir(), "trend.db")
	os.Mkdir(dir, 0o755)
	_, err := LoadTrendDB(context.Background(), dir, nil)
	wantMonInputError(t, err, dir, "is a folder")
	if os.Geteuid() != 0 {
		f := filepath.Join(t.TempDir(), "locked.trend.db")
		src, _ := os.ReadFile(filepath.Join(monitorTestdata, "formats21.trend.db"))
		os.WriteFile(f, src, 0o000)
		_, err := LoadTrendDB(context.Background(), f, nil)
		wantMonInputError(t, err, f, "permission denied")
	}
}

func TestTrendDBProgressReachesTotal(t *testing.T) {
	var counting, first, last model.Progress
	calls := 0
	d, err := LoadTrendDB(context.Background(), filepath.Join(monitorTestdata, "formats21.trend.db"), func(p model.Progress) {
		switch {
		case calls == 0:
			counting = p // the rows are counted first: the screen says so
		case calls == 1:
			first = p
		}
		last = p
		calls++
	})
	if err != nil {
		t.Fatal(err)
	}
	if counting.Stage != model.StageCounting || first.Stage != "" || last.Stage != "" {
		t.Errorf("stages: %+v, then %+v … %+v", counting, first, last)
	}
	if calls < 3 || first.Done != 0 || first.Total != 11 || last.Unit != "rows" || last.Done != 11 || last.Total != 11 || last.Done != int64(d.Rows.Len()) {
		t.Errorf("calls %d first %+v last %+v", calls, first, last)
	}
}

func TestTrendDBEmptyAndWAL(t *testing.T) {
	path := filepath.Join(t.TempDir(), "e.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics, ddlTrend)
	os.WriteFile(path+"-wal", []byte("pending"), 0o644)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// a -wal next to a database in rollback-journal mode is not its log:
	// SQLite ignores it, and so does the reader
	if d.Rows.Len() != 0 || len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "no data rows") || d.ReadMode != ReadModeReadOnly {
		t.Errorf("rows %d warnings %q", d.Rows.Len(), said(d.WarningsReasons))
	}
}

func TestTrendDBTextStatCoerced(t *testing.T) {
	// hand-made databases may hold text in a stat column (data2db never does)
	path := filepath.Join(t.TempDir(), "t.trend.db")
	execSQL(t, path, ddlTargets, ddlMetrics,
		`CREATE TABLE trend_data (rank INTEGER, step INTEGER, target_id INTEGER, metric_id INTEGER, norm)`,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`,
		`INSERT INTO monitoring_targets VALUES(1,'w',0,0)`,
		`INSERT INTO trend_data VALUES(0,0,1,1,'2.5'),(0,1,1,1,'oops'),(0,2,1,1,3)`)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	// 'oops' is no measurement: its row is a data problem, not a NaN norm
	if d.Rows.Len() != 2 {
		t.Fatalf("%d rows, want 2", d.Rows.Len())
	}
	assertMonVal(t, "text 2.5", d.Rows.Value(model.StatNorm, 0), 2.5)
	assertMonVal(t, "integer 3", d.Rows.Value(model.StatNorm, 1), 3)
	want := []string{
		"data problem: 1 cell in trend_data.norm is not a number (text or binary data): rank 0 step 1 (w); their rows were left out, not read as non-finite gradients",
		"1 statistic cell(s) held numbers written as text: read as those numbers",
	}
	if len(said(d.WarningsReasons)) != 2 || said(d.WarningsReasons)[0] != want[0] || said(d.WarningsReasons)[1] != want[1] {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestTrendDBOddPathCharacters(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(monitorTestdata, "norm_only.trend.db"))
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run #1 ?a=b&c %20 ünï")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "x.trend.db")
	os.WriteFile(path, src, 0o644)
	d, err := LoadTrendDB(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 4 {
		t.Errorf("rows %d", d.Rows.Len())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("files next to the database: %d, want 1 (nothing created)", len(entries))
	}
}
