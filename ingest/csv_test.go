package ingest

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"spikescope/model"
)

// rowWithMicro finds a row by (rank, step, micro, target, metric).
func rowWithMicro(t *testing.T, d *model.MonitorData, rank, step, micro int32, target, metric string) int {
	t.Helper()
	mi := d.MetricIndex(metric)
	for i := range d.Rows.Len() {
		if d.Rows.RankOf(i) == rank && d.Rows.Step[i] == step && d.Rows.MicroOf(i) == micro &&
			int(d.Rows.MetricOf(i)) == mi && d.Targets[d.Rows.TargetOf(i)].Name == target {
			return i
		}
	}
	t.Fatalf("no row rank=%d step=%d micro=%d target=%s metric=%s", rank, step, micro, target, metric)
	return -1
}

func countMetric(d *model.MonitorData, metric string) int {
	mi := d.MetricIndex(metric)
	n := 0
	for run := range d.Rows.Runs() {
		if int(run.Metric) == mi {
			n += run.Hi - run.Lo
		}
	}
	return n
}

func TestCSVv1Tree(t *testing.T) {
	path := filepath.Join(monitorTestdata, "csv_v1")
	d, err := LoadCSV(context.Background(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != model.FormatCSV || !d.ExplicitMicro || len(d.MicroOneBased) != 0 {
		t.Errorf("format %s explicit %v onebased %v", d.Format, d.ExplicitMicro, d.MicroOneBased)
	}
	if d.Rows.Len() != 6+6+3+2+3+1 {
		t.Fatalf("rows %d, want 21", d.Rows.Len())
	}
	for metric, n := range map[string]int{"grad_unreduced": 12, "grad_reduced": 5, "actv": 3, "exp_avg": 1} {
		if got := countMetric(d, metric); got != n {
			t.Errorf("%s rows %d, want %d", metric, got, n)
		}
	}
	if d.HasStat != [model.NumStats]bool{true, true, true, true} {
		t.Errorf("HasStat %v", d.HasStat)
	}
	fc2 := "layers.0.mlp.linear_fc2.weight"
	spike := rowWithMicro(t, d, 1, 1, 1, fc2, "grad_unreduced")
	assertMonVal(t, "spike norm", d.Rows.Value(model.StatNorm, spike), 4.913)
	assertMonVal(t, "spike min", d.Rows.Value(model.StatMin, spike), -0.02713)
	r0 := rowWithMicro(t, d, 0, 0, 1, fc2, "grad_unreduced")
	assertMonVal(t, "r0 norm", d.Rows.Value(model.StatNorm, r0), 0.093798)
	red := rowWithMicro(t, d, 0, 1, model.NoMicro, fc2, "grad_reduced")
	assertMonVal(t, "reduced norm", d.Rows.Value(model.StatNorm, red), 2.487)
	// nan / inf tokens and an empty cell
	qkv := rowWithMicro(t, d, 1, 1, model.NoMicro, "layers.0.self_attention.linear_qkv.weight", "grad_reduced")
	assertMonVal(t, "inf min", d.Rows.Value(model.StatMin, qkv), math.Inf(1))
	assertMonVal(t, "max", d.Rows.Value(model.StatMax, qkv), 0.000102)
	assertMonVal(t, "mean", d.Rows.Value(model.StatMean, qkv), 1e-06)
	assertMonVal(t, "nan norm", d.Rows.Value(model.StatNorm, qkv), math.NaN())
	fr := rowWithMicro(t, d, 1, 1, model.NoMicro, fc2, "grad_reduced")
	assertMonVal(t, "-inf min", d.Rows.Value(model.StatMin, fr), math.Inf(-1))
	assertMonVal(t, "empty max → NaN", d.Rows.Value(model.StatMax, fr), math.NaN())
	// actv: norm only; the all-nan row of a None output
	a := rowWithMicro(t, d, 0, 0, 0, "layers.0.self_attention.linear_qkv.output_1", "actv")
	assertMonVal(t, "actv nan", d.Rows.Value(model.StatNorm, a), math.NaN())
	assertMonVal(t, "actv no min", d.Rows.Value(model.StatMin, a), math.NaN())
	a0 := rowWithMicro(t, d, 0, 0, 0, "layers.0.self_attention.linear_qkv.output_0", "actv")
	assertMonVal(t, "actv norm", d.Rows.Value(model.StatNorm, a0), 1648)
	// ops in another order, vpp 1 (a distinct target from vpp 0)
	e := rowWithMicro(t, d, 1, 0, model.NoMicro, fc2, "exp_avg")
	if d.Targets[d.Rows.TargetOf(e)].VPPStage != 1 || d.Rows.TargetOf(e) == d.Rows.TargetOf(spike) {
		t.Errorf("exp_avg target %+v", d.Targets[d.Rows.TargetOf(e)])
	}
	for s, want := range [model.NumStats]float64{0.5, -0.125, 0.25, 0.001} {
		assertMonVal(t, "exp_avg "+model.StatNames[s], d.Rows.Value(model.Stat(s), e), want)
	}
	if len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "stack_info.csv") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestCSVv2Tree(t *testing.T) {
	d, err := LoadCSV(context.Background(), filepath.Join(monitorTestdata, "csv_v2"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(d.Metrics, ","); got != "grad_unreduced,grad_reduced,actv,actv_grad" {
		t.Errorf("metrics %s", got)
	}
	if d.Rows.Len() != 9 || !d.ExplicitMicro {
		t.Fatalf("rows %d explicit %v", d.Rows.Len(), d.ExplicitMicro)
	}
	// weight_grad counts micro steps from 1, module files as written from 0:
	// the rows hold 0-based positions, MicroBase gives back the file's numbers
	if d.MicroBase(d.MetricIndex("grad_unreduced")) != 1 || d.MicroBase(d.MetricIndex("actv_grad")) != 0 {
		t.Errorf("one-based metrics %v", d.MicroOneBased)
	}
	fc2 := "module.decoder.layers.0.mlp.linear_fc2.weight" // "0:" prefix stripped
	// 1-based micro 2 → 0-based 1
	i := rowWithMicro(t, d, 1, 1, 1, fc2, "grad_unreduced")
	assertMonVal(t, "spike", d.Rows.Value(model.StatNorm, i), 4.913)
	j := rowWithMicro(t, d, 0, 0, 0, fc2, "grad_unreduced")
	assertMonVal(t, "first micro", d.Rows.Value(model.StatNorm, j), 0.044257)
	k := rowWithMicro(t, d, 0, 1, model.NoMicro, fc2, "grad_reduced") // v2 writes micro = W
	assertMonVal(t, "reduced", d.Rows.Value(model.StatNorm, k), 2.487)
	b := rowWithMicro(t, d, 1, 1, 0, "module.decoder.layers.0.mlp", "actv_grad") // module: micro as written
	assertMonVal(t, "backward inf", d.Rows.Value(model.StatNorm, b), math.Inf(1))
	if d.HasStat != [model.NumStats]bool{true, true, true, true} {
		t.Errorf("HasStat %v", d.HasStat)
	}
}

func TestRankOfDir(t *testing.T) {
	cases := []struct {
		name string
		rank int
		ok   bool
	}{
		{"Feb20_16-27-56-rank0-b2f0e6a1", 0, true},
		{"Feb20_16-27-57-rank13-5c9d13e7", 13, true},
		{"rank_7", 7, true},
		{"rank3", 3, true},
		{"frank1", 0, false},
		{"rank", 0, false},
		{"ranking", 0, false},
		{"home", 0, false},
	}
	for _, c := range cases {
		r, _, ok := rankOfDir(c.name)
		if r != c.rank || ok != c.ok {
			t.Errorf("rankOfDir(%q) = %d,%v want %d,%v", c.name, r, ok, c.rank, c.ok)
		}
	}
}

// writeFile writes content, creating folders.
func writeMonFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const v1Head = "vpp_stage,name,step,micro_step,min,max,mean,norm,shape,dtype\n"

func TestCSVRankFromOwnFolderName(t *testing.T) {
	// the reference takes the first rank(\d+) anywhere: /home/frank1/... → 1
	root := filepath.Join(t.TempDir(), "home", "frank1", "monitor_output")
	writeMonFile(t, filepath.Join(root, "Feb20_16-27-56-rank4-aaaa/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n")
	writeMonFile(t, filepath.Join(root, "rank_2/sub/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,5,[2],torch.float32\n")
	writeMonFile(t, filepath.Join(root, "loose/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,6,[2],torch.float32\n")
	d, err := LoadCSV(context.Background(), filepath.Dir(root), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[float64]int32{}
	for i := range d.Rows.Len() {
		got[d.Rows.Value(model.StatNorm, i)] = d.Rows.RankOf(i)
	}
	if got[4] != 4 || got[5] != 2 || got[6] != 0 {
		t.Errorf("ranks by norm %v, want 4→4, 5→2, 6→0", got)
	}
	if len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "no rank folder") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
	// a single file: rank from its own folder only
	single := filepath.Join(root, "rank_2/sub/grad_unreduced_0-0.csv")
	d, err = LoadCSV(context.Background(), single, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.RankOf(0) != 0 || len(said(d.WarningsReasons)) != 1 {
		t.Errorf("single file in sub/: rank %d warnings %q", d.Rows.RankOf(0), said(d.WarningsReasons))
	}
	d, err = LoadCSV(context.Background(), filepath.Join(root, "Feb20_16-27-56-rank4-aaaa/grad_unreduced_0-0.csv"), nil)
	if err != nil || d.Rows.RankOf(0) != 4 {
		t.Errorf("single file in rank4 folder: %v", err)
	}
}

func TestCSVSeveralRunsPerRank(t *testing.T) {
	root := t.TempDir()
	writeMonFile(t, filepath.Join(root, "Feb20_16-27-56-rank0-aaaa/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n")
	writeMonFile(t, filepath.Join(root, "Feb21_09-00-00-rank0-bbbb/grad_unreduced_0-0.csv"), v1Head+"0,w,0,0,1,2,3,5,[2],torch.float32\n")
	d, err := LoadCSV(context.Background(), root, nil)
	if err != nil {
		t.Fatal(err)
	}
	// both runs wrote step 0: the later run (Feb21) supersedes the earlier
	if d.Rows.Len() != 1 || d.Rows.Value(0, 0) != 5 {
		t.Errorf("rows %d %v", d.Rows.Len(), d.Rows.Norm)
	}
	if len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "rank 0 has 2 run folders") || !strings.Contains(said(d.WarningsReasons)[0], "1 rows of earlier runs dropped") {
		t.Errorf("warnings %q", said(d.WarningsReasons))
	}
}

func TestCSVIntegralFloatSteps(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, "vpp_stage,name,step,norm\n0.0,w,3.0,1.5\n")
	d, err := LoadCSV(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Step[0] != 3 || d.ExplicitMicro || d.Rows.MicroOf(0) != model.NoMicro || d.HasStat[model.StatMin] {
		t.Errorf("step %d explicit %v micro %d hasMin %v", d.Rows.Step[0], d.ExplicitMicro, d.Rows.MicroOf(0), d.HasStat[model.StatMin])
	}
	if d.Rows.HasMicro() {
		t.Error("a micro-step column is held for a CSV without micro_step")
	}
}

func TestCSVShortRow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n0,w,0,1,1,2\n0,w,1,0,1,2,3,4,[2],torch.float32\n")
	d, err := LoadCSV(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	// the damaged line is a counted data problem; the good rows are kept
	want := p + ": 1 line(s) are not data and were skipped, the file's other rows were read: line 3: 6 fields, the header has 10"
	if d.Rows.Len() != 2 || len(said(d.WarningsReasons)) != 1 || said(d.WarningsReasons)[0] != want {
		t.Errorf("rows %d warnings %q", d.Rows.Len(), said(d.WarningsReasons))
	}
	// a file with no good row at all is refused with its problem
	writeMonFile(t, p, v1Head+"0,w,0,1,1,2\n0,w,0,1,1,2,3\n")
	_, err = LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "line 2: 6 fields, the header has 10")
}

func TestCSVNotANumber(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, v1Head+"0,w,0,0,1,2,abc,4,[2],torch.float32\n")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, `line 2, column mean: "abc" is not a number`)
}

func TestCSVBadHeader(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grad_unreduced_0-0.csv")
	writeMonFile(t, p, "a,b,c\n1,2,3\n")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "not a monitor CSV: header lacks name (v1) or module_name (v2), step")
}

func TestCSVBadQuote(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grad_unreduced_0-0.csv")
	writeMonFile(t, p, v1Head+"0,w,0,0,1,2,3,4,\"[2, 3],torch.float32\n")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "line 2")
}

func TestCSVZeroBytes(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, "")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "empty file (0 bytes)")
	// inside a tree too
	_, err = LoadCSV(context.Background(), filepath.Dir(filepath.Dir(p)), nil)
	wantMonInputError(t, err, p, "empty file (0 bytes)")
}

func TestCSVEmptyFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := LoadCSV(context.Background(), dir, nil)
	wantMonInputError(t, err, dir, "empty folder")
}

