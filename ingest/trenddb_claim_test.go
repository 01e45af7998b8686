package ingest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"spikescope/model"
)

// sortedRows renders every row, sorted: what must not depend on the read.
func sortedRows(d *model.MonitorData) []string {
	var out []string
	r := &d.Rows
	for i := range r.Len() {
		out = append(out, fmt.Sprintf("%d %d %d %s %s %v %v %v %v", r.RankOf(i), r.Step[i], r.MicroOf(i), d.Targets[r.TargetOf(i)].Name,
			d.Metrics[r.MetricOf(i)], r.Value(model.StatNorm, i), r.Value(model.StatMin, i), r.Value(model.StatMax, i), r.Value(model.StatMean, i)))
	}
	slices.Sort(out)
	return out
}

// TestTrendDBClaimedReadMatchesCounted: the count-free read of rank ranges
// gives the counted read's rows (and, in series order, the same order),
// targets and warnings — on clean data, and on data with a text norm cell
// and a text key, where it hands over to the counted read and its row
// numbers.
func TestTrendDBClaimedReadMatchesCounted(t *testing.T) {
	for _, broken := range []string{"", "UPDATE trend_data SET norm = 'n/a' WHERE rank = 9 AND step = 3 AND target_id = 2",
		"UPDATE trend_data SET step = 'x' WHERE rank = 4 AND step = 1 AND target_id = 5",
		// a rank between two ranges' integer bounds and one past every
		// number: counted and read, never silently left out
		"UPDATE trend_data SET rank = 4.5 WHERE rank = 4 AND step = 1 AND target_id = 5",
		"UPDATE trend_data SET rank = 'r3' WHERE rank = 3 AND step = 0 AND target_id = 1"} {
		path := filepath.Join(t.TempDir(), "r.trend.db")
		WriteTrendDB(t, path, BenchShape{Ranks: 12, Targets: 7, Metrics: 2, Steps: 6})
		if broken != "" {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(broken); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		load := func(counted bool) *model.MonitorData {
			countedOnly = counted
			defer func() { countedOnly = false }()
			d, err := LoadTrendDB(context.Background(), path, nil)
			if err != nil {
				t.Fatal(err)
			}
			d.Rows.SortSeries()
			return d
		}
		claimed, counted := load(false), load(true)
		if claimed.Rows.Len() == 0 || !slices.Equal(sortedRows(claimed), sortedRows(counted)) {
			t.Fatalf("%q: %d rows claimed, %d counted, or they differ", broken, claimed.Rows.Len(), counted.Rows.Len())
		}
		sameNorm := slices.EqualFunc(claimed.Rows.Norm, counted.Rows.Norm, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
		if !slices.Equal(claimed.Rows.Step, counted.Rows.Step) || !sameNorm {
			t.Errorf("%q: series order differs", broken)
		}
		if !slices.Equal(said(claimed.WarningsReasons), said(counted.WarningsReasons)) || len(claimed.Targets) != len(counted.Targets) {
			t.Errorf("%q: warnings\n%q\n%q", broken, said(claimed.WarningsReasons), said(counted.WarningsReasons))
		}
		if broken != "" && len(said(claimed.WarningsReasons)) == 0 {
			t.Errorf("%q: no warning", broken)
		}
	}
}

// TestTrendDBKeyedLoadMatchesPerRow: LoadMonitor's claimed read keeps one
// series key a row instead of rank, target and metric; its rows in series
// order equal, bit for bit, those of the per-row read sorted the same way
// — on clean data, ranks with gaps, NULL norms and minima, and an unknown
// target id (outside the key space: the counted read takes over).
func TestTrendDBKeyedLoadMatchesPerRow(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2)) // rank ranges need two readers
	for _, change := range []string{"",
		"DELETE FROM trend_data WHERE rank IN (3, 4, 5, 11)",
		"UPDATE trend_data SET norm = NULL, min = NULL WHERE step = 2 AND target_id = 3",
		"UPDATE trend_data SET target_id = 999 WHERE rank = 6 AND step = 1 AND target_id = 2"} {
		path := filepath.Join(t.TempDir(), "k.trend.db")
		WriteTrendDB(t, path, BenchShape{Ranks: 12, Targets: 7, Metrics: 2, Steps: 6})
		if change != "" {
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(change); err != nil {
				t.Fatal(err)
			}
			db.Close()
		}
		keyed, err := LoadMonitor(context.Background(), path, model.FormatTrendDB, nil)
		if err != nil {
			t.Fatal(err)
		}
		perRow, err := LoadTrendDB(context.Background(), path, nil)
		if err != nil {
			t.Fatal(err)
		}
		perRow.Rows.SortSeries()
		runsOf := func(r *model.Rows) []model.Run { return slices.Collect(r.Runs()) }
		if keyed.Rows.Len() == 0 || !slices.Equal(sortedRows(keyed), sortedRows(perRow)) || !slices.Equal(runsOf(&keyed.Rows), runsOf(&perRow.Rows)) {
			t.Fatalf("%q: %d rows keyed, %d per row, or they differ", change, keyed.Rows.Len(), perRow.Rows.Len())
		}
		sameNorm := slices.EqualFunc(keyed.Rows.Norm, perRow.Rows.Norm, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) })
		if !slices.Equal(keyed.Rows.Step, perRow.Rows.Step) || !sameNorm || keyed.Rows.Keyed() {
			t.Errorf("%q: series order differs", change)
		}
		if len(keyed.Targets) != len(perRow.Targets) || !slices.Equal(said(keyed.WarningsReasons), said(perRow.WarningsReasons)) {
			t.Errorf("%q: targets or warnings differ\n%q\n%q", change, said(keyed.WarningsReasons), said(perRow.WarningsReasons))
		}
	}
}
