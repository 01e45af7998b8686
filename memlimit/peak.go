package memlimit

import "spikescope/model"

// Peak memory of a run per monitor row, from the peak RSS of `spikescope
// detect` on generated inputs (docs/benchmarks.md, "Scale" sections). A
// reader or model change that moves these figures must update them here.
const (
	// BaseBytes is the peak RSS of detect on a tiny input
	// (testdata/monitor/formats21.trend.db: 11.1–11.5 MB) plus what a large
	// input adds whatever its rows: the pages of spilled min, max and mean
	// that the kernel maps in around the candidates' rows (64 KB a fault:
	// 6.2–6.5 MB at 2M and 16M rows, "min/max/mean off the heap" in
	// docs/benchmarks.md), rounded up.
	BaseBytes = 24 << 20
	// TrendDBPeakBytesPerRow: trend.db detect above the base, 48.9–51 B/row
	// at 2M and 42.5–43.6 at 16M rows ("The series table" and "Memory
	// budget" in docs/benchmarks.md): the reader's preallocated rows plus
	// the series sort's scratch. The rows hold less afterwards: 16 B/row
	// once min, max and mean are spilled (ingest.SpillStatsMinRows).
	TrendDBPeakBytesPerRow = 49
	// CSVPeakBytesPerRow: v1 CSV tree detect above the base, 48.4–48.5 B/row
	// at 2M and 45.4 at 16M rows ("The CSV reader's merge" in
	// docs/benchmarks.md; 44 with min/max/mean spilled): the merged rows
	// plus the series sort's scratch, once the reader reuses its per-file
	// rows (82–85 B/row before).
	CSVPeakBytesPerRow = 49
)

// Near is the share of the budget above which a run that fits is still
// warned about: the estimate's error is of this order.
const Near = 0.8

// PeakBytes is the expected peak memory of reading rows monitor rows of
// format f and analysing them; false when the format has no figure (a dump
// tree: small, not estimated).
func PeakBytes(f model.Format, rows int64) (int64, bool) {
	switch f {
	case model.FormatTrendDB:
		return rows * TrendDBPeakBytesPerRow, true
	case model.FormatCSV:
		return rows * CSVPeakBytesPerRow, true
	}
	return 0, false
}
