package ingest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

func TestDetectFormat(t *testing.T) {
	dir := t.TempDir()
	// a trend.db under another extension is still a database (magic header)
	src, _ := os.ReadFile(filepath.Join(monitorTestdata, "formats21.trend.db"))
	odd := filepath.Join(dir, "copy.sqlite")
	os.WriteFile(odd, src, 0o644)
	dumpDir := filepath.Join(dir, "dumps")
	writeMonFile(t, filepath.Join(dumpDir, "step0", "rank1", "dump.json"), "{}")
	dbDir := filepath.Join(dir, "dbdir")
	os.MkdirAll(dbDir, 0o755)
	os.WriteFile(filepath.Join(dbDir, "monitor_data.trend.db"), src, 0o644)
	cases := map[string]model.Format{
		filepath.Join(monitorTestdata, "formats21.trend.db"):       model.FormatTrendDB,
		filepath.Join(monitorTestdata, "gen_a_monitor_metrics.db"): model.FormatTrendDB,
		odd:                                      model.FormatTrendDB,
		filepath.Join(monitorTestdata, "csv_v1"): model.FormatCSV,
		filepath.Join(monitorTestdata, "csv_v2"): model.FormatCSV,
		filepath.Join(monitorTestdata, "csv_v1", "Feb20_16-27-56-rank0-b2f0e6a1", "grad_unreduced_0-0.csv"): model.FormatCSV,
		dumpDir:                                  model.FormatDump,
		filepath.Join(dumpDir, "step0", "rank1"): model.FormatDump,
		filepath.Join(dumpDir, "step0", "rank1", "dump.json"): model.FormatDump,
		dbDir: model.FormatTrendDB,
	}
	for p, want := range cases {
		got, err := DetectFormat(p)
		if err != nil || got != want {
			t.Errorf("DetectFormat(%s) = %q, %v; want %q", p, got, err, want)
		}
	}
}

func TestDetectFormatErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	_, err := DetectFormat(missing)
	wantMonInputError(t, err, missing, "does not exist")

	empty := filepath.Join(dir, "empty")
	os.Mkdir(empty, 0o755)
	_, err = DetectFormat(empty)
	wantMonInputError(t, err, empty, "empty folder")

	junk := filepath.Join(dir, "junk")
	writeMonFile(t, filepath.Join(junk, "a.txt"), "x")
	writeMonFile(t, filepath.Join(junk, "sub", "stack_info.csv"), "x")
	_, err = DetectFormat(junk)
	wantMonInputError(t, err, junk, "no monitor CSV, trend.db or dump.json", "2 file(s)")

	zero := filepath.Join(dir, "zero.db")
	os.WriteFile(zero, nil, 0o644)
	_, err = DetectFormat(zero)
	wantMonInputError(t, err, zero, "empty file (0 bytes)")

	notdb := filepath.Join(dir, "fake.db")
	os.WriteFile(notdb, []byte("plain text, no database"), 0o644)
	_, err = DetectFormat(notdb)
	wantMonInputError(t, err, notdb, "not an SQLite database")

	other := filepath.Join(dir, "notes.txt")
	os.WriteFile(other, []byte("hi"), 0o644)
	_, err = DetectFormat(other)
	wantMonInputError(t, err, other, "unrecognised file")

	if os.Geteuid() != 0 {
		locked := filepath.Join(dir, "locked.db")
		os.WriteFile(locked, []byte("x"), 0)
		_, err = DetectFormat(locked)
		wantMonInputError(t, err, locked, "permission denied")
	}
}

func TestLoadMonitorDispatch(t *testing.T) {
	ctx := context.Background()
	d, err := LoadMonitor(ctx, filepath.Join(monitorTestdata, "csv_v1"), model.FormatAuto, nil)
	if err != nil || d.Format != model.FormatCSV || d.Rows.Len() != 21 {
		t.Fatalf("csv: %v", err)
	}
	d, err = LoadMonitor(ctx, filepath.Join(monitorTestdata, "formats21.trend.db"), model.FormatAuto, nil)
	if err != nil || d.Format != model.FormatTrendDB || d.Rows.Len() != 11 {
		t.Fatalf("trenddb: %v", err)
	}
	// a folder with two databases: data2db's monitor_data.trend.db wins
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(monitorTestdata, "formats21.trend.db"))
	os.WriteFile(filepath.Join(dir, "monitor_data.trend.db"), src, 0o644)
	srcA, _ := os.ReadFile(filepath.Join(monitorTestdata, "gen_a_monitor_metrics.db"))
	os.WriteFile(filepath.Join(dir, "monitor_metrics.db"), srcA, 0o644)
	d, err = LoadMonitor(ctx, dir, model.FormatAuto, nil)
	if err != nil || d.Rows.Len() != 11 || len(said(d.WarningsReasons)) == 0 || !strings.Contains(said(d.WarningsReasons)[0], "several databases") {
		t.Fatalf("folder of dbs: %v %v", err, d)
	}
	// forcing the wrong format gives an InputError, not a panic
	f := filepath.Join(monitorTestdata, "formats21.trend.db")
	_, err = LoadMonitor(ctx, f, model.FormatCSV, nil)
	wantMonInputError(t, err, f, "not a monitor CSV")
	_, err = LoadMonitor(ctx, f, model.Format("xml"), nil)
	wantMonInputError(t, err, f, `unknown format "xml"`)
}

