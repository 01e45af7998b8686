package ui

import (
	"testing"

	"spikescope/model"
)

func cacheTestData(ranks, steps int32) (*Data, model.Anomaly) {
	md := &model.MonitorData{Format: model.FormatTrendDB, Targets: []model.Target{{Name: "w"}}, Metrics: []string{"grad"}}
	md.HasStat = [model.NumStats]bool{true, true, true, true}
	for r := int32(0); r < ranks; r++ {
		for s := int32(0); s < steps; s++ {
			v := 1 + float64(s%7)/10 + float64(r)
			md.Rows.Append(r, s, model.NoMicro, 0, 0, [model.NumStats]float64{v, v + 0.5, v - 0.5, v})
		}
	}
	a := model.Anomaly{Rank: 1, Step: int(steps / 2), TargetName: "w", Metric: "grad", Norm: 9}
	d := &Data{Monitor: md, P1: &model.Phase1Result{Anomalies: []model.Anomaly{a}}}
	d.series = buildSeriesIndex(md, d.P1.Anomalies)
	return d, a
}

// TestSeriesCurveCacheSameValues: a curve read from the cache is the curve
// read from the rows (values, steps, range, the spike's position), for
// every statistic, the second time as the first.
func TestSeriesCurveCacheSameValues(t *testing.T) {
	d, a := cacheTestData(3, 50)
	ix, r := d.series, &d.Monitor.Rows
	for _, st := range []model.Stat{model.StatNorm, model.StatMax, model.StatMin} {
		for pass := 0; pass < 2; pass++ {
			c, spike := ix.statCurve(&a, 1, st)
			rows := ix.rows[seriesKey{0, 1, 0}]
			if len(c.Vals) != len(rows) {
				t.Fatalf("stat %d: %d values, want %d", st, len(c.Vals), len(rows))
			}
			lo, hi := rawRange(c.Vals)
			if c.Lo != lo || c.Hi != hi {
				t.Errorf("stat %d: range %v..%v, values span %v..%v", st, c.Lo, c.Hi, lo, hi)
			}
			for k, i := range rows {
				if c.Vals[k] != r.Decimal(st, int(i)) || c.Steps[k] != r.Step[i] {
					t.Fatalf("stat %d point %d: %v at %d, rows say %v at %d", st, k, c.Vals[k], c.Steps[k], r.Decimal(st, int(i)), r.Step[i])
				}
			}
			if spike < 0 || int(c.Steps[spike]) != a.Step {
				t.Errorf("stat %d: spike at %d, want the point of step %d", st, spike, a.Step)
			}
		}
	}
}

// TestSeriesWarmReadsOtherMetrics: opening the series screen reads, off
// the loop, the statistics it does not show on every rank; a parameter
// too large for the cache is left alone.
func TestSeriesWarmReadsOtherMetrics(t *testing.T) {
	d, a := cacheTestData(4, 30)
	rep := seriesOf(common{data: d}, &a)
	if rep.cmd == nil {
		t.Fatal("opening the series screen reads no curves ahead")
	}
	rep.cmd()
	for r := int32(0); r < 4; r++ {
		cc := d.series.cached[seriesKey{0, r, 0}]
		if cc == nil || cc.vals[model.StatMax] == nil || cc.vals[model.StatMean] == nil {
			t.Fatalf("rank %d: Max/Mean not read ahead", r)
		}
		if cc.vals[model.StatNorm] != nil {
			t.Errorf("rank %d: the shown statistic was read off the loop too", r)
		}
	}
	big, ba := cacheTestData(2, maxCachedPoints/8)
	big.series.warm(&ba, []model.Stat{model.StatMax, model.StatMin, model.StatMean})
	if n := len(big.series.cached); n != 0 {
		t.Errorf("a parameter over the cache's room filled %d curves", n)
	}
}
