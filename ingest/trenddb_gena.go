package ingest

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"spikescope/model"
)

// genATableKeyCols are the key columns of a Gen A partition table.
var genATableKeyCols = []string{"rank", "step", "target_id"}

// loadGenA reads the older `monitor_metrics.db` (MSTT csv2db, formats.md
// §2.4): one table metric_{id}_step_{a}_{b} per metric and 500-step
// partition. There step is the real step and monitoring_targets.micro_step
// is part of target identity, so readTargets moves it to the rows. Each
// table is one chunk; rows come table by table (metric id, then step).
func (r *trendReader) loadGenA(ctx context.Context, have map[string]bool, tables []string, p model.ProgressFunc) error {
	if err := r.requireTables(have, "monitoring_targets", "monitoring_metrics"); err != nil {
		return err
	}
	if err := r.readMetrics(); err != nil {
		return err
	}
	if err := r.readTargets(); err != nil {
		return err
	}
	type part struct {
		table      string
		metric     int64
		start, end int64
	}
	var parts []part
	for _, t := range tables {
		m := genATableRE.FindStringSubmatch(t)
		id, err1 := strconv.ParseInt(m[1], 10, 64)
		a, err2 := strconv.ParseInt(m[2], 10, 64)
		b, err3 := strconv.ParseInt(m[3], 10, 64)
		if err1 != nil || err2 != nil || err3 != nil {
			continue
		}
		parts = append(parts, part{t, id, a, b})
	}
	sort.Slice(parts, func(i, j int) bool {
		if parts[i].metric != parts[j].metric {
			return parts[i].metric < parts[j].metric
		}
		return parts[i].start < parts[j].start
	})
	var chunks []*trendChunk
	for _, pt := range parts {
		cols, err := tableColumns(r.q, pt.table)
		if err != nil {
			return err
		}
		if err := requireColumns(r.path, pt.table, cols, genATableKeyCols, allNumeric(genATableKeyCols)); err != nil {
			return err
		}
		stats, err := r.checkStatColumns(pt.table, cols)
		if err != nil {
			return err
		}
		mi, ok := r.metricOf[pt.metric]
		if !ok {
			if len(r.d.Metrics) >= maxMetrics {
				return inputErr(r.path, nil, "more than %d metrics", maxMetrics)
			}
			mi = len(r.d.Metrics)
			r.metricOf[pt.metric] = mi
			r.d.Metrics = append(r.d.Metrics, fmt.Sprintf("metric_id %d", pt.metric))
			r.d.WarningsReasons = append(r.d.WarningsReasons, model.TrendMetricAbsent{Table: pt.table, Metric: int64(pt.metric)})
		}
		chunks = append(chunks, &trendChunk{
			query:  "SELECT rank, step, target_id" + statSelect(stats) + " FROM " + quoteIdent(pt.table),
			stats:  stats,
			metric: mi,
		})
	}
	if err := r.countChunks(ctx, chunks); err != nil {
		return err
	}
	for _, c := range chunks {
		r.total += c.count
	}
	r.d.WarningsReasons = append(r.d.WarningsReasons, model.TrendGenA{})
	if err := r.readChunks(ctx, chunks, p); err != nil {
		return err
	}
	return r.settleRows(ctx, true)
}
