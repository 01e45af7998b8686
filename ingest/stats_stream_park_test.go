package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"spikescope/model"
)

// sameLoad fails unless got holds want's rows bit for bit: series, steps,
// micro steps, every statistic, lacks and non-finite counts.
func sameLoad(t *testing.T, got, want *model.MonitorData) {
	t.Helper()
	g, w := &got.Rows, &want.Rows
	if g.Len() != w.Len() || g.Len() == 0 {
		t.Fatalf("%d rows, want %d", g.Len(), w.Len())
	}
	if g.Lacks != w.Lacks {
		t.Fatalf("lacks %v, want %v", g.Lacks, w.Lacks)
	}
	for i := range w.Len() {
		if g.RankOf(i) != w.RankOf(i) || g.TargetOf(i) != w.TargetOf(i) || g.MetricOf(i) != w.MetricOf(i) ||
			g.Step[i] != w.Step[i] || g.MicroOf(i) != w.MicroOf(i) {
			t.Fatalf("row %d: rank %d step %d micro %d target %d metric %d, want %d %d %d %d %d", i,
				g.RankOf(i), g.Step[i], g.MicroOf(i), g.TargetOf(i), g.MetricOf(i),
				w.RankOf(i), w.Step[i], w.MicroOf(i), w.TargetOf(i), w.MetricOf(i))
		}
		for s := model.Stat(0); s < model.NumStats; s++ {
			if a, b := g.Value(s, i), w.Value(s, i); math.Float64bits(a) != math.Float64bits(b) {
				t.Fatalf("row %d %s: %v, want %v", i, model.StatNames[s], a, b)
			}
		}
	}
	if !reflect.DeepEqual(g.NonFiniteStats(), w.CountStats()) {
		t.Fatalf("non-finite counts %+v, want %+v", g.NonFiniteStats(), w.CountStats())
	}
}

