package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"spikescope/model"
)

// The estimate is near the rows the reader loads, by each of its routes:
// the pages of a WITHOUT ROWID trend_data, max(rowid) of Gen A's tables,
// the bytes of a CSV tree.
func TestEstimateMonitorRowsNearLoaded(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		path string
		f    model.Format
	}{
		{"../testdata/demo/npu/trend.db", model.FormatTrendDB},
		{"../testdata/demo/npu", model.FormatTrendDB}, // the folder holding it
		{"../testdata/monitor/gen_a_monitor_metrics.db", model.FormatTrendDB},
		{"../testdata/demo/npu/monitor_output", model.FormatCSV},
	} {
		est, ok := EstimateMonitorRows(ctx, c.path, c.f)
		if !ok {
			t.Errorf("%s: no estimate", c.path)
			continue
		}
		d, err := LoadMonitor(ctx, c.path, c.f, nil)
		if err != nil {
			t.Fatal(err)
		}
		n := int64(d.Rows.Len())
		// A database's schema and small tables take a few pages whatever
		// its rows (the 6-row Gen A fixture is 10 pages): up to 1,000 rows
		// above 3× is that floor, not an error per row.
		if est < n/2 || est > 3*n+1000 {
			t.Errorf("%s: %d rows estimated, %d loaded", c.path, est, n)
		}
	}
}

// No estimate, so no refusal, for what the reader will word (a missing
// path, a file that is no database) and for dump trees.
func TestEstimateMonitorRowsUnknown(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "x.trend.db")
	os.WriteFile(junk, []byte("not sqlite"), 0o600)
	for _, c := range []struct {
		path string
		f    model.Format
	}{
		{filepath.Join(dir, "missing.trend.db"), model.FormatTrendDB},
		{junk, model.FormatTrendDB},
		{dir, model.FormatCSV},
		{"../testdata/demo/npu/dump", model.FormatDump},
	} {
		if n, ok := EstimateMonitorRows(context.Background(), c.path, c.f); ok {
			t.Errorf("%s (%s): estimated %d rows, want no estimate", c.path, c.f, n)
		}
	}
}
