package ingest

import (
	"context"
	"fmt"
	"runtime"

	"spikescope/model"
)

// LoadCSV reads monitor CSVs: one file, or a folder tree of per-rank folders
// (v1 "<time>-rank<R>-<uuid>/", v2 "rank_<R>/", or "rank<R>/"). Files are
// parsed in parallel (up to GOMAXPROCS) and merged in (rank, rank folder,
// metric, step range) order; targets are (name, vpp_stage) pairs shared by
// all metrics. Progress is reported in bytes.
func LoadCSV(ctx context.Context, path string, p model.ProgressFunc) (*model.MonitorData, error) {
	disc, err := findMonitorCSVs(path)
	if err != nil {
		return nil, err
	}
	if len(disc.files) == 0 {
		if disc.seen == 0 {
			return nil, inputErr(path, nil, "empty folder")
		}
		return nil, inputErr(path, nil, "no monitor CSV file (<metric>_<a>-<b>.csv or <slug>_step<a>-<b>.csv) among %d file(s)", disc.seen)
	}
	var total int64
	for _, f := range disc.files {
		total += f.size
	}
	meter := newProgressMeter(p, path, "bytes", total)
	results := make([]*csvResult, len(disc.files))
	err = parallelEach(ctx, len(disc.files), runtime.GOMAXPROCS(0), func(i int) error {
		r, err := readCSVFile(ctx, disc.files[i], meter)
		results[i] = r
		return err
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	meter.finish()
	d, err := mergeCSVResults(path, results)
	if err != nil {
		return nil, err
	}
	d.Warnings = append(disc.warnings, d.Warnings...)
	if d.Rows.Len() == 0 {
		d.Warnings = append(d.Warnings, fmt.Sprintf("the %d monitor CSV file(s) hold no data rows", len(disc.files)))
	}
	return d, nil
}

// mergeCSVResults concatenates per-file rows, mapping file-local target and
// metric indices to global ones.
func mergeCSVResults(path string, results []*csvResult) (*model.MonitorData, error) {
	d := &model.MonitorData{Path: path, Format: model.FormatCSV}
	n := 0
	for _, r := range results {
		n += r.rows.Len()
	}
	d.Rows.Grow(n)
	targets := map[targetKey]int32{}
	metrics := map[string]uint8{}
	for _, r := range results {
		tmap := make([]int32, len(r.targets))
		for i, t := range r.targets {
			k := targetKey{t.Name, t.VPPStage}
			g, ok := targets[k]
			if !ok {
				g = int32(len(d.Targets))
				targets[k] = g
				d.Targets = append(d.Targets, t)
			}
			tmap[i] = g
		}
		mmap := make([]uint8, len(r.metrics))
		for i, m := range r.metrics {
			g, ok := metrics[m]
			if !ok {
				if len(d.Metrics) >= maxMetrics {
					return nil, inputErr(path, nil, "more than %d distinct metrics", maxMetrics)
				}
				g = uint8(len(d.Metrics))
				metrics[m] = g
				d.Metrics = append(d.Metrics, m)
			}
			mmap[i] = g
		}
		for s := range d.HasStat {
			d.HasStat[s] = d.HasStat[s] || r.hasStat[s]
		}
		d.ExplicitMicro = d.ExplicitMicro || r.micro
		rows := &d.Rows
		rows.Rank = append(rows.Rank, r.rows.Rank...)
		rows.Step = append(rows.Step, r.rows.Step...)
		rows.Micro = append(rows.Micro, r.rows.Micro...)
		for _, t := range r.rows.Target {
			rows.Target = append(rows.Target, tmap[t])
		}
		for _, m := range r.rows.Metric {
			rows.Metric = append(rows.Metric, mmap[m])
		}
		for s := range rows.Val {
			rows.Val[s] = append(rows.Val[s], r.rows.Val[s]...)
		}
		d.Warnings = append(d.Warnings, r.warnings...)
	}
	return d, nil
}
