package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"spikescope/model"
)

// TestLoadMonitorSeriesOrder: LoadMonitor hands the analysis its rows in
// series order (metric, target, rank; steps ascending within a series, so
// Phase 1 indexes them in place) and loses or changes no row against the
// reader's own key order.
func TestLoadMonitorSeriesOrder(t *testing.T) {
	ctx := context.Background()
	for _, p := range []string{"../testdata/demo/npu/trend.db", "../testdata/monitor/formats21.trend.db", "../testdata/monitor/csv_v1", "../testdata/monitor/csv_v2"} {
		d, err := LoadMonitor(ctx, p, model.FormatAuto, nil)
		if err != nil {
			t.Fatal(err)
		}
		f, _ := DetectFormat(p)
		raw, err := loadMonitor(ctx, p, f, nil, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		r := &d.Rows
		if r.Len() == 0 || r.Len() != raw.Rows.Len() {
			t.Fatalf("%s: %d rows, the reader %d", p, r.Len(), raw.Rows.Len())
		}
		for i := 1; i < r.Len(); i++ {
			a := []int64{int64(r.MetricOf(i - 1)), int64(r.TargetOf(i - 1)), int64(r.RankOf(i - 1)), int64(r.Step[i-1]), int64(r.MicroOf(i - 1))}
			b := []int64{int64(r.MetricOf(i)), int64(r.TargetOf(i)), int64(r.RankOf(i)), int64(r.Step[i]), int64(r.MicroOf(i))}
			if slices.Compare(a, b) > 0 {
				t.Fatalf("%s: row %d %v comes before row %d %v", filepath.Base(p), i-1, a, i, b)
			}
		}
		rowsOf := func(d *model.MonitorData) []string {
			var out []string
			for i := range d.Rows.Len() {
				out = append(out, fmt.Sprintf("%d %d %d %s %s %v %v %v %v", d.Rows.RankOf(i), d.Rows.Step[i], d.Rows.MicroOf(i),
					d.Targets[d.Rows.TargetOf(i)].Name, d.Metrics[d.Rows.MetricOf(i)],
					d.Rows.Value(model.StatNorm, i), d.Rows.Value(model.StatMin, i), d.Rows.Value(model.StatMax, i), d.Rows.Value(model.StatMean, i)))
			}
			slices.Sort(out)
			return out
		}
		if !slices.Equal(rowsOf(d), rowsOf(raw)) {
			t.Errorf("%s: the sorted rows differ from the reader's", p)
		}
	}
}
