package ingest

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"spikescope/model"
)

func TestSummariseMonitorTrendDB(t *testing.T) {
	d, err := LoadMonitor(context.Background(), filepath.Join(monitorTestdata, "formats21.trend.db"), model.FormatAuto, nil)
	if err != nil {
		t.Fatal(err)
	}
	marker := &model.StageLayout{Stages: 7}
	r := SummariseMonitor(d, func(*model.MonitorData) *model.StageLayout { return marker })
	if r.Rows != 11 || !reflect.DeepEqual(r.Ranks, []int{0, 1}) || r.Steps == nil || r.Steps.Min != 0 || r.Steps.Max != 3 || r.Steps.Count != 4 {
		t.Fatalf("rows %d ranks %v steps %+v", r.Rows, r.Ranks, r.Steps)
	}
	if r.Stages != marker {
		t.Errorf("pipeline %+v: the stage function's answer is not kept", r.Stages)
	}
	var unreduced *MetricReport
	for _, m := range r.Metrics {
		if m.Name == "grad_unreduced" {
			unreduced = m
		}
	}
	if unreduced == nil || unreduced.Rows != 8 || unreduced.NonFinite["norm"].NaN != 1 || unreduced.NonFinite["min"].NegInf != 1 || unreduced.NonFinite["max"].PosInf != 1 {
		t.Errorf("grad_unreduced %+v", unreduced)
	}
	if SummariseMonitor(d, nil).Stages != nil {
		t.Error("no stage function: pipeline set")
	}
	// formats.md §2.1 lists rank 1's rows of opt step 1 only
	if got := said(StepCoverage(d)); !reflect.DeepEqual(got, []string{"rank 1 has 2 of 4 steps (missing 0-1)"}) {
		t.Errorf("coverage %q", got)
	}
}

func TestSummariseDumps(t *testing.T) {
	tr, err := LoadDumpTree(context.Background(), filepath.Join("..", "testdata", "msprobe", "examples", "quick_start", "gpu_dump"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := SummariseDumps(tr, nil)
	if r.Dumps != 2 || len(r.Steps) != 2 || r.Task != "statistics" || r.Ops != r.Forward+r.Backward+r.ParamGrads || r.Tensors == 0 {
		t.Errorf("dump summary %+v", r)
	}
	if len(r.NonFinite) != int(model.NumStats) {
		t.Errorf("non-finite counts for %d statistics, want every one", len(r.NonFinite))
	}
}

func TestCompactInts(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want string
	}{{nil, "none"}, {[]int{4}, "4"}, {[]int{0, 1, 2, 5, 7, 8}, "0-2, 5, 7-8"}} {
		if got := CompactInts(c.in); got != c.want {
			t.Errorf("CompactInts(%v) = %q, want %q", c.in, got, c.want)
		}
	}
}
