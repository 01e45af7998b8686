package ingest

import (
	"spikescope/model"
)

// trendKeyUnique reports whether SQLite itself keeps the rows of table
// unique on (rank, step, target_id, metric_id): a primary key or unique
// index over some of those columns. data2db's trend_data has one; a
// hand-made table may not, and then duplicates are looked for.
func trendKeyUnique(c *rawConn, table string) bool {
	idx, err := c.queryAll(`SELECT name FROM pragma_index_list(?) WHERE "unique" = 1 AND partial = 0`, table)
	if err != nil {
		return false
	}
	key := map[string]bool{"rank": true, "step": true, "target_id": true, "metric_id": true}
	for _, n := range idx {
		cols, err := c.queryAll(`SELECT name FROM pragma_index_info(?)`, cellString(n[0]))
		if err != nil {
			continue
		}
		ok := len(cols) > 0
		for _, col := range cols {
			if s, isText := col[0].(string); !isText || !key[s] {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// dupKey identifies one measurement.
type dupKey struct {
	rank, step, micro, target int32
	metric                    uint8
}

// dropDuplicateRows keeps the first of rows that share rank, step, micro
// step, parameter and metric, and warns with the count and the first one:
// a duplicate would be counted twice by every rule.
func dropDuplicateRows(d *model.MonitorData) {
	r := &d.Rows
	seen := make(map[dupKey]struct{}, r.Len())
	var n int
	var first model.TrendDuplicateRows
	for i := range r.Rank {
		k := dupKey{r.Rank[i], r.Step[i], r.MicroOf(i), r.Target[i], r.Metric[i]}
		if _, dup := seen[k]; !dup {
			seen[k] = struct{}{}
			continue
		}
		if n == 0 {
			first = model.TrendDuplicateRows{Rank: int64(k.rank), Step: int64(k.step), Target: d.Targets[k.target].Name, Metric: d.Metrics[k.metric]}
		}
		n++
		r.Target[i] = badRowTarget
	}
	if n == 0 {
		return
	}
	compactRows(r)
	d.WarningsReasons = append(d.WarningsReasons, duplicateRowsWarning(n, first))
}

// duplicateRowsWarning says that n rows repeated an earlier row's key
// (first: the first repeat's key).
func duplicateRowsWarning(n int, first model.TrendDuplicateRows) model.TrendDuplicateRows {
	first.Rows = n
	return first
}
