package ingest

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
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
	defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
	SpillStatsMinRows = 0
	db := filepath.Join(t.TempDir(), "wide.trend.db")
	WriteTrendDB(t, db, BenchShape{Ranks: 8, Targets: 30, Metrics: 2, Steps: 40})
	execSQL(t, db, `UPDATE trend_data SET min = NULL WHERE (step*7 + target_id) % 11 = 0`)
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