// TestLoadParksSteps: a large load of a CSV tree and of a trend.db (their
// rows keyed, not in series order) parks the step column in the stream's
// file while the sort runs, and gives the rows a load holding every column
// in the heap gives; when the park's write fails, or the spill folder has
// no room for it, the sort allocates its scratch and the rows are the
// same; when reading the steps back fails, or the file comes back short,
// the load fails with one line saying so.
func TestLoadParksSteps(t *testing.T) {
	db := streamedTrendDB(t, BenchShape{Ranks: 8, Targets: 30, Metrics: 2, Steps: 40})
	inputs := []struct{ name, path string }{
		{"csv-v1", filepath.Join(monitorTestdata, "csv_v1")},
		{"csv-v2", filepath.Join(monitorTestdata, "csv_v2")},
		{"demo-csv", filepath.Join("..", "testdata", "demo", "npu", "monitor_output")},
		{"trenddb", db},
	}
	load := func(path string) (*model.MonitorData, *statStream, error) {
		st := &statStream{want: true, input: path}
		d, err := loadMonitorStream(context.Background(), path, model.FormatAuto, nil, nil, st)
		return d, st, err
	}
	failWrite := func(*os.File, []byte, int64) (int, error) { return 0, errors.New("no space left on device") }
	failRead := func(*os.File, []byte, int64) (int, error) { return 0, errors.New("input/output error") }
	shortRead := func(f *os.File, b []byte, off int64) (int, error) {
		n, err := f.ReadAt(b[:len(b)/2], off)
		return n, err
	}
	noRoom := func(string) (int64, bool) { return SpillHeadroom, true }
	for _, in := range inputs {
		t.Run(in.name, func(t *testing.T) {
			want, err := loadMonitorHeap(context.Background(), in.path, model.FormatAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, st, err := load(in.path)
			if err != nil {
				t.Fatal(err)
			}
			if st.parked != want.Rows.Len() || st.mapped != want.Rows.Len() {
				t.Fatalf("%d rows parked, %d mapped, of %d", st.parked, st.mapped, want.Rows.Len())
			}
			sameLoad(t, got, want)

			parkWriteAt = failWrite
			got, st, err = load(in.path)
			parkWriteAt = (*os.File).WriteAt
			if err != nil {
				t.Fatal(err)
			}
			if st.parked != 0 || st.mapped != want.Rows.Len() {
				t.Fatalf("write failed: %d rows parked, %d mapped", st.parked, st.mapped)
			}
			sameLoad(t, got, want)

			// room for the stream's columns (checked when it began), not
			// for the steps when the sort comes
			got, st, err = loadWithFree(t, in.path, noRoom)
			if err != nil {
				t.Fatal(err)
			}
			if st.parked != 0 || st.mapped != want.Rows.Len() {
				t.Fatalf("no room: %d rows parked, %d mapped", st.parked, st.mapped)
			}
			sameLoad(t, got, want)

			for _, read := range []func(*os.File, []byte, int64) (int, error){failRead, shortRead} {
				parkReadAt = read
				got, st, err = load(in.path)
				parkReadAt = (*os.File).ReadAt
				if err == nil || got != nil || st.parked == 0 {
					t.Fatalf("read back failed: error %v, rows %v, parked %d", err, got != nil, st.parked)
				}
				t.Log(err)
				if msg := err.Error(); !strings.Contains(msg, "reading the steps back") || strings.Contains(msg, "\n") {
					t.Fatalf("read back failed: error %q", msg)
				}
			}
		})
	}
}

// loadWithFree loads path streamed, spillFree answering the stream's
// begin as the folder has it and every later question with free.
func loadWithFree(t *testing.T, path string, free func(string) (int64, bool)) (*model.MonitorData, *statStream, error) {
	t.Helper()
	defer func(f func(string) (int64, bool)) { spillFree = f }(spillFree)
	real := spillFree
	asked := 0
	spillFree = func(dir string) (int64, bool) {
		if asked++; asked == 1 {
			return real(dir)
		}
		return free(dir)
	}
	st := &statStream{want: true, input: path}
	d, err := loadMonitorStream(context.Background(), path, model.FormatAuto, nil, nil, st)
	if asked < 2 {
		t.Fatalf("the free space was asked %d times: the park did not ask", asked)
	}
	return d, st, err
}

// TestParkStepRuns: a trend.db whose step column lies in long runs (300
// rows a step) parks its steps as runs in memory — nothing written to or
// read from the file (both fail here) — and loads the rows the heap load
// gives; with runs off it parks in the file, the same rows. Read back at
// any offset and length, runs give the column; a column of short runs, or
// of more runs than the bound, is not parked in runs.
func TestParkStepRuns(t *testing.T) {
	db := streamedTrendDB(t, BenchShape{Ranks: 8, Targets: 150, Metrics: 2, Steps: 10})
	want, err := loadMonitorHeap(context.Background(), db, model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := want.Rows.Len()
	load := func() (*model.MonitorData, *statStream) {
		t.Helper()
		st := &statStream{want: true, input: db}
		d, err := loadMonitorStream(context.Background(), db, model.FormatAuto, nil, nil, st)
		if err != nil {
			t.Fatal(err)
		}
		return d, st
	}
	parkWriteAt = func(*os.File, []byte, int64) (int, error) { return 0, errors.New("no space left on device") }
	parkReadAt = func(*os.File, []byte, int64) (int, error) { return 0, errors.New("input/output error") }
	got, st := load()
	parkWriteAt, parkReadAt = (*os.File).WriteAt, (*os.File).ReadAt
	if st.parked != n || st.parkedInRuns != n || st.mapped != n {
		t.Fatalf("%d rows parked, %d in runs, %d mapped, of %d", st.parked, st.parkedInRuns, st.mapped, n)
	}
	sameLoad(t, got, want)

	defer func(v int) { parkRunRows = v }(parkRunRows)
	parkRunRows = 0
	got, st = load()
	if st.parked != n || st.parkedInRuns != 0 {
		t.Fatalf("runs off: %d rows parked, %d in runs, of %d", st.parked, st.parkedInRuns, n)
	}
	sameLoad(t, got, want)

	parkRunRows = 4
	var col []int32
	for k, length := range []int{1, 9, 4, 1, 30, 2, 17, 8} {
		for range length {
			col = append(col, int32(100-7*k))
		}
	}
	p := &stepPark{st: &statStream{input: t.TempDir()}}
	if !p.Park(col) || p.ends == nil || p.st.parkedInRuns != len(col) {
		t.Fatalf("%d rows in 8 runs not parked in runs", len(col))
	}
	for off := range len(col) {
		for l := 1; off+l <= len(col); l += 3 {
			buf := make([]int32, l)
			if err := p.ReadBack(off, buf); err != nil || !slices.Equal(buf, col[off:off+l]) {
				t.Fatalf("rows %d..%d: %v %v, want %v", off, off+l-1, err, buf, col[off:off+l])
			}
		}
	}
	if err := p.ReadBack(len(col)-1, make([]int32, 2)); err == nil {
		t.Fatal("a read past the parked rows: no error")
	}
	for _, c := range [][]int32{
		{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}, // 16 runs of 1
		append(slices.Repeat([]int32{1}, 12), 2, 3),             // 3 runs in 14 rows: at most 3
	} {
		runs := stepRuns(c)
		if most := len(c) / parkRunRows; (runs > 0) != (runsOf(c) <= most) || (runs > 0 && runs != runsOf(c)) {
			t.Fatalf("%v: %d runs counted, %d there, at most %d", c, runs, runsOf(c), most)
		}
	}
}

// runsOf counts the runs of equal values in c the plain way.
func runsOf(c []int32) int {
	runs := 0
	for i := range c {
		if i == 0 || c[i] != c[i-1] {
			runs++
		}
	}
	return runs
}

// streamedTrendDB writes a trend.db of shape with some min cells NULL and
// lets every load in the test stream its statistics (SpillStatsMinRows 0,
// restored when the test ends).
func streamedTrendDB(t *testing.T, shape BenchShape) string {
	t.Helper()
	old := SpillStatsMinRows
	t.Cleanup(func() { SpillStatsMinRows = old })
	SpillStatsMinRows = 0
	db := filepath.Join(t.TempDir(), "streamed.trend.db")
	WriteTrendDB(t, db, shape)
	execSQL(t, db, `UPDATE trend_data SET min = NULL WHERE (step*7 + target_id) % 11 = 0`)
	return db
}
