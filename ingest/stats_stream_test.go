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

// TestStatStreamSameRows: min, max and mean written to a file as a
// trend.db is read (a CSV tree merged) and put in series order from it
// give the rows, the
// statistics (bit for bit, NaN and ±Inf included) and the non-finite
// counts that a load holding them in the heap gives — with NULL and
// out-of-range cells, a statistic that is NULL everywhere (the last, or
// one between two that are not), and duplicate
// rows (dropped on heap columns: the stream comes back first).
func TestStatStreamSameRows(t *testing.T) {
	defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
	SpillStatsMinRows = 0
	wide := func(lack string) string { // 8 ranks: read by claimed rank ranges
		path := filepath.Join(t.TempDir(), "wide.trend.db")
		WriteTrendDB(t, path, BenchShape{Ranks: 8, Targets: 30, Metrics: 2, Steps: 40})
		execSQL(t, path,
			`UPDATE trend_data SET min = NULL WHERE (step*7 + target_id) % 11 = 0`,
			`UPDATE trend_data SET max = 1e39 WHERE (step + target_id) % 13 = 0`,
			`UPDATE trend_data SET mean = -1000000001 WHERE (rank + step + target_id) % 17 = 0`,
			`UPDATE trend_data SET max = NULL WHERE metric_id = 2`)
		if lack != "" {
			execSQL(t, path, `UPDATE trend_data SET `+lack+` = NULL`)
		}
		return path
	}
	dups := wide("")
	execSQL(t, dups,
		`CREATE TABLE t2 AS SELECT * FROM trend_data`,
		`DROP TABLE trend_data`,
		`CREATE TABLE trend_data (rank INTEGER NOT NULL, step INTEGER NOT NULL, target_id INTEGER NOT NULL, metric_id INTEGER NOT NULL, norm REAL, min REAL, max REAL, mean REAL)`,
		`INSERT INTO trend_data SELECT * FROM t2`,
		`INSERT INTO trend_data SELECT rank, step, target_id, metric_id, norm * 2, min, max, mean + 1 FROM t2 WHERE step = 3`,
		`DROP TABLE t2`)
	cases := []struct {
		name, path string
		streamed   bool // its columns end mapped from the stream
	}{
		{"nan-inf", wide(""), true},
		{"lack-mean", wide("mean"), true},
		// min and mean written over the file's first two columns, the
		// row-order max between them never read
		{"lack-max", wide("max"), true},
		{"duplicates", dups, false},
		// read by the counted read (fewer ranks than ranges)
		{"four-ranks", spillCaseDB(t, false), true},
		{"four-ranks-lack-mean", spillCaseDB(t, true), true},
		// CSV trees: streamed as merged
		{"csv-v1", filepath.Join(monitorTestdata, "csv_v1"), true},
		{"csv-v2", filepath.Join(monitorTestdata, "csv_v2"), true},
		{"demo-csv", filepath.Join("..", "testdata", "demo", "npu", "monitor_output"), true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := loadMonitorHeap(context.Background(), c.path, model.FormatAuto, nil)
			if err != nil {
				t.Fatal(err)
			}
			st := &statStream{want: true, input: c.path}
			got, err := loadMonitorStream(context.Background(), c.path, model.FormatAuto, nil, nil, st)
			if err != nil {
				t.Fatal(err)
			}
			if streamed := st.mapped == got.Rows.Len(); streamed != c.streamed || got.Rows.Mapped != c.streamed {
				t.Fatalf("streamed and mapped: %v, %v; want %v", streamed, got.Rows.Mapped, c.streamed)
			}
			if st.active() {
				t.Fatal("the stream's file is still open after the load")
			}
			sameLoad(t, got, want)
			// (which duplicate is named first follows the order in which the
			// claimed rank ranges finished: only the warnings' kinds compare)
			if len(got.WarningsReasons) != len(want.WarningsReasons) {
				t.Fatalf("warnings %v, want %v", got.WarningsReasons, want.WarningsReasons)
			}
			for k := range want.WarningsReasons {
				if reflect.TypeOf(got.WarningsReasons[k]) != reflect.TypeOf(want.WarningsReasons[k]) {
					t.Fatalf("warnings %v, want %v", got.WarningsReasons, want.WarningsReasons)
				}
			}
		})
	}
}

// TestStatStreamInSeriesOrder: rows in series order already are not
// sorted; their streamed columns are mapped in the order written, put
// there through the step's array while the steps are parked (read back in
// chunks, in row order), or through a new column when parking fails; a
// failed read of the steps fails the load.
func TestStatStreamInSeriesOrder(t *testing.T) {
	defer func(v int) { SpillStatsMinRows = v }(SpillStatsMinRows)
	SpillStatsMinRows = 0
	for _, c := range []struct {
		name        string
		n           int
		write, read bool // the park's write and read work
	}{
		{"small", 1000, true, true},
		{"chunks", 2*streamChunk + 301, true, true},
		{"write-fails", 1000, false, true},
		{"read-fails", 2*streamChunk + 301, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var block model.Rows
			for i := range c.n {
				v := float64(i)
				if i%7 == 0 {
					v = math.Inf(1)
				}
				block.Append(int32(2*i/c.n), int32(i*3%c.n), model.NoMicro, 0, 0, [model.NumStats]float64{1, v, -v, math.NaN()})
			}
			rows := model.Rows{}
			rows.Lack(model.StatMean)
			block.Lack(model.StatMean)
			st := &statStream{want: true, input: t.TempDir()}
			if !st.begin(&rows, block.Len(), 2*block.Len()) {
				t.Fatal("not streamed")
			}
			rows.Resize(block.Len())
			rows.Place(0, &block)
			st.put(0, &block)
			if !c.write {
				parkWriteAt = func(*os.File, []byte, int64) (int, error) { return 0, errors.New("no space left on device") }
			}
			if !c.read {
				parkReadAt = func(f *os.File, b []byte, off int64) (int, error) {
					if off > 0 { // a later chunk
						return 0, errors.New("input/output error")
					}
					return f.ReadAt(b, off)
				}
			}
			err := st.sortRows(&rows)
			parkWriteAt, parkReadAt = (*os.File).WriteAt, (*os.File).ReadAt
			if !c.read {
				if err == nil || !strings.Contains(err.Error(), "reading the steps back") {
					t.Fatalf("read failed: error %v", err)
				}
				if rows.Len() != 0 || rows.Step != nil {
					t.Fatalf("read failed: %d rows left, steps %v", rows.Len(), rows.Step != nil)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			parked := 0
			if c.write {
				parked = block.Len()
			}
			if !rows.Mapped || st.mapped != block.Len() || st.parked != parked {
				t.Fatalf("mapped %v (%d rows), %d parked", rows.Mapped, st.mapped, st.parked)
			}
			for i := range block.Len() {
				if rows.Step[i] != block.Step[i] || rows.RankOf(i) != block.RankOf(i) || rows.TargetOf(i) != block.TargetOf(i) {
					t.Fatalf("row %d: step %d rank %d target %d, want %d %d %d", i, rows.Step[i], rows.RankOf(i), rows.TargetOf(i),
						block.Step[i], block.RankOf(i), block.TargetOf(i))
				}
				for s := model.StatMin; s < model.NumStats; s++ {
					if a, b := rows.Value(s, i), block.Value(s, i); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("row %d %s: %v, want %v", i, model.StatNames[s], a, b)
					}
				}
			}
			want := block.CountStats()
			if got := rows.NonFiniteStats(); !reflect.DeepEqual(got, want) {
				t.Fatalf("non-finite counts %+v, want %+v", got, want)
			}
		})
	}
}