func TestCSVNoRecognisedFile(t *testing.T) {
	dir := t.TempDir()
	writeMonFile(t, filepath.Join(dir, "notes.txt"), "hello")
	writeMonFile(t, filepath.Join(dir, "rank0", "stack_info.csv"), "a,b\n")
	_, err := LoadCSV(context.Background(), dir, nil)
	wantMonInputError(t, err, dir, "no monitor CSV file", "among 2 file(s)")
}

func TestCSVMissingPath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope")
	_, err := LoadCSV(context.Background(), p, nil)
	wantMonInputError(t, err, p, "does not exist")
}

func TestCSVUnreadable(t *testing.T) {
	// a folder named like a CSV: reading it as a file fails (root ignores
	// chmod 000, so this is the unreadable case every user can build)
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	os.MkdirAll(p, 0o755)
	_, err := readCSVFile(context.Background(), csvFile{path: p}, nil, nil)
	wantMonInputError(t, err, p, "is a folder")
	if os.Geteuid() != 0 {
		q := filepath.Join(t.TempDir(), "grad_unreduced_0-0.csv")
		writeMonFile(t, q, v1Head)
		os.Chmod(q, 0)
		_, err := LoadCSV(context.Background(), q, nil)
		wantMonInputError(t, err, q, "permission denied")
	}
}

func TestCSVCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := LoadCSV(ctx, filepath.Join(monitorTestdata, "csv_v1"), nil)
	if err != context.Canceled {
		t.Errorf("err %v, want context.Canceled", err)
	}
}

func TestCSVProgress(t *testing.T) {
	var last model.Progress
	calls := 0
	d, err := LoadCSV(context.Background(), filepath.Join(monitorTestdata, "csv_v1"), func(p model.Progress) { last = p; calls++ })
	if err != nil || d == nil {
		t.Fatal(err)
	}
	if calls == 0 || last.Unit != "bytes" || last.Done != last.Total || last.Total == 0 {
		t.Errorf("calls %d last %+v", calls, last)
	}
}

func TestStripVPPPrefix(t *testing.T) {
	for in, want := range map[string]string{"0:module.w": "module.w", "12:a:b": "a:b", "x:y": "x:y", ":y": ":y", "plain": "plain"} {
		if got := stripVPPPrefix(in); got != want {
			t.Errorf("stripVPPPrefix(%q) = %q want %q", in, got, want)
		}
	}
}

func TestCSVHeaderOnly(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank0", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, v1Head)
	d, err := LoadCSV(context.Background(), filepath.Dir(filepath.Dir(p)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 0 || len(said(d.WarningsReasons)) != 2 || !strings.Contains(said(d.WarningsReasons)[0], "header only, no data rows: rank 0 has nothing from this file") || !strings.Contains(said(d.WarningsReasons)[1], "hold no data rows") {
		t.Errorf("rows %d warnings %q", d.Rows.Len(), said(d.WarningsReasons))
	}
}

func TestCSVTokensAndLineEndings(t *testing.T) {
	p := filepath.Join(t.TempDir(), "rank_5", "grad_unreduced_0-0.csv")
	writeMonFile(t, p, "\ufeffvpp_stage, name ,step,norm,min,max,mean\r\n"+
		"0,a,1,NaN,-Infinity,Inf, 0.5 \r\n"+
		"0,b,1,1e400,-1e400,1e-400,-0.0\r\n\r\n")
	d, err := LoadCSV(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 2 || d.Rows.RankOf(0) != 5 {
		t.Fatalf("rows %d rank %d", d.Rows.Len(), d.Rows.RankOf(0))
	}
	v := d.Rows.Value
	assertMonVal(t, "NaN", v(model.StatNorm, 0), math.NaN())
	assertMonVal(t, "-Infinity", v(model.StatMin, 0), math.Inf(-1))
	assertMonVal(t, "Inf", v(model.StatMax, 0), math.Inf(1))
	assertMonVal(t, "spaced 0.5", v(model.StatMean, 0), 0.5)
	assertMonVal(t, "1e400", v(model.StatNorm, 1), math.Inf(1))
	assertMonVal(t, "-1e400", v(model.StatMin, 1), math.Inf(-1))
	assertMonVal(t, "1e-400", v(model.StatMax, 1), 0)
	if !math.Signbit(v(model.StatMean, 1)) {
		t.Error("-0.0 lost its sign")
	}
}

func TestCSVIncompleteLastLine(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "rank0", "grad_unreduced_0-0.csv")
	// a live file: the last row was cut mid-write (no newline)
	writeMonFile(t, p, v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n0,w,0,1,1,2")
	d, err := LoadCSV(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 1 || len(said(d.WarningsReasons)) != 1 || !strings.Contains(said(d.WarningsReasons)[0], "last line 3 is incomplete") {
		t.Errorf("rows %d warnings %q", d.Rows.Len(), said(d.WarningsReasons))
	}
	// cut inside a quoted shape
	q := filepath.Join(dir, "rank1", "grad_unreduced_0-0.csv")
	writeMonFile(t, q, v1Head+"0,w,0,0,1,2,3,4,[2],torch.float32\n0,w,0,1,1,2,3,4,\"[3072, 40")
	d, err = LoadCSV(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d.Rows.Len() != 1 || !strings.Contains(strings.Join(said(d.WarningsReasons), "|"), "last line 3 is incomplete") {
		t.Errorf("rows %d warnings %q", d.Rows.Len(), said(d.WarningsReasons))
	}
	// a short line in the middle is a counted bad line; the rest is read
	r := filepath.Join(dir, "rank2", "grad_unreduced_0-0.csv")
	writeMonFile(t, r, v1Head+"0,w,0,1,1,2\n0,w,0,0,1,2,3,4,[2],torch.float32")
	d, err = LoadCSV(context.Background(), r, nil)
	if err != nil || d.Rows.Len() != 1 || !strings.Contains(strings.Join(said(d.WarningsReasons), "|"), "1 line(s) are not data and were skipped, the file's other rows were read: line 2: 6 fields, the header has 10") {
		t.Errorf("short middle line: %v, warnings %q", err, said(d.WarningsReasons))
	}
}
