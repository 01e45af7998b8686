package ingest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"spikescope/model"
)

// An empty trend.db, one of one row, and a CSV tree of one row load out
// of core as in memory: the same rows (none, one), lacks, warnings.
func TestOutOfCoreEmptyAndOneRow(t *testing.T) {
	dir := t.TempDir()
	empty, one := filepath.Join(dir, "empty.trend.db"), filepath.Join(dir, "one.trend.db")
	execSQL(t, empty, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`, `INSERT INTO monitoring_targets VALUES(1,'w',0,0)`)
	execSQL(t, one, ddlTargets, ddlMetrics, ddlTrend,
		`INSERT INTO monitoring_metrics VALUES(1,'grad_unreduced')`, `INSERT INTO monitoring_targets VALUES(1,'w',0,0)`,
		`INSERT INTO trend_data VALUES(0,5,1,1,1.5,NULL,2,3)`)
	tree := filepath.Join(dir, "csv")
	if err := os.MkdirAll(tree, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "grad_reduced_0-0.csv"), []byte("vpp_stage,name,step,micro_step,norm,min,max,mean\n0,w,0,0,1.25,-1,1,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	spillDir := t.TempDir()
	for _, p := range []string{empty, one, tree} {
		want, err := LoadMonitor(context.Background(), p, model.FormatAuto, nil)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		got, err := LoadMonitorOutOfCore(context.Background(), p, model.FormatAuto, nil, OutOfCore{Dir: spillDir, ChunkRows: 1, BucketRows: 1})
		if err != nil {
			t.Fatalf("%s out of core: %v", p, err)
		}
		sameRows(t, p, &want.Rows, &got.Rows)
		if !reflect.DeepEqual(said(want.WarningsReasons), said(got.WarningsReasons)) || want.HasStat != got.HasStat {
			t.Errorf("%s: warnings %q stats %v, want %q %v", p, said(got.WarningsReasons), got.HasStat, said(want.WarningsReasons), want.HasStat)
		}
		if want.Rows.Len() > 0 && (got.Rows.NonFiniteStats() == nil || !reflect.DeepEqual(got.Rows.NonFiniteStats().ByMetric, want.Rows.CountStats().ByMetric)) {
			t.Errorf("%s: counts %+v, want %+v", p, got.Rows.NonFiniteStats(), want.Rows.CountStats())
		}
	}
}