func TestLoadMonitorDumpGradients(t *testing.T) {
	dir := t.TempDir()
	doc := `{"task":"statistics","level":"mix","framework":"pytorch","dump_data_dir":null,"data":{
 "Module.module.decoder.layers.0.mlp.linear_fc2.RowParallelLinear.parameters_grad":{"weight":[{"type":"torch.Tensor","dtype":"torch.float32","shape":[4,4],"Max":1.0,"Min":-1.0,"Mean":0.0,"Norm":2.5}]}}}`
	writeMonFile(t, filepath.Join(dir, "step0", "rank0", "dump.json"), doc)
	d, err := LoadMonitor(context.Background(), dir, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != model.FormatDump || d.Rows.Len() != 1 || d.Rows.Value(model.StatNorm, 0) != 2.5 {
		t.Errorf("format %s rows %d vals %v", d.Format, d.Rows.Len(), d.Rows.Norm)
	}
}

func TestLoadMonitorCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, p := range []string{filepath.Join(monitorTestdata, "formats21.trend.db"), filepath.Join(monitorTestdata, "csv_v1")} {
		if _, err := LoadMonitor(ctx, p, model.FormatAuto, nil); err != context.Canceled {
			t.Errorf("%s: err %v, want context.Canceled", p, err)
		}
	}
}

func TestTrendDBCancelMidway(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.trend.db")
	WriteTrendDB(t, path, BenchShape{Ranks: 4, Targets: 100, Metrics: 2, Steps: 60}) // 48k rows
	ctx, cancel := context.WithCancel(context.Background())
	var calls int
	_, err := LoadTrendDB(ctx, path, func(p model.Progress) {
		calls++
		cancel() // cancel at the first progress report
	})
	// the first report comes after the first chunk (the meter reports at
	// once when nothing was reported yet), so the load must stop there
	if err != context.Canceled {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if calls == 0 {
		t.Error("no progress reported")
	}
}

func TestDetectDumpDepth(t *testing.T) {
	dir := t.TempDir()
	writeMonFile(t, filepath.Join(dir, "run", "gpu_dump", "step0", "proc2016", "dump.json"), "{}")
	_, err := DetectFormat(filepath.Join(dir, "run"))
	wantMonInputError(t, err, filepath.Join(dir, "run"), "open "+filepath.Join(dir, "run", "gpu_dump")+" instead")
	for _, p := range []string{
		filepath.Join(dir, "run", "gpu_dump"),
		filepath.Join(dir, "run", "gpu_dump", "step0"),
		filepath.Join(dir, "run", "gpu_dump", "step0", "proc2016"),
	} {
		if f, err := DetectFormat(p); err != nil || f != model.FormatDump {
			t.Errorf("DetectFormat(%s) = %q, %v", p, f, err)
		}
	}
	writeMonFile(t, filepath.Join(dir, "odd", "step1", "step1", "dump.json"), "{}")
	writeMonFile(t, filepath.Join(dir, "mode", "pynative", "step3", "rank", "dump.json"), "{}")
	for _, p := range []string{filepath.Join(dir, "odd"), filepath.Join(dir, "mode")} {
		if f, err := DetectFormat(p); err != nil || f != model.FormatDump {
			t.Errorf("DetectFormat(%s) = %q, %v", p, f, err)
		}
	}
}

func TestLoadMonitorProgressNamesGivenPath(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join(monitorTestdata, "formats21.trend.db"))
	os.WriteFile(filepath.Join(dir, "monitor_data.trend.db"), src, 0o644)
	var inputs []string
	if _, err := LoadMonitor(context.Background(), dir, model.FormatAuto, func(p model.Progress) { inputs = append(inputs, p.Input) }); err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 || inputs[len(inputs)-1] != dir {
		t.Errorf("progress inputs %q, want %q", inputs, dir)
	}
}

func TestSymlinkedInputs(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "store", "abc")
	writeMonFile(t, filepath.Join(real, "grad_unreduced_0-0.csv"), "vpp_stage,name,step,norm\n0,w,0,1.5\n")
	// a linked rank folder as the root: rank from the link's own name
	link := filepath.Join(dir, "rank_6")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks:", err)
	}
	if f, err := DetectFormat(link); err != nil || f != model.FormatCSV {
		t.Fatalf("DetectFormat(link) = %q, %v", f, err)
	}
	d, err := LoadCSV(context.Background(), link, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 1 || d.Rows.RankOf(0) != 6 {
		t.Errorf("rows %d rank %v", d.Rows.Len(), d.Rows.RankOf(0))
	}
	// a linked file inside a tree
	tree := filepath.Join(dir, "tree", "rank_2")
	os.MkdirAll(tree, 0o755)
	os.Symlink(filepath.Join(real, "grad_unreduced_0-0.csv"), filepath.Join(tree, "grad_reduced_0-0.csv"))
	d, err = LoadCSV(context.Background(), filepath.Dir(tree), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 1 || d.Rows.RankOf(0) != 2 || d.Metrics[0] != "grad_reduced" {
		t.Errorf("rows %d rank %v metrics %v", d.Rows.Len(), d.Rows.RankOf(0), d.Metrics)
	}
	// a linked database inside a folder
	dbdir := filepath.Join(dir, "dbdir")
	os.MkdirAll(dbdir, 0o755)
	abs, _ := filepath.Abs(filepath.Join(monitorTestdata, "formats21.trend.db"))
	os.Symlink(abs, filepath.Join(dbdir, "trend.db"))
	md, err := LoadMonitor(context.Background(), dbdir, model.FormatAuto, nil)
	if err != nil || md.Rows.Len() != 11 {
		t.Errorf("linked db: %v", err)
	}
}

func TestDetectTensorBoardOnly(t *testing.T) {
	dir := t.TempDir()
	writeMonFile(t, filepath.Join(dir, "Feb20_16-27-56-rank0-b2f0e6a1", "events.out.tfevents.1708417676.host.1234.0"), "x")
	_, err := DetectFormat(dir)
	wantMonInputError(t, err, dir, "TensorBoard event files", `"format": "csv"`)
}
