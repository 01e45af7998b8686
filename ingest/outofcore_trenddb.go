package ingest

import "context"

// settleRows applies what the in-memory path applies to the whole rows
// once a trend.db is read (the duplicate rule when SQLite does not keep
// the key unique); out of core it hands the rule, and the micro rule the
// scanner could not apply to rows it no longer holds, to the sink's sort.
func (r *trendReader) settleRows(ctx context.Context, unique bool) error {
	if r.sink == nil {
		if !unique {
			if err := r.stream.back(&r.d.Rows); err != nil { // rows are dropped: on heap columns
				return err
			}
			r.d.Rows.Unkey() // row by row
			dropDuplicateRows(r.d)
		}
		return nil
	}
	r.sink.microRule, r.sink.dedup = r.microMode, !unique
	built, err := r.sink.build(ctx, r.d)
	if err != nil {
		return err
	}
	if built.dups > 0 {
		r.d.WarningsReasons = append(r.d.WarningsReasons, duplicateRowsWarning(built.dups, built.firstDup))
	}
	return nil
}

// rowCount is the rows read so far, wherever they are.
func (r *trendReader) rowCount() int {
	if r.sink != nil && r.d.Rows.Len() == 0 {
		return r.sink.len()
	}
	return r.d.Rows.Len()
}
